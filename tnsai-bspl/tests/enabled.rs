//! Enabled message forms after a local history, against every case of every
//! oracle file (compared as sets, as the fixture README says).

mod common;

use std::collections::BTreeSet;
use std::sync::Arc;

use common::{protocol_oracles, strings};
use serde_json::Value;
use tnsai_bspl::{Adapter, Bindings, Emitted, MessageInstance, Received};

fn bindings_of(value: &Value) -> Bindings {
    value
        .as_object()
        .map(|object| {
            object
                .iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_owned()))
                .collect()
        })
        .unwrap_or_default()
}

type Form = (String, Bindings, Vec<String>);

#[test]
fn enabled_sets_match_every_oracle_case() {
    let mut cases_checked = 0;
    for oracle in protocol_oracles() {
        let cases = oracle.json["cases"].as_array().cloned().unwrap_or_default();
        if cases.is_empty() {
            continue;
        }
        let (_, protocol) = oracle.load();
        let protocol = Arc::new(protocol);
        for case in &cases {
            let label = format!("{} / {}", oracle.label(), case["id"]);
            let role = case["role"].as_str().expect("case without role");
            let mut adapter = Adapter::new("agent");
            adapter
                .play(protocol.clone(), &[role])
                .unwrap_or_else(|e| panic!("{label}: {e}"));

            for step in case["history"].as_array().cloned().unwrap_or_default() {
                let name = step["message"].as_str().expect("step without message");
                let schema = protocol
                    .message(name)
                    .unwrap_or_else(|| panic!("{label}: unknown message {name}"));
                let message = MessageInstance {
                    protocol: protocol.name().to_owned(),
                    message: name.to_owned(),
                    sender: schema.sender().to_owned(),
                    recipients: schema.recipients().to_vec(),
                    bindings: bindings_of(&step["bindings"]),
                };
                match step["direction"].as_str() {
                    Some("sent") => {
                        let outcome = adapter.emit(message);
                        assert!(
                            matches!(outcome, Ok(Emitted::Sent(_))),
                            "{label}: sending {name}: {outcome:?}"
                        );
                    }
                    Some("received") => {
                        let outcome = adapter.receive(message);
                        assert_eq!(outcome, Ok(Received::Accepted), "{label}: receiving {name}");
                    }
                    other => panic!("{label}: unknown direction {other:?}"),
                }
            }

            let ours: BTreeSet<Form> = adapter
                .enabled_for(protocol.name(), role)
                .into_iter()
                .map(|form| (form.message, form.ins, form.outs))
                .collect();
            let expected: BTreeSet<Form> = case["enabled"]
                .as_array()
                .cloned()
                .unwrap_or_default()
                .iter()
                .map(|form| {
                    (
                        form["message"].as_str().unwrap_or_default().to_owned(),
                        bindings_of(&form["in"]),
                        strings(&form["out"]),
                    )
                })
                .collect();
            assert_eq!(ours, expected, "{label}");
            // Same number of forms too: the oracle lists each form once.
            assert_eq!(
                adapter.enabled_for(protocol.name(), role).len(),
                case["enabled"].as_array().map_or(0, Vec::len),
                "{label}: duplicate forms"
            );
            cases_checked += 1;
        }
    }
    assert!(cases_checked > 0, "no enabled-message cases found");
}
