//! Two platforms in two processes, talking over HTTP (the Agora wire format): every
//! paradigm crosses the process boundary.
//!
//! ```text
//! cargo run --example http_two_platforms
//! ```
//!
//! The program re-executes itself with the argument `server`: that process hosts a
//! billing agent, an analyst with a language model, an order monitor and an ops agent,
//! and prints its URL. The first process is the client platform: an order desk, a
//! developer and a dashboard. It adds the server as a peer and runs a direct action, a
//! role action, a text question, a request that succeeds and one that times out, a
//! broadcast, a publication (and one coming back from the server), and a debate whose
//! participants live in both processes. Closing the server's stdin ends it.

use std::process::Stdio;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use serde_json::json;
use tnsai_coordination::transport::http::HttpConfig;
use tnsai_coordination::{DebateStatus, Platform, ProtocolError, ProtocolManager};
use tnsai_core::prelude::*;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};
use tokio::sync::Mutex;

// ---- the server's agents -------------------------------------------------------------

/// Charges orders and publishes each order's new status.
#[direct_message]
#[pub_sub(can_subscribe = false)]
#[derive(Default)]
struct BillingAgent {
    manager: OnceLock<ProtocolManager>,
}

#[actions]
impl BillingAgent {
    /// Charges an order. Parameters: orderId, amountCents.
    #[action(name = "processOrder")]
    async fn process_order(&self, params: Params) -> ActionResult {
        let order = params.require_str("orderId")?.to_owned();
        let cents = params.require_i64("amountCents")?;
        if cents <= 0 {
            return Err(ActionError::new(format!(
                "order {order}: amount must be positive"
            )));
        }
        if let Some(pm) = self.manager.get() {
            // Reaches the dashboard on the client platform: publish goes to every peer.
            pm.publish(
                "orders.status",
                json!({ "orderId": order, "status": "charged" }),
            )
            .await
            .map_err(|e| ActionError::new(e.to_string()))?;
        }
        Ok(json!({ "orderId": order, "status": "charged", "amountCents": cents }))
    }

    /// Refunds an order; reserved for the billing role.
    #[action(role = "billing-role")]
    async fn refund(&self, params: Params) -> ActionResult {
        Ok(json!({ "orderId": params.require_str("orderId")?, "status": "refunded" }))
    }

    /// Produces the monthly report, slowly.
    #[action(name = "monthlyReport")]
    async fn monthly_report(&self, _params: Params) -> ActionResult {
        tokio::time::sleep(Duration::from_secs(2)).await;
        Ok(json!({ "report": "too late to matter" }))
    }
}

/// Answers text with a scripted model.
#[direct_message]
struct AnalystAgent {
    model: Arc<dyn LanguageModel>,
}

#[actions]
impl AnalystAgent {
    #[language_model]
    fn model(&self) -> Arc<dyn LanguageModel> {
        Arc::clone(&self.model)
    }
}

/// Watches order broadcasts and order publications, and tells what it saw.
#[direct_message]
#[broadcast(topic = "orders", can_publish = false)]
#[pub_sub(topics = ["orders.>"], can_publish = false)]
#[derive(Default)]
struct MonitorAgent {
    seen: Mutex<Vec<String>>,
}

#[actions]
impl MonitorAgent {
    /// What the monitor received so far.
    #[action]
    async fn seen(&self, _params: Params) -> ActionResult {
        Ok(json!(*self.seen.lock().await))
    }

    #[on_message_received]
    async fn on_message(&self, message: Message) {
        let line = format!(
            "{} on {} from {}: {}",
            message.kind(),
            message.topic().unwrap_or_default(),
            message.sender(),
            message.payload()
        );
        self.seen.lock().await.push(line);
    }
}

/// Takes part in debates; told by a remote caller which position to take.
#[direct_message]
#[debate]
#[derive(Default)]
struct OpsAgent {
    manager: OnceLock<ProtocolManager>,
}

#[actions]
impl OpsAgent {
    /// Takes a position in a debate. Parameters: session, stance, argument.
    #[action(name = "takePosition")]
    async fn take_position(&self, params: Params) -> ActionResult {
        let pm = self
            .manager
            .get()
            .ok_or_else(|| ActionError::new("not ready"))?;
        let session = pm
            .submit_debate_position(
                params.require_str("session")?,
                params.require_str("stance")?,
                7,
                params.get_str("argument").unwrap_or("ops says so"),
            )
            .await
            .map_err(|e| ActionError::new(e.to_string()))?;
        Ok(json!({ "round": session.round() }))
    }
}

async fn serve() -> Result<(), Box<dyn std::error::Error>> {
    let platform = Platform::new();
    let billing = platform
        .spawn("billing-agent", BillingAgent::default())
        .await?;
    let _ = billing
        .agent()
        .manager
        .set(billing.protocol_manager().ok_or("no manager")?);
    let model = ScriptedModel::new()
        .when_contains("summar", "Q3: revenue up 12%, refunds down 3%.")
        .otherwise("I can summarize the quarterly report.");
    platform
        .spawn(
            "analyst-agent",
            AnalystAgent {
                model: Arc::new(model),
            },
        )
        .await?;
    platform.spawn("monitor", MonitorAgent::default()).await?;
    let ops = platform.spawn("ops-agent", OpsAgent::default()).await?;
    let _ = ops
        .agent()
        .manager
        .set(ops.protocol_manager().ok_or("no manager")?);
    let http = platform.serve_http(HttpConfig::new()).await?;
    // The one line the client reads: where this platform is.
    println!("{}", http.url().ok_or("no URL")?);
    // Serve until the client closes our stdin.
    let mut rest = Vec::new();
    tokio::io::stdin().read_to_end(&mut rest).await?;
    platform.shutdown().await;
    Ok(())
}

// ---- the client's agents -------------------------------------------------------------

/// Takes orders, tells everyone about them, and chairs the release debate.
#[direct_message]
#[request_reply(timeout = 800)]
#[broadcast(topic = "orders")]
#[pub_sub]
#[debate(strategy = Majority, max_rounds = 2)]
struct OrderAgent;

/// A debate participant on the client platform.
#[debate]
struct DevAgent;

/// Shows order status updates published anywhere.
#[pub_sub(topics = ["orders.status"], can_publish = false)]
#[derive(Default)]
struct Dashboard {
    updates: Mutex<Vec<String>>,
}

#[actions]
impl Dashboard {
    #[on_message_received]
    async fn on_message(&self, message: Message) {
        self.updates
            .lock()
            .await
            .push(format!("{} from {}", message.payload(), message.sender()));
    }
}

async fn client() -> Result<(), Box<dyn std::error::Error>> {
    let mut server = tokio::process::Command::new(std::env::current_exe()?)
        .arg("server")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()?;
    let stdout = server.stdout.take().ok_or("no stdout")?;
    let mut lines = BufReader::new(stdout).lines();
    let url = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
        .await??
        .ok_or("the server process ended before printing its URL")?;
    println!("server platform (pid {:?}) at {url}", server.id());

    let platform = Platform::new();
    let orders = platform.spawn("order-agent", OrderAgent).await?;
    let dev = platform.spawn("dev-agent", DevAgent).await?;
    let dashboard = platform.spawn("dashboard", Dashboard::default()).await?;
    let http = platform.serve_http(HttpConfig::new()).await?;
    let remote = http.add_peer(&url).await?;
    println!(
        "client platform at {}; the server hosts {remote:?}",
        http.url().unwrap_or_default()
    );
    let pm = orders.protocol_manager().ok_or("no manager")?;

    // 1. Direct action, its own error, and a role action.
    let reply = pm
        .execute_action(
            "billing-agent",
            "processOrder",
            params! {"orderId" => "12345", "amountCents" => 4_999},
        )
        .await?;
    println!("[direct] processOrder -> {}", reply.payload());
    let refused = pm
        .execute_action(
            "billing-agent",
            "processOrder",
            params! {"orderId" => "12346", "amountCents" => 0},
        )
        .await
        .unwrap_err();
    println!("[direct] processOrder with 0 cents -> error: {refused}");
    let refund = pm
        .execute_role_action(
            "billing-agent",
            "billing-role",
            "refund",
            params! {"orderId" => "12345"},
        )
        .await?;
    println!("[role] refund as billing-role -> {}", refund.payload());

    // 2. Text answered by the server's language model.
    let answer = pm
        .send_message("analyst-agent", "Please summarize the quarterly report")
        .await?;
    println!(
        "[text] analyst says: {}",
        answer.content().unwrap_or_default()
    );

    // 3. Request/reply: one in time, one past the 800 ms timeout.
    let ok = pm
        .request(
            "billing-agent",
            "processOrder",
            params! {"orderId" => "12347", "amountCents" => 1_500},
        )
        .await?;
    println!("[request] processOrder -> {}", ok.payload());
    match pm
        .request("billing-agent", "monthlyReport", Params::new())
        .await
    {
        Err(ProtocolError::Timeout) => {
            println!("[request] monthlyReport -> Request timed out (as expected)")
        }
        other => return Err(format!("expected a timeout, got {other:?}").into()),
    }

    // 4. Broadcast and publish reach the server's monitor; the report names it.
    let report = pm
        .broadcast(json!({"event": "order-created", "orderId": "12345"}))
        .await?;
    println!("[broadcast] delivered to {:?}", report.delivered());
    let report = pm
        .publish(
            "orders.shipping",
            json!({"orderId": "12345", "carrier": "DHL"}),
        )
        .await?;
    println!(
        "[publish] orders.shipping delivered to {:?}",
        report.delivered()
    );
    // Callbacks run after delivery, one at a time: ask until the last one has run
    // (two status publications from processOrder, the broadcast, the publication).
    let mut seen = pm.execute_action("monitor", "seen", Params::new()).await?;
    for _ in 0..100 {
        if seen
            .payload()
            .as_array()
            .is_some_and(|lines| lines.len() >= 4)
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
        seen = pm.execute_action("monitor", "seen", Params::new()).await?;
    }
    println!("[remote] the monitor saw {}", seen.payload());

    // 5. A debate across both processes: dev-agent here, ops-agent there.
    let session = pm
        .start_debate("Ship the release on Friday?", ["dev-agent", "ops-agent"])
        .await?;
    let dev_pm = dev.protocol_manager().ok_or("no manager")?;
    dev_pm
        .submit_debate_position(session.id(), "NO", 8, "Load test pending")
        .await?;
    pm.execute_action(
        "ops-agent",
        "takePosition",
        params! {"session" => session.id(), "stance" => "no", "argument" => "Staging is red"},
    )
    .await?;
    let decided = pm.debate(session.id()).await?;
    println!(
        "[debate] {:?} after round {}: {}",
        decided.status(),
        decided.round(),
        decided.decision().unwrap_or("none")
    );
    if decided.status() != DebateStatus::Consensus {
        return Err("the debate should have reached consensus".into());
    }

    // 6. The billing agent published status updates back to our dashboard.
    for _ in 0..200 {
        if dashboard.agent().updates.lock().await.len() >= 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    println!(
        "[publish from server] dashboard shows {:?}",
        dashboard.agent().updates.lock().await
    );

    platform.shutdown().await;
    drop(server.stdin.take()); // the server stops when its stdin closes
    let status = tokio::time::timeout(Duration::from_secs(10), server.wait()).await??;
    println!("server process exited ({status})");
    Ok(())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    match std::env::args().nth(1).as_deref() {
        Some("server") => serve().await,
        None | Some("client") => client().await,
        Some(other) => Err(format!("unknown role `{other}`; use `server` or nothing").into()),
    }
}
