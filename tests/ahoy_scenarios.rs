//! The Ahoy paper's scenarios with an LLM-driven agent (scripted models) against
//! rule-based peers, over the in-process transport: one agent in two protocols at once,
//! a choice made from the user's goal, and an external event mid-enactment. No agent
//! ever refuses or rejects a message.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use tnsai_coordination::Platform;
use tnsai_coordination::bspl::decision::{Agent, DecisionContext, Trigger};
use tnsai_coordination::bspl::llm::{DecisionOutcome, LlmDecisionMaker, Terminations};
use tnsai_coordination::bspl::{
    Adapter, Direction, EnactmentEvent, Enactor, MessageInstance, Protocol, Roster, Specification,
};
use tnsai_core::prelude::*;
use tnsai_core::{BoxFuture, CompletionRequest, ModelError, ScriptedModel};
use tokio::sync::broadcast;

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

fn logistics() -> Arc<Protocol> {
    protocol(
        include_str!("../tnsai-bspl/protocols/logistics.bspl"),
        "Logistics",
    )
}

fn flexible() -> Arc<Protocol> {
    protocol(
        include_str!("../tnsai-bspl/protocols/flexible-purchase.bspl"),
        "FlexiblePurchase",
    )
}

/// A rule-based peer: binds every enabled form of the named messages with fixed values.
fn peer(
    name: &str,
    protocol: Arc<Protocol>,
    role: &str,
    replies: &'static [(&'static str, &'static [(&'static str, &'static str)])],
) -> Agent {
    let mut adapter = Adapter::new(name);
    adapter.play(protocol, &[role]).unwrap();
    let mut agent = Agent::new(adapter);
    agent.on(Trigger::EnabledChanged, move |c: &DecisionContext<'_>| {
        replies
            .iter()
            .flat_map(|(message, outs)| {
                c.enabled_named(message)
                    .map(|f| f.bind(outs.iter().copied()))
            })
            .collect()
    });
    agent
}

/// Spawns `agent` as `id`, starts it, and returns it with its event stream.
async fn run(
    platform: &Platform,
    id: &str,
    agent: Agent,
    roster: &Roster,
) -> (Enactor, broadcast::Receiver<EnactmentEvent>) {
    let enactor = platform
        .spawn(id, Peer)
        .await
        .unwrap()
        .protocol_manager()
        .unwrap()
        .enact(agent, roster.clone())
        .unwrap();
    let events = enactor.events();
    enactor.start().await.unwrap();
    (enactor, events)
}

async fn purchase_peers(
    platform: &Platform,
    roster: &Roster,
) -> Vec<broadcast::Receiver<EnactmentEvent>> {
    let seller = peer(
        "seller",
        purchase(),
        "Seller",
        &[
            ("quote", &[("price", "20")]),
            ("ship", &[("shipped", "today")]),
        ],
    );
    let shipper = peer(
        "shipper",
        purchase(),
        "Shipper",
        &[("deliver", &[("outcome", "delivered")])],
    );
    vec![
        run(platform, "seller", seller, roster).await.1,
        run(platform, "shipper", shipper, roster).await.1,
    ]
}

/// What went wrong anywhere: refusals (a decision the adapter would not send) and
/// inconsistent receptions.
fn troubles(events: &mut broadcast::Receiver<EnactmentEvent>) -> Vec<EnactmentEvent> {
    let mut bad = Vec::new();
    while let Ok(event) = events.try_recv() {
        if matches!(
            event,
            EnactmentEvent::Refused { .. }
                | EnactmentEvent::Inconsistent { .. }
                | EnactmentEvent::Undelivered { .. }
        ) {
            bad.push(event);
        }
    }
    bad
}

fn sent_by(adapter: &Adapter, protocol: &str) -> Vec<MessageInstance> {
    adapter
        .knowledge(protocol)
        .unwrap()
        .observations()
        .iter()
        .filter(|o| o.direction == Direction::Sent)
        .map(|o| o.message.clone())
        .collect()
}

fn names(messages: &[MessageInstance]) -> Vec<&str> {
    messages.iter().map(|m| m.message.as_str()).collect()
}

/// Polls `condition` on the enactor's adapter for up to 10 s.
async fn until(enactor: &Enactor, condition: impl Fn(&Adapter) -> bool) {
    for _ in 0..1000 {
        if condition(&enactor.adapter().await) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("condition not reached: {:#?}", enactor.adapter().await);
}

fn prompts(model: &ScriptedModel) -> Vec<String> {
    model
        .requests()
        .iter()
        .map(|r| r.last_user_text().unwrap().to_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_agent_buys_and_ships_at_once_without_bindings_leaking() {
    let platform = Platform::new();
    let roster = Roster::new()
        .with("Purchase", "Buyer", "shop")
        .with("Purchase", "Seller", "seller")
        .with("Purchase", "Shipper", "shipper")
        .with("Logistics", "Merchant", "shop")
        .with("Logistics", "Wrapper", "wrapper")
        .with("Logistics", "Labeler", "labeler")
        .with("Logistics", "Packer", "packer");
    let mut peers = purchase_peers(&platform, &roster).await;
    let workers = [
        peer(
            "wrapper",
            logistics(),
            "Wrapper",
            &[("Wrapped", &[("wrapping", "ok")])],
        ),
        peer(
            "labeler",
            logistics(),
            "Labeler",
            &[("Labeled", &[("label", "ok")])],
        ),
        peer(
            "packer",
            logistics(),
            "Packer",
            &[("Packed", &[("status", "ok")])],
        ),
    ];
    for (id, worker) in ["wrapper", "labeler", "packer"].into_iter().zip(workers) {
        peers.push(run(&platform, id, worker, &roster).await.1);
    }

    let mut adapter = Adapter::new("shop");
    adapter.play(purchase(), &["Buyer"]).unwrap();
    adapter.play(logistics(), &["Merchant"]).unwrap();
    Terminations::new().apply(&mut adapter).unwrap();
    let model = Arc::new(
        ScriptedModel::new()
            .when_contains("logistics/requestlabel (", r#"{"choice": null}"#)
            .when_contains(
                "already chosen for this event: purchase/rfq",
                r#"{"choice": 2, "params": {"orderID": "1", "address": "Dock 9"}}"#,
            )
            .when_contains(
                "already chosen for this event: logistics/requestwrapping",
                r#"{"choice": null}"#,
            )
            .when_contains(
                "event: start",
                r#"{"choice": 1, "params": {"ID": "1", "item": "kite"}}"#,
            )
            .when_contains(
                "event: received purchase/quote",
                r#"{"choice": 1, "params": {"address": "1 Main St", "resp": "ok"}}"#,
            )
            .when_contains(
                "event: received purchase/deliver",
                r#"{"choice": 1, "params": {"satisfaction": "fine"}}"#,
            )
            .when_contains(
                "event: new options",
                r#"{"choice": 1, "params": {"itemID": "w1", "item": "crate"}}"#,
            )
            .otherwise(r#"{"choice": null}"#),
    );
    let maker = LlmDecisionMaker::new(
        model.clone(),
        "Buy a kite (ID 1) and ship order 1, a crate, to Dock 9.",
    );
    let shop = platform
        .spawn("shop", Peer)
        .await
        .unwrap()
        .protocol_manager()
        .unwrap()
        .enact(Agent::new(adapter), roster)
        .unwrap();
    shop.on_async(Trigger::Any, maker.clone());
    let mut events = shop.events();
    shop.start().await.unwrap();
    shop.wait_done(Duration::from_secs(10)).await.unwrap();

    let adapter = shop.adapter().await;
    assert_eq!(
        names(&sent_by(&adapter, "Purchase")),
        ["rfq", "accept", "completed"]
    );
    assert_eq!(
        names(&sent_by(&adapter, "Logistics")),
        ["RequestLabel", "RequestWrapping"]
    );
    // The same value "1" keys both protocols; nothing crossed over.
    let bindings = |protocol: &str| -> BTreeMap<String, String> {
        adapter
            .knowledge(protocol)
            .unwrap()
            .observations()
            .iter()
            .flat_map(|o| o.message.bindings.clone())
            .collect()
    };
    let (bought, shipped) = (bindings("Purchase"), bindings("Logistics"));
    assert_eq!(bought["address"], "1 Main St");
    assert_eq!(shipped["address"], "Dock 9");
    assert!(!bought.contains_key("orderID") && !shipped.contains_key("ID"));
    // The buyer completed only after the delivery.
    let purchase_log: Vec<&str> = adapter
        .knowledge("Purchase")
        .unwrap()
        .observations()
        .iter()
        .map(|o| o.message.message.as_str())
        .collect();
    let delivered = purchase_log.iter().position(|m| *m == "deliver").unwrap();
    let completed = purchase_log.iter().position(|m| *m == "completed").unwrap();
    assert!(delivered < completed, "{purchase_log:?}");

    // Each prompt showed only what its event concerns.
    let prompts = prompts(&model);
    let start = &prompts[0];
    assert!(
        start.contains("1. Purchase/rfq: Buyer -> Seller")
            && start.contains("2. Logistics/RequestLabel: Merchant -> Labeler"),
        "{start}"
    );
    let quote = prompts
        .iter()
        .find(|p| p.starts_with("Event: received Purchase/quote"))
        .unwrap();
    assert!(
        quote.contains("1. Purchase/accept{ID=1}") && !quote.contains("Logistics/"),
        "{quote}"
    );
    let wrapping = prompts
        .iter()
        .find(|p| p.starts_with("Event: new options"))
        .unwrap();
    assert!(
        wrapping.contains("1. Logistics/RequestWrapping{orderID=1}")
            && !wrapping.contains("Purchase/"),
        "{wrapping}"
    );
    // Packed arrived, but a finished wrapping request is not offered again: no call for it.
    assert!(
        !prompts
            .iter()
            .any(|p| p.starts_with("Event: received Logistics/Packed"))
    );

    assert!(troubles(&mut events).is_empty());
    for peer in &mut peers {
        assert!(troubles(peer).is_empty());
    }
    assert_every_answer_was_usable(&maker);
    platform.shutdown().await;
}

fn assert_every_answer_was_usable(maker: &LlmDecisionMaker) {
    for record in maker.records() {
        assert!(
            matches!(
                record.outcome,
                DecisionOutcome::Chosen { .. } | DecisionOutcome::Declined { .. }
            ),
            "{record}"
        );
    }
}

/// A scripted model that reads its prompts: it takes the delivery its user's goal asks
/// for, and otherwise goes through the purchase in the obvious order.
struct GoalReader;

impl GoalReader {
    fn answer(request: &CompletionRequest) -> String {
        let system = &request.messages()[0].content;
        let goal = system.rsplit("Your goal:\n").next().unwrap_or("");
        let speed = if goal.contains("express") {
            "express"
        } else {
            "standard"
        };
        let prompt = request.last_user_text().unwrap_or("");
        if prompt.contains("Already chosen for this event") {
            return r#"{"choice": null}"#.to_owned();
        }
        let preferences = [
            format!("pay_{speed}"),
            "accept".to_owned(),
            format!("{speed}_delivery_request"),
            "rfq".to_owned(),
        ];
        // Options look like "2. FlexiblePurchase/accept{ID=f1}: ..." followed by
        // "   out (you choose): confirmation".
        let mut options: Vec<(usize, String, Vec<String>)> = Vec::new();
        for line in prompt.lines() {
            if let Some((number, rest)) = line.split_once(". FlexiblePurchase/")
                && let Ok(number) = number.parse::<usize>()
            {
                let message = rest.split(['{', ':']).next().unwrap().to_owned();
                options.push((number, message, Vec::new()));
            } else if let Some(outs) = line.trim().strip_prefix("out (you choose): ")
                && let Some(last) = options.last_mut()
            {
                last.2 = outs
                    .split(", ")
                    .filter(|o| *o != "none")
                    .map(|o| o.trim_end_matches(" (new key)").to_owned())
                    .collect();
            }
        }
        for wanted in &preferences {
            if let Some((number, _, outs)) = options.iter().find(|(_, m, _)| m == wanted) {
                let params: serde_json::Map<String, serde_json::Value> = outs
                    .iter()
                    .map(|o| {
                        let value = match o.as_str() {
                            "ID" => "f1",
                            "item" => "medicine",
                            "confirmation" => "yes",
                            "payment" => "card",
                            _ => "requested",
                        };
                        (o.clone(), value.into())
                    })
                    .collect();
                return serde_json::json!({"choice": number, "params": params}).to_string();
            }
        }
        r#"{"choice": null}"#.to_owned()
    }
}

impl LanguageModel for GoalReader {
    fn complete<'a>(
        &'a self,
        request: &'a CompletionRequest,
    ) -> BoxFuture<'a, Result<String, ModelError>> {
        Box::pin(async move { Ok(Self::answer(request)) })
    }
}

#[tokio::test]
async fn flexible_purchase_takes_the_delivery_the_goal_asks_for() {
    for (goal, chosen, avoided) in [
        (
            "Buy medicine. It is urgent: use express delivery.",
            "express",
            "standard",
        ),
        (
            "Buy medicine. No hurry: the cheapest delivery will do.",
            "standard",
            "express",
        ),
    ] {
        let platform = Platform::new();
        let roster = Roster::new()
            .with("FlexiblePurchase", "FlexibleCustomer", "customer")
            .with("FlexiblePurchase", "FlexibleMerchant", "merchant");
        let (_, mut merchant_events) = run(
            &platform,
            "merchant",
            peer(
                "merchant",
                flexible(),
                "FlexibleMerchant",
                &[
                    ("offer", &[("price", "30")]),
                    ("standard_delivery", &[]),
                    ("express_delivery", &[]),
                    ("receipt", &[("done", "paid")]),
                ],
            ),
            &roster,
        )
        .await;
        let mut adapter = Adapter::new("customer");
        adapter.play(flexible(), &["FlexibleCustomer"]).unwrap();
        Terminations::new().apply(&mut adapter).unwrap();
        let maker = LlmDecisionMaker::new(Arc::new(GoalReader), goal);
        let customer = platform
            .spawn("customer", Peer)
            .await
            .unwrap()
            .protocol_manager()
            .unwrap()
            .enact(Agent::new(adapter), roster)
            .unwrap();
        customer.on_async(Trigger::Any, maker.clone());
        let mut events = customer.events();
        customer.start().await.unwrap();
        customer.wait_done(Duration::from_secs(10)).await.unwrap();

        let sent = sent_by(&customer.adapter().await, "FlexiblePurchase");
        let sent = names(&sent);
        let chosen_request = format!("{chosen}_delivery_request");
        assert_eq!(
            sent,
            [
                "rfq",
                "accept",
                chosen_request.as_str(),
                &format!("pay_{chosen}")
            ],
            "{goal}"
        );
        assert!(
            !sent.iter().any(|m| m.contains(avoided)),
            "{goal}: {sent:?}"
        );
        // Both deliveries were offered after the acceptance; the goal decided.
        let offered = maker.records().iter().any(|r| {
            r.options
                .contains(&"FlexiblePurchase/express_delivery_request{ID=f1}".to_owned())
                && r.options
                    .contains(&"FlexiblePurchase/standard_delivery_request{ID=f1}".to_owned())
        });
        assert!(offered, "{goal}");
        assert!(troubles(&mut events).is_empty());
        assert!(troubles(&mut merchant_events).is_empty());
        assert_every_answer_was_usable(&maker);
        platform.shutdown().await;
    }
}

#[tokio::test]
async fn a_second_purchase_request_mid_enactment_completes_alongside_the_first() {
    let platform = Platform::new();
    let roster = Roster::new()
        .with("Purchase", "Buyer", "buyer")
        .with("Purchase", "Seller", "seller")
        .with("Purchase", "Shipper", "shipper");
    let mut peers = purchase_peers(&platform, &roster).await;
    let mut adapter = Adapter::new("buyer");
    adapter.play(purchase(), &["Buyer"]).unwrap();
    Terminations::new().apply(&mut adapter).unwrap();
    let model = Arc::new(
        ScriptedModel::new()
            .when_contains("already chosen for this event: purchase/rfq", r#"{"choice": null}"#)
            .when_contains("event: start", r#"{"choice": 1, "params": {"ID": "1", "item": "kite"}}"#)
            .when_contains(
                "event: external event \"purchase-request\"",
                r#"{"choice": 1, "params": {"ID": "2", "item": "ball"}, "reason": "a new request"}"#,
            )
            .when_contains(
                "event: received purchase/quote",
                r#"{"choice": 1, "params": {"address": "1 Main St", "resp": "ok"}}"#,
            )
            .when_contains(
                "event: received purchase/deliver",
                r#"{"choice": 1, "params": {"satisfaction": "fine"}}"#,
            )
            .otherwise(r#"{"choice": null}"#),
    );
    let buyer = platform
        .spawn("buyer", Peer)
        .await
        .unwrap()
        .protocol_manager()
        .unwrap()
        .enact(Agent::new(adapter), roster)
        .unwrap();
    let maker = LlmDecisionMaker::new(
        model.clone(),
        "Buy a kite, then whatever your user asks for.",
    );
    buyer.on_async(Trigger::Any, maker.clone());
    let mut events = buyer.events();
    buyer.start().await.unwrap();
    // Mid-enactment: the first purchase is accepted and not yet completed.
    until(&buyer, |a| {
        sent_by(a, "Purchase").iter().any(|m| m.message == "accept")
    })
    .await;
    let step = buyer
        .inject("purchase-request", serde_json::json!({"item": "ball"}))
        .await
        .unwrap();
    assert_eq!(names(&step.sent), ["rfq"]);
    assert_eq!(step.sent[0].get("ID"), Some("2"));

    until(&buyer, |a| {
        sent_by(a, "Purchase")
            .iter()
            .filter(|m| m.message == "completed")
            .count()
            == 2
    })
    .await;
    buyer.wait_done(Duration::from_secs(10)).await.unwrap();
    let adapter = buyer.adapter().await;
    let knowledge = adapter.knowledge("Purchase").unwrap();
    let mut items = BTreeMap::new();
    for enactment in knowledge.enactments() {
        items.insert(
            enactment.bindings["ID"].clone(),
            enactment.bindings["item"].clone(),
        );
    }
    assert_eq!(
        items,
        BTreeMap::from([("1".into(), "kite".into()), ("2".into(), "ball".into())])
    );

    let external = prompts(&model)
        .into_iter()
        .find(|p| {
            p.starts_with(
                "Event: external event \"purchase-request\" with details {\"item\":\"ball\"}",
            )
        })
        .unwrap();
    assert!(
        external.contains("1. Purchase/rfq: Buyer -> Seller"),
        "{external}"
    );
    assert!(external.contains("keys in use: ID: 1"), "{external}");
    assert!(troubles(&mut events).is_empty());
    for peer in &mut peers {
        assert!(troubles(peer).is_empty());
    }
    assert_every_answer_was_usable(&maker);
    platform.shutdown().await;
}
