//! Writes a [`FipaMessage`] in the FIPA ACL string encoding.
//!
//! Text that is a safe word (an ASCII letter or `_` followed by printable
//! ASCII other than parentheses, quotes and backslashes) is written bare;
//! anything else, and the content always, as a string literal in which `"`
//! and `\` are escaped with a backslash.

use std::fmt::{self, Write};

use super::datetime;
use crate::agent::AgentIdentifier;
use crate::message::{FipaMessage, ID_PARAMETER, TIMESTAMP_PARAMETER};

pub(super) fn is_plain_word(text: &str) -> bool {
    let mut chars = text.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_graphic() && !matches!(c, '(' | ')' | '"' | '\\'))
}

fn quoted(text: &str, out: &mut impl Write) -> fmt::Result {
    out.write_char('"')?;
    for c in text.chars() {
        if matches!(c, '"' | '\\') {
            out.write_char('\\')?;
        }
        out.write_char(c)?;
    }
    out.write_char('"')
}

fn value(text: &str, out: &mut impl Write) -> fmt::Result {
    if is_plain_word(text) {
        out.write_str(text)
    } else {
        quoted(text, out)
    }
}

fn agent(aid: &AgentIdentifier, out: &mut impl Write) -> fmt::Result {
    out.write_str("(agent-identifier :name ")?;
    value(aid.name(), out)?;
    if !aid.addresses().is_empty() {
        out.write_str(" :addresses (sequence")?;
        for url in aid.addresses() {
            out.write_char(' ')?;
            value(url, out)?;
        }
        out.write_char(')')?;
    }
    if !aid.resolvers().is_empty() {
        out.write_str(" :resolvers (sequence")?;
        for resolver in aid.resolvers() {
            out.write_char(' ')?;
            agent(resolver, out)?;
        }
        out.write_char(')')?;
    }
    for (name, text) in aid.user_parameters() {
        write!(out, " :{name} ")?;
        value(text, out)?;
    }
    out.write_char(')')
}

fn agent_set(agents: &[AgentIdentifier], out: &mut impl Write) -> fmt::Result {
    out.write_str("(set")?;
    for aid in agents {
        out.write_char(' ')?;
        agent(aid, out)?;
    }
    out.write_char(')')
}

/// Writes `m`; `pretty` puts each parameter on its own line, as JADE does.
pub(super) fn write_message(m: &FipaMessage, pretty: bool, out: &mut impl Write) -> fmt::Result {
    let sep = if pretty { "\n " } else { " " };
    out.write_char('(')?;
    out.write_str(m.performative().as_str())?;
    if let Some(sender) = m.sender_id() {
        write!(out, "{sep}:sender ")?;
        agent(sender, out)?;
    }
    if !m.receiver_ids().is_empty() {
        write!(out, "{sep}:receiver ")?;
        agent_set(m.receiver_ids(), out)?;
    }
    if !m.reply_to_ids().is_empty() {
        write!(out, "{sep}:reply-to ")?;
        agent_set(m.reply_to_ids(), out)?;
    }
    if let Some(content) = m.content() {
        write!(out, "{sep}:content ")?;
        quoted(content, out)?;
    }
    let expressions = [
        ("language", m.language()),
        ("encoding", m.encoding()),
        ("ontology", m.ontology()),
        ("protocol", m.protocol()),
        ("conversation-id", Some(m.conversation_id().as_str())),
        ("reply-with", m.reply_with()),
        ("in-reply-to", m.in_reply_to()),
    ];
    for (name, text) in expressions {
        if let Some(text) = text {
            write!(out, "{sep}:{name} ")?;
            value(text, out)?;
        }
    }
    if let Some(reply_by) = m.reply_by() {
        write!(out, "{sep}:reply-by ")?;
        datetime::write(reply_by, out)?;
    }
    for (name, text) in m.user_parameters() {
        write!(out, "{sep}:{name} ")?;
        value(text, out)?;
    }
    write!(out, "{sep}:{ID_PARAMETER} ")?;
    value(m.id().as_str(), out)?;
    write!(out, "{sep}:{TIMESTAMP_PARAMETER} ")?;
    datetime::write(m.timestamp(), out)?;
    if pretty {
        out.write_char('\n')?;
    }
    out.write_char(')')
}
