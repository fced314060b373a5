//! The system prompt: everything that stays the same for the whole enactment.

use std::fmt::Write as _;

use tnsai_bspl::{Adapter, Direction, Message, Protocol};

use super::PromptBuilder;
use crate::bspl::llm::causality::Causality;
use crate::bspl::llm::termination::{describe, ends_with};
use crate::bspl::llm::wording::join;

const SEMANTICS: &str = "\
How BSPL works:
- A protocol has roles, parameters and messages. A message goes from one role to others and carries values for its parameters.
- An enactment is one run of a protocol, identified by the values of its key parameters (marked \"key\"). Many enactments can run at once; values never carry over from one to another.
- In an enactment each parameter gets at most one value, and that value never changes.
- \"in\": the sender must already know the value; it is filled in for you from your history.
- \"out\": the sender creates the value by sending the message; nobody may know it yet in that enactment.
- \"nil\": the value must still be unknown to the sender; the message does not carry it.
- A message is enabled when its \"in\" values are known and its \"out\" and \"nil\" parameters are not. You can only send enabled messages, and the options you are shown are exactly those. A sent message cannot be taken back.
";

const EXTERNAL: &str = "\
External events:
Your user or application may report events that are not protocol messages: a new request, a change in stock, a deadline. They come as \"external event\" with a name and JSON details. Treat them as instructions or news from your user and act on them with the options you have (a new request usually means starting a new enactment, with new key values). Take values from their details where they call for it, but they never change the protocols: you still send only enabled messages.
";

const ANSWER: &str = "\
How to answer:
Each time something happens you are told the event, your history and the numbered options you have now. Answer with one JSON object and nothing else:
{\"choice\": <option number or null>, \"params\": {\"<out parameter>\": \"<value>\"}, \"tool_requests\": [], \"reason\": \"<one short sentence>\"}
- \"choice\": the number of the one option to send now, or null to send nothing now (to wait for a message, or because no option serves your goal).
- \"params\": a string value for every \"out\" parameter of the chosen option, and nothing else; \"in\" values are fixed already.
- A key value you create must be new: never one listed under \"keys in use\".
- One message per answer. After you choose an option that can be sent again, you are asked again, so you can send it once more (say, for a second item) or answer null.
";

pub(super) fn write(builder: &PromptBuilder, adapter: &Adapter) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "You decide for agent \"{}\", which enacts information protocols written in BSPL (the Blindingly Simple Protocol Language). You choose which message it sends and with which values, to reach its user's goal.",
        adapter.agent()
    );
    out.push('\n');
    out.push_str(SEMANTICS);

    out.push_str("\nYour roles:\n");
    for protocol in adapter.protocols() {
        for role in adapter.roles(protocol.name()) {
            let _ = write!(out, "- {role} in {}.", protocol.name());
            if let Some(condition) = builder.terminations.condition(protocol, role) {
                let _ = write!(
                    out,
                    " Your part in an enactment is over once you have {}.",
                    describe(&condition)
                );
            }
            out.push('\n');
        }
    }

    out.push_str("\nProtocols (the comment under each message says what it means for you):\n");
    for protocol in adapter.protocols() {
        out.push('\n');
        write_protocol(&mut out, builder, protocol, adapter.roles(protocol.name()));
    }

    out.push('\n');
    write_tools(&mut out, builder);
    out.push('\n');
    out.push_str(EXTERNAL);
    out.push('\n');
    out.push_str(ANSWER);
    if !builder.tools.is_empty() {
        out.push_str("- \"tool_requests\": [] unless you need a tool first; then list the requests and set \"choice\" to null. You get the results and decide after them.\n");
    }
    out.push_str("- An answer that breaks these rules comes back to you once with the reason; a second bad answer is dropped and nothing is sent.\n");

    out.push_str("\nYour goal:\n");
    out.push_str(builder.goal.trim());
    out.push('\n');
    out
}

fn write_tools(out: &mut String, builder: &PromptBuilder) {
    if builder.tools.is_empty() {
        out.push_str("Tools: none.\n");
        return;
    }
    out.push_str("Tools you may ask for before deciding:\n");
    for tool in builder.tools.tools() {
        let _ = writeln!(
            out,
            "- {} {}: {}",
            tool.name(),
            tool.arguments(),
            tool.description()
        );
    }
    out.push_str("To use tools, answer {\"choice\": null, \"tool_requests\": [{\"tool\": \"<name>\", \"args\": {...}}]}. You get their results in the next message, then decide.\n");
}

fn write_protocol(
    out: &mut String,
    builder: &PromptBuilder,
    protocol: &Protocol,
    roles: &[String],
) {
    let _ = writeln!(out, "{} {{", protocol.name());
    let _ = writeln!(out, "  roles {}", protocol.roles().join(", "));
    let public: Vec<String> = protocol
        .public_parameters()
        .iter()
        .map(ToString::to_string)
        .collect();
    let _ = writeln!(out, "  parameters {}", public.join(", "));
    if !protocol.private_parameters().is_empty() {
        let private: Vec<String> = protocol
            .private_parameters()
            .iter()
            .map(ToString::to_string)
            .collect();
        let _ = writeln!(out, "  private {}", private.join(", "));
    }
    out.push('\n');
    let causality = Causality::new(protocol);
    for message in protocol.messages() {
        let _ = writeln!(out, "  {message}");
        let _ = writeln!(
            out,
            "    // {}",
            comment(builder, protocol, &causality, message, roles)
        );
    }
    out.push_str("}\n");
}

/// One comment: what `message` means for an agent playing `roles`.
fn comment(
    builder: &PromptBuilder,
    protocol: &Protocol,
    causality: &Causality<'_>,
    message: &Message,
    roles: &[String],
) -> String {
    let mut text = if roles.iter().any(|r| r == message.sender()) {
        sent_comment(builder, protocol, causality, message)
    } else if let Some(role) = roles.iter().find(|r| message.recipients().contains(r)) {
        received_comment(builder, protocol, message, role)
    } else {
        format!(
            "Between {} and {}; you do not see it.",
            message.sender(),
            join(message.recipients(), "and")
        )
    };
    if let Some(note) = builder.note(protocol.name(), message.name()) {
        let _ = write!(text, " Note: {}", note.trim());
    }
    text
}

fn sent_comment(
    builder: &PromptBuilder,
    protocol: &Protocol,
    causality: &Causality<'_>,
    message: &Message,
) -> String {
    let role = message.sender();
    let to = join(message.recipients(), "and");
    let ins: Vec<&str> = message.ins().collect();
    let nils: Vec<&str> = message.nils().collect();
    let keys = message.keys();
    let mut text = if ins.is_empty() {
        format!("You send it to {to} to start a new enactment")
    } else {
        format!("You send it to {to} once you know {}", join(&ins, "and"))
    };
    if !nils.is_empty() {
        let verb = if nils.len() == 1 { "is" } else { "are" };
        let _ = write!(text, ", while {} {verb} still unknown", join(&nils, "and"));
    }
    let outs: Vec<String> = message
        .outs()
        .map(|o| {
            if keys.iter().any(|k| k == o) {
                format!("{o} (a new key value)")
            } else {
                o.to_owned()
            }
        })
        .collect();
    if outs.is_empty() {
        text.push('.');
    } else {
        let _ = write!(text, ": you choose {}.", join(&outs, "and"));
    }

    let out_keys: Vec<&str> = message
        .outs()
        .filter(|o| keys.iter().any(|k| k == o))
        .collect();
    if ins.is_empty() {
        text.push_str(" You may send it again to start another enactment.");
    } else if !out_keys.is_empty() {
        let in_keys: Vec<&str> = ins
            .iter()
            .copied()
            .filter(|i| keys.iter().any(|k| k == i))
            .collect();
        let _ = write!(
            text,
            " You may send it several times for the same {}, each time with a new {}.",
            join(&in_keys, "and"),
            join(&out_keys, "and")
        );
    }

    let ruled_out: Vec<String> = causality
        .directly_ruled_out(message)
        .into_iter()
        .map(|other| {
            let shared: Vec<&str> = message
                .outs()
                .filter(|o| other.outs().any(|p| p == *o))
                .collect();
            if shared.is_empty() {
                let nils: Vec<&str> = message
                    .outs()
                    .filter(|o| other.nils().any(|n| n == *o))
                    .collect();
                format!(
                    "{} (which needs {} unknown)",
                    other.name(),
                    join(&nils, "and")
                )
            } else {
                format!(
                    "{} (which binds {} too)",
                    other.name(),
                    join(&shared, "and")
                )
            }
        })
        .collect();
    if !ruled_out.is_empty() {
        let _ = write!(text, " It rules out {}.", join(&ruled_out, "and"));
    }

    let condition = builder.terminations.condition(protocol, role);
    if condition
        .as_ref()
        .is_some_and(|c| ends_with(c, message.name(), Direction::Sent))
    {
        text.push_str(" It ends your part in the enactment.");
        let needed = causality.needed(message);
        let later: Vec<&str> = causality
            .involving(role)
            .into_iter()
            .filter(|r| r.sender() != role && r.name() != message.name())
            .filter(|r| !needed.contains(r.name()) && !causality.rules_out(message, r))
            .map(Message::name)
            .collect();
        if !later.is_empty() {
            let names = join(&later, "and");
            let pronoun = if later.len() == 1 { "it" } else { "they" };
            let _ = write!(
                text,
                " Nothing makes it wait for {names}: if you expect {names}, send it only after {pronoun} arrived."
            );
        }
    }
    text
}

fn received_comment(
    builder: &PromptBuilder,
    protocol: &Protocol,
    message: &Message,
    role: &str,
) -> String {
    let outs: Vec<&str> = message.outs().collect();
    let mut text = if outs.is_empty() {
        let ins: Vec<&str> = message.ins().collect();
        format!(
            "You receive it from {}: it confirms {}.",
            message.sender(),
            join(&ins, "and")
        )
    } else {
        format!(
            "You receive it from {}: it tells you {}.",
            message.sender(),
            join(&outs, "and")
        )
    };
    if builder
        .terminations
        .condition(protocol, role)
        .is_some_and(|c| ends_with(&c, message.name(), Direction::Received))
    {
        text.push_str(" Receiving it ends your part in the enactment.");
    }
    text
}
