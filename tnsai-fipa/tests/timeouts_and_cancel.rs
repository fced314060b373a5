//! Deadlines (`reply_by`) and cancellation across the four protocols.

use chrono::{DateTime, Duration, TimeZone, Utc};
use tnsai_fipa::Performative::{Agree, Inform};
use tnsai_fipa::ProtocolState::{
    AwaitingResponse, Cancelled, CompletedFailure, CompletedSuccess, Negotiating, TimedOut,
};
use tnsai_fipa::{
    ContractNetProtocol, ConversationProtocol, FipaMessage, QueryProtocol, RequestProtocol,
    SubscribeProtocol,
};

fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2025, 6, 1, 12, 0, 0)
        .single()
        .unwrap_or_default()
}

fn with_deadline(m: FipaMessage, deadline: DateTime<Utc>) -> FipaMessage {
    match m.into_builder().reply_by(deadline).build() {
        Ok(m) => m,
        Err(e) => panic!("{e}"),
    }
}

fn secs(n: i64) -> Duration {
    Duration::seconds(n)
}

#[test]
fn an_answer_after_reply_by_times_the_conversation_out() {
    let request = with_deadline(FipaMessage::request("a", "b", "x"), t0() + secs(10));
    let mut p = RequestProtocol::new();
    assert_eq!(p.process_message_at(&request, t0()), AwaitingResponse);
    assert_eq!(p.deadline(), Some(t0() + secs(10)));
    let agree = p.create_response(&request, Agree, "");
    assert_eq!(p.process_message_at(&agree, t0() + secs(11)), TimedOut);
    assert!(!p.is_complete() && !p.is_successful());
    // Timed out is terminal.
    let done = p.create_response(&request, Inform, "");
    assert_eq!(p.process_message_at(&done, t0() + secs(12)), TimedOut);
}

#[test]
fn the_first_answer_in_time_meets_the_deadline() {
    let request = with_deadline(FipaMessage::request("a", "b", "x"), t0() + secs(10));
    let mut p = RequestProtocol::new();
    p.process_message_at(&request, t0());
    let agree = p.create_response(&request, Agree, "");
    assert_eq!(
        p.process_message_at(&agree, t0() + secs(10)),
        AwaitingResponse
    );
    assert_eq!(p.deadline(), None);
    let done = p.create_response(&request, Inform, "");
    assert_eq!(
        p.process_message_at(&done, t0() + secs(3600)),
        CompletedSuccess
    );
}

#[test]
fn check_timeout_needs_no_message() {
    let query = with_deadline(FipaMessage::query_if("a", "b", "?"), t0() + secs(5));
    let mut q = QueryProtocol::new();
    q.process_message_at(&query, t0());
    assert_eq!(q.check_timeout(t0() + secs(5)), AwaitingResponse);
    assert_eq!(q.check_timeout(t0() + secs(6)), TimedOut);
    assert_eq!(q.state(), TimedOut);
}

#[test]
fn a_request_already_past_its_reply_by_times_out_at_once() {
    let stale = with_deadline(FipaMessage::request("a", "b", "x"), Utc::now() - secs(60));
    let mut p = RequestProtocol::new();
    assert_eq!(p.process_message(&stale), TimedOut);
    let fresh = with_deadline(FipaMessage::request("a", "b", "x"), Utc::now() + secs(600));
    let mut p = RequestProtocol::new();
    assert_eq!(p.process_message(&fresh), AwaitingResponse);
}

#[test]
fn a_running_subscription_outlives_the_subscribe_deadline() {
    let mut s = SubscribeProtocol::new();
    let sub = with_deadline(
        s.create_initial_message("w", "feed", "(price x)"),
        t0() + secs(5),
    );
    s.process_message_at(&sub, t0());
    s.process_message_at(&s.create_response(&sub, Agree, ""), t0() + secs(1));
    let later = s.create_response(&sub, Inform, "10");
    assert_eq!(
        s.process_message_at(&later, t0() + secs(86_400)),
        AwaitingResponse
    );

    let mut silent = SubscribeProtocol::new();
    silent.process_message_at(&sub, t0());
    assert_eq!(silent.check_timeout(t0() + secs(6)), TimedOut);
}

#[test]
fn contract_net_bidding_deadline_without_proposals_times_out() {
    let mut cnp = ContractNetProtocol::new();
    let cfp = with_deadline(FipaMessage::cfp("m", "c", "task"), t0() + secs(30));
    cnp.process_message_at(&cfp, t0());
    assert_eq!(cnp.check_timeout(t0() + secs(31)), TimedOut);
    let late = cnp.create_proposal(&cfp, "1");
    assert_eq!(cnp.process_message_at(&late, t0() + secs(32)), TimedOut);
    assert!(cnp.proposals().is_empty());
}

#[test]
fn contract_net_bidding_deadline_with_proposals_closes_bidding()
-> Result<(), Box<dyn std::error::Error>> {
    let mut cnp = ContractNetProtocol::new();
    let cfp = FipaMessage::cfp("m", "a", "task")
        .into_builder()
        .receivers(["a", "b"])
        .reply_by(t0() + secs(30))
        .build()?;
    cnp.process_message_at(&cfp, t0());
    let from_a = cnp.create_proposal_from(&cfp, "a", "10");
    assert_eq!(
        cnp.process_message_at(&from_a, t0() + secs(10)),
        Negotiating
    );
    assert!(cnp.is_bidding_open());
    let late_b = cnp.create_proposal_from(&cfp, "b", "5");
    assert_eq!(
        cnp.process_message_at(&late_b, t0() + secs(31)),
        Negotiating
    );
    assert!(!cnp.is_bidding_open());
    assert_eq!(cnp.proposals().len(), 1, "the late proposal is ignored");
    assert!(!cnp.select_proposal("b"));
    assert!(cnp.select_proposal("a"));

    // The acceptance's reply_by bounds the result.
    let accept = with_deadline(cnp.create_acceptance(&from_a), t0() + secs(100));
    assert_eq!(
        cnp.process_message_at(&accept, t0() + secs(40)),
        AwaitingResponse
    );
    let done = cnp.create_response(&accept, Inform, "done");
    assert_eq!(cnp.process_message_at(&done, t0() + secs(101)), TimedOut);
    assert_eq!(cnp.result(), None);
    Ok(())
}

#[test]
fn contract_net_all_rejected_at_the_deadline_fails() -> Result<(), Box<dyn std::error::Error>> {
    let mut cnp = ContractNetProtocol::new();
    let cfp = FipaMessage::cfp("m", "a", "task")
        .into_builder()
        .receivers(["a", "b"])
        .reply_by(t0() + secs(30))
        .build()?;
    cnp.process_message_at(&cfp, t0());
    let from_a = cnp.create_proposal_from(&cfp, "a", "10");
    cnp.process_message_at(&from_a, t0() + secs(1));
    let reject = cnp.create_rejection(&from_a, "no");
    assert_eq!(cnp.process_message_at(&reject, t0() + secs(2)), Negotiating);
    assert_eq!(cnp.check_timeout(t0() + secs(31)), CompletedFailure);
    Ok(())
}

#[test]
fn cancel_ends_every_protocol_that_is_still_running() {
    let mut running: Vec<(Box<dyn ConversationProtocol>, FipaMessage)> = vec![
        (
            Box::new(RequestProtocol::new()),
            FipaMessage::request("a", "b", "x"),
        ),
        (
            Box::new(QueryProtocol::new()),
            FipaMessage::query_if("a", "b", "x"),
        ),
        (
            Box::new(ContractNetProtocol::new()),
            FipaMessage::cfp("a", "b", "x"),
        ),
    ];
    for (p, start) in &mut running {
        assert_eq!(p.process_message(start), AwaitingResponse);
        assert_eq!(p.cancel(), Cancelled, "{}", p.name());
        assert!(!p.is_complete() && !p.is_successful());
        assert_eq!(p.process_message(start), Cancelled, "ignored after cancel");
    }

    let mut done = RequestProtocol::new();
    let request = FipaMessage::request("a", "b", "x");
    done.process_message(&request);
    done.process_message(&done.create_response(&request, Inform, ""));
    assert_eq!(
        done.cancel(),
        CompletedSuccess,
        "a finished conversation stays finished"
    );
}
