//! Direct messaging: actions, role actions and text through `#[direct_message]`.

mod common;

use common::{Analyst, Caller, Worker};
use serde_json::json;
use tnsai_coordination::{Platform, ProtocolError};
use tnsai_core::prelude::*;

async fn setup() -> (Platform, tnsai_coordination::ProtocolManager) {
    let platform = Platform::new();
    platform.spawn("worker", Worker::default()).await.unwrap();
    platform.spawn("analyst", Analyst).await.unwrap();
    let caller = platform.spawn("caller", Caller).await.unwrap();
    (platform, caller.protocol_manager().unwrap())
}

#[tokio::test]
async fn execute_action_returns_the_result_as_the_reply_payload() {
    let (_platform, pm) = setup().await;
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
    assert_eq!(reply.receiver().unwrap(), "caller");
    assert!(reply.in_reply_to().is_some());
    assert_eq!(
        reply.conversation_id(),
        reply.in_reply_to().unwrap().to_string()
    );
}

#[tokio::test]
async fn an_action_error_reaches_the_caller_as_its_own_text() {
    let (_platform, pm) = setup().await;
    let error = pm
        .execute_action("worker", "fail", Params::new())
        .await
        .unwrap_err();
    assert_eq!(error, ProtocolError::ActionFailed("card declined".into()));
    assert_eq!(error.to_string(), "card declined");
    let missing = pm
        .execute_action("worker", "processOrder", Params::new())
        .await
        .unwrap_err();
    assert_eq!(missing.to_string(), "missing parameter `orderId`");
}

#[tokio::test]
async fn a_panicking_action_answers_with_an_error_and_the_agent_keeps_serving() {
    let (_platform, pm) = setup().await;
    for _ in 0..3 {
        let error = pm
            .execute_action("worker", "explode", Params::new())
            .await
            .unwrap_err();
        assert!(
            matches!(error, ProtocolError::ActionPanicked(_)),
            "{error:?}"
        );
        assert!(error.to_string().contains("the action exploded"), "{error}");
        let reply = pm
            .execute_action("worker", "echo", params! {"n" => 1})
            .await
            .unwrap();
        assert_eq!(reply.payload(), &json!({"n": 1}));
    }
}

#[tokio::test]
async fn unknown_receivers_and_actions_are_clear_errors() {
    let (_platform, pm) = setup().await;
    let error = pm
        .execute_action("ghost", "echo", Params::new())
        .await
        .unwrap_err();
    assert_eq!(error.to_string(), "Unknown receiver: ghost");
    let error = pm
        .execute_action("worker", "nope", Params::new())
        .await
        .unwrap_err();
    assert!(matches!(error, ProtocolError::UnknownAction(_)));
    assert!(error.to_string().contains("nope"));
}

#[tokio::test]
async fn role_actions_are_reachable_only_with_their_role() {
    let (_platform, pm) = setup().await;
    let reply = pm
        .execute_role_action("worker", "billing-role", "charge", params! {"amount" => 42})
        .await
        .unwrap();
    assert_eq!(reply.payload(), &json!({"charged": 42}));

    let without_role = pm
        .execute_action("worker", "charge", Params::new())
        .await
        .unwrap_err();
    assert!(
        matches!(without_role, ProtocolError::RoleMismatch(_)),
        "{without_role:?}"
    );
    assert!(without_role.to_string().contains("billing-role"));

    let wrong_role = pm
        .execute_role_action("worker", "shipping-role", "charge", Params::new())
        .await
        .unwrap_err();
    assert!(matches!(wrong_role, ProtocolError::RoleMismatch(_)));

    let role_on_plain_action = pm
        .execute_role_action("worker", "billing-role", "echo", Params::new())
        .await
        .unwrap_err();
    assert!(matches!(
        role_on_plain_action,
        ProtocolError::RoleMismatch(_)
    ));
}

#[tokio::test]
async fn send_message_is_answered_by_the_receivers_language_model() {
    let (_platform, pm) = setup().await;
    let answer = pm
        .send_message("analyst", "Please summarize the quarterly report")
        .await
        .unwrap();
    assert_eq!(
        answer.content(),
        Some("Revenue grew 12% in Q3; costs fell 3%.")
    );
    let other = pm.send_message("analyst", "Tell me a joke").await.unwrap();
    assert_eq!(other.content(), Some("I only summarize reports."));

    let error = pm.send_message("worker", "hello?").await.unwrap_err();
    assert!(
        matches!(error, ProtocolError::NoLanguageModel(_)),
        "{error:?}"
    );
    assert!(error.to_string().contains("worker"));
}

#[tokio::test]
async fn an_agent_may_call_itself() {
    let platform = Platform::new();
    let worker = platform
        .spawn("self-caller", Worker::default())
        .await
        .unwrap();
    let pm = worker.protocol_manager().unwrap();
    let reply = pm
        .execute_action("self-caller", "echo", params! {"x" => true})
        .await
        .unwrap();
    assert_eq!(reply.payload(), &json!({"x": true}));
    let reply = pm
        .request("self-caller", "echo", params! {"y" => 2})
        .await
        .unwrap();
    assert_eq!(reply.payload(), &json!({"y": 2}));
}

#[tokio::test]
async fn every_missing_paradigm_has_its_exact_error_text() {
    #[agent]
    struct Target;

    #[broadcast(topic = "news")]
    struct OnlyBroadcast;

    #[direct_message]
    struct OnlyDirect;

    let platform = Platform::new();
    platform.spawn("target", Target).await.unwrap();
    let direct = common::manager(&platform, "direct", OnlyDirect).await;
    let broadcast = common::manager(&platform, "broadcast", OnlyBroadcast).await;

    let err = broadcast
        .execute_action("target", "x", Params::new())
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "Direct message not configured for this agent"
    );
    let err = broadcast.send_message("target", "hi").await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "Direct message not configured for this agent"
    );
    let err = direct.broadcast(json!({})).await.unwrap_err();
    assert_eq!(err.to_string(), "Broadcast not configured for this agent");
    let err = direct.publish("alerts", json!({})).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "Publish/subscribe not configured for this agent"
    );
    let err = direct
        .request("target", "x", Params::new())
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "Request/reply not configured for this agent"
    );
    let err = direct
        .start_debate("Deploy?", ["target"])
        .await
        .unwrap_err();
    assert_eq!(err.to_string(), "Debate not configured for this agent");
    let err = direct.debate("any").await.unwrap_err();
    assert_eq!(err.to_string(), "Debate not configured for this agent");
    assert!(direct.debate_events("any").is_err());
}

#[tokio::test]
async fn a_caller_that_is_not_an_agent_can_call_through_the_platform() {
    let (platform, _pm) = setup().await;
    let request = Message::builder(MessageKind::Action, "cli-gateway")
        .receiver("worker")
        .action("processOrder")
        .params(params! {"orderId" => "77"})
        .build();
    let reply = platform
        .call(request, std::time::Duration::from_secs(5))
        .await
        .unwrap();
    assert_eq!(reply.payload()["orderId"], "77");
    let failing = Message::builder(MessageKind::Action, "cli-gateway")
        .receiver("worker")
        .action("fail")
        .build();
    let error = platform
        .call(failing, std::time::Duration::from_secs(5))
        .await
        .unwrap_err();
    assert_eq!(error.to_string(), "card declined");
    let text = Message::builder(MessageKind::Text, "cli-gateway")
        .receiver("analyst")
        .content("summarize please")
        .build();
    let answer = platform
        .call(text, std::time::Duration::from_secs(5))
        .await
        .unwrap();
    assert!(answer.content().unwrap().contains("Revenue"));
}

#[tokio::test]
async fn discovery_describes_agents_and_their_actions() {
    let (platform, _pm) = setup().await;
    let worker = platform.describe("worker").unwrap();
    assert_eq!(worker.paradigms, [Paradigm::Direct, Paradigm::RequestReply]);
    let charge = worker.actions.iter().find(|a| a.name == "charge").unwrap();
    assert_eq!(charge.role.as_deref(), Some("billing-role"));
    assert_eq!(charge.description, "Reserved for billing.");
    assert!(!worker.has_language_model);
    assert!(platform.describe("analyst").unwrap().has_language_model);
    assert!(platform.describe("ghost").is_none());
    let ids: Vec<String> = platform
        .descriptions()
        .into_iter()
        .map(|d| d.id.to_string())
        .collect();
    assert_eq!(ids, ["analyst", "caller", "worker"]);
}

#[tokio::test]
async fn the_checks_every_transport_passes_hold_in_process() {
    let (_platform, pm) = setup().await;
    common::assert_direct_calls_cross(&pm).await;
}
