//! fipa-query: every transition, and every unexpected performative.

mod common;

use common::{check_errors, check_table};
use tnsai_fipa::Performative::*;
use tnsai_fipa::ProtocolState::*;
use tnsai_fipa::{FipaMessage, QueryProtocol};

#[test]
fn transition_table() {
    check_table::<QueryProtocol>(&[
        (&[], Initial),
        (&[QueryIf], AwaitingResponse),
        (&[QueryRef], AwaitingResponse),
        (&[QueryIf, Agree], AwaitingResponse),
        (&[QueryIf, Refuse], CompletedFailure),
        (&[QueryRef, NotUnderstood], CompletedFailure),
        (&[QueryIf, Inform], CompletedSuccess),
        (&[QueryRef, Failure], CompletedFailure),
        (&[QueryRef, Agree, Inform], CompletedSuccess),
        (&[QueryIf, Agree, Failure], CompletedFailure),
        (&[QueryIf, Cancel], Cancelled),
        (&[QueryIf, Agree, Cancel], Cancelled),
        (&[QueryIf, Agree, Refuse], Error),
        (&[QueryIf, InformIf], Error),
        (&[QueryIf, QueryRef], Error),
        (&[Request], Error),
        (&[QueryIf, Inform, Inform], CompletedSuccess),
    ]);
}

#[test]
fn unexpected_performatives_move_to_error() {
    check_errors::<QueryProtocol>(&[], &[QueryIf, QueryRef]);
    check_errors::<QueryProtocol>(
        &[QueryRef],
        &[Agree, Refuse, NotUnderstood, Inform, Failure, Cancel],
    );
    check_errors::<QueryProtocol>(&[QueryIf, Agree], &[Inform, Failure, Cancel]);
}

#[test]
fn initial_messages_and_answers() {
    let mut q = QueryProtocol::new();
    let ask = q.create_initial_message("monitor", "service", "Is the service healthy?");
    assert_eq!(q.state(), AwaitingInitiation);
    assert_eq!(ask.performative(), QueryIf);
    assert_eq!(ask.protocol(), Some("fipa-query"));
    q.process_message(&ask);
    let answer = q.create_response(&ask, Inform, "true");
    assert!(q.is_valid_response(&ask, &answer));
    assert!(q.is_valid_message(&answer));
    assert_eq!(q.process_message(&answer), CompletedSuccess);
    assert_eq!(q.name(), "fipa-query");

    let mut r = QueryProtocol::new();
    let lookup = r.create_query_ref("a", "b", "(iota ?x (capital France ?x))");
    assert_eq!(lookup.performative(), QueryRef);
    assert_eq!(r.process_message(&lookup), AwaitingResponse);
    let refusal = r.create_response(&lookup, Refuse, "busy");
    assert_eq!(r.process_message(&refusal), CompletedFailure);
    assert!(r.is_complete() && !r.is_successful());

    let unrelated = FipaMessage::query_if("x", "y", "?");
    assert!(!q.is_valid_response(&ask, &unrelated));
}
