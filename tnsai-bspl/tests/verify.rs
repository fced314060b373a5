//! Verifier verdicts against the reference tool for every fixture, and the
//! counterexample paths of the known unsafe and non-live protocols.

mod common;

use common::{crate_protocol, protocol_oracles, strings};
use tnsai_bspl::verify::{
    self, Event, Liveness, Safety, VerifyOptions, check_liveness, check_safety, replay,
    stuck_outcomes,
};
use tnsai_bspl::{Protocol, Specification};

#[test]
fn verdicts_match_the_oracle_for_every_protocol() {
    let oracles = protocol_oracles();
    assert!(!oracles.is_empty());
    for oracle in &oracles {
        let label = oracle.label();
        let (_, protocol) = oracle.load();
        let expected = &oracle.json["verification"];
        let report = verify::verify(&protocol).unwrap_or_else(|e| panic!("{label}: {e}"));

        let safe = expected["safety"]["safe"].as_bool();
        assert_eq!(Some(report.safety.is_safe()), safe, "{label}: safety");
        if let Safety::Unsafe { parameter, .. } = &report.safety {
            assert_eq!(
                Some(parameter.as_str()),
                expected["safety"]["unsafe"].as_str(),
                "{label}: unsafe parameter"
            );
        }

        let live = expected["liveness"]["live"].as_bool();
        assert_eq!(Some(report.liveness.is_live()), live, "{label}: liveness");
        if let Liveness::NotLive { incomplete, path } = &report.liveness {
            // The reference tool reports the unbound outs of whichever stuck
            // run it finds first, which varies between its runs: the oracle's
            // set must be one of the ways this protocol can get stuck.
            let mut expected_incomplete = strings(&expected["liveness"]["incomplete"]);
            expected_incomplete.sort();
            let outcomes = stuck_outcomes(&protocol, &VerifyOptions::liveness())
                .unwrap_or_else(|e| panic!("{label}: {e}"));
            let possible: Vec<&Vec<String>> = outcomes
                .iter()
                .filter_map(|o| match o {
                    Liveness::NotLive { incomplete, .. } => Some(incomplete),
                    Liveness::Live => None,
                })
                .collect();
            assert!(
                possible.contains(&&expected_incomplete),
                "{label}: oracle incomplete {expected_incomplete:?} not among {possible:?}"
            );
            let outcome = replay(&protocol, path, &VerifyOptions::liveness())
                .unwrap_or_else(|e| panic!("{label}: our counterexample does not replay: {e}"));
            assert!(outcome.stuck, "{label}: counterexample not stuck");
            assert_eq!(&outcome.unbound_outs, incomplete, "{label}");
        }
        if let Safety::Unsafe { parameter, path } = &report.safety {
            let outcome = replay(&protocol, path, &VerifyOptions::safety())
                .unwrap_or_else(|e| panic!("{label}: our counterexample does not replay: {e}"));
            assert_eq!(outcome.conflict.as_ref(), Some(parameter), "{label}");
        }

        assert_eq!(
            report.unbound,
            strings(&expected["unbound"]),
            "{label}: unbound"
        );
        assert_eq!(
            report.unused,
            strings(&expected["unused"]),
            "{label}: unused"
        );
        assert!(
            report.well_formedness.iter().all(|d| !d.is_error()),
            "{label}: loaded protocol reported ill-formed"
        );
    }
}

/// Events of a reference-tool path (`Buyer!ask`, `Seller?ask`; external
/// sources as `*External*!external->A` then `A?external->A`) in our form.
fn reference_path(protocol: &Protocol, steps: &[String]) -> Vec<Event> {
    let public_ins: Vec<String> = protocol
        .public_adorned(tnsai_bspl::Adornment::In)
        .map(str::to_owned)
        .collect();
    steps
        .iter()
        .filter(|step| !step.starts_with("*External*!"))
        .map(|step| match step.split_once("?external->") {
            Some((role, _)) => Event::ExternalInput {
                role: role.to_owned(),
                parameters: public_ins.clone(),
            },
            None => step.parse().unwrap_or_else(|e| panic!("{step}: {e}")),
        })
        .collect()
}

#[test]
fn reference_counterexamples_replay_to_the_same_verdict() {
    let mut replayed = 0;
    for oracle in protocol_oracles() {
        let label = oracle.label();
        let (_, protocol) = oracle.load();
        let reference = &oracle.json["verification"]["python_reference"];
        if let Some(steps) = reference.get("liveness_counterexample") {
            let path = reference_path(&protocol, &strings(steps));
            let outcome = replay(&protocol, &path, &VerifyOptions::liveness())
                .unwrap_or_else(|e| panic!("{label}: {e}"));
            assert!(
                outcome.stuck,
                "{label}: reference counterexample is not stuck here"
            );
            let mut expected = strings(&oracle.json["verification"]["liveness"]["incomplete"]);
            expected.sort();
            assert_eq!(outcome.unbound_outs, expected, "{label}");
            replayed += 1;
        }
        if let Some(steps) = reference.get("safety_counterexample") {
            let path = reference_path(&protocol, &strings(steps));
            let outcome = replay(&protocol, &path, &VerifyOptions::safety())
                .unwrap_or_else(|e| panic!("{label}: {e}"));
            assert_eq!(
                outcome.conflict.as_deref(),
                oracle.json["verification"]["safety"]["unsafe"].as_str(),
                "{label}"
            );
            replayed += 1;
        }
    }
    assert!(replayed > 0, "no reference counterexamples in the fixtures");
}

#[test]
fn impossible_steps_are_reported() {
    let protocol = crate_protocol("purchase.bspl", "Purchase");
    let path: Vec<Event> = ["Seller?rfq"]
        .iter()
        .map(|s| s.parse().unwrap_or_else(|e| panic!("{e}")))
        .collect();
    assert!(matches!(
        replay(&protocol, &path, &VerifyOptions::safety()),
        Err(verify::VerifyError::ImpossibleStep { index: 0, .. })
    ));
    assert!("no marker".parse::<Event>().is_err());
    let round_trip: Event = "A?external[x, y]".parse().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(round_trip.to_string(), "A?external[x, y]");
}

/// Replays a path and checks it is a run of the protocol: every reception
/// follows its emission, and each role only sends what its knowledge allows
/// (all `in` known, no `out` or `nil` known).
fn assert_valid_run(protocol: &Protocol, path: &[Event]) {
    use std::collections::{BTreeMap, BTreeSet};
    let mut knowledge: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    let mut sent: BTreeSet<&str> = BTreeSet::new();
    for event in path {
        match event {
            Event::Emission { role, message } => {
                let schema = protocol
                    .message(message)
                    .unwrap_or_else(|| panic!("{message}"));
                assert_eq!(schema.sender(), role);
                let known = knowledge.entry(schema.sender()).or_default();
                assert!(
                    schema.ins().all(|p| known.contains(p)),
                    "{event}: in unknown"
                );
                assert!(
                    schema.outs().all(|p| !known.contains(p)),
                    "{event}: out known"
                );
                assert!(
                    schema.nils().all(|p| !known.contains(p)),
                    "{event}: nil known"
                );
                known.extend(schema.ins().chain(schema.outs()));
                sent.insert(schema.name());
            }
            Event::Reception { role, message } => {
                let schema = protocol
                    .message(message)
                    .unwrap_or_else(|| panic!("{message}"));
                assert!(sent.contains(schema.name()), "{event} before its emission");
                assert!(schema.recipients().contains(role));
                let role = schema
                    .recipients()
                    .iter()
                    .find(|r| *r == role)
                    .map(String::as_str);
                let known = knowledge.entry(role.unwrap_or_default()).or_default();
                known.extend(schema.ins().chain(schema.outs()));
            }
            Event::ExternalInput { .. } => {}
        }
    }
}

#[test]
fn race_is_unsafe_on_price_with_a_valid_counterexample() {
    let text = common::read_source("race-quote.bspl");
    let race = Specification::parse(&text)
        .ok()
        .and_then(|s| s.into_protocol("Race"))
        .unwrap_or_else(|| panic!("no Race"));
    let safety = check_safety(&race, &VerifyOptions::safety()).unwrap_or_else(|e| panic!("{e}"));
    let Safety::Unsafe { parameter, path } = safety else {
        panic!("Race must be unsafe");
    };
    assert_eq!(parameter, "price");
    assert_valid_run(&race, &path);
    let shown: Vec<String> = path.iter().map(ToString::to_string).collect();
    assert!(shown.contains(&"Buyer!offer".to_owned()), "{shown:?}");
    assert!(shown.contains(&"Seller!quote".to_owned()), "{shown:?}");
}

#[test]
fn flexible_purchase_is_safe_but_not_live_because_both_deliveries_can_be_requested() {
    let protocol = crate_protocol("flexible-purchase.bspl", "FlexiblePurchase");
    assert!(
        check_safety(&protocol, &VerifyOptions::safety())
            .unwrap_or_else(|e| panic!("{e}"))
            .is_safe()
    );
    let liveness =
        check_liveness(&protocol, &VerifyOptions::liveness()).unwrap_or_else(|e| panic!("{e}"));
    let Liveness::NotLive { incomplete, path } = liveness else {
        panic!("FlexiblePurchase must not be live");
    };
    assert_eq!(incomplete, ["done"]);
    assert_valid_run(&protocol, &path);
    let shown: Vec<String> = path.iter().map(ToString::to_string).collect();
    assert!(
        shown.contains(&"FlexibleCustomer!standard_delivery_request".to_owned()),
        "{shown:?}"
    );
    assert!(
        shown.contains(&"FlexibleCustomer!express_delivery_request".to_owned()),
        "{shown:?}"
    );
    assert!(!shown.iter().any(|e| e.contains("!receipt")), "{shown:?}");
}

#[test]
fn logistics_is_safe_and_live() {
    let logistics = crate_protocol("logistics.bspl", "Logistics");
    let report = verify::verify(&logistics).unwrap_or_else(|e| panic!("{e}"));
    assert!(report.safety.is_safe());
    assert!(report.liveness.is_live(), "{:?}", report.liveness);
    assert_eq!(report.unbound, Vec::<String>::new());
    assert_eq!(report.unused, ["status"]);
}

#[test]
fn reduction_does_not_change_verdicts() {
    for oracle in protocol_oracles() {
        let (_, protocol) = oracle.load();
        for external_sources in [false, true] {
            let reduced = VerifyOptions {
                external_sources,
                ..VerifyOptions::safety()
            };
            let full = VerifyOptions {
                reduction: false,
                ..reduced.clone()
            };
            let verdicts = |options: &VerifyOptions| {
                (
                    check_safety(&protocol, options).map(|s| s.is_safe()),
                    check_liveness(&protocol, options).map(|l| match l {
                        Liveness::Live => Vec::new(),
                        Liveness::NotLive { incomplete, .. } => incomplete,
                    }),
                    verify::unbound_parameters(&protocol, options),
                    verify::unused_parameters(&protocol, options),
                )
            };
            assert_eq!(verdicts(&reduced), verdicts(&full), "{}", oracle.label());
        }
    }
}

#[test]
fn state_limit_is_an_error_not_a_hang() {
    let protocol = crate_protocol("flexible-purchase.bspl", "FlexiblePurchase");
    let options = VerifyOptions {
        max_states: 5,
        ..VerifyOptions::liveness()
    };
    assert!(matches!(
        check_liveness(&protocol, &options),
        Err(verify::VerifyError::StateLimit { limit: 5, .. })
    ));
}
