//! Printing protocols back to text: parse(print(p)) == p for every fixture,
//! the crate's protocols, and random protocols.

mod common;

use common::generate::design;
use common::{protocol_sources, read_source};
use proptest::prelude::*;
use tnsai_bspl::Specification;

fn assert_round_trip(text: &str, label: &str) {
    let spec = Specification::parse(text).unwrap_or_else(|e| panic!("{label}: {e}"));
    let printed = spec.to_string();
    let reparsed = Specification::parse(&printed)
        .unwrap_or_else(|e| panic!("{label}: reprint fails: {e}\n{printed}"));
    assert_eq!(
        reparsed.protocols(),
        spec.protocols(),
        "{label}:\n{printed}"
    );
    // Each protocol without references prints to a text that is itself
    // enough to read it back.
    for protocol in spec.protocols() {
        let alone = protocol
            .declarations()
            .iter()
            .all(|d| matches!(d, tnsai_bspl::Declaration::Message(_)));
        if alone {
            let again = Specification::parse(&protocol.to_string())
                .ok()
                .and_then(|s| s.into_protocol(protocol.name()));
            assert_eq!(
                again.as_ref(),
                Some(protocol),
                "{label}: {}",
                protocol.name()
            );
        }
    }
}

#[test]
fn every_fixture_round_trips() {
    let mut checked = 0;
    for path in protocol_sources() {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if name.ends_with(".rejected.bspl") {
            continue;
        }
        assert_round_trip(&read_source(&name), &name);
        checked += 1;
    }
    assert!(checked > 0);
}

#[test]
fn crate_protocols_round_trip() {
    for file in [
        "purchase.bspl",
        "flexible-purchase.bspl",
        "logistics.bspl",
        "logistics-braceless.bspl",
    ] {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("protocols")
            .join(file);
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_round_trip(&text, file);
    }
}

#[test]
fn printed_form_is_the_braces_form() {
    let text = "TestTypeAnnotation {\n roles A, B\n parameters in orderID: UUID key, out item: String\n A -> B: Order[in orderID: UUID key, out item: String]\n}";
    let spec = Specification::parse(text).unwrap_or_else(|e| panic!("{e}"));
    let printed = spec.protocols()[0].to_string();
    assert_eq!(
        printed,
        "TestTypeAnnotation {\n  roles A, B\n  parameters in orderID: UUID key, out item: String\n\n  A -> B: Order[in orderID key, out item]\n}"
    );
    let message = &spec.protocols()[0].messages()[0];
    assert_eq!(
        message.to_string(),
        "A -> B: Order[in orderID key, out item]"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn random_protocols_round_trip(design in design()) {
        let text = design.text();
        let spec = Specification::parse(&text);
        prop_assert!(spec.is_ok(), "generated text rejected: {:?}\n{}", spec.err(), text);
        let spec = spec.unwrap_or_else(|e| panic!("{e}"));
        let reparsed = Specification::parse(&spec.to_string());
        prop_assert!(reparsed.is_ok(), "{:?}\n{}", reparsed.err(), spec);
        let reparsed = reparsed.unwrap_or_else(|e| panic!("{e}"));
        prop_assert_eq!(reparsed.protocols(), spec.protocols());
    }
}
