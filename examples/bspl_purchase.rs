//! BSPL Purchase, enacted by three agents for two items at once: a buyer, a seller and a
//! shipper, each with rule-based decision makers, over the in-process transport. Prints
//! the protocol's verification, then the messages as a sequence diagram, then each
//! role's termination condition.
//!
//! Run with `cargo run --example bspl_purchase`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tnsai_coordination::Platform;
use tnsai_coordination::bspl::decision::{Agent, DecisionContext, Event, Trigger};
use tnsai_coordination::bspl::{
    Adapter, EnactmentEvent, Enactor, MessageInstance, Protocol, Roster, Specification,
    Termination, verify,
};
use tnsai_core::prelude::*;
use tokio::sync::Mutex;

const PURCHASE: &str = include_str!("../tnsai-bspl/protocols/purchase.bspl");

#[direct_message]
struct Peer;

fn buyer(protocol: &Arc<Protocol>) -> Result<Agent, Box<dyn std::error::Error>> {
    let mut adapter = Adapter::new("buyer");
    adapter.play(Arc::clone(protocol), &["Buyer"])?;
    adapter.set_termination("Purchase", "Buyer", Termination::Sent("completed".into()))?;
    let mut agent = Agent::new(adapter);
    // Ask for two items at once; each request is its own enactment (key ID).
    agent.on(Trigger::Init, |c: &DecisionContext<'_>| {
        let Some(rfq) = c.enabled_named("rfq").next() else {
            return Vec::new();
        };
        vec![
            rfq.bind([("ID", "1"), ("item", "kite")]),
            rfq.bind([("ID", "2"), ("item", "ball")]),
        ]
    });
    // Accept any quote under 50; otherwise reject.
    agent.on(Trigger::received("quote"), |c: &DecisionContext<'_>| {
        let Event::Received { message } = c.event else {
            return Vec::new();
        };
        let cheap = message
            .get("price")
            .and_then(|p| p.parse::<u32>().ok())
            .is_some_and(|p| p < 50);
        let (name, outs) = if cheap {
            (
                "accept",
                [("address", "12 Harbour Rd"), ("resp", "accepted")],
            )
        } else {
            (
                "reject",
                [("outcome", "too expensive"), ("resp", "rejected")],
            )
        };
        same_enactment(c, name, message)
            .map(|f| f.bind(outs))
            .collect()
    });
    // Complete a purchase once its goods arrived (Purchase would allow it earlier).
    agent.on(Trigger::received("deliver"), |c: &DecisionContext<'_>| {
        let Event::Received { message } = c.event else {
            return Vec::new();
        };
        same_enactment(c, "completed", message)
            .map(|f| f.bind([("satisfaction", "happy")]))
            .collect()
    });
    Ok(agent)
}

fn seller(protocol: &Arc<Protocol>) -> Result<Agent, Box<dyn std::error::Error>> {
    let mut adapter = Adapter::new("seller");
    adapter.play(Arc::clone(protocol), &["Seller"])?;
    adapter.set_termination("Purchase", "Seller", Termination::Sent("ship".into()))?;
    let mut agent = Agent::new(adapter);
    agent.on(Trigger::EnabledChanged, |c: &DecisionContext<'_>| {
        let price = |item: &str| match item {
            "kite" => "20",
            "ball" => "7",
            _ => "999",
        };
        let mut out: Vec<MessageInstance> = c
            .enabled_named("quote")
            .map(|f| f.bind([("price", price(&f.ins["item"]))]))
            .collect();
        out.extend(
            c.enabled_named("ship")
                .map(|f| f.bind([("shipped", "by truck")])),
        );
        out
    });
    Ok(agent)
}

fn shipper(protocol: &Arc<Protocol>) -> Result<Agent, Box<dyn std::error::Error>> {
    let mut adapter = Adapter::new("shipper");
    adapter.play(Arc::clone(protocol), &["Shipper"])?;
    adapter.set_termination("Purchase", "Shipper", Termination::Sent("deliver".into()))?;
    let mut agent = Agent::new(adapter);
    agent.on(Trigger::EnabledChanged, |c: &DecisionContext<'_>| {
        c.enabled_named("deliver")
            .map(|f| f.bind([("outcome", "delivered")]))
            .collect()
    });
    Ok(agent)
}

/// The enabled forms of `name` in the enactment `message` belongs to.
fn same_enactment<'a>(
    c: &DecisionContext<'a>,
    name: &'a str,
    message: &'a MessageInstance,
) -> impl Iterator<Item = &'a tnsai_coordination::bspl::EnabledMessage> {
    c.enabled_named(name)
        .filter(move |f| f.ins.get("ID").map(String::as_str) == message.get("ID"))
}

type Log = Arc<Mutex<Vec<(Instant, String, String, MessageInstance)>>>;

/// Collects the messages an enactor sends, with the time they left.
fn record(enactor: &Enactor, from: &'static str, log: &Log) {
    let mut events = enactor.events();
    let log = Arc::clone(log);
    tokio::spawn(async move {
        while let Ok(event) = events.recv().await {
            if let EnactmentEvent::Sent { to, message, at } = event {
                log.lock()
                    .await
                    .push((at, from.to_owned(), to.to_string(), message));
            }
        }
    });
}

fn print_diagram(lines: &[(Instant, String, String, MessageInstance)]) {
    const COLUMNS: [&str; 3] = ["buyer", "seller", "shipper"];
    const WIDTH: usize = 26;
    let header: String = COLUMNS.iter().map(|c| format!("{c:^WIDTH$}")).collect();
    println!("{header}");
    for (_, from, to, message) in lines {
        let a = COLUMNS.iter().position(|c| c == from).unwrap_or(0);
        let b = COLUMNS.iter().position(|c| c == to).unwrap_or(0);
        let (left, right) = (a.min(b), a.max(b));
        let mut row: Vec<char> = COLUMNS
            .iter()
            .map(|_| format!("{:^WIDTH$}", "|"))
            .collect::<String>()
            .chars()
            .collect();
        let start = left * WIDTH + WIDTH / 2;
        let end = right * WIDTH + WIDTH / 2;
        for cell in row.iter_mut().take(end).skip(start + 1) {
            *cell = '-';
        }
        if a < b {
            row[end - 1] = '>';
        } else {
            row[start + 1] = '<';
        }
        let label = format!(" {} ", message.message);
        let middle = (start + end) / 2 - label.len() / 2;
        for (i, ch) in label.chars().enumerate() {
            row[middle + i] = ch;
        }
        let bindings: Vec<String> = message
            .bindings
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        println!(
            "{}  {}",
            row.into_iter().collect::<String>(),
            bindings.join(" ")
        );
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let spec = Specification::parse(PURCHASE)?;
    let purchase = Arc::new(
        spec.into_protocol("Purchase")
            .ok_or("Purchase is missing")?,
    );
    let report = verify::verify(&purchase)?;
    println!(
        "Purchase: safety {:?}, liveness {:?}\n",
        report.safety, report.liveness
    );

    let roster = Roster::new()
        .with("Purchase", "Buyer", "buyer")
        .with("Purchase", "Seller", "seller")
        .with("Purchase", "Shipper", "shipper");
    let platform = Platform::new();
    let log: Log = Arc::default();
    let mut enactors = Vec::new();
    for (id, agent) in [
        ("buyer", buyer(&purchase)?),
        ("seller", seller(&purchase)?),
        ("shipper", shipper(&purchase)?),
    ] {
        let pm = platform
            .spawn(id, Peer)
            .await?
            .protocol_manager()
            .expect("annotated");
        let enactor = pm.enact(agent, roster.clone())?;
        record(&enactor, id, &log);
        enactors.push((id, enactor));
    }
    for (_, enactor) in &enactors {
        enactor.start().await?;
    }
    for (id, enactor) in &enactors {
        enactor
            .wait_done(Duration::from_secs(10))
            .await
            .map_err(|e| format!("{id}: {e}"))?;
    }
    tokio::time::sleep(Duration::from_millis(50)).await;

    let mut lines = log.lock().await.clone();
    lines.sort_by_key(|(at, ..)| *at);
    print_diagram(&lines);
    println!();
    for (id, enactor) in &enactors {
        let adapter = enactor.adapter().await;
        let knowledge = adapter
            .knowledge("Purchase")
            .ok_or("not enacting Purchase")?;
        println!(
            "{id}: done = {} ({} enactments seen)",
            enactor.is_done().await,
            knowledge.enactments().len()
        );
    }
    platform.shutdown().await;
    Ok(())
}
