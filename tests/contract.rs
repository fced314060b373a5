//! The public API contract of DESIGN.md, written the way the design writes it: if this
//! file stops compiling or passing, a promise to users broke.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tnsai_coordination::{
    DebateSession, DebateStatus, DeliveryReport, Platform, ProtocolError, ProtocolManager,
};
use tnsai_core::prelude::*;

#[direct_message] // endpoint = "", transport = Auto
#[request_reply(timeout = 30000)] // milliseconds
#[derive(Default)]
struct BillingAgent {
    received: AtomicUsize,
}

#[actions]
impl BillingAgent {
    #[action(name = "processOrder")]
    async fn process_order(&self, params: Params) -> ActionResult {
        Ok(serde_json::json!({ "orderId": params.get_str("orderId"), "status": "processed" }))
    }
    #[action(role = "billing-role")]
    async fn charge(&self, _params: Params) -> ActionResult {
        Ok(serde_json::json!({ "charged": true }))
    }
    #[on_message_received]
    async fn on_message(&self, _message: Message) {
        self.received.fetch_add(1, Ordering::SeqCst);
    }
    #[language_model]
    fn model(&self) -> std::sync::Arc<dyn LanguageModel> {
        Arc::new(ScriptedModel::new().otherwise("The quarterly report shows growth."))
    }
}

#[broadcast(topic = "orders")]
#[pub_sub(topics = ["alerts", "metrics.*"])]
#[debate]
#[direct_message]
#[derive(Default)]
struct OpsAgent;

#[debate(strategy = Majority, max_rounds = 3)]
#[derive(Default)]
struct DevAgent;

#[agent]
struct Plain;

#[tokio::test]
async fn the_contract_as_written() -> Result<(), Box<dyn std::error::Error>> {
    let platform = Platform::new(); // internal transport, in-process discovery
    let billing = platform
        .spawn("billing-agent", BillingAgent::default())
        .await?; // AgentHandle<BillingAgent>
    billing.id(); // &AgentId
    billing.agent(); // &BillingAgent
    let pm: ProtocolManager = billing.protocol_manager().expect("annotated agent");
    assert!(
        platform
            .spawn("billing-agent", BillingAgent::default())
            .await
            .is_err()
    );
    assert!(platform.spawn("", BillingAgent::default()).await.is_err());
    assert!(
        platform
            .spawn("plain", Plain)
            .await?
            .protocol_manager()
            .is_none()
    );

    pm.start().await?;
    pm.stop().await;
    assert!(!pm.is_started());
    pm.start().await?;
    assert!(pm.is_started());
    assert_eq!(pm.agent_id(), "billing-agent");
    assert_eq!(pm.paradigms().len(), 2);
    assert!(!pm.has_paradigm("BROADCAST"));
    assert!(pm.has_paradigm("DIRECT") && pm.has_paradigm("REQUEST_REPLY"));

    let reply: Message = pm
        .execute_action(
            "billing-agent",
            "processOrder",
            params! {"orderId" => "12345"},
        )
        .await?;
    assert_eq!(reply.payload()["orderId"], "12345");
    let params = Params::new();
    pm.execute_role_action("billing-agent", "billing-role", "charge", params)
        .await?;
    let answer = pm
        .send_message("billing-agent", "Please summarize the quarterly report")
        .await?;
    assert_eq!(answer.content(), Some("The quarterly report shows growth."));
    let params = params! {"orderId" => "1"};
    pm.request("billing-agent", "processOrder", params).await?;

    // Message accessors.
    let _ = (
        reply.id(),
        reply.kind(),
        reply.conversation_id(),
        reply.in_reply_to(),
    );
    let _ = (reply.timestamp(), reply.payload(), reply.content());
    let sender: &AgentId = reply.sender();
    let receiver: Option<&AgentId> = reply.receiver();
    assert_eq!(sender.to_string(), "billing-agent");
    assert_eq!(receiver, Some(&AgentId::from("billing-agent")));
    assert_eq!(AgentId::from(String::from("x")), AgentId::from("x"));

    // Broadcast and publish return delivery reports.
    let ops = platform
        .spawn("ops-agent", OpsAgent)
        .await?
        .protocol_manager()
        .unwrap();
    let listener = platform.spawn("listener", OpsAgent).await?;
    let payload = serde_json::json!({"event": "deployed"});
    let report: DeliveryReport = ops.broadcast(payload.clone()).await?;
    assert_eq!(report.delivered(), [AgentId::from("listener")]);
    assert!(report.failed().is_empty());
    let report = ops.publish("alerts", payload).await?;
    let delivered: &[AgentId] = report.delivered();
    let failed: &[(AgentId, String)] = report.failed();
    assert_eq!((delivered.len(), failed.len()), (1, 0));
    drop(listener);

    // Debates.
    let dev = platform
        .spawn("dev-agent", DevAgent)
        .await?
        .protocol_manager()
        .unwrap();
    let qa = platform
        .spawn("qa-agent", DevAgent)
        .await?
        .protocol_manager()
        .unwrap();
    let s: DebateSession = dev
        .start_debate("Deploy?", ["dev-agent", "qa-agent", "ops-agent"])
        .await?;
    dev.submit_debate_position(s.id(), "YES", 8, "All tests pass")
        .await?;
    ops.vote_in_debate(s.id(), "NO", false).await?;
    ops.counter_argument(
        s.id(),
        "ops-agent",
        "Staging is not production",
        "Wait for the load test",
    )
    .await?;
    let fresh = qa.debate(s.id()).await?; // fresh snapshot, from any participant's manager
    let _ = (
        fresh.id(),
        fresh.topic(),
        fresh.initiator(),
        fresh.participants(),
        fresh.round(),
    );
    let _ = (
        fresh.decision(),
        fresh.positions(),
        fresh.votes(),
        fresh.counter_arguments(),
    );
    assert_eq!(fresh.status(), DebateStatus::InProgress);
    let cancelled = dev.cancel_debate(s.id()).await?;
    assert_eq!(cancelled.status(), DebateStatus::Cancelled);
    let error: ProtocolError = dev.debate("nope").await.unwrap_err();
    assert_eq!(error.to_string(), "Debate not found");

    billing.terminate().await; // stops its manager, leaves discovery
    platform.shutdown().await;
    Ok(())
}

#[test]
fn fipa_contract_as_written() -> Result<(), Box<dyn std::error::Error>> {
    use tnsai_coordination::fipa::{
        Category, ContractNetProtocol, FipaMessage, Performative, ProtocolState,
    };

    let m = FipaMessage::builder()
        .performative(Performative::Request)
        .sender("agent-1")
        .receiver("agent-2")
        .content("Please perform analysis")
        .protocol("fipa-request")
        .ontology("market-analysis")
        .reply_by(chrono::Utc::now() + chrono::Duration::minutes(5))
        .build()?; // Err without a performative
    assert!(FipaMessage::builder().sender("x").build().is_err());
    let r = m
        .create_reply()
        .performative(Performative::Agree)
        .sender("agent-2")
        .content("ok")
        .build()?;
    assert_eq!(r.receiver(), Some("agent-1"));
    let _ = FipaMessage::inform("s", "r", "Task complete");
    let _ = FipaMessage::cfp("manager", "worker", "Translate");
    let _ = FipaMessage::query_if("a", "b", "Is the service healthy?");
    let _ = FipaMessage::request("a", "b", "Do it");
    assert_eq!(Performative::all().len(), 22);
    assert_eq!(Performative::Cfp.category(), Category::Directive);
    assert_eq!(m.language(), Some("natural"));

    let mut cnp = ContractNetProtocol::new();
    let cfp = cnp.create_initial_message("manager", "translator", "Translate 500 pages");
    cnp.process_message(&cfp);
    let bid = cnp.create_proposal(&cfp, "2 days, 500 EUR"); // sent by "translator"
    cnp.process_message(&bid);
    assert!(cnp.select_proposal("translator"));
    let accept = cnp.create_acceptance(&bid);
    cnp.process_message(&accept);
    let done = cnp.create_response(&accept, Performative::Inform, "Translation delivered");
    cnp.process_message(&done);
    assert!(cnp.is_successful());
    assert_eq!(cnp.result(), Some("Translation delivered"));
    assert_eq!(cnp.state(), ProtocolState::CompletedSuccess);
    Ok(())
}
