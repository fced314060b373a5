//! fipa-request: every transition, and every unexpected performative.

mod common;

use common::{check_errors, check_table, message, run};
use tnsai_fipa::Performative::*;
use tnsai_fipa::ProtocolState::*;
use tnsai_fipa::{ConversationProtocol, FipaMessage, RequestProtocol};

#[test]
fn transition_table() {
    check_table::<RequestProtocol>(&[
        (&[], Initial),
        (&[Request], AwaitingResponse),
        (&[Request, Agree], AwaitingResponse),
        (&[Request, Refuse], CompletedFailure),
        (&[Request, NotUnderstood], CompletedFailure),
        (&[Request, Inform], CompletedSuccess),
        (&[Request, Failure], CompletedFailure),
        (&[Request, Agree, Inform], CompletedSuccess),
        (&[Request, Agree, Failure], CompletedFailure),
        (&[Request, Cancel], Cancelled),
        (&[Request, Agree, Cancel], Cancelled),
        (&[Request, Agree, Agree], Error),
        (&[Request, Agree, Refuse], Error),
        (&[Request, Agree, NotUnderstood], Error),
        (&[Request, Request], Error),
        (&[Inform], Error),
        (&[Cancel], Error),
        // Terminal states ignore later messages.
        (&[Request, Inform, Failure], CompletedSuccess),
        (&[Request, Refuse, Inform], CompletedFailure),
        (&[Request, Cancel, Inform], Cancelled),
        (&[Inform, Request], Error),
    ]);
}

#[test]
fn unexpected_performatives_move_to_error() {
    check_errors::<RequestProtocol>(&[], &[Request]);
    check_errors::<RequestProtocol>(
        &[Request],
        &[Agree, Refuse, NotUnderstood, Inform, Failure, Cancel],
    );
    check_errors::<RequestProtocol>(&[Request, Agree], &[Inform, Failure, Cancel]);
}

#[test]
fn create_initial_message_awaits_initiation() {
    let mut p = RequestProtocol::new();
    let request = p.create_initial_message("client", "server", "restart");
    assert_eq!(p.state(), AwaitingInitiation);
    assert_eq!(request.performative(), Request);
    assert_eq!(request.protocol(), Some("fipa-request"));
    assert_eq!(p.process_message(&request), AwaitingResponse);
    assert!(!p.is_agreed());
    let agree = p.create_response(&request, Agree, "ok");
    assert_eq!(agree.sender(), Some("server"));
    assert_eq!(agree.receiver(), Some("client"));
    assert_eq!(p.process_message(&agree), AwaitingResponse);
    assert!(p.is_agreed());
    let done = p.create_response(&request, Inform, "done");
    assert_eq!(p.process_message(&done), CompletedSuccess);
    assert!(p.is_complete() && p.is_successful());
    assert_eq!(p.history(), [request, agree, done]);
    assert_eq!(p.name(), "fipa-request");
}

#[test]
fn completion_flags() {
    let failed: RequestProtocol = run(&[Request, Refuse]);
    assert!(failed.is_complete() && !failed.is_successful());
    let error: RequestProtocol = run(&[Agree]);
    assert!(error.is_complete() && !error.is_successful());
    let open: RequestProtocol = run(&[Request]);
    assert!(!open.is_complete() && !open.is_successful());
}

#[test]
fn valid_responses() {
    let p = RequestProtocol::new();
    let request = FipaMessage::request("a", "b", "do");
    for answer in [Agree, Refuse, NotUnderstood, Inform, Failure] {
        assert!(p.is_valid_response(&request, &p.create_response(&request, answer, "")));
    }
    assert!(!p.is_valid_response(&request, &p.create_response(&request, Propose, "")));
    let unrelated = FipaMessage::inform("b", "a", "done");
    assert!(!p.is_valid_response(&request, &unrelated));
    let cancel = p.create_response(&request, Cancel, "");
    assert!(p.is_valid_response(&cancel, &p.create_response(&cancel, Inform, "")));
}

#[test]
fn usable_through_the_trait() {
    let mut protocols: Vec<Box<dyn ConversationProtocol>> = vec![
        Box::new(RequestProtocol::new()),
        Box::new(RequestProtocol::new()),
    ];
    for p in &mut protocols {
        p.process_message(&message(Request));
    }
    protocols[1].process_message(&message(Inform));
    let states: Vec<_> = protocols.iter().map(|p| p.state()).collect();
    assert_eq!(states, [AwaitingResponse, CompletedSuccess]);
    assert!(protocols.iter().all(|p| p.name() == "fipa-request"));
}
