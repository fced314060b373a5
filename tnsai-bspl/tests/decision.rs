//! Decision makers: triggers, what they see, validation of what they bind,
//! and the dispatch loop's limits.

use std::sync::{Arc, Mutex};
mod common;

use common::crate_protocol;
use serde_json::json;
use tnsai_bspl::decision::{Agent, DecisionContext, Event, Trigger};
use tnsai_bspl::{Adapter, EmitError, MessageInstance, Protocol, Received};

fn purchase() -> Arc<Protocol> {
    Arc::new(crate_protocol("purchase.bspl", "Purchase"))
}

fn agent(roles: &[&str]) -> Agent {
    let mut adapter = Adapter::new("agent");
    adapter
        .play(purchase(), roles)
        .unwrap_or_else(|e| panic!("{e}"));
    Agent::new(adapter)
}

fn rfq(id: &str, item: &str) -> MessageInstance {
    MessageInstance::new("Purchase", "rfq", "Buyer", [("ID", id), ("item", item)])
}

/// Records the events a maker registered for `trigger` sees.
fn record_events(agent: &mut Agent, trigger: Trigger) -> Arc<Mutex<Vec<Event>>> {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    agent.on(trigger, move |context: &DecisionContext<'_>| {
        sink.lock().unwrap().push(context.event.clone());
        Vec::new()
    });
    seen
}

#[test]
fn triggers_select_events() {
    let mut seller = agent(&["Seller"]);
    let all = record_events(&mut seller, Trigger::Any);
    let init = record_events(&mut seller, Trigger::Init);
    let rfqs = record_events(&mut seller, Trigger::received("rfq"));
    let qualified = record_events(&mut seller, Trigger::received("Purchase/rfq"));
    let accepts = record_events(&mut seller, Trigger::received("accept"));
    let changes = record_events(&mut seller, Trigger::EnabledChanged);
    let restock = record_events(&mut seller, Trigger::external("restock"));

    seller.init();
    seller
        .receive(rfq("1", "ball"))
        .unwrap_or_else(|e| panic!("{e}"));
    seller.inject("restock", json!({"item": "ball"}));
    seller.inject("holiday", json!(null));

    assert_eq!(init.lock().unwrap().len(), 1);
    assert_eq!(rfqs.lock().unwrap().len(), 1);
    assert_eq!(qualified.lock().unwrap().len(), 1);
    assert!(accepts.lock().unwrap().is_empty());
    assert_eq!(restock.lock().unwrap().len(), 1);
    // The seller initiates nothing, so init changes nothing; the rfq makes
    // quote enabled.
    let changes = changes.lock().unwrap();
    assert_eq!(changes.len(), 1);
    let Event::EnabledChanged { added, removed } = &changes[0] else {
        panic!("{:?}", changes[0]);
    };
    assert_eq!(added.len(), 1);
    assert_eq!(added[0].message, "quote");
    assert!(removed.is_empty());
    // Any: init, the reception, the change, and both external events.
    assert_eq!(all.lock().unwrap().len(), 5);
}

#[test]
fn init_reports_initial_forms_as_added() {
    let mut buyer = agent(&["Buyer"]);
    let changes = record_events(&mut buyer, Trigger::EnabledChanged);
    buyer.init();
    let changes = changes.lock().unwrap();
    let Some(Event::EnabledChanged { added, .. }) = changes.first() else {
        panic!("no change event");
    };
    let names: Vec<&str> = added.iter().map(|f| f.message.as_str()).collect();
    assert_eq!(names, ["rfq"]);
}

#[test]
fn decisions_are_sent_and_invalid_bindings_are_rejected_not_sent() {
    let mut seller = agent(&["Seller"]);
    seller.on(Trigger::received("rfq"), |context: &DecisionContext<'_>| {
        let mut decisions = Vec::new();
        for form in context.enabled_named("quote") {
            // Missing the out parameter.
            decisions.push(form.bind(Vec::<(String, String)>::new()));
            // Changing an in value.
            let mut tampered = form.bind([("price", "1")]);
            tampered.bindings.insert("item".into(), "gold".into());
            decisions.push(tampered);
            // A message of another role.
            decisions.push(MessageInstance::new(
                "Purchase",
                "accept",
                "Buyer",
                [
                    ("ID", "1"),
                    ("item", "ball"),
                    ("price", "1"),
                    ("address", "x"),
                    ("resp", "y"),
                ],
            ));
            // The valid one, twice.
            decisions.push(form.bind([("price", "10")]));
            decisions.push(form.bind([("price", "10")]));
            // Same form, another price: the first binding stands.
            decisions.push(form.bind([("price", "12")]));
        }
        decisions
    });
    let step = seller
        .receive(rfq("1", "ball"))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(step.reception, Some(Received::Accepted));
    assert_eq!(step.sent.len(), 1);
    assert_eq!(step.sent[0].get("price"), Some("10"));
    assert_eq!(step.sent[0].recipients, ["Buyer"]);
    assert_eq!(step.duplicates.len(), 1);
    let errors: Vec<&EmitError> = step.rejected.iter().map(|r| &r.error).collect();
    assert!(
        matches!(errors[0], EmitError::MissingParameters { .. }),
        "{errors:?}"
    );
    assert!(
        matches!(errors[1], EmitError::InMismatch { .. }),
        "{errors:?}"
    );
    assert!(
        matches!(errors[2], EmitError::NotSenderRole { .. }),
        "{errors:?}"
    );
    assert!(
        matches!(errors[3], EmitError::OutAlreadyBound { .. }),
        "{errors:?}"
    );
    assert_eq!(errors.len(), 4);
    // Only the valid quote reached the history.
    let history = seller
        .adapter()
        .knowledge("Purchase")
        .map(|k| k.observations().len());
    assert_eq!(history, Some(2));
}

#[test]
fn a_repeated_reception_triggers_nothing() {
    let mut seller = agent(&["Seller"]);
    let seen = record_events(&mut seller, Trigger::Any);
    seller
        .receive(rfq("1", "ball"))
        .unwrap_or_else(|e| panic!("{e}"));
    let before = seen.lock().unwrap().len();
    let step = seller
        .receive(rfq("1", "ball"))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(step.reception, Some(Received::Duplicate));
    assert_eq!(seen.lock().unwrap().len(), before);
}

#[test]
fn an_invalid_reception_is_an_error_and_triggers_nothing() {
    let mut seller = agent(&["Seller"]);
    let seen = record_events(&mut seller, Trigger::Any);
    seller
        .receive(rfq("1", "ball"))
        .unwrap_or_else(|e| panic!("{e}"));
    let before = seen.lock().unwrap().len();
    let conflicting = MessageInstance::new(
        "Purchase",
        "reject",
        "Buyer",
        [
            ("ID", "1"),
            ("item", "bat"),
            ("price", "1"),
            ("outcome", "x"),
            ("resp", "no"),
        ],
    );
    assert!(seller.receive(conflicting).is_err());
    assert_eq!(seen.lock().unwrap().len(), before);
}

#[test]
fn decisions_cascade_through_enabled_changes() {
    // One agent playing Buyer and Seller answers its own request.
    let mut both = agent(&["Buyer", "Seller"]);
    both.on(Trigger::Init, |context: &DecisionContext<'_>| {
        context
            .enabled_named("rfq")
            .map(|f| f.bind([("ID", "1"), ("item", "ball")]))
            .collect()
    });
    both.on(Trigger::EnabledChanged, |context: &DecisionContext<'_>| {
        context
            .enabled_named("quote")
            .map(|f| f.bind([("price", "5")]))
            .collect()
    });
    let step = both.init();
    let names: Vec<&str> = step.sent.iter().map(|m| m.message.as_str()).collect();
    assert_eq!(names, ["rfq", "quote"]);
    assert!(!step.round_limit_reached);
}

#[test]
fn a_decision_maker_that_never_settles_hits_the_round_limit() {
    let mut buyer = agent(&["Buyer"]);
    let counter = Arc::new(Mutex::new(0));
    let next = counter.clone();
    buyer.on(Trigger::Any, move |context: &DecisionContext<'_>| {
        let mut n = next.lock().unwrap();
        *n += 1;
        context
            .enabled_named("rfq")
            .map(|f| f.bind([("ID", n.to_string()), ("item", "ball".to_owned())]))
            .collect()
    });
    let mut buyer = buyer.with_max_rounds(5);
    // Init, then the change init made (rfq became enabled); a new rfq leaves
    // the enabled set as it was, so dispatching settles.
    let step = buyer.init();
    assert_eq!(step.sent.len(), 2);
    assert_eq!(*counter.lock().unwrap(), 2);
    assert!(!step.round_limit_reached);

    // Answering its own requests, the agent changes the enabled set every
    // round (a new quote form each time) and never settles.
    let mut both = agent(&["Buyer", "Seller"]);
    let mut id = 0;
    both.on(Trigger::Any, move |context: &DecisionContext<'_>| {
        id += 1;
        let mut decisions: Vec<MessageInstance> = context
            .enabled_named("rfq")
            .map(|f| f.bind([("ID", id.to_string()), ("item", "ball".to_owned())]))
            .collect();
        decisions.extend(
            context
                .enabled_named("quote")
                .map(|f| f.bind([("price", "1")])),
        );
        decisions
    });
    let mut both = both.with_max_rounds(4);
    let step = both.init();
    assert!(step.round_limit_reached);
    assert_eq!(both.max_rounds(), 4);
    assert!(!step.sent.is_empty());
}

#[test]
fn decision_makers_see_the_adapter_and_the_event() {
    let mut seller = agent(&["Seller"]);
    let observed = Arc::new(Mutex::new(Vec::new()));
    let sink = observed.clone();
    seller.on(
        Trigger::received("rfq"),
        move |context: &DecisionContext<'_>| {
            let Event::Received { message } = context.event else {
                return Vec::new();
            };
            let history = context
                .adapter
                .knowledge(&message.protocol)
                .map(|k| k.observations().len())
                .unwrap_or_default();
            sink.lock().unwrap().push((
                message.get("item").map(str::to_owned),
                history,
                context.enabled.len(),
            ));
            Vec::new()
        },
    );
    seller
        .receive(rfq("1", "ball"))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(*observed.lock().unwrap(), [(Some("ball".to_owned()), 1, 1)]);
}

#[test]
fn submitted_messages_are_checked_and_makers_react_to_them() {
    use std::sync::Arc;
    use tnsai_bspl::decision::{Agent, DecisionContext, Trigger};
    use tnsai_bspl::{Adapter, MessageInstance, Specification};

    let spec = Specification::parse(
        "Ping { roles A, B parameters out id key, out reply \
         A -> B: ping[out id key] \
         B -> A: pong[in id key, out reply] }",
    )
    .unwrap();
    let protocol = Arc::new(spec.into_protocol("Ping").unwrap());
    let mut adapter = Adapter::new("a");
    adapter.play(Arc::clone(&protocol), &["A", "B"]).unwrap();
    let mut agent = Agent::new(adapter);
    // A sync maker answers every ping this agent can answer.
    agent.on(Trigger::EnabledChanged, |context: &DecisionContext<'_>| {
        context
            .enabled_named("pong")
            .map(|form| form.bind([("reply", "ok")]))
            .collect()
    });
    let decided = MessageInstance::new("Ping", "ping", "A", [("id", "1")]);
    let step = agent.submit(vec![decided.clone()]);
    let names: Vec<&str> = step.sent.iter().map(|m| m.message.as_str()).collect();
    assert_eq!(names, ["ping", "pong"]);
    // The same message again is a duplicate; one that breaks the adornments is refused.
    let again = agent.submit(vec![decided]);
    assert_eq!(again.duplicates.len(), 1);
    let bad = MessageInstance::new("Ping", "pong", "B", [("id", "2"), ("reply", "x")]);
    let refused = agent.submit(vec![bad]);
    assert!(refused.sent.is_empty());
    assert_eq!(refused.rejected.len(), 1);
}
