//! Property tests: printing a message and parsing the text gives the same
//! message, whatever the text fields hold; parsing never panics.

use std::collections::BTreeMap;

use chrono::{DateTime, TimeZone, Utc};
use proptest::prelude::*;
use tnsai_fipa::{AgentIdentifier, FipaMessage, Performative, parse_acl};

/// Text that stresses the string encoding: quotes, backslashes, parentheses,
/// whitespace, colons, unicode, control characters and the empty string.
fn tricky_text() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        any::<String>(),
        "[\"\\\\() :#@a-zA-Z0-9\\-\t\n\r]{0,24}",
        "[a-z][a-z0-9@:/._\\-]{0,16}",
        "[0-9+\\-.eTZ]{1,20}",
        "[αβγ€😀\"\\\\ ]{0,8}",
    ]
}

fn parameter_name() -> impl Strategy<Value = String> {
    prop_oneof![
        "X-[a-zA-Z0-9_.!*\\-]{1,10}",
        "x-[a-z]{1,6}",
        "X-[αβγ€]{1,4}",
    ]
    .prop_filter("reserved", |n| {
        !n.to_ascii_lowercase().starts_with("x-tnsai-")
    })
}

fn parameters() -> impl Strategy<Value = BTreeMap<String, String>> {
    prop::collection::btree_map(parameter_name(), tricky_text(), 0..3)
}

fn agent() -> impl Strategy<Value = AgentIdentifier> {
    let leaf = (tricky_text(), prop::collection::vec(tricky_text(), 0..3)).prop_map(
        |(name, addresses)| {
            addresses
                .into_iter()
                .fold(AgentIdentifier::new(name), AgentIdentifier::with_address)
        },
    );
    (
        tricky_text(),
        prop::collection::vec(tricky_text(), 0..3),
        prop::collection::vec(leaf, 0..2),
        parameters(),
    )
        .prop_map(|(name, addresses, resolvers, params)| {
            let mut aid = AgentIdentifier::new(name);
            for url in addresses {
                aid = aid.with_address(url);
            }
            for resolver in resolvers {
                aid = aid.with_resolver(resolver);
            }
            for (k, v) in params {
                aid = aid.with_user_parameter(k, v);
            }
            aid
        })
}

fn time() -> impl Strategy<Value = DateTime<Utc>> {
    // Year 0000 through 9999: what a FIPA date-time can hold.
    (-62_167_219_200_000i64..=253_402_300_799_999i64)
        .prop_filter_map("in range", |ms| Utc.timestamp_millis_opt(ms).single())
}

fn performative() -> impl Strategy<Value = Performative> {
    prop::sample::select(Performative::all().to_vec())
}

fn message() -> impl Strategy<Value = FipaMessage> {
    let agents = (
        performative(),
        prop::option::of(agent()),
        prop::collection::vec(agent(), 0..3),
        prop::collection::vec(agent(), 0..2),
        prop::option::of(tricky_text()),
    );
    let texts = (
        prop::option::of(tricky_text()),
        prop::option::of(tricky_text()),
        prop::option::of(tricky_text()),
        prop::option::of(tricky_text()),
        prop::option::of(tricky_text()),
        prop::option::of(tricky_text()),
        prop::option::of(tricky_text()),
    );
    let rest = (
        prop::option::of(tricky_text()),
        prop::option::of(tricky_text()),
        prop::option::of(time()),
        time(),
        parameters(),
    );
    (agents, texts, rest)
        .prop_map(
            |(
                (performative, sender, receivers, reply_to, content),
                (language, encoding, ontology, protocol, conversation, reply_with, in_reply_to),
                (id, _, reply_by, timestamp, params),
            )| {
                let mut b = FipaMessage::builder()
                    .performative(performative)
                    .receiver_ids(receivers)
                    .timestamp(timestamp);
                if let Some(sender) = sender {
                    b = b.sender_id(sender);
                }
                for agent in reply_to {
                    b = b.add_reply_to_id(agent);
                }
                let optional = [
                    (content, 0),
                    (language, 1),
                    (encoding, 2),
                    (ontology, 3),
                    (protocol, 4),
                    (conversation, 5),
                    (reply_with, 6),
                    (in_reply_to, 7),
                    (id, 8),
                ];
                for (value, field) in optional {
                    let Some(v) = value else { continue };
                    b = match field {
                        0 => b.content(v),
                        1 => b.language(v),
                        2 => b.encoding(v),
                        3 => b.ontology(v),
                        4 => b.protocol(v),
                        5 => b.conversation_id(v),
                        6 => b.reply_with(v),
                        7 => b.in_reply_to(v),
                        _ => b.id(v),
                    };
                }
                if let Some(t) = reply_by {
                    b = b.reply_by(t);
                }
                for (k, v) in params {
                    b = b.user_parameter(k, v);
                }
                b.build()
            },
        )
        .prop_filter_map("valid", Result::ok)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn print_then_parse_gives_the_same_message(m in message()) {
        let text = m.to_string();
        let back = parse_acl(&text);
        prop_assert_eq!(back.as_ref(), Ok(&m), "text: {}", text);
    }

    #[test]
    fn pretty_print_then_parse_gives_the_same_message(m in message()) {
        let text = format!("{m:#}");
        let back = text.parse::<FipaMessage>();
        prop_assert_eq!(back.as_ref(), Ok(&m), "text: {}", text);
    }

    #[test]
    fn json_round_trip(m in message()) {
        let json = serde_json::to_string(&m).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let back: Option<FipaMessage> = serde_json::from_str(&json).ok();
        prop_assert_eq!(back.as_ref(), Some(&m), "json: {}", json);
    }

    #[test]
    fn content_survives_exactly(content in tricky_text()) {
        let m = FipaMessage::inform("a", "b", content.clone());
        let back = parse_acl(&m.to_string()).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(back.content(), Some(content.as_str()));
    }

    #[test]
    fn parsing_arbitrary_text_never_panics(text in any::<String>()) {
        let _ = parse_acl(&text);
    }

    #[test]
    fn parsing_damaged_messages_never_panics(
        m in message(),
        cut in any::<prop::sample::Index>(),
        insert in any::<char>(),
    ) {
        let text = m.to_string();
        let boundaries: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
        let at = boundaries[cut.index(boundaries.len())];
        let _ = parse_acl(&text[..at]);
        let mut damaged = text.clone();
        damaged.insert(at, insert);
        if let Ok(parsed) = parse_acl(&damaged) {
            // Whatever parses must print to text that parses to the same message.
            let again = parse_acl(&parsed.to_string());
            prop_assert_eq!(again.as_ref(), Ok(&parsed));
        }
    }
}

#[test]
fn truncating_a_message_anywhere_is_an_error() {
    let m = FipaMessage::builder()
        .performative(Performative::Propose)
        .sender_id(AgentIdentifier::new("a").with_address("http://a:1/acc"))
        .receiver("b")
        .content("price (\"x\" \\ y)")
        .build();
    let Ok(m) = m else {
        panic!("valid message");
    };
    let text = m.to_string();
    for (i, _) in text.char_indices() {
        assert!(parse_acl(&text[..i]).is_err(), "prefix of {i} bytes parsed");
    }
}
