//! Agents shared by the integration tests.
#![allow(dead_code, unreachable_pub, missing_docs)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::json;
use tnsai_core::prelude::*;
use tokio::sync::Mutex;

/// A caller that speaks every paradigm but debate.
#[direct_message]
#[request_reply(timeout = 300)]
#[derive(Default)]
pub struct Caller;

/// A worker with actions that succeed, fail, panic, sleep and count.
#[direct_message]
#[request_reply(timeout = 300)]
#[derive(Default)]
pub struct Worker {
    pub calls: AtomicUsize,
}

#[actions]
impl Worker {
    /// Returns its parameters.
    #[action]
    async fn echo(&self, params: Params) -> ActionResult {
        self.calls.fetch_add(1, Ordering::SeqCst);
        Ok(params.into_value())
    }

    /// Processes an order.
    #[action(name = "processOrder")]
    async fn process_order(&self, params: Params) -> ActionResult {
        let order = params.require_str("orderId")?;
        Ok(json!({ "orderId": order, "status": "processed" }))
    }

    /// Always fails with the same text.
    #[action]
    async fn fail(&self, _params: Params) -> ActionResult {
        Err(ActionError::new("card declined"))
    }

    /// Panics.
    #[action]
    async fn explode(&self, _params: Params) -> ActionResult {
        panic!("the action exploded")
    }

    /// Sleeps `ms` milliseconds, then answers `tag`.
    #[action]
    async fn sleep(&self, params: Params) -> ActionResult {
        let ms = params.get_i64("ms").unwrap_or(0);
        tokio::time::sleep(Duration::from_millis(ms as u64)).await;
        Ok(json!({ "tag": params.get("tag").cloned().unwrap_or_default() }))
    }

    /// Reserved for billing.
    #[action(role = "billing-role")]
    async fn charge(&self, params: Params) -> ActionResult {
        Ok(json!({ "charged": params.get_i64("amount").unwrap_or(0) }))
    }
}

/// Records every broadcast and publication it receives, in order.
#[derive(Default, Clone)]
pub struct Inbox {
    pub messages: Arc<Mutex<Vec<Message>>>,
}

impl Inbox {
    pub async fn len(&self) -> usize {
        self.messages.lock().await.len()
    }

    pub async fn payloads(&self) -> Vec<serde_json::Value> {
        self.messages
            .lock()
            .await
            .iter()
            .map(|m| m.payload().clone())
            .collect()
    }

    /// Waits (generously) until `count` messages arrived.
    pub async fn wait_for(&self, count: usize) {
        for _ in 0..500 {
            if self.len().await >= count {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("expected {count} messages, got {}", self.len().await);
    }
}

/// A model that answers text deterministically.
pub fn summarizer() -> Arc<dyn LanguageModel> {
    Arc::new(
        ScriptedModel::new()
            .when_contains("summar", "Revenue grew 12% in Q3; costs fell 3%.")
            .otherwise("I only summarize reports."),
    )
}

/// An agent with a language model.
#[direct_message]
#[derive(Default)]
pub struct Analyst;

#[actions]
impl Analyst {
    #[language_model]
    fn model(&self) -> Arc<dyn LanguageModel> {
        summarizer()
    }
}

/// Waits until `condition` holds (checked every 5 ms, at most 5 s).
pub async fn eventually(mut condition: impl FnMut() -> bool) {
    for _ in 0..1000 {
        if condition() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    panic!("condition not met within 5 s");
}

/// Spawns `agent` under `id` and returns its manager (the agent must be annotated).
pub async fn manager<A: Agent>(
    platform: &tnsai_coordination::Platform,
    id: impl Into<AgentId>,
    agent: A,
) -> tnsai_coordination::ProtocolManager {
    platform
        .spawn(id, agent)
        .await
        .expect("spawn")
        .protocol_manager()
        .expect("an annotated agent has a manager")
}

/// The direct-messaging checks every transport must pass, made through `pm` against a
/// `Worker` called "worker" and an `Analyst` called "analyst" wherever they live: results
/// come back, and each kind of error keeps its variant on the way.
pub async fn assert_direct_calls_cross(pm: &tnsai_coordination::ProtocolManager) {
    use serde_json::json;
    use tnsai_coordination::ProtocolError;

    let reply = pm
        .execute_action("worker", "processOrder", params! {"orderId" => "12345"})
        .await
        .unwrap();
    assert_eq!(reply.kind(), MessageKind::Reply);
    assert_eq!(
        reply.payload(),
        &json!({"orderId": "12345", "status": "processed"})
    );
    assert_eq!(reply.sender(), "worker");
    assert_eq!(reply.receiver().unwrap(), pm.agent_id());
    assert_eq!(
        reply.conversation_id(),
        reply.in_reply_to().unwrap().to_string()
    );

    let charged = pm
        .execute_role_action("worker", "billing-role", "charge", params! {"amount" => 7})
        .await
        .unwrap();
    assert_eq!(charged.payload(), &json!({"charged": 7}));
    let text = pm
        .send_message("analyst", "Please summarize")
        .await
        .unwrap();
    assert_eq!(
        text.content(),
        Some("Revenue grew 12% in Q3; costs fell 3%.")
    );

    let failed = pm.execute_action("worker", "fail", Params::new()).await;
    assert_eq!(
        failed.unwrap_err(),
        ProtocolError::ActionFailed("card declined".into())
    );
    let errors = [
        pm.execute_action("worker", "charge", Params::new()).await,
        pm.execute_action("worker", "nope", Params::new()).await,
        pm.execute_action("worker", "explode", Params::new()).await,
        pm.send_message("worker", "hi").await,
    ];
    let [role, unknown, panicked, no_model] = errors.map(Result::unwrap_err);
    assert!(matches!(role, ProtocolError::RoleMismatch(_)), "{role:?}");
    assert!(
        matches!(unknown, ProtocolError::UnknownAction(_)),
        "{unknown:?}"
    );
    assert!(
        matches!(panicked, ProtocolError::ActionPanicked(_)),
        "{panicked:?}"
    );
    assert!(
        matches!(no_model, ProtocolError::NoLanguageModel(_)),
        "{no_model:?}"
    );
    let ghost = pm
        .execute_action("ghost", "echo", Params::new())
        .await
        .unwrap_err();
    assert_eq!(ghost.to_string(), "Unknown receiver: ghost");
}
