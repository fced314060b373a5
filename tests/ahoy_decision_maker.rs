//! The LLM decision maker with scripted answers: valid and invalid choices, bindings,
//! tools, `null`, and messages that may be sent again. Whatever the model answers, a
//! message comes out only if the adapter accepts it.

use std::sync::{Arc, Mutex};

use serde_json::json;
use tnsai_coordination::bspl::decision::Event;
use tnsai_coordination::bspl::llm::{
    AnswerProblemKind, DecisionOutcome, DecisionReport, LlmDecisionMaker, Tool, ToolError,
    ToolRegistry,
};
use tnsai_coordination::bspl::{Adapter, Emitted, MessageInstance, Protocol, Specification};
use tnsai_core::{
    BoxFuture, CompletionRequest, LanguageModel, ModelError, ModelErrorKind, ScriptedModel,
};
use tokio::sync::Notify;

fn purchase() -> Arc<Protocol> {
    Arc::new(
        Specification::parse(include_str!("../tnsai-bspl/protocols/purchase.bspl"))
            .unwrap()
            .into_protocol("Purchase")
            .unwrap(),
    )
}

fn fresh_buyer() -> Adapter {
    let mut buyer = Adapter::new("buyer");
    buyer.play(purchase(), &["Buyer"]).unwrap();
    buyer
}

fn quote(id: &str, price: &str) -> MessageInstance {
    MessageInstance::new(
        "Purchase",
        "quote",
        "Seller",
        [("ID", id), ("item", "kite"), ("price", price)],
    )
}

/// A buyer that asked for a kite (ID 1) and got a quote of 20: accept, reject and
/// completed are its options, in that order.
fn quoted_buyer() -> (Adapter, Event) {
    let mut buyer = fresh_buyer();
    let rfq = buyer
        .enabled()
        .into_iter()
        .find(|f| f.message == "rfq")
        .unwrap();
    buyer
        .emit(rfq.bind([("ID", "1"), ("item", "kite")]))
        .unwrap();
    buyer.receive(quote("1", "20")).unwrap();
    (
        buyer,
        Event::Received {
            message: quote("1", "20"),
        },
    )
}

fn maker(model: &Arc<ScriptedModel>) -> LlmDecisionMaker {
    LlmDecisionMaker::new(
        Arc::clone(model) as Arc<dyn LanguageModel>,
        "Buy a kite for at most 30 EUR.",
    )
}

/// Every message decided must be accepted by the adapter, in order.
fn assert_protocol_allows(adapter: &Adapter, report: &DecisionReport) {
    let mut copy = adapter.clone();
    for message in &report.messages {
        assert!(
            matches!(copy.emit(message.clone()), Ok(Emitted::Sent(_))),
            "{message:?}"
        );
    }
}

fn problems(report: &DecisionReport) -> Vec<AnswerProblemKind> {
    match &report.records.last().unwrap().outcome {
        DecisionOutcome::Dropped { problems } => problems.iter().map(|p| p.kind()).collect(),
        other => panic!("expected a dropped answer, got {other:?}"),
    }
}

fn last_user(request: &CompletionRequest) -> &str {
    request.last_user_text().unwrap()
}

const ACCEPT: &str = r#"{"choice": 1, "params": {"address": "1 Main St", "resp": "yes"}, "reason": "20 is within budget"}"#;

#[tokio::test]
async fn a_valid_choice_binds_the_option() {
    let (buyer, event) = quoted_buyer();
    let model = Arc::new(ScriptedModel::new().then_reply(ACCEPT));
    let report = maker(&model).decide_on(&event, &buyer).await;

    assert_eq!(report.messages.len(), 1);
    let accept = &report.messages[0];
    assert_eq!(accept.message, "accept");
    assert_eq!(accept.get("ID"), Some("1"));
    assert_eq!(accept.get("price"), Some("20"));
    assert_eq!(accept.get("address"), Some("1 Main St"));
    assert_protocol_allows(&buyer, &report);
    match &report.records[0].outcome {
        DecisionOutcome::Chosen {
            option,
            label,
            reason,
            ..
        } => {
            assert_eq!(*option, 1);
            assert_eq!(label, "Purchase/accept{ID=1}");
            assert_eq!(reason.as_deref(), Some("20 is within budget"));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        report.records[0].options,
        [
            "Purchase/accept{ID=1}",
            "Purchase/reject{ID=1}",
            "Purchase/completed{ID=1}"
        ]
    );
    // The model saw the system prompt and one user prompt, and was asked for JSON.
    let requests = model.requests();
    assert_eq!(requests.len(), 1);
    assert!(requests[0].wants_json());
    assert_eq!(requests[0].messages().len(), 2);
    assert!(
        last_user(&requests[0]).contains("received quote from Seller: ID=1, item=kite, price=20")
    );
}

#[tokio::test]
async fn an_out_of_range_choice_is_asked_again_with_the_reason() {
    let (buyer, event) = quoted_buyer();
    let model = Arc::new(
        ScriptedModel::new()
            .then_reply(r#"{"choice": 7, "params": {}}"#)
            .then_reply(ACCEPT),
    );
    let report = maker(&model).decide_on(&event, &buyer).await;
    assert_eq!(report.messages.len(), 1);
    assert_protocol_allows(&buyer, &report);
    let second = &model.requests()[1];
    assert!(
        last_user(second).contains("choice 7 is not an option; choose a number from 1 to 3"),
        "{}",
        last_user(second)
    );
    // The conversation goes on: the bad answer is part of it.
    assert_eq!(second.messages().len(), 4);
    assert_eq!(report.records[0].calls(), 2);

    // Twice out of range: dropped, nothing sent.
    let model = Arc::new(
        ScriptedModel::new()
            .then_reply(r#"{"choice": 0}"#)
            .then_reply(r#"{"choice": -2}"#),
    );
    let report = maker(&model).decide_on(&event, &buyer).await;
    assert!(report.messages.is_empty());
    assert_eq!(problems(&report), [AnswerProblemKind::NotAnOption]);
    assert_eq!(model.requests().len(), 2, "asked again once, not more");
}

#[tokio::test]
async fn missing_and_extra_parameters_are_refused() {
    let (buyer, event) = quoted_buyer();
    let missing = r#"{"choice": 1, "params": {"address": "1 Main St"}}"#;
    let model = Arc::new(ScriptedModel::new().then_reply(missing).then_reply(missing));
    let report = maker(&model).decide_on(&event, &buyer).await;
    assert!(report.messages.is_empty());
    assert_eq!(problems(&report), [AnswerProblemKind::MissingParameters]);
    assert!(last_user(&model.requests()[1]).contains("option 1 needs a value for resp"));

    let extra =
        r#"{"choice": 1, "params": {"address": "1 Main St", "resp": "yes", "colour": "red"}}"#;
    let model = Arc::new(ScriptedModel::new().then_reply(extra).then_reply(ACCEPT));
    let report = maker(&model).decide_on(&event, &buyer).await;
    assert_eq!(report.messages.len(), 1);
    assert!(!report.messages[0].bindings.contains_key("colour"));
    assert!(last_user(&model.requests()[1]).contains("option 1 has no parameter colour"));
    assert_protocol_allows(&buyer, &report);

    // A value that is not text, or is empty, is refused too; numbers are taken as text.
    let odd = r#"{"choice": 1, "params": {"address": {"street": "Main"}, "resp": ""}}"#;
    let numeric = r#"{"choice": 1, "params": {"address": 17, "resp": true}}"#;
    let model = Arc::new(ScriptedModel::new().then_reply(odd).then_reply(numeric));
    let report = maker(&model).decide_on(&event, &buyer).await;
    assert_eq!(report.messages[0].get("address"), Some("17"));
    assert_eq!(report.messages[0].get("resp"), Some("true"));
}

#[tokio::test]
async fn a_binding_for_an_in_parameter_cannot_change_it() {
    let (buyer, event) = quoted_buyer();
    let cheaper =
        r#"{"choice": 1, "params": {"address": "1 Main St", "resp": "yes", "price": "1"}}"#;
    let model = Arc::new(ScriptedModel::new().then_reply(cheaper).then_reply(cheaper));
    let report = maker(&model).decide_on(&event, &buyer).await;
    assert!(report.messages.is_empty());
    assert_eq!(problems(&report), [AnswerProblemKind::InParameter]);
    assert!(
        last_user(&model.requests()[1])
            .contains("price is an \"in\" parameter, already bound to \"20\"")
    );

    // Repeating the known value is harmless.
    let same = r#"{"choice": 1, "params": {"address": "1 Main St", "resp": "yes", "price": 20}}"#;
    let model = Arc::new(ScriptedModel::new().then_reply(same));
    let report = maker(&model).decide_on(&event, &buyer).await;
    assert_eq!(report.messages.len(), 1);
    assert_eq!(report.messages[0].get("price"), Some("20"));
    assert_protocol_allows(&buyer, &report);
}

#[tokio::test]
async fn a_tool_request_then_a_choice() {
    let (buyer, event) = quoted_buyer();
    let asked: Arc<Mutex<Vec<serde_json::Value>>> = Arc::default();
    let seen = Arc::clone(&asked);
    let tools = ToolRegistry::new().with(Tool::new(
        "budget",
        "Money left for purchases, in EUR",
        r#"{"currency": "string"}"#,
        move |args| {
            seen.lock().unwrap().push(args.clone());
            match args["currency"].as_str() {
                Some("EUR") => Ok(json!({"left": 45})),
                _ => Err(ToolError::InvalidArguments("currency must be EUR".into())),
            }
        },
    ));
    let model = Arc::new(
        ScriptedModel::new()
            .then_reply(r#"Let me check. {"choice": null, "tool_requests": [{"tool": "budget", "args": {"currency": "EUR"}}, {"tool": "weather"}]}"#)
            .then_reply(ACCEPT),
    );
    let report = maker(&model)
        .with_tools(tools)
        .decide_on(&event, &buyer)
        .await;
    assert_eq!(report.messages.len(), 1);
    assert_eq!(report.messages[0].message, "accept");
    assert_eq!(*asked.lock().unwrap(), [json!({"currency": "EUR"})]);

    let requests = model.requests();
    assert_eq!(requests.len(), 2);
    assert!(
        requests[0].messages()[0]
            .content
            .contains("- budget {\"currency\": \"string\"}: Money left for purchases, in EUR")
    );
    let results = last_user(&requests[1]);
    assert!(
        results.contains("- budget {\"currency\":\"EUR\"}: {\"left\":45}"),
        "{results}"
    );
    assert!(
        results.contains("- weather {}: error: there is no tool named \"weather\""),
        "{results}"
    );
    let record = &report.records[0];
    assert_eq!(record.tool_calls.len(), 2);
    assert_eq!(record.tool_calls[0].result, Ok(json!({"left": 45})));
    assert!(record.tool_calls[1].result.is_err());
}

#[tokio::test]
async fn tool_rounds_are_bounded() {
    let (buyer, event) = quoted_buyer();
    let tools =
        ToolRegistry::new().with(Tool::new("clock", "The time", "{}", |_| Ok(json!("noon"))));
    let model = Arc::new(
        ScriptedModel::new()
            .otherwise(r#"{"choice": null, "tool_requests": [{"tool": "clock", "args": {}}]}"#),
    );
    let report = maker(&model)
        .with_tools(tools)
        .with_max_tool_rounds(2)
        .decide_on(&event, &buyer)
        .await;
    assert!(report.messages.is_empty());
    assert_eq!(problems(&report), [AnswerProblemKind::TooManyToolRounds]);
    // Two tool rounds, then the third tool request is refused and asked again once.
    assert_eq!(model.requests().len(), 4);
    assert_eq!(report.records[0].tool_calls.len(), 2);
    assert!(last_user(&model.requests()[2]).contains("No more tool requests are allowed"));
}

#[tokio::test]
async fn null_sends_nothing() {
    let (buyer, event) = quoted_buyer();
    let model =
        Arc::new(ScriptedModel::new().then_reply(
            "```json\n{\"choice\": null, \"reason\": \"wait for a better price\"}\n```",
        ));
    let report = maker(&model).decide_on(&event, &buyer).await;
    assert!(report.messages.is_empty());
    assert_eq!(
        report.records[0].outcome,
        DecisionOutcome::Declined {
            reason: Some("wait for a better price".into())
        }
    );
    assert_eq!(model.requests().len(), 1);
}

#[tokio::test]
async fn unreadable_answers_and_model_failures_send_nothing() {
    let (buyer, event) = quoted_buyer();
    let model = Arc::new(
        ScriptedModel::new()
            .then_reply("I would accept, I think.")
            .then_reply("{\"params\": {}}"),
    );
    let report = maker(&model).decide_on(&event, &buyer).await;
    assert!(report.messages.is_empty());
    assert_eq!(problems(&report), [AnswerProblemKind::Unreadable]);
    assert!(last_user(&model.requests()[1]).contains("the answer holds no JSON object"));

    let model =
        Arc::new(ScriptedModel::new().then_fail(ModelError::new(ModelErrorKind::Timeout, "slow")));
    let report = maker(&model).decide_on(&event, &buyer).await;
    assert!(report.messages.is_empty());
    assert!(matches!(
        &report.records[0].outcome,
        DecisionOutcome::ModelFailed(e) if e.kind() == ModelErrorKind::Timeout
    ));
}

#[tokio::test]
async fn options_may_be_named_by_label() {
    let (buyer, event) = quoted_buyer();
    let model = Arc::new(ScriptedModel::new().then_reply(
        r#"{"choice": "Purchase/reject{ID=1}", "params": {"outcome": "no", "resp": "no"}}"#,
    ));
    let report = maker(&model).decide_on(&event, &buyer).await;
    assert_eq!(report.messages[0].message, "reject");
    assert_protocol_allows(&buyer, &report);
}

#[tokio::test]
async fn a_repeatable_option_is_offered_again_and_reused_keys_are_refused() {
    let mut buyer = fresh_buyer();
    let rfq = buyer
        .enabled()
        .into_iter()
        .find(|f| f.message == "rfq")
        .unwrap();
    buyer
        .emit(rfq.bind([("ID", "7"), ("item", "bat")]))
        .unwrap();
    let model = Arc::new(
        ScriptedModel::new()
            // ID 7 is taken: the adapter's dry run refuses it.
            .then_reply(r#"{"choice": 1, "params": {"ID": "7", "item": "kite"}}"#)
            .then_reply(r#"{"choice": 1, "params": {"ID": "8", "item": "kite"}}"#)
            .then_reply(r#"{"choice": 1, "params": {"ID": "9", "item": "ball"}}"#)
            .then_reply(r#"{"choice": null}"#),
    );
    let report = maker(&model).decide_on(&Event::Init, &buyer).await;
    let ids: Vec<&str> = report
        .messages
        .iter()
        .map(|m| m.get("ID").unwrap())
        .collect();
    assert_eq!(ids, ["8", "9"]);
    assert_protocol_allows(&buyer, &report);
    let requests = model.requests();
    assert_eq!(requests.len(), 4);
    assert!(
        last_user(&requests[1]).contains("the protocol does not allow it"),
        "{}",
        last_user(&requests[1])
    );
    assert!(last_user(&requests[0]).contains("keys in use: ID: 7"));
    assert!(last_user(&requests[3]).contains(
        "Already chosen for this event: Purchase/rfq (ID=8, item=kite); Purchase/rfq (ID=9, item=ball)."
    ));
    assert!(matches!(
        report.records.last().unwrap().outcome,
        DecisionOutcome::Declined { .. }
    ));
}

#[tokio::test]
async fn messages_per_event_are_bounded() {
    let buyer = fresh_buyer();
    let model = Arc::new(ScriptedModel::new());
    for id in 1..=5 {
        model.push_reply(format!(
            r#"{{"choice": 1, "params": {{"ID": "{id}", "item": "x"}}}}"#
        ));
    }
    let report = maker(&model)
        .with_max_messages_per_event(3)
        .decide_on(&Event::Init, &buyer)
        .await;
    assert_eq!(report.messages.len(), 3);
    assert_eq!(model.requests().len(), 3);
    assert_protocol_allows(&buyer, &report);
}

#[tokio::test]
async fn no_option_means_no_call_and_finished_enactments_offer_nothing() {
    let (mut buyer, _) = quoted_buyer();
    let reject = buyer
        .enabled()
        .into_iter()
        .find(|f| f.message == "reject")
        .unwrap();
    buyer
        .emit(reject.bind([("outcome", "no"), ("resp", "no")]))
        .unwrap();
    // `completed` is still enabled for ID 1, but the buyer's part is over there.
    assert!(buyer.enabled().iter().any(|f| f.message == "completed"));
    let model = Arc::new(ScriptedModel::new().otherwise(ACCEPT));
    let maker = maker(&model);
    let report = maker
        .decide_on(
            &Event::Received {
                message: quote("1", "20"),
            },
            &buyer,
        )
        .await;
    assert!(report.messages.is_empty() && report.records.is_empty());
    assert!(model.requests().is_empty());
    assert!(
        maker
            .prompt_for(
                &Event::Received {
                    message: quote("1", "20")
                },
                &buyer
            )
            .await
            .is_none()
    );
}

#[tokio::test]
async fn what_was_chosen_counts_before_the_snapshot_shows_it() {
    let (buyer, event) = quoted_buyer();
    let model = Arc::new(ScriptedModel::new().then_reply(ACCEPT).otherwise(ACCEPT));
    let maker = maker(&model);
    let first = maker.decide_on(&event, &buyer).await;
    assert_eq!(first.messages.len(), 1);
    // The same (stale) snapshot again: accept was chosen already, so only completed is
    // left, and choosing option 1 now means completed.
    let second = maker.decide_on(&event, &buyer).await;
    assert_eq!(second.records[0].options, ["Purchase/completed{ID=1}"]);
    assert!(
        second.messages.is_empty(),
        "ACCEPT's params do not fit completed"
    );
    assert_eq!(
        problems(&second),
        [
            AnswerProblemKind::MissingParameters,
            AnswerProblemKind::UnexpectedParameters
        ]
    );
}

#[tokio::test]
async fn an_older_snapshot_neither_hides_news_nor_forgets_choices() {
    // Decisions wait for their turn, so one may be given a snapshot older than an
    // earlier decision's: here the Init snapshot predates the quote.
    let mut asked = fresh_buyer();
    let rfq = asked
        .enabled()
        .into_iter()
        .find(|f| f.message == "rfq")
        .unwrap();
    asked
        .emit(rfq.bind([("ID", "1"), ("item", "kite")]))
        .unwrap();
    let (quoted, quote_event) = quoted_buyer();
    let model = Arc::new(
        ScriptedModel::new()
            .then_reply(ACCEPT)
            .then_reply(r#"{"choice": null}"#)
            .otherwise(r#"{"choice": null}"#),
    );
    let maker = maker(&model);
    assert_eq!(
        maker.decide_on(&quote_event, &quoted).await.messages.len(),
        1
    );

    let late = maker.decide_on(&Event::Init, &asked).await;
    let prompt = late.records[0].user_prompt().unwrap();
    assert!(prompt.contains("received quote from Seller"), "{prompt}");
    assert!(!late.records[0].options.iter().any(|o| o.contains("accept")));

    // The accept chosen first is still remembered for the next (stale) snapshot.
    let again = maker.decide_on(&quote_event, &quoted).await;
    assert_eq!(again.records[0].options, ["Purchase/completed{ID=1}"]);
}

#[tokio::test]
async fn records_are_kept_and_published() {
    let (buyer, event) = quoted_buyer();
    let model = Arc::new(ScriptedModel::new().then_reply(ACCEPT));
    let maker = maker(&model);
    let mut decisions = maker.subscribe();
    maker.decide_on(&event, &buyer).await;
    let published = decisions.try_recv().unwrap();
    assert_eq!(maker.records(), std::slice::from_ref(&published));
    assert!(
        published
            .user_prompt()
            .unwrap()
            .starts_with("Event: received Purchase/quote")
    );
    let line = published.to_string();
    assert!(
        line.starts_with("buyer | Event: received Purchase/quote from Seller"),
        "{line}"
    );
    assert!(line.contains("chose 1. Purchase/accept{ID=1}"), "{line}");
}

#[tokio::test]
async fn one_maker_keeps_each_agents_memory_apart() {
    let model = Arc::new(
        ScriptedModel::new()
            .when_contains("already chosen", r#"{"choice": null}"#)
            .otherwise(r#"{"choice": 1, "params": {"ID": "1", "item": "kite"}}"#),
    );
    let maker = maker(&model);
    let alice = {
        let mut adapter = Adapter::new("alice");
        adapter.play(purchase(), &["Buyer"]).unwrap();
        adapter
    };
    let bob = {
        let mut adapter = Adapter::new("bob");
        adapter.play(purchase(), &["Buyer"]).unwrap();
        adapter
    };
    let first = maker.decide_on(&Event::Init, &alice).await;
    // Alice's rfq with ID 1 is hers alone: Bob may use ID 1 in his own history.
    let second = maker.decide_on(&Event::Init, &bob).await;
    assert_eq!(first.messages.len(), 1);
    assert_eq!(second.messages.len(), 1);
    assert_eq!(second.messages[0].get("ID"), Some("1"));
    assert!(
        model.requests()[2].messages()[0]
            .content
            .starts_with("You decide for agent \"bob\"")
    );
}

/// Holds its first answer until released, so a test can line events up.
struct GatedModel {
    gate: Arc<Notify>,
    inner: ScriptedModel,
    first: Mutex<bool>,
}

impl LanguageModel for GatedModel {
    fn complete<'a>(
        &'a self,
        request: &'a CompletionRequest,
    ) -> BoxFuture<'a, Result<String, ModelError>> {
        Box::pin(async move {
            let wait = std::mem::replace(&mut *self.first.lock().unwrap(), false);
            if wait {
                self.gate.notified().await;
            }
            self.inner.complete(request).await
        })
    }
}

#[tokio::test(flavor = "current_thread")]
async fn external_events_that_arrive_during_a_decision_are_shown_as_pending() {
    let buyer = fresh_buyer();
    let gate = Arc::new(Notify::new());
    let model = Arc::new(GatedModel {
        gate: Arc::clone(&gate),
        inner: ScriptedModel::new()
            .then_reply(r#"{"choice": 1, "params": {"ID": "1", "item": "kite"}}"#)
            .then_reply(r#"{"choice": null}"#)
            .then_reply(r#"{"choice": 1, "params": {"ID": "2", "item": "ball"}}"#)
            .then_reply(r#"{"choice": null}"#),
        first: Mutex::new(true),
    });
    let maker = LlmDecisionMaker::new(model.clone(), "Buy what is asked for.");
    let init = tokio::spawn({
        let (maker, buyer) = (maker.clone(), buyer.clone());
        async move { maker.decide_on(&Event::Init, &buyer).await }
    });
    for _ in 0..10 {
        tokio::task::yield_now().await;
    }
    let external = tokio::spawn({
        let (maker, buyer) = (maker.clone(), buyer.clone());
        async move {
            let event = Event::External {
                name: "purchase-request".into(),
                payload: json!({"item": "ball"}),
            };
            maker.decide_on(&event, &buyer).await
        }
    });
    for _ in 0..10 {
        tokio::task::yield_now().await;
    }
    gate.notify_one();
    let init = init.await.unwrap();
    let external = external.await.unwrap();

    let requests = model.inner.requests();
    assert!(last_user(&requests[0]).contains("Pending external events: none."));
    assert!(
        last_user(&requests[1]).contains("- \"purchase-request\": {\"item\":\"ball\"}"),
        "{}",
        last_user(&requests[1])
    );
    // Its own decision states it as the event, and knows ID 1 is taken.
    let own = last_user(&requests[2]);
    assert!(own.starts_with(
        "Event: external event \"purchase-request\" with details {\"item\":\"ball\"}"
    ));
    assert!(own.contains("Pending external events: none."));
    assert!(own.contains("keys in use: ID: 1"), "{own}");
    assert_eq!(init.messages[0].get("ID"), Some("1"));
    assert_eq!(external.messages[0].get("ID"), Some("2"));
}
