//! The user prompt: one decision's event, history and options.

use std::fmt::Write as _;

use tnsai_bspl::decision::Event;
use tnsai_bspl::{Adapter, Direction, Enactment, KeyBinding, Knowledge, MessageInstance, Protocol};

use super::{PromptBuilder, Situation};
use crate::bspl::llm::options::{DecisionOption, enactment_of};
use crate::bspl::llm::wording::{bindings, join, value_text};

/// Key values listed per key parameter before the rest is only counted.
const KEYS_SHOWN: usize = 40;

pub(super) fn write(builder: &PromptBuilder, situation: &Situation<'_>) -> String {
    let adapter = situation.adapter;
    let mut out = String::new();
    out.push_str(&event_line(situation.event, adapter));
    out.push_str("\n\n");
    write_history(&mut out, builder, situation);
    out.push('\n');
    if situation.pending.is_empty() {
        out.push_str("Pending external events: none.\n");
    } else {
        out.push_str("Pending external events (each gets its own turn after this one):\n");
        for event in situation.pending {
            let _ = writeln!(out, "- \"{}\": {}", event.name, event.payload);
        }
    }
    out.push('\n');
    if !situation.chosen.is_empty() {
        let chosen: Vec<String> = situation
            .chosen
            .iter()
            .map(|m| {
                let order = parameter_order(adapter, m);
                format!(
                    "{}/{} ({})",
                    m.protocol,
                    m.message,
                    bindings(&m.bindings, order.iter().map(String::as_str))
                )
            })
            .collect();
        let _ = writeln!(
            out,
            "Already chosen for this event: {}. Choose another option to send as well, or null.\n",
            chosen.join("; ")
        );
    }
    out.push_str("Options:\n");
    for option in situation.options {
        write_option(&mut out, option);
    }
    let _ = writeln!(
        out,
        "\nAnswer with one JSON object: \"choice\" ({}, or null) and \"params\" with a value for each \"out\" parameter of the chosen option.",
        match situation.options.len() {
            1 => "1".to_owned(),
            n => format!("1 to {n}"),
        }
    );
    let _ = writeln!(out, "Your goal: {}", builder.goal.trim());
    out
}

pub(super) fn event_line(event: &Event, adapter: &Adapter) -> String {
    match event {
        Event::Init => "Event: start. Begin what your goal calls for.".to_owned(),
        Event::Received { message } => {
            let order = parameter_order(adapter, message);
            format!(
                "Event: received {}/{} from {}: {}",
                message.protocol,
                message.message,
                message.sender,
                bindings(&message.bindings, order.iter().map(String::as_str))
            )
        }
        Event::External { name, payload } => {
            format!("Event: external event \"{name}\" with details {payload}")
        }
        Event::EnabledChanged { .. } => {
            "Event: new options became available after the last messages.".to_owned()
        }
    }
}

/// The message's parameters in declaration order, for writing its bindings.
fn parameter_order(adapter: &Adapter, message: &MessageInstance) -> Vec<String> {
    adapter
        .knowledge(&message.protocol)
        .and_then(|k| k.protocol().message(&message.message))
        .map(|m| m.payload_parameters().map(str::to_owned).collect())
        .unwrap_or_default()
}

fn write_history(out: &mut String, builder: &PromptBuilder, situation: &Situation<'_>) {
    let adapter = situation.adapter;
    let everything = matches!(situation.event, Event::Init | Event::External { .. });
    let mut focus: Vec<(String, KeyBinding)> = situation
        .options
        .iter()
        .map(|o| (o.form.protocol.clone(), enactment_of(&o.form)))
        .filter(|(_, key)| !key.is_empty())
        .collect();
    if let Event::Received { message } = situation.event
        && let Some(key) = adapter
            .knowledge(&message.protocol)
            .and_then(|k| k.key_of(message))
    {
        focus.push((message.protocol.clone(), key));
    }
    out.push_str("History:\n");
    let mut wrote = false;
    for protocol in adapter.protocols() {
        let Some(knowledge) = adapter.knowledge(protocol.name()) else {
            continue;
        };
        let roles = adapter.roles(protocol.name());
        let relevant: Vec<Enactment<'_>> = knowledge
            .enactments()
            .into_iter()
            .filter(|e| {
                everything
                    || focus
                        .iter()
                        .any(|(p, f)| p == protocol.name() && f.is_compatible(&e.key))
            })
            .collect();
        if relevant.is_empty() && !everything {
            continue;
        }
        wrote = true;
        let _ = writeln!(
            out,
            "{} (you play {}):",
            protocol.name(),
            join(roles, "and")
        );
        if relevant.is_empty() {
            out.push_str("  no messages yet.\n");
            continue;
        }
        write_keys(out, protocol, knowledge);
        let skipped = relevant.len().saturating_sub(builder.history_limit());
        if skipped > 0 {
            let _ = writeln!(out, "  ({skipped} earlier enactments not shown)");
        }
        for enactment in &relevant[skipped..] {
            let over = !roles.is_empty()
                && roles.iter().all(|role| {
                    builder
                        .terminations
                        .is_over(knowledge, role, &enactment.key)
                });
            let _ = writeln!(
                out,
                "  enactment {}, {}:",
                enactment.key,
                if over { "over for you" } else { "open" }
            );
            for observation in &enactment.observations {
                let message = &observation.message;
                let order = protocol
                    .message(&message.message)
                    .map(|m| m.payload_parameters().collect::<Vec<_>>())
                    .unwrap_or_default();
                let line = match observation.direction {
                    Direction::Sent => format!(
                        "sent {} to {}",
                        message.message,
                        join(&message.recipients, "and")
                    ),
                    Direction::Received => {
                        format!("received {} from {}", message.message, message.sender)
                    }
                };
                let _ = writeln!(out, "    - {line}: {}", bindings(&message.bindings, order));
            }
        }
    }
    if !wrote {
        out.push_str("  nothing yet.\n");
    }
}

/// `keys in use: ID: 1, 2` — the values an `out` key must not take again.
fn write_keys(out: &mut String, protocol: &Protocol, knowledge: &Knowledge) {
    let mut parts = Vec::new();
    for key in protocol.keys() {
        let mut values: Vec<&str> = Vec::new();
        for observation in knowledge.observations() {
            if let Some(value) = observation.message.get(key)
                && !values.contains(&value)
            {
                values.push(value);
            }
        }
        if values.is_empty() {
            continue;
        }
        let extra = values.len().saturating_sub(KEYS_SHOWN);
        let mut shown: Vec<String> = values
            .iter()
            .take(KEYS_SHOWN)
            .map(|v| value_text(v))
            .collect();
        if extra > 0 {
            shown.push(format!("and {extra} more"));
        }
        parts.push(format!("{key}: {}", shown.join(", ")));
    }
    if !parts.is_empty() {
        let _ = writeln!(out, "  keys in use: {}", parts.join("; "));
    }
}

fn write_option(out: &mut String, option: &DecisionOption) {
    let form = &option.form;
    let _ = writeln!(
        out,
        "{}. {}: {} -> {}",
        option.number,
        option.label,
        form.sender,
        join(&form.recipients, "and")
    );
    let ins = if form.ins.is_empty() {
        "none".to_owned()
    } else {
        bindings(&form.ins, form.keys.iter().map(String::as_str))
    };
    let _ = writeln!(out, "   in (known): {ins}");
    let outs: Vec<String> = form
        .outs
        .iter()
        .map(|o| {
            if form.keys.contains(o) {
                format!("{o} (new key)")
            } else {
                o.clone()
            }
        })
        .collect();
    let _ = writeln!(
        out,
        "   out (you choose): {}",
        if outs.is_empty() {
            "none".to_owned()
        } else {
            outs.join(", ")
        }
    );
    if !form.nils.is_empty() {
        let _ = writeln!(out, "   nil (stays unknown): {}", form.nils.join(", "));
    }
    if option.repeatable {
        let keys: Vec<&str> = option.out_keys().collect();
        if keys.is_empty() {
            out.push_str("   can be sent again later\n");
        } else {
            let _ = writeln!(
                out,
                "   can be sent again later, each time with a new {}",
                join(&keys, "and")
            );
        }
    }
}
