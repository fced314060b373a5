//! Parser and resolver against the reference tool's parsed structure, for
//! every fixture; rejected texts; error positions; the brace-less style.

mod common;

use std::collections::BTreeSet;

use common::{Oracle, crate_protocol, oracles, protocol_oracles, protocol_sources, strings};
use serde_json::{Value, json};
use tnsai_bspl::verify::Diagnostic;
use tnsai_bspl::{LoadError, MessageParameter, Parameter, Specification};

fn adornment_json(adornment: Option<tnsai_bspl::Adornment>) -> Value {
    adornment.map_or(Value::Null, |a| json!(a.keyword()))
}

fn declared_json(parameter: &Parameter, oracle_entry: &Value) -> Value {
    let mut value = json!({
        "name": parameter.name,
        "adornment": adornment_json(parameter.adornment),
        "key": parameter.key,
    });
    // The oracle writes `tags` only when there are some.
    if !parameter.tags.is_empty() || oracle_entry.get("tags").is_some() {
        value["tags"] = json!(parameter.tags);
    }
    value
}

fn message_parameter_json(parameter: &MessageParameter) -> Value {
    json!({
        "name": parameter.name,
        "adornment": adornment_json(parameter.adornment),
        "key": parameter.key,
    })
}

fn declared_list(parameters: &[Parameter], oracle: &Value) -> Value {
    Value::Array(
        parameters
            .iter()
            .enumerate()
            .map(|(i, p)| declared_json(p, oracle.get(i).unwrap_or(&Value::Null)))
            .collect(),
    )
}

fn check_structure(oracle: &Oracle) {
    let label = oracle.label();
    let expected = &oracle.json;
    let (spec, protocol) = oracle.load();

    let names: Vec<&str> = spec.protocols().iter().map(|p| p.name()).collect();
    assert_eq!(
        names,
        strings(&expected["protocols_in_source"]),
        "{label}: protocols in source"
    );
    assert_eq!(
        protocol.roles(),
        strings(&expected["roles"]),
        "{label}: roles"
    );
    assert_eq!(
        declared_list(protocol.public_parameters(), &expected["public_parameters"]),
        expected["public_parameters"],
        "{label}: public parameters"
    );
    assert_eq!(
        declared_list(
            protocol.private_parameters(),
            &expected["private_parameters"]
        ),
        expected["private_parameters"],
        "{label}: private parameters"
    );
    assert_eq!(protocol.keys(), strings(&expected["keys"]), "{label}: keys");
    let initiators: Vec<&str> = protocol.initiators().map(|m| m.name()).collect();
    assert_eq!(
        initiators,
        strings(&expected["initiators"]),
        "{label}: initiators"
    );

    let messages: Vec<Value> = protocol
        .messages()
        .iter()
        .map(|m| {
            json!({
                "name": m.name(),
                "message_name": m.message_name(),
                "qualified_name": m.qualified_name(),
                "sender": m.sender(),
                "recipients": m.recipients(),
                "parameters": m.parameters().iter().map(message_parameter_json).collect::<Vec<_>>(),
                "keys": m.keys(),
            })
        })
        .collect();
    let expected_messages = expected["messages"].as_array().cloned().unwrap_or_default();
    assert_eq!(messages, expected_messages, "{label}: messages");
}

#[test]
fn structure_matches_the_oracle_for_every_protocol() {
    let oracles = protocol_oracles();
    assert!(!oracles.is_empty());
    for oracle in &oracles {
        check_structure(oracle);
    }
}

/// The oracle's warning lines reduced to (kind, subjects); the wording is the
/// reference tool's and need not match ours.
fn oracle_warning(line: &str) -> (&'static str, BTreeSet<String>) {
    let quoted: Vec<String> = line
        .split('\'')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect();
    let listed = |after: &str| -> BTreeSet<String> {
        let start = line.find(after).map(|i| i + after.len()).unwrap_or(0);
        let rest = &line[start..];
        let open = rest.find('[').unwrap_or(0);
        let close = rest.find(']').unwrap_or(rest.len());
        rest[open..close]
            .split('\'')
            .skip(1)
            .step_by(2)
            .map(str::to_owned)
            .collect()
    };
    if line.contains("declared both public and private") {
        ("public_and_private", quoted.into_iter().take(1).collect())
    } else if line.contains("declares 'out' parameters") && line.contains("no messages") {
        ("out_without_messages", listed("parameters"))
    } else if line.contains("but no message uses them") {
        ("unused_declared", listed("parameters"))
    } else {
        panic!("unrecognised oracle warning: {line}")
    }
}

fn our_warning(diagnostic: &Diagnostic) -> (&'static str, BTreeSet<String>) {
    let kind = match diagnostic {
        Diagnostic::PublicAndPrivate { .. } => "public_and_private",
        Diagnostic::OutWithoutMessages { .. } => "out_without_messages",
        Diagnostic::UnusedDeclared { .. } => "unused_declared",
        other => panic!("an error reported as a warning: {other}"),
    };
    let subjects = diagnostic
        .subjects()
        .into_iter()
        .map(str::to_owned)
        .collect();
    (kind, subjects)
}

#[test]
fn parse_warnings_match_the_oracle_structurally() {
    for oracle in protocol_oracles() {
        let (spec, _) = oracle.load();
        let mut ours: Vec<_> = spec.warnings().iter().map(our_warning).collect();
        let mut theirs: Vec<_> = strings(&oracle.json["parse_warnings"])
            .iter()
            .map(|line| oracle_warning(line))
            .collect();
        ours.sort();
        theirs.sort();
        assert_eq!(ours, theirs, "{}: parse warnings", oracle.label());
    }
}

#[test]
fn rejected_texts_are_rejected() {
    let rejected: Vec<Oracle> = oracles()
        .into_iter()
        .filter(|o| o.kind() == "rejected")
        .collect();
    assert!(!rejected.is_empty());
    for oracle in rejected {
        let result = Specification::parse(&oracle.source_text());
        assert!(
            result.is_err(),
            "{}: accepted a text the reference tool rejects ({})",
            oracle.label(),
            oracle.json["error"]
        );
    }
}

#[test]
fn every_source_either_parses_or_is_a_rejected_text() {
    for path in protocol_sources() {
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let rejected = path.to_string_lossy().ends_with(".rejected.bspl");
        assert_eq!(
            Specification::parse(&text).is_err(),
            rejected,
            "{}",
            path.display()
        );
    }
}

#[test]
fn rejection_reasons_name_the_problem() {
    let undefined = Specification::parse(
        "With-Reject {\n  roles C, S\n  parameters out item key, out done\n\n  Order(C, S, out item key, out done)\n  S -> C: Reject[in item key, out done]\n}",
    );
    match undefined {
        Err(LoadError::UndefinedProtocol { name, position, .. }) => {
            assert_eq!(name, "Order");
            assert_eq!((position.line, position.column), (5, 3));
        }
        other => panic!("expected an undefined protocol, got {other:?}"),
    }

    let keyless = Specification::parse(
        "KeyedProtocol { roles A, B parameters out id key, out value A -> B: zeta[out value] A -> B: alpha[out id] A -> B: beta[out value] }",
    );
    match keyless {
        Err(LoadError::IllFormed {
            diagnostic: Diagnostic::KeylessMessages { messages, .. },
            ..
        }) => assert_eq!(messages, vec!["beta", "zeta"]),
        other => panic!("expected keyless messages, got {other:?}"),
    }
}

#[test]
fn syntax_errors_carry_line_column_and_expectation() {
    let cases = [
        (
            "P {\n  roles A, B\n  params out id key\n}",
            3,
            3,
            "'parameters'",
        ),
        (
            "P {\n roles A, B\n parameters out id key\n A -> B: m[out id\n}",
            5,
            1,
            "',' or ']'",
        ),
        (
            "P {\n roles A, B\n parameters out id key\n A to B: m[out id]\n}",
            4,
            4,
            "'->' (a message) or '(' (a protocol reference)",
        ),
        ("", 1, 1, "a protocol name"),
        (
            "P { roles A, B parameters out id key A -> B: m[out id] ",
            1,
            56,
            "a message, a protocol reference or '}'",
        ),
    ];
    for (text, line, column, expected) in cases {
        match Specification::parse(text) {
            Err(LoadError::Syntax(error)) => {
                assert_eq!(
                    (error.line, error.column, error.expected.as_str()),
                    (line, column, expected),
                    "{text:?}"
                );
            }
            other => panic!("{text:?}: expected a syntax error, got {other:?}"),
        }
    }
}

#[test]
fn semantic_errors_are_typed() {
    let unknown_role =
        Specification::parse("P { roles A, B parameters out id key A -> C: m[out id] }");
    assert!(matches!(unknown_role, Err(LoadError::UnknownRole { ref role, .. }) if role == "C"));

    let undeclared =
        Specification::parse("P { roles A, B parameters out id key A -> B: m[out id, out z] }");
    assert!(
        matches!(undeclared, Err(LoadError::UndeclaredParameter { ref parameter, .. }) if parameter == "z")
    );

    let cyclic = Specification::parse(
        "P { roles A, B parameters out id key, out r A -> B: m[out id] Q(A, B, id, r) }\nQ { roles X, Y parameters in id key, out r P(X, Y, id, r) }",
    );
    assert!(matches!(cyclic, Err(LoadError::CyclicReference { .. })));

    let arity = Specification::parse(
        "P { roles A, B parameters out id key, out r A -> B: m[out id] Q(A, B, id) }\nQ { roles X, Y parameters in id key, out r X -> Y: q[in id, out r] }",
    );
    assert!(matches!(
        arity,
        Err(LoadError::ReferenceArity {
            expected: 4,
            found: 3,
            ..
        })
    ));

    let no_key = Specification::parse("P { roles A, B parameters out id A -> B: m[out id] }");
    assert!(matches!(
        no_key,
        Err(LoadError::IllFormed {
            diagnostic: Diagnostic::NoPublicKey { .. },
            ..
        })
    ));

    let produced_in = Specification::parse(
        "P { roles A, B parameters in id key, out x A -> B: m[out id, out x] }",
    );
    assert!(matches!(
        produced_in,
        Err(LoadError::IllFormed {
            diagnostic: Diagnostic::ProducedIn { .. },
            ..
        })
    ));

    let duplicate = Specification::parse(
        "P { roles A, B parameters out id key A -> B: m[out id] }\nP { roles A, B parameters out id key A -> B: n[out id] }",
    );
    assert!(matches!(
        duplicate,
        Err(LoadError::DuplicateProtocol { .. })
    ));
}

#[test]
fn references_substitute_roles_and_parameters() {
    let spec = Specification::parse(
        "P { roles A, B parameters out id key, out r  A -> B: m[out id] Q(B, A, id, r) Q(A, B, id, r) }\n\
         Q { roles X, Y parameters in k key, out s X -> Y: q[in k, out s] }",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let p = spec.protocol("P").unwrap_or_else(|| panic!("no P"));
    let names: Vec<&str> = p.messages().iter().map(|m| m.name()).collect();
    assert_eq!(names, ["m", "Q/q", "Q2/q"]);
    let first = &p.messages()[1];
    assert_eq!(
        (first.sender(), first.recipients()),
        ("B", &["A".to_owned()][..])
    );
    let parameters: Vec<&str> = first.parameters().iter().map(|q| q.name.as_str()).collect();
    assert_eq!(parameters, ["id", "r"]);
    assert_eq!(first.keys(), ["id"]);
    assert_eq!(p.messages()[2].sender(), "A");
}

#[test]
fn pipe_separates_roles_from_parameters_in_a_reference() {
    let spec = Specification::parse(
        "P { roles A, B parameters out id key, out r  A -> B: m[out id] Q(A, B | id, r) }\n\
         Q { roles X, Y parameters in id key, out r X -> Y: q[in id, out r] }",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let p = spec.protocol("P").unwrap_or_else(|| panic!("no P"));
    assert_eq!(p.messages()[1].name(), "Q/q");
    assert_eq!(p.messages()[1].sender(), "A");
}

#[test]
fn braceless_logistics_equals_the_braces_version() {
    let braceless = include_str!("../protocols/logistics-braceless.bspl");
    let from_listing = Specification::parse(braceless)
        .unwrap_or_else(|e| panic!("{e}"))
        .into_protocol("Logistics")
        .unwrap_or_else(|| panic!("no Logistics"));
    let from_braces = crate_protocol("logistics.bspl", "Logistics");
    assert_eq!(from_listing, from_braces);
    assert_eq!(
        from_braces.roles(),
        ["Merchant", "Wrapper", "Labeler", "Packer"]
    );
    assert_eq!(from_braces.keys(), ["orderID", "itemID"]);
    let packed = from_braces
        .message("Packed")
        .unwrap_or_else(|| panic!("no Packed"));
    assert_eq!(packed.keys(), ["orderID", "itemID"]);
    assert_eq!(
        packed.ins().collect::<Vec<_>>(),
        ["orderID", "itemID", "item", "wrapping", "label"]
    );
}

#[test]
fn several_braceless_protocols_follow_each_other() {
    let text = "First\n roles A, B\n parameters out id key\n A -> B: go[out id]\n\nSecond\n roles C, D\n parameters out n key\n C -> D: start[out n]\n";
    let spec = Specification::parse(text).unwrap_or_else(|e| panic!("{e}"));
    let names: Vec<&str> = spec.protocols().iter().map(|p| p.name()).collect();
    assert_eq!(names, ["First", "Second"]);
    assert_eq!(spec.protocols()[1].messages()[0].name(), "start");
}

mod robustness {
    use super::*;
    use proptest::prelude::*;

    fn fixture_texts() -> Vec<String> {
        protocol_sources()
            .iter()
            .map(|p| std::fs::read_to_string(p).unwrap_or_default())
            .collect()
    }

    /// Accepted text must print to text that reads back the same.
    fn check(text: &str) -> Result<(), TestCaseError> {
        if let Ok(spec) = Specification::parse(text) {
            let again = Specification::parse(&spec.to_string());
            prop_assert!(again.is_ok(), "{:?}", again.err());
            let again = again.unwrap_or_else(|e| panic!("{e}"));
            prop_assert_eq!(again.protocols(), spec.protocols());
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn arbitrary_text_never_panics(text in "[a-zA-Z0-9_ \\n{}\\[\\](),:|@>→#/-]{0,80}") {
            check(&text)?;
        }

        #[test]
        fn mutated_fixtures_never_panic(
            which in 0usize..64,
            edits in proptest::collection::vec((any::<prop::sample::Index>(), 0u8..3, "[ a-z{}\\[\\](),:|>-]"), 1..4),
        ) {
            let texts = fixture_texts();
            let mut chars: Vec<char> = texts[which % texts.len()].chars().collect();
            for (at, kind, insert) in edits {
                if chars.is_empty() {
                    break;
                }
                let at = at.index(chars.len());
                match kind {
                    0 => {
                        chars.remove(at);
                    }
                    1 => chars.splice(at..at, insert.chars()).for_each(drop),
                    _ => chars.truncate(at),
                }
            }
            let text: String = chars.into_iter().collect();
            check(&text)?;
        }
    }
}
