//! Malformed FIPA ACL texts: each gives a typed error at the right byte offset.

use tnsai_fipa::{AclError, parse_acl};

fn error(text: &str) -> AclError {
    match parse_acl(text) {
        Ok(m) => panic!("{text:?} parsed as {m}"),
        Err(e) => e,
    }
}

fn at(text: &str, needle: &str) -> usize {
    text.find(needle).unwrap_or(usize::MAX)
}

#[test]
fn empty_text_expects_an_opening_parenthesis() {
    let e = error("  ");
    assert!(matches!(e, AclError::UnexpectedEnd { offset: 2, expected } if expected.contains('(')));
    assert!(e.to_string().contains("at byte 2"), "{e}");
}

#[test]
fn a_bare_word_is_not_a_message() {
    assert!(matches!(
        error("inform"),
        AclError::UnexpectedToken { offset: 0, .. }
    ));
}

#[test]
fn an_unclosed_message() {
    assert!(matches!(
        error("("),
        AclError::UnexpectedEnd { offset: 1, .. }
    ));
    let text = "(inform :content \"abc\"";
    let e = error(text);
    assert!(
        matches!(e, AclError::UnexpectedEnd { offset, expected } if offset == text.len() && expected.contains(')'))
    );
}

#[test]
fn unknown_performative() {
    let e = error("( shout :content \"x\")");
    assert_eq!(
        e,
        AclError::UnknownPerformative {
            offset: 2,
            name: "shout".into()
        }
    );
    assert!(e.to_string().contains("expected a FIPA performative"));
}

#[test]
fn a_parameter_without_value() {
    let text = "(inform :sender)";
    let e = error(text);
    assert!(
        matches!(e, AclError::UnexpectedToken { offset, ref found, .. } if offset == at(text, ")") && found == "`)`")
    );
}

#[test]
fn unterminated_string() {
    let text = "(inform :content \"abc)";
    assert_eq!(
        error(text),
        AclError::UnterminatedString {
            offset: at(text, "\"")
        }
    );
    let text = "(inform :content \"ends in backslash\\";
    assert_eq!(
        error(text),
        AclError::UnterminatedString {
            offset: at(text, "\"")
        }
    );
}

#[test]
fn unknown_and_duplicate_parameters() {
    let text = "(inform :colour red)";
    assert_eq!(
        error(text),
        AclError::UnknownParameter {
            offset: 8,
            name: "colour".into()
        }
    );
    let text = "(inform :content \"a\" :CONTENT \"b\")";
    assert_eq!(
        error(text),
        AclError::DuplicateParameter {
            offset: at(text, ":CONTENT"),
            name: "CONTENT".into()
        }
    );
    let text = "(inform :X-a 1 :X-a 2)";
    assert!(matches!(
        error(text),
        AclError::DuplicateParameter { offset: 15, .. }
    ));
    let text = "(inform :sender (agent-identifier :name a :name b))";
    assert!(
        matches!(error(text), AclError::DuplicateParameter { offset, .. } if offset == at(text, ":name b"))
    );
    assert!(matches!(
        error("(inform :X- v)"),
        AclError::UnknownParameter { offset: 8, .. }
    ));
    assert!(matches!(
        error("(inform : v)"),
        AclError::UnexpectedToken { offset: 8, .. }
    ));
}

#[test]
fn offsets_count_bytes_not_characters() {
    let text = "(inform :content \"héllo wörld\" :bogus 1)";
    assert_eq!(
        error(text),
        AclError::UnknownParameter {
            offset: at(text, ":bogus"),
            name: "bogus".into()
        }
    );
    // Two two-byte characters precede it: character 31, byte 33.
    assert_eq!(at(text, ":bogus"), 33);
    assert_eq!(text[..33].chars().count(), 31);
}

#[test]
fn receivers_must_be_a_set() {
    let text = "(inform :receiver (agent-identifier :name x))";
    let e = error(text);
    assert!(
        matches!(e, AclError::UnexpectedToken { offset, expected, .. } if offset == at(text, "agent-identifier") && expected.contains("set"))
    );
}

#[test]
fn agent_identifiers_need_a_name() {
    let text = "(inform :sender (agent-identifier :addresses (sequence http://x:1/acc)))";
    assert_eq!(
        error(text),
        AclError::MissingAgentName {
            offset: at(text, "(agent")
        }
    );
    let text = "(inform :sender (agent :name a))";
    assert!(
        matches!(error(text), AclError::UnexpectedToken { offset, .. } if offset == at(text, "agent "))
    );
    let text = "(inform :sender (agent-identifier :name a :nickname b))";
    assert!(
        matches!(error(text), AclError::UnexpectedToken { offset, .. } if offset == at(text, ":nickname"))
    );
    let text = "(inform :sender (agent-identifier :name @a))";
    assert!(
        matches!(error(text), AclError::UnexpectedToken { offset, .. } if offset == at(text, "@a"))
    );
}

#[test]
fn a_value_cannot_be_a_parameter_name_or_a_closing_parenthesis() {
    let text = "(inform :content :sender)";
    assert!(matches!(
        error(text),
        AclError::UnexpectedToken { offset: 17, .. }
    ));
    let text = "(inform :language)";
    assert!(matches!(
        error(text),
        AclError::UnexpectedToken { offset: 17, .. }
    ));
}

#[test]
fn bad_numbers_and_dates() {
    let text = "(inform :reply-by 2025-01-01)";
    assert_eq!(
        error(text),
        AclError::InvalidNumber {
            offset: 18,
            text: "2025-01-01".into()
        }
    );
    let text = "(inform :reply-by 20251301T000000000Z)";
    assert!(matches!(
        error(text),
        AclError::InvalidDateTime { offset: 18, .. }
    ));
    let text = "(inform :reply-by +20250101T000000000)";
    assert!(matches!(
        error(text),
        AclError::InvalidDateTime { offset: 18, .. }
    ));
    let text = "(inform :reply-by tomorrow)";
    assert!(matches!(
        error(text),
        AclError::UnexpectedToken { offset: 18, .. }
    ));
    let text = "(inform :X-tnsai-timestamp \"noon\")";
    assert!(matches!(
        error(text),
        AclError::InvalidDateTime { offset: 27, .. }
    ));
    let text = "(inform :content -x)";
    assert!(matches!(
        error(text),
        AclError::InvalidNumber { offset: 17, .. }
    ));
}

#[test]
fn bad_byte_length_strings() {
    for text in [
        "(inform :content #\"abc\")",
        "(inform :content #3abc)",
        "(inform :content #10\"abc)",
        "(inform :content #99999999999999999999999\"a)",
        "(inform :content #1\"é)",
    ] {
        assert!(
            matches!(
                error(text),
                AclError::InvalidByteLengthString { offset: 17, .. }
            ),
            "{text}"
        );
    }
}

#[test]
fn trailing_text_after_the_message() {
    assert_eq!(
        error("(inform) (agree)"),
        AclError::TrailingInput { offset: 9 }
    );
}

#[test]
fn unbalanced_nested_content() {
    let text = "(inform :content (a (b))";
    assert!(matches!(error(text), AclError::UnexpectedEnd { offset, .. } if offset == text.len()));
}

#[test]
fn nesting_is_bounded_instead_of_overflowing_the_stack() {
    let deep = format!(
        "(inform :content {}{})",
        "(".repeat(100_000),
        ")".repeat(100_000)
    );
    assert!(matches!(error(&deep), AclError::TooDeep { limit: 64, .. }));
    let deep_agents = format!(
        "(inform :sender {}{})",
        "(agent-identifier :name a :resolvers (sequence ".repeat(1000),
        ")".repeat(2000)
    );
    assert!(matches!(error(&deep_agents), AclError::TooDeep { .. }));
    let fine = format!("(inform :content {}{})", "(".repeat(60), ")".repeat(60));
    assert!(parse_acl(&fine).is_ok());
}
