//! fipa-subscribe: every transition, and every unexpected performative.

mod common;

use common::{check_errors, check_table};
use tnsai_fipa::Performative::*;
use tnsai_fipa::ProtocolState::*;
use tnsai_fipa::SubscribeProtocol;

#[test]
fn transition_table() {
    check_table::<SubscribeProtocol>(&[
        (&[], Initial),
        (&[Subscribe], AwaitingResponse),
        (&[Subscribe, Agree], AwaitingResponse),
        (&[Subscribe, Inform], AwaitingResponse),
        (
            &[Subscribe, Agree, Inform, Inform, Inform],
            AwaitingResponse,
        ),
        (&[Subscribe, Refuse], CompletedFailure),
        (&[Subscribe, NotUnderstood], CompletedFailure),
        (&[Subscribe, Failure], CompletedFailure),
        (&[Subscribe, Agree, Inform, Failure], CompletedFailure),
        (&[Subscribe, Cancel], Cancelled),
        (&[Subscribe, Agree, Inform, Cancel], Cancelled),
        (&[Subscribe, Agree, Agree], Error),
        (&[Subscribe, Inform, Refuse], Error),
        (&[Subscribe, Subscribe], Error),
        (&[Inform], Error),
        (&[Subscribe, Cancel, Inform], Cancelled),
    ]);
}

#[test]
fn unexpected_performatives_move_to_error() {
    check_errors::<SubscribeProtocol>(&[], &[Subscribe]);
    check_errors::<SubscribeProtocol>(
        &[Subscribe],
        &[Agree, Refuse, NotUnderstood, Inform, Failure, Cancel],
    );
    check_errors::<SubscribeProtocol>(&[Subscribe, Agree], &[Inform, Failure, Cancel]);
    check_errors::<SubscribeProtocol>(&[Subscribe, Inform], &[Inform, Failure, Cancel]);
}

#[test]
fn notifications_until_cancelled() {
    let mut s = SubscribeProtocol::new();
    let sub = s.create_initial_message("watcher", "feed", "(price ACME)");
    assert_eq!(s.state(), AwaitingInitiation);
    assert_eq!(sub.protocol(), Some("fipa-subscribe"));
    s.process_message(&sub);
    assert!(!s.is_active());
    s.process_message(&s.create_response(&sub, Agree, "ok"));
    assert!(s.is_active());
    for price in ["10", "11", "9"] {
        let note = s.create_response(&sub, Inform, price);
        assert!(s.is_valid_response(&sub, &note));
        assert_eq!(s.process_message(&note), AwaitingResponse);
    }
    let prices: Vec<_> = s.notifications().filter_map(|m| m.content()).collect();
    assert_eq!(prices, ["10", "11", "9"]);
    assert!(!s.is_complete());
    assert_eq!(s.cancel(), Cancelled);
    assert!(!s.is_active());
    assert!(!s.is_complete() && !s.is_successful());
    assert_eq!(s.name(), "fipa-subscribe");
}

#[test]
fn an_inform_that_never_had_a_subscription_is_no_notification() {
    let s: SubscribeProtocol = common::run(&[Inform]);
    assert_eq!(s.state(), Error);
    assert_eq!(s.notifications().count(), 0);
    assert_eq!(s.history().len(), 1, "the offending message is kept");
}
