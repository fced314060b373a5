//! Quickstart: an order desk, a billing service, an analyst with a language model, two
//! monitors and a dashboard, all on the in-process transport.
//!
//! Run with `cargo run --example quickstart`.

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use tnsai_coordination::{Platform, ProtocolError};
use tnsai_core::prelude::*;
use tokio::sync::Mutex;

/// Takes orders and tells everyone about them.
#[direct_message]
#[request_reply(timeout = 500)]
#[broadcast(topic = "orders")]
#[pub_sub(topics = ["orders.status"])]
#[derive(Default)]
struct OrderAgent;

/// Charges orders; refunds are reserved for the billing role.
#[direct_message]
#[derive(Default)]
struct BillingAgent {
    charged_cents: std::sync::atomic::AtomicI64,
}

#[actions]
impl BillingAgent {
    /// Charges an order and reports its status.
    #[action(name = "processOrder")]
    async fn process_order(&self, params: Params) -> ActionResult {
        let order = params.require_str("orderId")?;
        let cents = params.require_i64("amountCents")?;
        if cents <= 0 {
            return Err(ActionError::new(format!(
                "order {order}: amount must be positive"
            )));
        }
        self.charged_cents
            .fetch_add(cents, std::sync::atomic::Ordering::SeqCst);
        Ok(json!({ "orderId": order, "status": "charged", "amountCents": cents }))
    }

    /// Refunds an order; only callers acting in the billing role may.
    #[action(role = "billing-role")]
    async fn refund(&self, params: Params) -> ActionResult {
        let order = params.require_str("orderId")?;
        Ok(json!({ "orderId": order, "status": "refunded" }))
    }

    /// Produces the monthly report, slowly.
    #[action(name = "monthlyReport")]
    async fn monthly_report(&self, _params: Params) -> ActionResult {
        tokio::time::sleep(Duration::from_secs(2)).await;
        Ok(json!({ "report": "too late to matter" }))
    }
}

/// Answers questions about the numbers with a (scripted, offline) language model.
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

/// Watches every order broadcast.
#[broadcast(topic = "orders", can_publish = false)]
#[derive(Default)]
struct MonitorAgent {
    seen: Mutex<Vec<String>>,
}

#[actions]
impl MonitorAgent {
    #[on_message_received]
    async fn on_message(&self, message: Message) {
        let line = format!(
            "{} {} from {}",
            message.kind(),
            message.payload(),
            message.sender()
        );
        self.seen.lock().await.push(line);
    }
}

/// Shows order status updates: everything published under `orders.>`.
#[pub_sub(topics = ["orders.>"], can_publish = false)]
#[derive(Default)]
struct DashboardAgent {
    updates: Mutex<Vec<String>>,
}

#[actions]
impl DashboardAgent {
    #[on_message_received]
    async fn on_message(&self, message: Message) {
        let topic = message.topic().unwrap_or_default().to_owned();
        self.updates
            .lock()
            .await
            .push(format!("{topic}: {}", message.payload()));
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let platform = Platform::new();
    let orders = platform.spawn("order-agent", OrderAgent).await?;
    let billing = platform
        .spawn("billing-agent", BillingAgent::default())
        .await?;
    let model = ScriptedModel::new()
        .when_contains(
            "summar",
            "Q3: revenue up 12%, refunds down 3%, two large orders pending.",
        )
        .otherwise("I can summarize the quarterly report.");
    platform
        .spawn(
            "analyst-agent",
            AnalystAgent {
                model: Arc::new(model),
            },
        )
        .await?;
    let monitor_a = platform.spawn("monitor-a", MonitorAgent::default()).await?;
    let monitor_b = platform.spawn("monitor-b", MonitorAgent::default()).await?;
    let dashboard = platform
        .spawn("dashboard", DashboardAgent::default())
        .await?;
    println!("spawned {} agents: {:?}", platform.len(), platform.agents());

    let pm = orders
        .protocol_manager()
        .expect("the order agent is annotated");
    println!("order-agent speaks {:?}", pm.paradigms());

    // 1. Direct action.
    let reply = pm
        .execute_action(
            "billing-agent",
            "processOrder",
            params! {"orderId" => "12345", "amountCents" => 4_999},
        )
        .await?;
    println!("[direct] processOrder -> {}", reply.payload());

    // 2. The action's own error reaches the caller as its text.
    let refused = pm
        .execute_action(
            "billing-agent",
            "processOrder",
            params! {"orderId" => "12346", "amountCents" => 0},
        )
        .await
        .unwrap_err();
    println!("[direct] processOrder with 0 cents -> error: {refused}");

    // 3. A role action: only through execute_role_action with its role.
    let refund = pm
        .execute_role_action(
            "billing-agent",
            "billing-role",
            "refund",
            params! {"orderId" => "12345"},
        )
        .await?;
    println!("[role] refund as billing-role -> {}", refund.payload());
    let no_role = pm
        .execute_action("billing-agent", "refund", params! {"orderId" => "12345"})
        .await
        .unwrap_err();
    println!("[role] refund without the role -> error: {no_role}");

    // 4. Text answered by a language model.
    let answer = pm
        .send_message("analyst-agent", "Please summarize the quarterly report")
        .await?;
    println!(
        "[text] analyst says: {}",
        answer.content().unwrap_or_default()
    );

    // 5. Broadcast to the monitors.
    let report = pm
        .broadcast(json!({"event": "order-created", "orderId": "12345"}))
        .await?;
    println!("[broadcast] delivered to {:?}", report.delivered());

    // 6. Publish a status update for the dashboard.
    let report = pm
        .publish(
            "orders.status",
            json!({"orderId": "12345", "status": "charged"}),
        )
        .await?;
    println!(
        "[publish] orders.status delivered to {:?}",
        report.delivered()
    );

    // 7. A request that succeeds, and one that times out (500 ms limit, 2 s action).
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

    // Callbacks run in the background; give them a moment, then show what arrived.
    for _ in 0..100 {
        let done = monitor_a.agent().seen.lock().await.len() == 1
            && monitor_b.agent().seen.lock().await.len() == 1
            && dashboard.agent().updates.lock().await.len() == 1;
        if done {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    for monitor in [&monitor_a, &monitor_b] {
        println!(
            "{} saw {:?}",
            monitor.id(),
            monitor.agent().seen.lock().await
        );
    }
    println!(
        "dashboard shows {:?}",
        dashboard.agent().updates.lock().await
    );
    let charged = billing
        .agent()
        .charged_cents
        .load(std::sync::atomic::Ordering::SeqCst);
    println!("billing-agent charged {charged} cents in total");

    platform.shutdown().await;
    println!("platform shut down");
    Ok(())
}
