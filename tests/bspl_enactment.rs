//! BSPL protocols enacted end to end by separate agents over the in-process transport.

mod common;

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use tnsai_coordination::bspl::decision::{Agent, DecisionContext, Trigger};
use tnsai_coordination::bspl::{
    Adapter, AsyncDecisionMaker, EnactmentContext, EnactmentEvent, Enactor, MessageInstance,
    Protocol, Roster, Specification, Termination,
};
use tnsai_coordination::{Platform, ProtocolError};
use tnsai_core::prelude::*;
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

fn flexible() -> Arc<Protocol> {
    protocol(
        include_str!("../tnsai-bspl/protocols/flexible-purchase.bspl"),
        "FlexiblePurchase",
    )
}

fn logistics() -> Arc<Protocol> {
    protocol(
        include_str!("../tnsai-bspl/protocols/logistics.bspl"),
        "Logistics",
    )
}

/// Every message an enactor sent or refused, collected until the channel closes or
/// `until` says stop.
async fn drain(events: &mut broadcast::Receiver<EnactmentEvent>) -> Vec<EnactmentEvent> {
    let mut seen = Vec::new();
    while let Ok(Ok(event)) = tokio::time::timeout(Duration::from_millis(50), events.recv()).await {
        seen.push(event);
    }
    seen
}

fn sent(events: &[EnactmentEvent]) -> Vec<(String, String)> {
    events
        .iter()
        .filter_map(|e| match e {
            EnactmentEvent::Sent { message, to, .. } => {
                Some((message.message.clone(), to.to_string()))
            }
            _ => None,
        })
        .collect()
}

fn buyer(items: &'static [(&'static str, &'static str)], budget: u32) -> Agent {
    let mut adapter = Adapter::new("buyer");
    adapter.play(purchase(), &["Buyer"]).unwrap();
    adapter
        .set_termination("Purchase", "Buyer", Termination::Sent("completed".into()))
        .unwrap();
    let mut agent = Agent::new(adapter);
    agent.on(Trigger::Init, move |c: &DecisionContext<'_>| {
        let rfq = c.enabled_named("rfq").next().cloned();
        items
            .iter()
            .filter_map(|(id, item)| rfq.as_ref().map(|f| f.bind([("ID", *id), ("item", *item)])))
            .collect()
    });
    agent.on(Trigger::EnabledChanged, move |c: &DecisionContext<'_>| {
        let mut out = Vec::new();
        for form in c.enabled_named("accept") {
            let price: u32 = form.ins["price"].parse().unwrap_or(u32::MAX);
            if price <= budget {
                out.push(form.bind([("address", "1 Main St"), ("resp", "accepted")]));
            }
        }
        for form in c.enabled_named("reject") {
            let price: u32 = form.ins["price"].parse().unwrap_or(u32::MAX);
            if price > budget {
                out.push(form.bind([("outcome", "too expensive"), ("resp", "rejected")]));
            }
        }
        out
    });
    // Purchase enables `completed` as soon as the price is known; a sensible buyer
    // completes only once the goods arrived.
    agent.on(Trigger::received("deliver"), |c: &DecisionContext<'_>| {
        complete_delivered(c, "happy")
    });
    agent
}

/// Binds `completed` for the purchase whose delivery just arrived.
fn complete_delivered(c: &DecisionContext<'_>, satisfaction: &str) -> Vec<MessageInstance> {
    let tnsai_coordination::bspl::decision::Event::Received { message } = c.event else {
        return Vec::new();
    };
    c.enabled_named("completed")
        .filter(|f| f.ins.get("ID").map(String::as_str) == message.get("ID"))
        .map(|f| f.bind([("satisfaction", satisfaction)]))
        .collect()
}

fn seller(prices: &'static [(&'static str, &'static str)]) -> Agent {
    let mut adapter = Adapter::new("seller");
    adapter.play(purchase(), &["Seller"]).unwrap();
    let mut agent = Agent::new(adapter);
    agent.on(Trigger::EnabledChanged, move |c: &DecisionContext<'_>| {
        let mut out: Vec<MessageInstance> = c
            .enabled_named("quote")
            .filter_map(|f| {
                let price = prices.iter().find(|(item, _)| *item == f.ins["item"])?.1;
                Some(f.bind([("price", price)]))
            })
            .collect();
        out.extend(
            c.enabled_named("ship")
                .map(|f| f.bind([("shipped", "today")])),
        );
        out
    });
    agent
}

fn shipper() -> Agent {
    let mut adapter = Adapter::new("shipper");
    adapter.play(purchase(), &["Shipper"]).unwrap();
    let mut agent = Agent::new(adapter);
    agent.on(Trigger::EnabledChanged, |c: &DecisionContext<'_>| {
        c.enabled_named("deliver")
            .map(|f| f.bind([("outcome", "delivered")]))
            .collect()
    });
    agent
}

fn purchase_roster() -> Roster {
    Roster::new()
        .with("Purchase", "Buyer", "buyer")
        .with("Purchase", "Seller", "seller")
        .with("Purchase", "Shipper", "shipper")
}

async fn enact(platform: &Platform, id: &str, agent: Agent, roster: &Roster) -> Enactor {
    let pm = common::manager(platform, id, Peer).await;
    pm.enact(agent, roster.clone()).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn purchase_for_two_items_in_parallel() {
    let platform = Platform::new();
    let roster = purchase_roster();
    let seller = enact(
        &platform,
        "seller",
        seller(&[("kite", "20"), ("ball", "5")]),
        &roster,
    )
    .await;
    let shipper = enact(&platform, "shipper", shipper(), &roster).await;
    let buyer = enact(
        &platform,
        "buyer",
        buyer(&[("1", "kite"), ("2", "ball")], 100),
        &roster,
    )
    .await;
    let mut seen = buyer.events();
    buyer.start().await.unwrap();
    buyer.wait_done(Duration::from_secs(10)).await.unwrap();

    let events = drain(&mut seen).await;
    let names: Vec<String> = sent(&events).into_iter().map(|(m, _)| m).collect();
    assert_eq!(names.iter().filter(|m| *m == "rfq").count(), 2);
    assert_eq!(names.iter().filter(|m| *m == "accept").count(), 2);
    assert_eq!(names.iter().filter(|m| *m == "completed").count(), 2);
    assert!(
        events
            .iter()
            .any(|e| matches!(e, EnactmentEvent::Done { role, .. } if role == "Buyer"))
    );
    // Each enactment kept its own bindings.
    let adapter = buyer.adapter().await;
    let knowledge = adapter.knowledge("Purchase").unwrap();
    let mut by_id: BTreeMap<String, (String, String)> = BTreeMap::new();
    for enactment in knowledge.enactments() {
        let b = knowledge.bindings(&enactment.key);
        if let (Some(id), Some(item), Some(price)) = (b.get("ID"), b.get("item"), b.get("price")) {
            by_id.insert(id.clone(), (item.clone(), price.clone()));
        }
    }
    assert_eq!(by_id["1"], ("kite".to_owned(), "20".to_owned()));
    assert_eq!(by_id["2"], ("ball".to_owned(), "5".to_owned()));
    // The seller and shipper saw both enactments through.
    let seller_sent: Vec<String> = seller
        .adapter()
        .await
        .knowledge("Purchase")
        .unwrap()
        .observations()
        .iter()
        .filter(|o| o.direction == tnsai_coordination::bspl::Direction::Sent)
        .map(|o| o.message.message.clone())
        .collect();
    assert_eq!(seller_sent.iter().filter(|m| *m == "ship").count(), 2);
    assert!(
        shipper
            .enabled()
            .await
            .iter()
            .all(|f| f.message != "deliver")
    );
}

#[tokio::test]
async fn a_rejected_quote_ends_the_enactment_without_shipping() {
    let platform = Platform::new();
    let roster = purchase_roster();
    let seller = enact(&platform, "seller", seller(&[("yacht", "900000")]), &roster).await;
    enact(&platform, "shipper", shipper(), &roster).await;
    let buyer = enact(&platform, "buyer", buyer(&[("9", "yacht")], 100), &roster).await;
    let mut seen = seller.events();
    buyer.start().await.unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    let events = drain(&mut seen).await;
    let received: Vec<String> = events
        .iter()
        .filter_map(|e| match e {
            EnactmentEvent::Received { message, .. } => Some(message.message.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(received, ["rfq", "reject"]);
    assert!(sent(&events).iter().all(|(m, _)| m != "ship"));
}

fn customer(item: &'static str) -> Agent {
    let mut adapter = Adapter::new("customer");
    adapter.play(flexible(), &["FlexibleCustomer"]).unwrap();
    adapter
        .set_termination(
            "FlexiblePurchase",
            "FlexibleCustomer",
            Termination::Received("receipt".into()),
        )
        .unwrap();
    let mut agent = Agent::new(adapter);
    agent.on(Trigger::Init, move |c: &DecisionContext<'_>| {
        c.enabled_named("rfq")
            .map(|f| f.bind([("ID", "f1"), ("item", item)]))
            .collect()
    });
    let urgent = item.starts_with("urgent");
    agent.on(Trigger::EnabledChanged, move |c: &DecisionContext<'_>| {
        let mut out: Vec<MessageInstance> = c
            .enabled_named("accept")
            .map(|f| f.bind([("confirmation", "yes")]))
            .collect();
        // Choose one delivery, never both.
        let request = if urgent {
            "express_delivery_request"
        } else {
            "standard_delivery_request"
        };
        let already = c
            .enabled
            .iter()
            .any(|f| f.message == "pay_express" || f.message == "pay_standard");
        if !already {
            out.extend(c.enabled_named(request).map(|f| {
                let out_param = f.outs[0].clone();
                f.bind([(out_param, "requested".to_owned())])
            }));
        }
        out.extend(
            c.enabled_named("pay_express")
                .map(|f| f.bind([("payment", "card")])),
        );
        out.extend(
            c.enabled_named("pay_standard")
                .map(|f| f.bind([("payment", "card")])),
        );
        out
    });
    agent
}

fn merchant() -> Agent {
    let mut adapter = Adapter::new("merchant");
    adapter.play(flexible(), &["FlexibleMerchant"]).unwrap();
    let mut agent = Agent::new(adapter);
    agent.on(Trigger::EnabledChanged, |c: &DecisionContext<'_>| {
        let mut out: Vec<MessageInstance> = c
            .enabled_named("offer")
            .map(|f| f.bind([("price", "30")]))
            .collect();
        out.extend(
            c.enabled_named("standard_delivery")
                .map(|f| f.bind(Vec::<(String, String)>::new())),
        );
        out.extend(
            c.enabled_named("express_delivery")
                .map(|f| f.bind(Vec::<(String, String)>::new())),
        );
        out.extend(
            c.enabled_named("receipt")
                .map(|f| f.bind([("done", "paid")])),
        );
        out
    });
    agent
}

#[tokio::test]
async fn flexible_purchase_express_and_standard_branches() {
    for (item, expected) in [
        ("urgent-medicine", "pay_express"),
        ("garden-chair", "pay_standard"),
    ] {
        let platform = Platform::new();
        let roster = Roster::new()
            .with("FlexiblePurchase", "FlexibleCustomer", "customer")
            .with("FlexiblePurchase", "FlexibleMerchant", "merchant");
        enact(&platform, "merchant", merchant(), &roster).await;
        let customer = enact(&platform, "customer", customer(item), &roster).await;
        let mut seen = customer.events();
        customer.start().await.unwrap();
        customer.wait_done(Duration::from_secs(10)).await.unwrap();
        let names: Vec<String> = sent(&drain(&mut seen).await)
            .into_iter()
            .map(|(m, _)| m)
            .collect();
        assert!(names.contains(&expected.to_owned()), "{item}: {names:?}");
        let other = if expected == "pay_express" {
            "pay_standard"
        } else {
            "pay_express"
        };
        assert!(!names.contains(&other.to_owned()), "{item}: {names:?}");
        let both = names
            .iter()
            .filter(|m| m.ends_with("_delivery_request"))
            .count();
        assert_eq!(both, 1, "{item}: exactly one delivery requested: {names:?}");
    }
}

fn merchant_of_logistics(orders: &'static [(&'static str, &'static [&'static str])]) -> Agent {
    let mut adapter = Adapter::new("merchant");
    adapter.play(logistics(), &["Merchant"]).unwrap();
    adapter
        .set_termination(
            "Logistics",
            "Merchant",
            Termination::Received("Packed".into()),
        )
        .unwrap();
    let mut agent = Agent::new(adapter);
    agent.on(Trigger::Init, move |c: &DecisionContext<'_>| {
        let label = c.enabled_named("RequestLabel").next().cloned();
        orders
            .iter()
            .filter_map(|(order, _)| {
                label
                    .as_ref()
                    .map(|f| f.bind([("orderID", *order), ("address", "Pier 4")]))
            })
            .collect()
    });
    let mut pending: BTreeMap<&'static str, VecDeque<&'static str>> = orders
        .iter()
        .map(|(order, items)| (*order, items.iter().copied().collect()))
        .collect();
    agent.on(Trigger::EnabledChanged, move |c: &DecisionContext<'_>| {
        let mut out = Vec::new();
        for form in c.enabled_named("RequestWrapping") {
            let order = form.ins["orderID"].clone();
            if let Some(items) = pending
                .iter_mut()
                .find(|(o, _)| **o == order)
                .map(|(_, i)| i)
            {
                while let Some(item) = items.pop_front() {
                    out.push(form.bind([
                        ("itemID", format!("{order}-{item}")),
                        ("item", item.to_owned()),
                    ]));
                }
            }
        }
        out
    });
    agent
}

fn worker(role: &'static str, reply: &'static str, out: &'static str) -> Agent {
    let mut adapter = Adapter::new(role.to_lowercase());
    adapter.play(logistics(), &[role]).unwrap();
    let mut agent = Agent::new(adapter);
    agent.on(Trigger::EnabledChanged, move |c: &DecisionContext<'_>| {
        c.enabled_named(reply)
            .map(|f| f.bind([(out, "ok")]))
            .collect()
    });
    agent
}

fn logistics_roster(merchant: &str) -> Roster {
    Roster::new()
        .with("Logistics", "Merchant", merchant)
        .with("Logistics", "Wrapper", "wrapper")
        .with("Logistics", "Labeler", "labeler")
        .with("Logistics", "Packer", "packer")
}

async fn logistics_workers(platform: &Platform, roster: &Roster) {
    enact(
        platform,
        "wrapper",
        worker("Wrapper", "Wrapped", "wrapping"),
        roster,
    )
    .await;
    enact(
        platform,
        "labeler",
        worker("Labeler", "Labeled", "label"),
        roster,
    )
    .await;
    enact(
        platform,
        "packer",
        worker("Packer", "Packed", "status"),
        roster,
    )
    .await;
}

#[tokio::test]
async fn logistics_end_to_end() {
    let platform = Platform::new();
    let roster = logistics_roster("merchant");
    logistics_workers(&platform, &roster).await;
    let merchant = enact(
        &platform,
        "merchant",
        merchant_of_logistics(&[("o1", &["vase", "lamp"])]),
        &roster,
    )
    .await;
    let mut seen = merchant.events();
    merchant.start().await.unwrap();
    // Done means Packed arrived for every enactment: wait for both items.
    for _ in 0..200 {
        let received = merchant
            .adapter()
            .await
            .knowledge("Logistics")
            .unwrap()
            .observations()
            .iter()
            .filter(|o| o.message.message == "Packed")
            .count();
        if received == 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    merchant.wait_done(Duration::from_secs(5)).await.unwrap();
    let events = drain(&mut seen).await;
    let packed: Vec<String> = events
        .iter()
        .filter_map(|e| match e {
            EnactmentEvent::Received { message, .. } if message.message == "Packed" => {
                message.get("itemID").map(str::to_owned)
            }
            _ => None,
        })
        .collect();
    assert_eq!(packed.len(), 2, "{events:#?}");
    assert!(packed.contains(&"o1-vase".to_owned()) && packed.contains(&"o1-lamp".to_owned()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_agent_plays_purchase_buyer_and_logistics_merchant_without_leaking_bindings() {
    let platform = Platform::new();
    let roster = purchase_roster().with("Logistics", "Merchant", "buyer");
    for (protocol, role, agent) in [
        ("Logistics", "Wrapper", "wrapper"),
        ("Logistics", "Labeler", "labeler"),
        ("Logistics", "Packer", "packer"),
    ] {
        roster.assign(protocol, role, agent);
    }
    enact(&platform, "seller", seller(&[("kite", "20")]), &roster).await;
    enact(&platform, "shipper", shipper(), &roster).await;
    logistics_workers(&platform, &roster).await;

    // One agent, two protocols: its Purchase makers and its Logistics makers side by side.
    let mut adapter = Adapter::new("buyer");
    adapter.play(purchase(), &["Buyer"]).unwrap();
    adapter.play(logistics(), &["Merchant"]).unwrap();
    adapter
        .set_termination("Purchase", "Buyer", Termination::Sent("completed".into()))
        .unwrap();
    adapter
        .set_termination(
            "Logistics",
            "Merchant",
            Termination::Received("Packed".into()),
        )
        .unwrap();
    let mut both = Agent::new(adapter);
    both.on(Trigger::Init, |c: &DecisionContext<'_>| {
        let mut out: Vec<MessageInstance> = c
            .enabled_named("rfq")
            .map(|f| f.bind([("ID", "1"), ("item", "kite")]))
            .collect();
        out.extend(
            c.enabled_named("RequestLabel")
                .map(|f| f.bind([("orderID", "1"), ("address", "Dock 9")])),
        );
        out
    });
    let mut wrapped = false;
    both.on(Trigger::EnabledChanged, move |c: &DecisionContext<'_>| {
        let mut out: Vec<MessageInstance> = c
            .enabled_named("accept")
            .map(|f| f.bind([("address", "1 Main St"), ("resp", "ok")]))
            .collect();
        if !wrapped {
            for form in c.enabled_named("RequestWrapping") {
                wrapped = true;
                out.push(form.bind([("itemID", "w1"), ("item", "crate")]));
            }
        }
        out
    });
    both.on(Trigger::received("deliver"), |c: &DecisionContext<'_>| {
        complete_delivered(c, "fine")
    });
    let pm = common::manager(&platform, "buyer", Peer).await;
    let enactor = pm.enact(both, roster).unwrap();
    enactor.start().await.unwrap();
    enactor.wait_done(Duration::from_secs(10)).await.unwrap();
    let adapter = enactor.adapter().await;
    // Same key value "1" in both protocols, different meanings: nothing crossed over.
    let purchase_bindings: BTreeMap<String, String> = adapter
        .knowledge("Purchase")
        .unwrap()
        .observations()
        .iter()
        .flat_map(|o| o.message.bindings.clone())
        .collect();
    let logistics_bindings: BTreeMap<String, String> = adapter
        .knowledge("Logistics")
        .unwrap()
        .observations()
        .iter()
        .flat_map(|o| o.message.bindings.clone())
        .collect();
    assert_eq!(purchase_bindings["address"], "1 Main St");
    assert_eq!(logistics_bindings["address"], "Dock 9");
    assert!(!purchase_bindings.contains_key("orderID") && !logistics_bindings.contains_key("ID"));
}

#[tokio::test]
async fn an_external_event_mid_enactment_starts_a_second_purchase() {
    let platform = Platform::new();
    let roster = purchase_roster();
    enact(
        &platform,
        "seller",
        seller(&[("kite", "20"), ("ball", "5")]),
        &roster,
    )
    .await;
    enact(&platform, "shipper", shipper(), &roster).await;
    let mut agent = buyer(&[("1", "kite")], 100);
    agent.on(
        Trigger::external("purchase-request"),
        |c: &DecisionContext<'_>| {
            let tnsai_coordination::bspl::decision::Event::External { payload, .. } = c.event
            else {
                return Vec::new();
            };
            let (Some(id), Some(item)) = (payload["id"].as_str(), payload["item"].as_str()) else {
                return Vec::new();
            };
            c.enabled_named("rfq")
                .map(|f| f.bind([("ID", id), ("item", item)]))
                .collect()
        },
    );
    let buyer = enact(&platform, "buyer", agent, &roster).await;
    buyer.start().await.unwrap();
    let step = buyer
        .inject(
            "purchase-request",
            serde_json::json!({"id": "2", "item": "ball"}),
        )
        .await
        .unwrap();
    assert_eq!(step.sent.len(), 1);
    buyer.wait_done(Duration::from_secs(10)).await.unwrap();
    for _ in 0..200 {
        let completed = buyer
            .adapter()
            .await
            .knowledge("Purchase")
            .unwrap()
            .observations()
            .iter()
            .filter(|o| o.message.message == "completed")
            .count();
        if completed == 2 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("both purchases should complete");
}

#[tokio::test]
async fn refusals_impersonation_and_an_incomplete_roster() {
    let platform = Platform::new();
    let roster = purchase_roster();
    // A decision maker that binds an `in` parameter it does not know is refused, not sent.
    let mut adapter = Adapter::new("buyer");
    adapter.play(purchase(), &["Buyer"]).unwrap();
    let mut cheater = Agent::new(adapter);
    cheater.on(Trigger::Init, |_: &DecisionContext<'_>| {
        vec![MessageInstance::new(
            "Purchase",
            "accept",
            "Buyer",
            [
                ("ID", "7"),
                ("item", "x"),
                ("price", "1"),
                ("address", "a"),
                ("resp", "r"),
            ],
        )]
    });
    let seller_enactor = enact(&platform, "seller", seller(&[]), &roster).await;
    enact(&platform, "shipper", shipper(), &roster).await;
    let buyer = enact(&platform, "buyer", cheater, &roster).await;
    let mut buyer_events = buyer.events();
    let step = buyer.start().await.unwrap();
    assert!(step.sent.is_empty());
    assert_eq!(step.rejected.len(), 1);
    let events = drain(&mut buyer_events).await;
    assert!(matches!(&events[0], EnactmentEvent::Refused { reason, .. } if !reason.is_empty()));

    // An agent that does not play Buyer cannot speak for it.
    let mut seller_events = seller_enactor.events();
    let impostor = common::manager(&platform, "impostor", Peer).await;
    let mut adapter = Adapter::new("impostor");
    adapter.play(purchase(), &["Buyer"]).unwrap();
    let mut fake = Agent::new(adapter);
    fake.on(Trigger::Init, |c: &DecisionContext<'_>| {
        c.enabled_named("rfq")
            .map(|f| f.bind([("ID", "66"), ("item", "x")]))
            .collect()
    });
    impostor
        .enact(fake, roster.clone())
        .unwrap()
        .start()
        .await
        .unwrap();
    let events = drain(&mut seller_events).await;
    assert!(
        matches!(&events[..], [EnactmentEvent::Inconsistent { from, reason, .. }] if from == "impostor" && reason.contains("does not play")),
        "{events:?}"
    );

    // Sending to a role nobody plays is refused before anything starts.
    let lonely = common::manager(&platform, "lonely", Peer).await;
    let error = lonely
        .enact(
            buyer_agent_only(),
            Roster::new().with("Purchase", "Buyer", "lonely"),
        )
        .unwrap_err();
    assert!(
        matches!(error, ProtocolError::InvalidArgument(ref text) if text.contains("Seller")),
        "{error:?}"
    );
}

fn buyer_agent_only() -> Agent {
    let mut adapter = Adapter::new("lonely");
    adapter.play(purchase(), &["Buyer"]).unwrap();
    Agent::new(adapter)
}

/// Decides after a pause, as a language model would.
struct SlowSeller;

impl AsyncDecisionMaker for SlowSeller {
    fn decide<'a>(
        &'a self,
        context: &'a EnactmentContext,
    ) -> tnsai_core::BoxFuture<'a, Vec<MessageInstance>> {
        Box::pin(async move {
            tokio::time::sleep(Duration::from_millis(20)).await;
            let mut out: Vec<MessageInstance> = context
                .enabled
                .iter()
                .filter(|f| f.message == "quote")
                .map(|f| f.bind([("price", "12")]))
                .collect();
            out.extend(
                context
                    .enabled
                    .iter()
                    .filter(|f| f.message == "ship")
                    .map(|f| f.bind([("shipped", "now")])),
            );
            out
        })
    }
}

#[tokio::test]
async fn asynchronous_decision_makers_take_part() {
    let platform = Platform::new();
    let roster = purchase_roster();
    let mut adapter = Adapter::new("seller");
    adapter.play(purchase(), &["Seller"]).unwrap();
    let seller_pm = common::manager(&platform, "seller", Peer).await;
    let seller = seller_pm
        .enact(Agent::new(adapter), roster.clone())
        .unwrap();
    seller.on_async(Trigger::Any, SlowSeller);
    enact(&platform, "shipper", shipper(), &roster).await;
    let buyer = enact(&platform, "buyer", buyer(&[("1", "kite")], 100), &roster).await;
    buyer.start().await.unwrap();
    buyer.wait_done(Duration::from_secs(10)).await.unwrap();
    let quote = buyer
        .adapter()
        .await
        .knowledge("Purchase")
        .unwrap()
        .observations()
        .iter()
        .find(|o| o.message.message == "quote")
        .map(|o| o.message.get("price").unwrap().to_owned());
    assert_eq!(quote.as_deref(), Some("12"));
}
