//! How agent ids and topics become NATS subject tokens, KV keys and consumer names.
//!
//! NATS splits subjects on `.`, reserves `*` and `>` as wildcards and forbids
//! whitespace; KV keys are narrower still (`[-/_=.a-zA-Z0-9]`). Agent ids and topic
//! tokens are free text, so every token goes through one reversible encoding:
//!
//! * a token made only of ASCII letters, digits, `-` and `_` is used as it is;
//! * every other byte of its UTF-8 form is written `=XX` (two upper-case hex digits), so
//!   `billing agent` becomes `billing=20agent` and `é` becomes `=C3=A9`;
//! * the empty token (a topic such as `a..b` has one) is written `=`.
//!
//! `=` is never left as it is, so two different texts never share an encoding: nothing
//! is merged silently, and [`decode_token`] gives the text back. The output uses only
//! `[A-Za-z0-9_=-]`, which is valid in subjects, KV keys, queue groups and JetStream
//! consumer names alike.
//!
//! Topics are lower-cased before they are encoded, because tnsai matches topics ignoring
//! case while NATS subjects are case-sensitive: `Alerts.Disk` and `alerts.disk` are the
//! same topic (as they are in-process), and NATS's own `*` and `>` then match exactly as
//! [`TopicPattern`](tnsai_core::TopicPattern) does. Agent ids keep their case: ids are
//! compared exactly everywhere.
//!
//! ```
//! use tnsai_coordination::transport::nats::subject::{decode_token, encode_pattern, encode_token};
//!
//! assert_eq!(encode_token("billing-agent"), "billing-agent");
//! assert_eq!(encode_token("eu.billing"), "eu=2Ebilling");
//! assert_eq!(decode_token("eu=2Ebilling").unwrap(), "eu.billing");
//! assert_eq!(encode_pattern("Alerts.*.Disk Full"), "alerts.*.disk=20full");
//! assert_ne!(encode_token("a=2Eb"), encode_token("a.b"));
//! ```

use std::fmt::Write as _;

/// Why a subject token could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
#[error("`{token}` is not an encoded tnsai subject token: {reason}")]
pub struct SubjectDecodeError {
    token: String,
    reason: &'static str,
}

impl SubjectDecodeError {
    fn new(token: &str, reason: &'static str) -> Self {
        Self {
            token: token.to_owned(),
            reason,
        }
    }

    /// The token that did not decode.
    pub fn token(&self) -> &str {
        &self.token
    }
}

fn is_plain(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'-' || byte == b'_'
}

/// Encodes one token (an agent id, or one `.`-separated part of a topic).
pub fn encode_token(text: &str) -> String {
    if text.is_empty() {
        return "=".to_owned();
    }
    if text.bytes().all(is_plain) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len() * 2);
    for byte in text.bytes() {
        if is_plain(byte) {
            out.push(char::from(byte));
        } else {
            // Writing to a String cannot fail.
            let _ = write!(out, "={byte:02X}");
        }
    }
    out
}

/// Decodes a token made by [`encode_token`].
///
/// # Errors
///
/// [`SubjectDecodeError`] for a token that no text encodes to (a byte outside the
/// encoding's alphabet, a broken `=XX` escape, bytes that are not UTF-8).
pub fn decode_token(token: &str) -> Result<String, SubjectDecodeError> {
    if token == "=" {
        return Ok(String::new());
    }
    if token.is_empty() {
        return Err(SubjectDecodeError::new(token, "empty token"));
    }
    let bytes = token.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let byte = bytes[i];
        if byte == b'=' {
            let hex = bytes
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .filter(|h| {
                    h.bytes()
                        .all(|b| b.is_ascii_digit() || (b'A'..=b'F').contains(&b))
                })
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(|| SubjectDecodeError::new(token, "broken `=XX` escape"))?;
            if is_plain(hex) {
                // A plain byte is never escaped: accepting it would give one text two
                // encodings.
                return Err(SubjectDecodeError::new(token, "escaped plain character"));
            }
            out.push(hex);
            i += 3;
        } else if is_plain(byte) {
            out.push(byte);
            i += 1;
        } else {
            return Err(SubjectDecodeError::new(
                token,
                "character outside [A-Za-z0-9_=-]",
            ));
        }
    }
    String::from_utf8(out).map_err(|_| SubjectDecodeError::new(token, "not UTF-8"))
}

/// Encodes a topic to publish to: lower-cased, split on `.`, each token encoded.
pub fn encode_topic(topic: &str) -> String {
    topic
        .to_lowercase()
        .split('.')
        .map(encode_token)
        .collect::<Vec<_>>()
        .join(".")
}

/// Encodes a subscription pattern like [`encode_topic`], keeping whole-token `*` and `>`
/// as NATS wildcards.
pub fn encode_pattern(pattern: &str) -> String {
    pattern
        .to_lowercase()
        .split('.')
        .map(|token| match token {
            "*" | ">" => token.to_owned(),
            literal => encode_token(literal),
        })
        .collect::<Vec<_>>()
        .join(".")
}

/// Decodes the topic part of a subject made by [`encode_topic`] (the topic comes back
/// lower-cased).
///
/// # Errors
///
/// [`SubjectDecodeError`] for a token that does not decode.
pub fn decode_topic(encoded: &str) -> Result<String, SubjectDecodeError> {
    encoded
        .split('.')
        .map(decode_token)
        .collect::<Result<Vec<_>, _>>()
        .map(|tokens| tokens.join("."))
}

/// The subjects one deployment uses, under its prefix (`tnsai` by default).
#[derive(Debug, Clone)]
pub(crate) struct Subjects {
    prefix: String,
}

impl Subjects {
    pub(crate) fn new(prefix: &str) -> Self {
        Self {
            prefix: prefix.to_owned(),
        }
    }

    /// An agent's direct inbox: `<prefix>.agent.<id>`.
    pub(crate) fn agent(&self, id: &str) -> String {
        format!("{}.agent.{}", self.prefix, encode_token(id))
    }

    /// A topic's subject: `<prefix>.topic.<topic tokens>`.
    pub(crate) fn topic(&self, topic: &str) -> String {
        format!("{}.topic.{}", self.prefix, encode_topic(topic))
    }

    /// What a subscription pattern listens on: `<prefix>.topic.<pattern tokens>`.
    pub(crate) fn pattern(&self, pattern: &str) -> String {
        format!("{}.topic.{}", self.prefix, encode_pattern(pattern))
    }

    /// An agent's durable inbox, captured by the JetStream stream:
    /// `<prefix>.durable.<id>`.
    pub(crate) fn durable(&self, id: &str) -> String {
        format!("{}.durable.{}", self.prefix, encode_token(id))
    }

    /// Every durable inbox: the stream's subject filter.
    pub(crate) fn durable_all(&self) -> String {
        format!("{}.durable.>", self.prefix)
    }

    /// Where answers and publication receipts for one platform arrive:
    /// `<prefix>.reply.<platform>.<token>`.
    pub(crate) fn reply(&self, platform: &str, token: u64) -> String {
        format!("{}.reply.{platform}.{token}", self.prefix)
    }

    /// The wildcard a platform listens on for its answers.
    pub(crate) fn replies(&self, platform: &str) -> String {
        format!("{}.reply.{platform}.*", self.prefix)
    }

    /// The queue group every platform uses, so that platforms running the same agent id
    /// share its messages (one subject per agent, so one group name is enough).
    pub(crate) fn queue_group(&self) -> &str {
        &self.prefix
    }
}

/// The KV key of one platform's announcement of one agent: `<id>.<platform>`.
pub(crate) fn announcement_key(id: &str, platform: &str) -> String {
    format!("{}.{platform}", encode_token(id))
}

/// The agent id and platform of an announcement key.
pub(crate) fn parse_announcement_key(key: &str) -> Option<(String, String)> {
    let (id, platform) = key.split_once('.')?;
    Some((decode_token(id).ok()?, platform.to_owned()))
}

/// The KV key of a durable inbox's registration: the encoded id.
pub(crate) fn durable_key(id: &str) -> String {
    encode_token(id)
}

/// The durable JetStream consumer that serves an agent's inbox.
pub(crate) fn consumer_name(id: &str) -> String {
    format!("inbox-{}", encode_token(id))
}

/// Whether `text` is usable as a subject prefix: dot-separated plain tokens.
pub(crate) fn is_valid_prefix(text: &str) -> bool {
    !text.is_empty()
        && text
            .split('.')
            .all(|token| !token.is_empty() && token.bytes().all(is_plain))
}

/// Whether `text` is usable as a KV bucket or stream name.
pub(crate) fn is_valid_name(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(is_plain)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_tokens_stay_and_others_round_trip() {
        for text in [
            "billing-agent",
            "agent_7",
            "",
            "eu.billing",
            "a b",
            "*",
            ">",
            "=",
            "=2E",
            "Grüße",
            "日本",
            "tab\there",
            "a/b\\c",
        ] {
            let encoded = encode_token(text);
            assert!(
                encoded
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"-_=".contains(&b)),
                "{encoded}"
            );
            assert_eq!(decode_token(&encoded).unwrap(), text, "{encoded}");
        }
        assert_eq!(encode_token("billing-agent"), "billing-agent");
    }

    #[test]
    fn distinct_texts_never_share_an_encoding() {
        let texts = [
            "a.b", "a=2Eb", "a_2Eb", "a b", "a=20b", "", "=", "==", "A", "a",
        ];
        let mut encodings: Vec<String> = texts.iter().map(|t| encode_token(t)).collect();
        encodings.sort();
        encodings.dedup();
        assert_eq!(encodings.len(), texts.len());
    }

    #[test]
    fn malformed_tokens_are_refused() {
        for token in ["", "=2", "=zz", "=2e", "a b", "a.b", "=41", "=FF"] {
            assert!(decode_token(token).is_err(), "{token}");
        }
    }

    #[test]
    fn topics_are_lower_cased_and_wildcards_kept() {
        assert_eq!(encode_topic("Alerts.Disk"), "alerts.disk");
        assert_eq!(encode_topic("a..b"), "a.=.b");
        assert_eq!(encode_pattern("metrics.*"), "metrics.*");
        assert_eq!(encode_pattern("alerts.>"), "alerts.>");
        assert_eq!(encode_pattern("a*.b"), "a=2A.b");
        assert_eq!(
            decode_topic("order=20events.eu").unwrap(),
            "order events.eu"
        );
    }

    #[test]
    fn announcement_keys_round_trip() {
        let key = announcement_key("eu.billing", "p1");
        assert_eq!(key, "eu=2Ebilling.p1");
        assert_eq!(
            parse_announcement_key(&key),
            Some(("eu.billing".to_owned(), "p1".to_owned()))
        );
    }
}
