//! Ahoy: a buyer whose every move is decided by a language model, enacting the Purchase
//! protocol against a rule-based seller and shipper on the in-process transport.
//!
//! ```sh
//! cargo run --example ahoy_buyer                 # a scripted model: offline, deterministic
//! cargo run --example ahoy_buyer -- --verbose    # also print every prompt and answer
//! OPENAI_BASE_URL=http://127.0.0.1:11434/v1 TNSAI_MODEL=llama3.1 \
//!     cargo run --example ahoy_buyer -- --verbose # a real OpenAI-compatible server
//! ```
//!
//! With `OPENAI_BASE_URL` set, the buyer asks that server (`OPENAI_API_KEY` and
//! `TNSAI_MODEL` as the client reads them); without it, a scripted model plays the part.
//! It prints each decision and the messages in the order they were sent; `--verbose`
//! adds the system prompt once and each decision's conversation.

use std::sync::Arc;
use std::time::Duration;

use tnsai_coordination::Platform;
use tnsai_coordination::bspl::decision::{Agent, DecisionContext, Trigger};
use tnsai_coordination::bspl::llm::{LlmDecisionMaker, Terminations, describe_termination};
use tnsai_coordination::bspl::{
    Adapter, EnactmentEvent, MessageInstance, Protocol, Roster, Specification,
};
use tnsai_coordination::openai::OpenAiClient;
use tnsai_core::prelude::*;
use tnsai_core::{ChatRole, ScriptedModel};

#[direct_message]
struct Peer;

const GOAL: &str = "Buy a kite for at most 30 EUR, delivered to 1 Main St. \
Accept a quote within budget and reject one above it. \
Send `completed` only after the kite has been delivered, and say how satisfied you are.";

/// The answers a capable model would give, keyed on the event each prompt states.
fn scripted() -> ScriptedModel {
    ScriptedModel::new()
        .when_contains("already chosen for this event", r#"{"choice": null, "reason": "one kite is enough"}"#)
        .when_contains(
            "event: start",
            r#"{"choice": 1, "params": {"ID": "kite-1", "item": "kite"}, "reason": "ask for a quote first"}"#,
        )
        .when_contains(
            "event: received purchase/quote",
            r#"{"choice": 1, "params": {"address": "1 Main St", "resp": "accepted"}, "reason": "20 EUR is within the budget of 30"}"#,
        )
        .when_contains(
            "event: received purchase/deliver",
            r#"{"choice": 1, "params": {"satisfaction": "very happy"}, "reason": "the kite arrived"}"#,
        )
        .otherwise(r#"{"choice": null, "reason": "nothing to do yet"}"#)
}

fn seller(purchase: &Arc<Protocol>) -> Result<Agent, Box<dyn std::error::Error>> {
    let mut adapter = Adapter::new("seller");
    adapter.play(Arc::clone(purchase), &["Seller"])?;
    let mut seller = Agent::new(adapter);
    seller.on(Trigger::EnabledChanged, |c: &DecisionContext<'_>| {
        let mut out: Vec<MessageInstance> = c
            .enabled_named("quote")
            .map(|f| {
                let price = if f.ins["item"].contains("kite") {
                    "20"
                } else {
                    "45"
                };
                f.bind([("price", price)])
            })
            .collect();
        out.extend(
            c.enabled_named("ship")
                .map(|f| f.bind([("shipped", "today")])),
        );
        out
    });
    Ok(seller)
}

fn shipper(purchase: &Arc<Protocol>) -> Result<Agent, Box<dyn std::error::Error>> {
    let mut adapter = Adapter::new("shipper");
    adapter.play(Arc::clone(purchase), &["Shipper"])?;
    let mut shipper = Agent::new(adapter);
    shipper.on(Trigger::EnabledChanged, |c: &DecisionContext<'_>| {
        c.enabled_named("deliver")
            .map(|f| f.bind([("outcome", "delivered")]))
            .collect()
    });
    Ok(shipper)
}

fn show(message: &MessageInstance) -> String {
    let bindings: Vec<String> = message
        .bindings
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    format!("{}[{}]", message.message, bindings.join(", "))
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let verbose = std::env::args().any(|a| a == "--verbose" || a == "-v");
    let real = std::env::var("OPENAI_BASE_URL").is_ok_and(|v| !v.trim().is_empty());
    let model: Arc<dyn LanguageModel> = if real {
        let client = OpenAiClient::from_env()?;
        println!(
            "model: {} at {}",
            client.config().model(),
            client.endpoint()
        );
        Arc::new(client)
    } else {
        println!("model: scripted (set OPENAI_BASE_URL to use a real server)");
        Arc::new(scripted())
    };

    let purchase = Arc::new(
        Specification::parse(include_str!("../tnsai-bspl/protocols/purchase.bspl"))?
            .into_protocol("Purchase")
            .ok_or("purchase.bspl defines Purchase")?,
    );
    let roster = Roster::new()
        .with("Purchase", "Buyer", "buyer")
        .with("Purchase", "Seller", "seller")
        .with("Purchase", "Shipper", "shipper");
    let platform = Platform::new();

    let mut adapter = Adapter::new("buyer");
    adapter.play(Arc::clone(&purchase), &["Buyer"])?;
    for (protocol, role, condition) in Terminations::new().apply(&mut adapter)? {
        println!(
            "{protocol}:{role} is done once it has {}",
            describe_termination(&condition)
        );
    }
    let maker = LlmDecisionMaker::new(model, GOAL).with_temperature(0.0);
    if verbose {
        println!(
            "\n===== system prompt =====\n{}",
            maker.system_prompt(&adapter)
        );
    }

    let mut decisions = maker.subscribe();
    let printer = tokio::spawn(async move {
        while let Ok(record) = decisions.recv().await {
            if verbose {
                println!("\n===== decision =====");
                for line in record
                    .transcript
                    .iter()
                    .filter(|m| m.role != ChatRole::System)
                {
                    let who = match line.role {
                        ChatRole::User => "prompt",
                        _ => "answer",
                    };
                    println!("--- {who}\n{}", line.content);
                }
            }
            println!("decision: {record}");
        }
    });

    let mut enactors = Vec::new();
    for (id, agent) in [
        ("seller", seller(&purchase)?),
        ("shipper", shipper(&purchase)?),
    ] {
        let pm = platform
            .spawn(id, Peer)
            .await?
            .protocol_manager()
            .ok_or("peer")?;
        enactors.push((id, pm.enact(agent, roster.clone())?));
    }
    let pm = platform
        .spawn("buyer", Peer)
        .await?
        .protocol_manager()
        .ok_or("buyer")?;
    let buyer = pm.enact(Agent::new(adapter), roster)?;
    buyer.on_async(Trigger::Any, maker.clone());
    enactors.push(("buyer", buyer.clone()));

    // Each agent's Sent events, stamped with when the message left: sorted by that
    // instant they give the causal order, whichever agent's event arrives first.
    let sequence: Arc<std::sync::Mutex<Vec<(std::time::Instant, String)>>> = Arc::default();
    for (id, enactor) in &enactors {
        let mut events = enactor.events();
        let sequence = Arc::clone(&sequence);
        let id = (*id).to_owned();
        tokio::spawn(async move {
            while let Ok(event) = events.recv().await {
                let entry = match event {
                    EnactmentEvent::Sent { to, message, at } => {
                        (at, format!("{id} -> {to}: {}", show(&message)))
                    }
                    EnactmentEvent::Refused { message, reason } => (
                        std::time::Instant::now(),
                        format!("{id} refused its own {}: {reason}", show(&message)),
                    ),
                    _ => continue,
                };
                sequence
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .push(entry);
            }
        });
    }

    for (_, enactor) in &enactors {
        enactor.start().await?;
    }
    let limit = Duration::from_secs(if real { 300 } else { 10 });
    let outcome = buyer.wait_done(limit).await;
    // Let the last events reach the collectors.
    tokio::time::sleep(Duration::from_millis(100)).await;
    platform.shutdown().await;
    printer.abort();
    let mut sequence = sequence
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .clone();
    sequence.sort_by_key(|(at, _)| *at);
    println!("\nMessages, in the order they were sent:");
    for (_, line) in sequence {
        println!("  {line}");
    }
    match outcome {
        Ok(()) => {
            println!("The buyer's part is done: the kite was bought and delivered.");
            Ok(())
        }
        Err(error) => Err(format!("the purchase did not finish: {error}").into()),
    }
}
