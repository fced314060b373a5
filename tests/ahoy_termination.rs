//! Termination conditions inferred from the protocols, set on adapters, and monitored
//! by the enactor.

use std::sync::Arc;
use std::time::Duration;

use tnsai_coordination::Platform;
use tnsai_coordination::bspl::decision::{Agent, DecisionContext, Trigger};
use tnsai_coordination::bspl::llm::{Terminations, infer_termination};
use tnsai_coordination::bspl::{
    Adapter, EnactmentEvent, Protocol, Roster, Specification, Termination,
};
use tnsai_core::prelude::*;

#[direct_message]
struct Peer;

fn protocol(text: &str, name: &str) -> Arc<Protocol> {
    Arc::new(
        Specification::parse(text)
            .unwrap()
            .into_protocol(name)
            .unwrap(),
    )
}

fn purchase() -> Arc<Protocol> {
    protocol(
        include_str!("../tnsai-bspl/protocols/purchase.bspl"),
        "Purchase",
    )
}

fn sent(message: &str) -> Termination {
    Termination::Sent(message.to_owned())
}

fn received(message: &str) -> Termination {
    Termination::Received(message.to_owned())
}

#[test]
fn every_role_of_the_shipped_protocols() {
    let purchase = purchase();
    let logistics = protocol(
        include_str!("../tnsai-bspl/protocols/logistics.bspl"),
        "Logistics",
    );
    let flexible = protocol(
        include_str!("../tnsai-bspl/protocols/flexible-purchase.bspl"),
        "FlexiblePurchase",
    );
    let expected = [
        (
            &purchase,
            "Buyer",
            Termination::AnyOf(vec![sent("reject"), sent("completed")]),
        ),
        (
            &purchase,
            "Seller",
            Termination::AnyOf(vec![received("reject"), sent("ship")]),
        ),
        (&purchase, "Shipper", sent("deliver")),
        (&logistics, "Merchant", received("Packed")),
        (&logistics, "Wrapper", sent("Wrapped")),
        (&logistics, "Labeler", sent("Labeled")),
        (&logistics, "Packer", sent("Packed")),
        (&flexible, "FlexibleCustomer", received("receipt")),
        (&flexible, "FlexibleMerchant", sent("receipt")),
    ];
    for (protocol, role, condition) in expected {
        assert_eq!(
            infer_termination(protocol, role),
            Some(condition),
            "{}:{role}",
            protocol.name()
        );
    }
    assert_eq!(infer_termination(&purchase, "Auditor"), None);
}

#[test]
fn a_role_without_terminal_messages_is_done_when_everything_is_bound() {
    // Everything A binds or learns feeds a later message of A's, and its last message
    // (`third`) binds nothing: no message is terminal for A, nor for B.
    let ring = protocol(
        "Ring { roles A, B parameters out id key, out x, out y \
         A -> B: first[out id key, out x] \
         B -> A: second[in id key, in x, out y] \
         A -> B: third[in id key, in x, in y] }",
        "Ring",
    );
    assert_eq!(infer_termination(&ring, "A"), Some(Termination::Complete));
    assert_eq!(infer_termination(&ring, "B"), Some(Termination::Complete));
}

#[test]
fn explicit_conditions_win_and_apply_sets_them_on_the_adapter() {
    let mut adapter = Adapter::new("buyer");
    adapter.play(purchase(), &["Buyer"]).unwrap();
    let set = Terminations::new().apply(&mut adapter).unwrap();
    assert_eq!(
        set,
        [(
            "Purchase".to_owned(),
            "Buyer".to_owned(),
            Termination::AnyOf(vec![sent("reject"), sent("completed")])
        )]
    );
    let custom = Terminations::new().with("Purchase", "Buyer", received("deliver"));
    let set = custom.apply(&mut adapter).unwrap();
    assert_eq!(set[0].2, received("deliver"));
    let wrong = Terminations::new().with("Purchase", "Buyer", sent("teleport"));
    assert!(wrong.apply(&mut adapter).is_err());
}

#[test]
fn is_over_judges_one_enactment_at_a_time() {
    let purchase = purchase();
    let mut buyer = Adapter::new("buyer");
    buyer.play(Arc::clone(&purchase), &["Buyer"]).unwrap();
    let terminations = Terminations::new();
    let rfq = buyer
        .enabled()
        .into_iter()
        .find(|f| f.message == "rfq")
        .unwrap();
    for id in ["1", "2"] {
        buyer
            .emit(rfq.bind([("ID", id), ("item", "kite")]))
            .unwrap();
        buyer
            .receive(tnsai_coordination::bspl::MessageInstance::new(
                "Purchase",
                "quote",
                "Seller",
                [("ID", id), ("item", "kite"), ("price", "5")],
            ))
            .unwrap();
    }
    let reject = buyer
        .enabled()
        .into_iter()
        .find(|f| f.message == "reject" && f.ins["ID"] == "1")
        .unwrap();
    buyer
        .emit(reject.bind([("outcome", "no"), ("resp", "no")]))
        .unwrap();
    let knowledge = buyer.knowledge("Purchase").unwrap();
    let key = |id: &str| tnsai_coordination::bspl::KeyBinding::new([("ID", id)]);
    assert!(terminations.is_over(knowledge, "Buyer", &key("1")));
    assert!(!terminations.is_over(knowledge, "Buyer", &key("2")));
}

#[tokio::test]
async fn the_enactor_reports_done_for_an_inferred_condition() {
    let purchase = purchase();
    let roster = Roster::new()
        .with("Purchase", "Buyer", "buyer")
        .with("Purchase", "Seller", "seller")
        .with("Purchase", "Shipper", "shipper");
    let platform = Platform::new();

    let mut adapter = Adapter::new("seller");
    adapter.play(Arc::clone(&purchase), &["Seller"]).unwrap();
    let mut seller = Agent::new(adapter);
    seller.on(Trigger::EnabledChanged, |c: &DecisionContext<'_>| {
        c.enabled_named("quote")
            .map(|f| f.bind([("price", "500")]))
            .collect()
    });
    let mut adapter = Adapter::new("buyer");
    adapter.play(Arc::clone(&purchase), &["Buyer"]).unwrap();
    Terminations::new().apply(&mut adapter).unwrap();
    let mut buyer = Agent::new(adapter);
    buyer.on(Trigger::Init, |c: &DecisionContext<'_>| {
        c.enabled_named("rfq")
            .map(|f| f.bind([("ID", "1"), ("item", "yacht")]))
            .collect()
    });
    buyer.on(Trigger::EnabledChanged, |c: &DecisionContext<'_>| {
        c.enabled_named("reject")
            .map(|f| f.bind([("outcome", "too dear"), ("resp", "no")]))
            .collect()
    });
    for (id, agent) in [
        ("seller", seller),
        (
            "shipper",
            Agent::new({
                let mut a = Adapter::new("shipper");
                a.play(Arc::clone(&purchase), &["Shipper"]).unwrap();
                a
            }),
        ),
    ] {
        platform
            .spawn(id, Peer)
            .await
            .unwrap()
            .protocol_manager()
            .unwrap()
            .enact(agent, roster.clone())
            .unwrap()
            .start()
            .await
            .unwrap();
    }
    let buyer = platform
        .spawn("buyer", Peer)
        .await
        .unwrap()
        .protocol_manager()
        .unwrap()
        .enact(buyer, roster)
        .unwrap();
    let mut events = buyer.events();
    buyer.start().await.unwrap();
    buyer.wait_done(Duration::from_secs(5)).await.unwrap();
    let mut done = false;
    while let Ok(Ok(event)) = tokio::time::timeout(Duration::from_millis(50), events.recv()).await {
        if matches!(&event, EnactmentEvent::Done { protocol, role } if protocol == "Purchase" && role == "Buyer")
        {
            done = true;
        }
    }
    assert!(done, "the buyer's rejection ends its part");
}
