//! Helpers shared by the protocol tests.

#![allow(dead_code, unreachable_pub)]

use tnsai_fipa::{ConversationProtocol, FipaMessage, Performative, ProtocolState};

/// A message with the given performative between two fixed agents.
pub fn message(performative: Performative) -> FipaMessage {
    match FipaMessage::builder()
        .performative(performative)
        .sender("initiator")
        .receiver("participant")
        .content("c")
        .build()
    {
        Ok(m) => m,
        Err(e) => panic!("test message: {e}"),
    }
}

/// A fresh protocol fed `steps`, one message per performative.
pub fn run<P: ConversationProtocol + Default>(steps: &[Performative]) -> P {
    let mut protocol = P::default();
    for &step in steps {
        protocol.process_message(&message(step));
    }
    protocol
}

/// Checks each `(steps, expected state)` case on a fresh protocol.
pub fn check_table<P: ConversationProtocol + Default>(cases: &[(&[Performative], ProtocolState)]) {
    for (steps, expected) in cases {
        let protocol: P = run(steps);
        assert_eq!(protocol.state(), *expected, "after {steps:?}");
    }
}

/// Every performative not in `allowed`, appended to `prefix`, moves to `Error`
/// and was reported invalid beforehand.
pub fn check_errors<P: ConversationProtocol + Default>(
    prefix: &[Performative],
    allowed: &[Performative],
) {
    for &p in Performative::all() {
        let before: P = run(prefix);
        assert!(!before.state().is_terminal(), "prefix {prefix:?} ended");
        let valid = before.is_valid_message(&message(p));
        let mut after = before;
        let state = after.process_message(&message(p));
        if allowed.contains(&p) {
            assert!(valid, "{p} after {prefix:?} should be valid");
            assert_ne!(state, ProtocolState::Error, "{p} after {prefix:?}");
        } else {
            assert!(!valid, "{p} after {prefix:?} should be invalid");
            assert_eq!(state, ProtocolState::Error, "{p} after {prefix:?}");
        }
    }
}
