//! Transport-free multi-agent simulations: each agent is its own adapter with
//! rule-based decision makers, connected by an in-memory queue.

mod common;

use std::sync::Arc;

use common::crate_protocol;
use common::network::Network;
use serde_json::json;
use tnsai_bspl::decision::{Agent, DecisionContext, Trigger};
use tnsai_bspl::{
    Adapter, Direction, EnabledMessage, KeyBinding, MessageInstance, Protocol, Termination,
};

fn purchase() -> Arc<Protocol> {
    Arc::new(crate_protocol("purchase.bspl", "Purchase"))
}

fn flexible_purchase() -> Arc<Protocol> {
    Arc::new(crate_protocol("flexible-purchase.bspl", "FlexiblePurchase"))
}

fn logistics() -> Arc<Protocol> {
    Arc::new(crate_protocol("logistics.bspl", "Logistics"))
}

/// What the agent knows in the enactment the form's keys identify.
fn known_in(
    context: &DecisionContext<'_>,
    form: &EnabledMessage,
    parameter: &str,
) -> Option<String> {
    let key = KeyBinding::project(&form.ins, form.keys.iter().map(String::as_str));
    context
        .adapter
        .knowledge(&form.protocol)?
        .bindings(&key)
        .get(parameter)
        .cloned()
}

/// Whether the agent already sent this form with these `in` values (forms
/// without `out` parameters stay enabled after they are sent).
fn already_sent(context: &DecisionContext<'_>, form: &EnabledMessage) -> bool {
    context.adapter.knowledge(&form.protocol).is_some_and(|k| {
        k.observations().iter().any(|o| {
            o.direction == Direction::Sent
                && o.message.message == form.message
                && form.ins.iter().all(|(p, v)| o.message.get(p) == Some(v))
        })
    })
}

fn value(form: &EnabledMessage, parameter: &str) -> String {
    form.ins.get(parameter).cloned().unwrap_or_default()
}

fn adapter_playing(name: &str, protocol: &Arc<Protocol>, role: &str, done: Termination) -> Adapter {
    let mut adapter = Adapter::new(name);
    adapter
        .play(protocol.clone(), &[role])
        .unwrap_or_else(|e| panic!("{e}"));
    adapter
        .set_termination(protocol.name(), role, done)
        .unwrap_or_else(|e| panic!("{e}"));
    adapter
}

/// Buyer rules: ask for every item at start; accept up to `budget`, reject
/// above it; once the outcome is known, complete. With `manual_approval`,
/// accept/reject waits for an external `approval` event.
fn purchase_buyer_rules(
    agent: &mut Agent,
    orders: Vec<(&'static str, &'static str)>,
    budget: u32,
    manual_approval: bool,
) {
    agent.on(Trigger::Init, move |context: &DecisionContext<'_>| {
        context
            .enabled_named("rfq")
            .flat_map(|form| {
                orders
                    .iter()
                    .map(|(id, item)| form.bind([("ID", *id), ("item", *item)]))
            })
            .collect()
    });
    agent.on(Trigger::Any, move |context: &DecisionContext<'_>| {
        let mut decisions = Vec::new();
        if !manual_approval {
            for form in context.enabled_named("accept") {
                if value(form, "price")
                    .parse::<u32>()
                    .is_ok_and(|p| p <= budget)
                {
                    decisions.push(form.bind([("address", "1 Main St"), ("resp", "accepted")]));
                }
            }
            for form in context.enabled_named("reject") {
                if value(form, "price")
                    .parse::<u32>()
                    .is_ok_and(|p| p > budget)
                {
                    decisions.push(form.bind([("outcome", "rejected"), ("resp", "rejected")]));
                }
            }
        }
        for form in context.enabled_named("completed") {
            if known_in(context, form, "outcome").is_some() {
                decisions.push(form.bind([("satisfaction", "fine")]));
            }
        }
        decisions
    });
    if manual_approval {
        agent.on(
            Trigger::external("approval"),
            |context: &DecisionContext<'_>| {
                let tnsai_bspl::decision::Event::External { payload, .. } = context.event else {
                    return Vec::new();
                };
                let id = payload["ID"].as_str().unwrap_or_default();
                let approve = payload["approve"].as_bool().unwrap_or(false);
                let wanted = if approve { "accept" } else { "reject" };
                context
                    .enabled_named(wanted)
                    .filter(|form| value(form, "ID") == id)
                    .map(|form| {
                        if approve {
                            form.bind([("address", "1 Main St"), ("resp", "accepted")])
                        } else {
                            form.bind([("outcome", "rejected"), ("resp", "rejected")])
                        }
                    })
                    .collect()
            },
        );
    }
}

fn purchase_buyer(
    orders: Vec<(&'static str, &'static str)>,
    budget: u32,
    manual_approval: bool,
) -> Agent {
    let adapter = adapter_playing(
        "buyer",
        &purchase(),
        "Buyer",
        Termination::Sent("completed".into()),
    );
    let mut agent = Agent::new(adapter);
    purchase_buyer_rules(&mut agent, orders, budget, manual_approval);
    agent
}

fn purchase_seller() -> Agent {
    let adapter = adapter_playing(
        "seller",
        &purchase(),
        "Seller",
        Termination::Received("completed".into()),
    );
    let mut agent = Agent::new(adapter);
    agent.on(Trigger::Any, |context: &DecisionContext<'_>| {
        let mut decisions = Vec::new();
        for form in context.enabled_named("quote") {
            let price = match value(form, "item").as_str() {
                "ball" => "10",
                "bat" => "30",
                _ => "20",
            };
            decisions.push(form.bind([("price", price)]));
        }
        for form in context.enabled_named("ship") {
            decisions.push(form.bind([("shipped", "yes")]));
        }
        decisions
    });
    agent
}

fn purchase_shipper() -> Agent {
    let adapter = adapter_playing(
        "shipper",
        &purchase(),
        "Shipper",
        Termination::Sent("deliver".into()),
    );
    let mut agent = Agent::new(adapter);
    agent.on(Trigger::Any, |context: &DecisionContext<'_>| {
        context
            .enabled_named("deliver")
            .map(|form| form.bind([("outcome", "delivered")]))
            .collect()
    });
    agent
}

fn count(network: &Network, protocol: &str, message: &str) -> usize {
    network.sent_named(protocol, message).len()
}

#[test]
fn purchase_for_two_items_reaches_every_termination_condition() {
    let mut network = Network::default();
    network
        .add(purchase_buyer(vec![("1", "ball"), ("2", "bat")], 20, false))
        .add(purchase_seller())
        .add(purchase_shipper());
    network.init_all();
    let delivered = network.run();
    assert!(delivered > 0);

    assert!(network.rejected.is_empty(), "{:?}", network.rejected);
    assert_eq!(count(&network, "Purchase", "rfq"), 2);
    assert_eq!(count(&network, "Purchase", "quote"), 2);
    assert_eq!(count(&network, "Purchase", "accept"), 1);
    assert_eq!(count(&network, "Purchase", "reject"), 1);
    assert_eq!(count(&network, "Purchase", "ship"), 1);
    assert_eq!(count(&network, "Purchase", "deliver"), 1);
    assert_eq!(count(&network, "Purchase", "completed"), 2);

    let buyer = network.agent("buyer").adapter();
    assert!(buyer.is_done("Purchase", "Buyer"));
    assert!(
        network
            .agent("seller")
            .adapter()
            .is_done("Purchase", "Seller")
    );
    assert!(
        network
            .agent("shipper")
            .adapter()
            .is_done("Purchase", "Shipper")
    );

    let knowledge = buyer
        .knowledge("Purchase")
        .unwrap_or_else(|| panic!("no knowledge"));
    let outcome = |id: &str| {
        knowledge
            .bindings(&KeyBinding::project(
                &[("ID".to_owned(), id.to_owned())].into(),
                ["ID"],
            ))
            .get("outcome")
            .cloned()
    };
    assert_eq!(outcome("1").as_deref(), Some("delivered"));
    assert_eq!(outcome("2").as_deref(), Some("rejected"));
    assert_eq!(knowledge.enactments().len(), 2);
}

#[test]
fn termination_is_not_reached_halfway() {
    let mut network = Network::default();
    network
        .add(purchase_buyer(vec![("1", "ball")], 20, true))
        .add(purchase_seller())
        .add(purchase_shipper());
    network.init_all();
    network.run();
    // Quoted, waiting for approval: nobody is done.
    assert_eq!(count(&network, "Purchase", "quote"), 1);
    assert!(
        !network
            .agent("buyer")
            .adapter()
            .is_done("Purchase", "Buyer")
    );
    assert!(
        !network
            .agent("seller")
            .adapter()
            .is_done("Purchase", "Seller")
    );
    assert!(
        !network
            .agent("shipper")
            .adapter()
            .is_done("Purchase", "Shipper")
    );
}

#[test]
fn an_external_event_mid_enactment_drives_the_decision() {
    let mut network = Network::default();
    network
        .add(purchase_buyer(vec![("1", "ball"), ("2", "bat")], 0, true))
        .add(purchase_seller())
        .add(purchase_shipper());
    network.init_all();
    network.run();
    assert_eq!(count(&network, "Purchase", "quote"), 2);
    assert_eq!(
        count(&network, "Purchase", "accept") + count(&network, "Purchase", "reject"),
        0
    );

    network.inject("buyer", "approval", json!({"ID": "2", "approve": false}));
    network.inject("buyer", "approval", json!({"ID": "1", "approve": true}));
    // An event for an unknown enactment binds nothing and breaks nothing.
    network.inject("buyer", "approval", json!({"ID": "9", "approve": true}));
    network.run();

    let accepted = network.sent_named("Purchase", "accept");
    assert_eq!(accepted.len(), 1);
    assert_eq!(accepted[0].get("ID"), Some("1"));
    assert_eq!(
        network.sent_named("Purchase", "reject")[0].get("ID"),
        Some("2")
    );
    assert!(
        network
            .agent("buyer")
            .adapter()
            .is_done("Purchase", "Buyer")
    );
    assert!(
        network
            .agent("seller")
            .adapter()
            .is_done("Purchase", "Seller")
    );
    assert!(
        network
            .agent("shipper")
            .adapter()
            .is_done("Purchase", "Shipper")
    );
    assert!(network.rejected.is_empty(), "{:?}", network.rejected);
}

fn flexible_customer(express: &'static [&'static str]) -> Agent {
    let protocol = flexible_purchase();
    let adapter = adapter_playing(
        "customer",
        &protocol,
        "FlexibleCustomer",
        Termination::Received("receipt".into()),
    );
    let mut agent = Agent::new(adapter);
    agent.on(Trigger::Init, |context: &DecisionContext<'_>| {
        context
            .enabled_named("rfq")
            .flat_map(|form| {
                [
                    form.bind([("ID", "1"), ("item", "phone")]),
                    form.bind([("ID", "2"), ("item", "book")]),
                ]
            })
            .collect()
    });
    agent.on(Trigger::Any, move |context: &DecisionContext<'_>| {
        let mut decisions = Vec::new();
        for form in context.enabled_named("accept") {
            let confirmation = format!("c{}", value(form, "ID"));
            decisions.push(form.bind([("confirmation", confirmation)]));
        }
        for form in context.enabled_named("express_delivery_request") {
            if express.contains(&value(form, "ID").as_str()) {
                decisions.push(form.bind([("express_delivery", "overnight")]));
            }
        }
        for form in context.enabled_named("standard_delivery_request") {
            if !express.contains(&value(form, "ID").as_str()) {
                decisions.push(form.bind([("standard_delivery", "ground")]));
            }
        }
        for name in ["pay_express", "pay_standard"] {
            for form in context.enabled_named(name) {
                decisions.push(form.bind([("payment", "card")]));
            }
        }
        decisions
    });
    agent
}

fn flexible_merchant() -> Agent {
    let protocol = flexible_purchase();
    let adapter = adapter_playing(
        "merchant",
        &protocol,
        "FlexibleMerchant",
        Termination::Sent("receipt".into()),
    );
    let mut agent = Agent::new(adapter);
    agent.on(Trigger::Any, |context: &DecisionContext<'_>| {
        let mut decisions = Vec::new();
        for form in context.enabled_named("offer") {
            decisions.push(form.bind([("price", "99")]));
        }
        for name in ["express_delivery", "standard_delivery"] {
            for form in context.enabled_named(name) {
                if !already_sent(context, form) {
                    decisions.push(form.bind(Vec::<(String, String)>::new()));
                }
            }
        }
        for form in context.enabled_named("receipt") {
            decisions.push(form.bind([("done", "yes")]));
        }
        decisions
    });
    agent
}

#[test]
fn flexible_purchase_takes_the_express_and_the_standard_branch() {
    let mut network = Network::default();
    network
        .add(flexible_customer(&["1"]))
        .add(flexible_merchant());
    network.init_all();
    network.run();

    assert!(network.rejected.is_empty(), "{:?}", network.rejected);
    let ids = |message: &str| -> Vec<String> {
        let mut ids: Vec<String> = network
            .sent_named("FlexiblePurchase", message)
            .iter()
            .filter_map(|m| m.get("ID").map(str::to_owned))
            .collect();
        ids.sort();
        ids
    };
    assert_eq!(ids("express_delivery_request"), ["1"]);
    assert_eq!(ids("express_delivery"), ["1"]);
    assert_eq!(ids("pay_express"), ["1"]);
    assert_eq!(ids("standard_delivery_request"), ["2"]);
    assert_eq!(ids("standard_delivery"), ["2"]);
    assert_eq!(ids("pay_standard"), ["2"]);
    assert_eq!(ids("receipt"), ["1", "2"]);
    assert!(
        network
            .agent("customer")
            .adapter()
            .is_done("FlexiblePurchase", "FlexibleCustomer")
    );
    assert!(
        network
            .agent("merchant")
            .adapter()
            .is_done("FlexiblePurchase", "FlexibleMerchant")
    );
}

/// Merchant rules for Logistics: label request for each order at start, then
/// one wrapping request per item once the order exists.
fn logistics_merchant_rules(
    agent: &mut Agent,
    orders: Vec<(&'static str, Vec<(&'static str, &'static str)>)>,
) {
    let order_ids: Vec<&'static str> = orders.iter().map(|(id, _)| *id).collect();
    agent.on(Trigger::Init, move |context: &DecisionContext<'_>| {
        context
            .enabled_named("RequestLabel")
            .flat_map(|form| {
                order_ids
                    .iter()
                    .map(|id| form.bind([("orderID", *id), ("address", "5 Harbour Rd")]))
            })
            .collect()
    });
    agent.on(
        Trigger::EnabledChanged,
        move |context: &DecisionContext<'_>| {
            let tnsai_bspl::decision::Event::EnabledChanged { added, .. } = context.event else {
                return Vec::new();
            };
            added
                .iter()
                .filter(|form| form.message == "RequestWrapping")
                .flat_map(|form| {
                    let order = value(form, "orderID");
                    orders
                        .iter()
                        .filter(move |(id, _)| *id == order)
                        .flat_map(|(_, items)| items.iter())
                        .map(|(item_id, item)| form.bind([("itemID", *item_id), ("item", *item)]))
                })
                .collect()
        },
    );
}

fn logistics_worker(
    name: &str,
    role: &str,
    message: &'static str,
    out: &'static str,
    value: &'static str,
) -> Agent {
    let protocol = logistics();
    let adapter = adapter_playing(name, &protocol, role, Termination::Sent(message.into()));
    let mut agent = Agent::new(adapter);
    agent.on(Trigger::Any, move |context: &DecisionContext<'_>| {
        context
            .enabled_named(message)
            .map(|form| form.bind([(out, value)]))
            .collect()
    });
    agent
}

fn logistics_workers(network: &mut Network) {
    network
        .add(logistics_worker(
            "wrapper",
            "Wrapper",
            "Wrapped",
            "wrapping",
            "bubble wrap",
        ))
        .add(logistics_worker(
            "labeler", "Labeler", "Labeled", "label", "LBL-7",
        ))
        .add(logistics_worker(
            "packer", "Packer", "Packed", "status", "packed",
        ));
}

#[test]
fn logistics_is_enacted_end_to_end() {
    let protocol = logistics();
    let adapter = adapter_playing(
        "merchant",
        &protocol,
        "Merchant",
        Termination::Received("Packed".into()),
    );
    let mut merchant = Agent::new(adapter);
    logistics_merchant_rules(
        &mut merchant,
        vec![
            ("o1", vec![("i1", "vase"), ("i2", "lamp")]),
            ("o2", vec![("i1", "rug")]),
        ],
    );
    let mut network = Network::default();
    network.add(merchant);
    logistics_workers(&mut network);
    network.init_all();
    network.run();

    assert!(network.rejected.is_empty(), "{:?}", network.rejected);
    assert_eq!(count(&network, "Logistics", "RequestLabel"), 2);
    assert_eq!(count(&network, "Logistics", "RequestWrapping"), 3);
    assert_eq!(count(&network, "Logistics", "Wrapped"), 3);
    assert_eq!(count(&network, "Logistics", "Labeled"), 2);
    let mut packed: Vec<(String, String, String)> = network
        .sent_named("Logistics", "Packed")
        .iter()
        .map(|m| {
            (
                m.get("orderID").unwrap_or_default().to_owned(),
                m.get("itemID").unwrap_or_default().to_owned(),
                m.get("item").unwrap_or_default().to_owned(),
            )
        })
        .collect();
    packed.sort();
    assert_eq!(
        packed,
        [
            ("o1".into(), "i1".into(), "vase".into()),
            ("o1".into(), "i2".into(), "lamp".into()),
            ("o2".into(), "i1".into(), "rug".into())
        ]
    );
    for (agent, role) in [
        ("merchant", "Merchant"),
        ("wrapper", "Wrapper"),
        ("labeler", "Labeler"),
        ("packer", "Packer"),
    ] {
        assert!(
            network.agent(agent).adapter().is_done("Logistics", role),
            "{role} not done"
        );
    }
}

#[test]
fn one_agent_plays_buyer_and_merchant_without_bindings_leaking() {
    let mut adapter = Adapter::new("trader");
    adapter
        .play(purchase(), &["Buyer"])
        .unwrap_or_else(|e| panic!("{e}"));
    adapter
        .play(logistics(), &["Merchant"])
        .unwrap_or_else(|e| panic!("{e}"));
    adapter
        .set_termination("Purchase", "Buyer", Termination::Sent("completed".into()))
        .unwrap_or_else(|e| panic!("{e}"));
    adapter
        .set_termination(
            "Logistics",
            "Merchant",
            Termination::Received("Packed".into()),
        )
        .unwrap_or_else(|e| panic!("{e}"));
    let mut trader = Agent::new(adapter);
    // The same key value ("o1") and parameter name ("item") in both protocols.
    purchase_buyer_rules(&mut trader, vec![("o1", "ball")], 20, false);
    logistics_merchant_rules(&mut trader, vec![("o1", vec![("i1", "vase")])]);

    let mut network = Network::default();
    network
        .add(trader)
        .add(purchase_seller())
        .add(purchase_shipper());
    logistics_workers(&mut network);
    network.init_all();
    network.run();

    assert!(network.rejected.is_empty(), "{:?}", network.rejected);
    let trader = network.agent("trader").adapter();
    assert!(trader.is_done("Purchase", "Buyer"));
    assert!(trader.is_done("Logistics", "Merchant"));
    assert!(trader.all_done());

    for protocol in ["Purchase", "Logistics"] {
        let knowledge = trader
            .knowledge(protocol)
            .unwrap_or_else(|| panic!("{protocol}"));
        assert!(
            knowledge
                .observations()
                .iter()
                .all(|o| o.message.protocol == protocol)
        );
    }
    let purchase_items: Vec<&str> = network
        .sent_named("Purchase", "quote")
        .iter()
        .filter_map(|m| m.get("item"))
        .collect();
    assert_eq!(purchase_items, ["ball"]);
    let logistics_items: Vec<&str> = network
        .sent_named("Logistics", "Packed")
        .iter()
        .filter_map(|m| m.get("item"))
        .collect();
    assert_eq!(logistics_items, ["vase"]);
    let purchase_knowledge = trader
        .knowledge("Purchase")
        .unwrap_or_else(|| panic!("Purchase"));
    let o1 = KeyBinding::new([("ID", "o1")]);
    let bindings = purchase_knowledge.bindings(&o1);
    assert_eq!(bindings.get("item").map(String::as_str), Some("ball"));
    assert!(!bindings.contains_key("status") && !bindings.contains_key("label"));
    // Every enabled form comes from its own protocol's history.
    for form in trader.enabled() {
        assert!(
            form.ins
                .values()
                .all(|v| v != "vase" || form.protocol == "Logistics"),
            "{form:?}"
        );
        assert!(
            form.ins
                .values()
                .all(|v| v != "ball" || form.protocol == "Purchase"),
            "{form:?}"
        );
    }
}

#[test]
fn messages_round_trip_through_json_between_agents() {
    let form_sender = purchase();
    let mut buyer = Adapter::new("buyer");
    buyer
        .play(form_sender.clone(), &["Buyer"])
        .unwrap_or_else(|e| panic!("{e}"));
    let mut seller = Adapter::new("seller");
    seller
        .play(form_sender, &["Seller"])
        .unwrap_or_else(|e| panic!("{e}"));
    let rfq = buyer
        .enabled()
        .into_iter()
        .find(|f| f.message == "rfq")
        .unwrap_or_else(|| panic!("rfq"));
    let sent = buyer
        .emit(rfq.bind([("ID", "1"), ("item", "ball")]))
        .unwrap_or_else(|e| panic!("{e}"));
    let wire = serde_json::to_string(sent.message()).unwrap_or_else(|e| panic!("{e}"));
    let arrived: MessageInstance = serde_json::from_str(&wire).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(&arrived, sent.message());
    assert_eq!(arrived.recipients, ["Seller"]);
    assert!(seller.receive(arrived).is_ok());
    let form = seller.enabled();
    let json = serde_json::to_value(&form).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(json[0]["message"], "quote");
    assert_eq!(json[0]["in"]["item"], "ball");
    assert_eq!(json[0]["out"], json!(["price"]));
}
