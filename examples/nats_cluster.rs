//! Two platforms in two processes, exchanging every paradigm through a NATS server.
//!
//! Start a server with JetStream (Debian: `apt-get install nats-server`), then run the
//! example:
//!
//! ```text
//! nats-server -js -a 127.0.0.1 -p 4222
//! cargo run --example nats_cluster --features nats
//! ```
//!
//! `NATS_URL` overrides the server address. The first process is the order desk; it
//! starts a second copy of itself (`--services`) that hosts billing, an analyst with a
//! language model, a monitor, and two debaters. The only link between the two is the
//! NATS server.

use std::io::BufRead;
use std::process::{Command, Stdio};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use serde_json::json;
use tnsai_coordination::transport::nats::{NatsConfig, NatsTransport};
use tnsai_coordination::{Platform, ProtocolManager};
use tnsai_core::prelude::*;

fn url() -> String {
    std::env::var("NATS_URL").unwrap_or_else(|_| "nats://127.0.0.1:4222".to_owned())
}

// ---- the services process -------------------------------------------------------------

/// Charges orders; its inbox is durable, so orders sent while it is down wait for it.
#[direct_message(transport = Nats, endpoint = "nats://127.0.0.1:4222", durable = true)]
#[derive(Default)]
struct Billing;

#[actions]
impl Billing {
    /// Charges an order.
    #[action(name = "processOrder")]
    async fn process_order(&self, params: Params) -> ActionResult {
        let order = params.require_str("orderId")?;
        Ok(json!({ "orderId": order, "status": "charged" }))
    }

    /// Refunds an order; reserved for the billing role.
    #[action(role = "billing-role")]
    async fn refund(&self, params: Params) -> ActionResult {
        Ok(json!({ "orderId": params.require_str("orderId")?, "status": "refunded" }))
    }
}

/// Answers questions in text.
#[direct_message(transport = Nats, endpoint = "nats://127.0.0.1:4222")]
#[derive(Default)]
struct Analyst;

#[actions]
impl Analyst {
    #[language_model]
    fn model(&self) -> Arc<dyn LanguageModel> {
        Arc::new(
            ScriptedModel::new()
                .when_contains("summar", "Q3: revenue +12%, costs -3%.")
                .otherwise("I only summarize reports."),
        )
    }
}

/// Watches order news and alerts.
#[broadcast(topic = "orders", transport = Nats, broker = "nats://127.0.0.1:4222")]
#[pub_sub(topics = ["alerts.>"], transport = Nats, broker = "nats://127.0.0.1:4222")]
#[derive(Default)]
struct Monitor;

#[actions]
impl Monitor {
    #[on_message_received]
    async fn on_message(&self, message: Message) {
        println!(
            "  [services] monitor got {} on {:?}: {}",
            message.kind(),
            message.topic().unwrap_or_default(),
            message.payload()
        );
    }
}

/// Takes part in release debates.
#[debate(strategy = Majority, transport = Nats, broker = "nats://127.0.0.1:4222")]
#[derive(Default)]
struct Reviewer;

/// Lets the order desk ask the reviewers to take their positions (a stand-in for
/// whatever makes people decide).
#[direct_message]
#[derive(Default)]
struct ReviewBoard {
    reviewers: OnceLock<Vec<ProtocolManager>>,
}

#[actions]
impl ReviewBoard {
    /// Every reviewer takes a position in the debate `session`.
    #[action]
    async fn review(&self, params: Params) -> ActionResult {
        let session = params.require_str("session")?;
        let reviewers = self
            .reviewers
            .get()
            .ok_or_else(|| ActionError::new("no reviewers yet"))?;
        for (reviewer, (stance, argument)) in reviewers
            .iter()
            .zip([("YES", "all tests pass"), ("YES", "rollback is ready")])
        {
            reviewer
                .submit_debate_position(session, stance, 8, argument)
                .await
                .map_err(|e| ActionError::new(e.to_string()))?;
        }
        Ok(json!({ "reviewed": reviewers.len() }))
    }
}

async fn services() -> Result<(), Box<dyn std::error::Error>> {
    let platform = Platform::new();
    platform.connect_nats(NatsConfig::new(url())).await?;
    platform.spawn("billing", Billing).await?;
    platform.spawn("analyst", Analyst).await?;
    platform.spawn("monitor", Monitor).await?;
    let qa = platform.spawn("qa", Reviewer).await?;
    let ops = platform.spawn("ops", Reviewer).await?;
    let board = platform
        .spawn("review-board", ReviewBoard::default())
        .await?;
    let managers = [qa, ops]
        .iter()
        .filter_map(|h| h.protocol_manager())
        .collect();
    let _ = board.agent().reviewers.set(managers);
    println!("ready");
    // Serve until the order desk closes our stdin.
    tokio::task::spawn_blocking(|| for _ in std::io::stdin().lock().lines() {}).await?;
    platform.shutdown().await;
    Ok(())
}

// ---- the order desk process -----------------------------------------------------------

/// Takes orders and speaks every paradigm.
#[direct_message(transport = Nats, endpoint = "nats://127.0.0.1:4222")]
#[request_reply(timeout = 2000, transport = Nats, endpoint = "nats://127.0.0.1:4222")]
#[broadcast(topic = "orders", transport = Nats, broker = "nats://127.0.0.1:4222")]
#[pub_sub(transport = Nats, broker = "nats://127.0.0.1:4222")]
#[debate(strategy = Majority, transport = Nats, broker = "nats://127.0.0.1:4222")]
#[derive(Default)]
struct OrderDesk;

async fn wait_for(nats: &NatsTransport, ids: &[&str]) -> Result<(), String> {
    for _ in 0..500 {
        let known = nats.discovered();
        if ids
            .iter()
            .all(|id| known.iter().any(|a| a.description.id == *id))
        {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    Err(format!("{ids:?} were not discovered within 5 s"))
}

async fn order_desk() -> Result<(), Box<dyn std::error::Error>> {
    let mut child = Command::new(std::env::current_exe()?)
        .arg("--services")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()?;
    let mut lines = std::io::BufReader::new(child.stdout.take().ok_or("no child stdout")?).lines();
    match lines.next() {
        Some(Ok(line)) if line == "ready" => {}
        other => return Err(format!("the services process did not start: {other:?}").into()),
    }
    // Relay what the services process prints.
    std::thread::spawn(move || {
        for line in lines.map_while(Result::ok) {
            println!("{line}");
        }
    });

    let platform = Platform::new();
    let nats = platform.connect_nats(NatsConfig::new(url())).await?;
    let desk = platform.spawn("order-desk", OrderDesk).await?;
    wait_for(
        &nats,
        &["billing", "analyst", "monitor", "qa", "ops", "review-board"],
    )
    .await?;
    println!(
        "[orders] discovered: {:?}",
        nats.discovered()
            .iter()
            .map(|a| a.description.id.to_string())
            .collect::<Vec<_>>()
    );
    let pm = desk.protocol_manager().ok_or("annotated agent")?;

    let charged = pm
        .execute_action("billing", "processOrder", params! {"orderId" => "A-1"})
        .await?;
    println!("[orders] direct action:  {}", charged.payload());
    let refunded = pm
        .execute_role_action(
            "billing",
            "billing-role",
            "refund",
            params! {"orderId" => "A-1"},
        )
        .await?;
    println!("[orders] role action:    {}", refunded.payload());
    let summary = pm
        .send_message("analyst", "Please summarize the quarter")
        .await?;
    println!(
        "[orders] text:           {}",
        summary.content().unwrap_or_default()
    );
    let requested = pm
        .request("billing", "processOrder", params! {"orderId" => "A-2"})
        .await?;
    println!("[orders] request/reply:  {}", requested.payload());

    let report = pm
        .broadcast(json!({"orderId": "A-2", "event": "shipped"}))
        .await?;
    println!("[orders] broadcast delivered to {:?}", report.delivered());
    let report = pm
        .publish("alerts.payments.late", json!({"orderId": "A-3"}))
        .await?;
    println!(
        "[orders] publish alerts.payments.late delivered to {:?}",
        report.delivered()
    );

    let session = pm.start_debate("Release on Friday?", ["qa", "ops"]).await?;
    pm.execute_action(
        "review-board",
        "review",
        params! {"session" => session.id()},
    )
    .await?;
    let session = pm.debate(session.id()).await?;
    println!(
        "[orders] debate: {:?}, decision {:?} after round {}",
        session.status(),
        session.decision(),
        session.round()
    );

    let missing = pm.execute_action("nobody", "anything", Params::new()).await;
    println!(
        "[orders] unknown agent:  {}",
        missing.err().map(|e| e.to_string()).unwrap_or_default()
    );

    platform.shutdown().await;
    // Closing its stdin tells the services process to shut down.
    drop(child.stdin.take());
    child.wait()?;
    Ok(())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    if std::env::args().any(|arg| arg == "--services") {
        services().await
    } else {
        order_desk().await
    }
}
