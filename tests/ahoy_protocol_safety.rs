//! Whatever a model answers, an LLM-driven agent sends only what the protocol allows:
//! a model answering at random (bad JSON, wrong options, missing, extra, `in` and `nil`
//! bindings, reused keys, unknown tools) never makes the adapter refuse a decision, and
//! never makes a peer see an inconsistent message.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tnsai_coordination::Platform;
use tnsai_coordination::bspl::decision::{Agent, DecisionContext, Trigger};
use tnsai_coordination::bspl::llm::{DecisionOutcome, LlmDecisionMaker, Terminations};
use tnsai_coordination::bspl::{
    Adapter, EnactmentEvent, Enactor, MessageInstance, Protocol, Roster, Specification,
};
use tnsai_core::prelude::*;
use tnsai_core::{BoxFuture, CompletionRequest, ModelError};
use tokio::sync::broadcast;

#[direct_message]
struct Peer;

/// Answers at random, reproducibly (xorshift64).
struct Chaos {
    state: Mutex<u64>,
}

impl Chaos {
    fn new(seed: u64) -> Self {
        Self {
            state: Mutex::new(seed.max(1)),
        }
    }

    fn next(&self, below: u64) -> u64 {
        let mut x = self.state.lock().unwrap();
        *x ^= *x << 13;
        *x ^= *x >> 7;
        *x ^= *x << 17;
        *x % below
    }

    fn pick<'a, T>(&self, items: &'a [T]) -> &'a T {
        &items[self.next(items.len() as u64) as usize]
    }

    /// Half the time a plausible answer: a random option, its `out` parameters filled
    /// from a small pool (so keys collide), sometimes one dropped or an `in` added.
    fn plausible(&self, prompt: &str) -> Option<String> {
        let mut options: Vec<Vec<String>> = Vec::new();
        for line in prompt.lines() {
            if line
                .split_once(". Purchase/")
                .is_some_and(|(n, _)| n.parse::<usize>().is_ok())
            {
                options.push(Vec::new());
            } else if let Some(outs) = line.trim().strip_prefix("out (you choose): ")
                && let Some(last) = options.last_mut()
            {
                *last = outs
                    .split(", ")
                    .filter(|o| *o != "none")
                    .map(|o| o.trim_end_matches(" (new key)").to_owned())
                    .collect();
            }
        }
        if options.is_empty() {
            return None;
        }
        let choice = self.next(options.len() as u64) as usize;
        let mut params = serde_json::Map::new();
        for out in &options[choice] {
            params.insert(out.clone(), json!(self.pick(&["1", "2", "3", "kite", "x"])));
        }
        match self.next(6) {
            0 => {
                let first = params.keys().next().cloned();
                if let Some(first) = first {
                    params.remove(&first);
                }
            }
            1 => {
                params.insert("ID".to_owned(), json!(self.pick(&["1", "2", "9"])));
            }
            _ => {}
        }
        Some(json!({"choice": choice + 1, "params": params}).to_string())
    }

    fn answer(&self, prompt: &str) -> String {
        if self.next(2) == 0
            && let Some(answer) = self.plausible(prompt)
        {
            return answer;
        }
        if self.next(8) == 0 {
            return "I am not sure what to do.".to_owned();
        }
        let choices = [
            Value::Null,
            json!(0),
            json!(1),
            json!(1),
            json!(2),
            json!(3),
            json!(9),
            json!("1"),
            json!("Purchase/accept{ID=1}"),
            json!([1]),
        ];
        let names = [
            "ID",
            "item",
            "price",
            "address",
            "resp",
            "outcome",
            "satisfaction",
            "shipped",
            "bogus",
        ];
        let values = [
            json!("1"),
            json!("2"),
            json!("kite"),
            json!(""),
            json!("x"),
            json!(5),
            json!(null),
        ];
        let mut params = serde_json::Map::new();
        for _ in 0..self.next(5) {
            params.insert((*self.pick(&names)).to_owned(), self.pick(&values).clone());
        }
        let mut answer = json!({"choice": self.pick(&choices).clone(), "params": params});
        if self.next(10) == 0 {
            answer["tool_requests"] = json!([{"tool": "oracle", "args": {}}]);
        }
        if self.next(4) == 0 {
            format!("Sure, here it is:\n```json\n{answer}\n```")
        } else {
            answer.to_string()
        }
    }
}

impl LanguageModel for Chaos {
    fn complete<'a>(
        &'a self,
        request: &'a CompletionRequest,
    ) -> BoxFuture<'a, Result<String, ModelError>> {
        // The first user line holds the options (later ones are follow-ups).
        let prompt = request
            .messages()
            .iter()
            .find(|m| m.role == tnsai_core::ChatRole::User)
            .map_or("", |m| m.content.as_str());
        Box::pin(async move { Ok(self.answer(prompt)) })
    }
}

fn purchase() -> Arc<Protocol> {
    Arc::new(
        Specification::parse(include_str!("../tnsai-bspl/protocols/purchase.bspl"))
            .unwrap()
            .into_protocol("Purchase")
            .unwrap(),
    )
}

fn rule_based(name: &str, role: &str) -> Agent {
    let mut adapter = Adapter::new(name);
    adapter.play(purchase(), &[role]).unwrap();
    let mut agent = Agent::new(adapter);
    agent.on(Trigger::EnabledChanged, |c: &DecisionContext<'_>| {
        let mut out: Vec<MessageInstance> = c
            .enabled_named("quote")
            .map(|f| f.bind([("price", "20")]))
            .collect();
        out.extend(
            c.enabled_named("ship")
                .map(|f| f.bind([("shipped", "today")])),
        );
        out.extend(
            c.enabled_named("deliver")
                .map(|f| f.bind([("outcome", "delivered")])),
        );
        out
    });
    agent
}

async fn enact(platform: &Platform, id: &str, agent: Agent, roster: &Roster) -> Enactor {
    platform
        .spawn(id, Peer)
        .await
        .unwrap()
        .protocol_manager()
        .unwrap()
        .enact(agent, roster.clone())
        .unwrap()
}

fn troubles(events: &mut broadcast::Receiver<EnactmentEvent>) -> Vec<EnactmentEvent> {
    let mut bad = Vec::new();
    while let Ok(event) = events.try_recv() {
        if matches!(
            event,
            EnactmentEvent::Refused { .. } | EnactmentEvent::Inconsistent { .. }
        ) {
            bad.push(event);
        }
    }
    bad
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn random_answers_never_break_the_protocol() {
    let (mut chosen, mut dropped) = (0, 0);
    for seed in 1..=8u64 {
        let platform = Platform::new();
        let roster = Roster::new()
            .with("Purchase", "Buyer", "buyer")
            .with("Purchase", "Seller", "seller")
            .with("Purchase", "Shipper", "shipper");
        let seller = enact(&platform, "seller", rule_based("seller", "Seller"), &roster).await;
        let shipper = enact(
            &platform,
            "shipper",
            rule_based("shipper", "Shipper"),
            &roster,
        )
        .await;
        let mut adapter = Adapter::new("buyer");
        adapter.play(purchase(), &["Buyer"]).unwrap();
        Terminations::new().apply(&mut adapter).unwrap();
        let buyer = enact(&platform, "buyer", Agent::new(adapter), &roster).await;
        let maker = LlmDecisionMaker::new(Arc::new(Chaos::new(seed * 7919)), "Buy things.");
        buyer.on_async(Trigger::Any, maker.clone());
        let mut watched: Vec<_> = [&buyer, &seller, &shipper]
            .iter()
            .map(|e| e.events())
            .collect();

        buyer.start().await.unwrap();
        for n in 0..3 {
            buyer
                .inject("purchase-request", json!({"item": format!("thing-{n}")}))
                .await
                .unwrap();
        }
        // Wait until the decisions stop (each event's conversation is bounded).
        let mut seen = usize::MAX;
        for _ in 0..100 {
            tokio::time::sleep(Duration::from_millis(50)).await;
            let now = maker.records().len();
            if now == seen {
                break;
            }
            seen = now;
        }

        for events in &mut watched {
            let troubles = troubles(events);
            assert!(troubles.is_empty(), "seed {seed}: {troubles:#?}");
        }
        // Whatever the buyer sent, the seller accepted.
        let sent: Vec<MessageInstance> = buyer
            .adapter()
            .await
            .knowledge("Purchase")
            .unwrap()
            .observations()
            .iter()
            .filter(|o| o.direction == tnsai_coordination::bspl::Direction::Sent)
            .map(|o| o.message.clone())
            .collect();
        let seller_knows = seller.adapter().await;
        for message in &sent {
            assert!(
                seller_knows
                    .knowledge("Purchase")
                    .unwrap()
                    .observations()
                    .iter()
                    .any(|o| o.message == *message),
                "seed {seed}: {message:?}"
            );
        }
        for record in maker.records() {
            match record.outcome {
                DecisionOutcome::Chosen { .. } => chosen += 1,
                DecisionOutcome::Dropped { .. } => dropped += 1,
                _ => {}
            }
        }
        platform.shutdown().await;
    }
    // The run exercised both sides: usable answers went out, unusable ones were dropped.
    assert!(
        chosen > 0 && dropped > 0,
        "chosen {chosen}, dropped {dropped}"
    );
}
