//! fipa-contract-net: the seed walk-through, refusal and failure paths,
//! several and broadcast bidders, and the protocol's error moves.

use tnsai_fipa::Performative::{
    AcceptProposal, Cancel, Cfp, Failure, Inform, NotUnderstood, Propose, Refuse, RejectProposal,
    Subscribe,
};
use tnsai_fipa::ProtocolState::{
    AwaitingInitiation, AwaitingResponse, Cancelled, CompletedFailure, CompletedSuccess, Error,
    Initial, Negotiating,
};
use tnsai_fipa::{Category, ContractNetProtocol, FipaMessage, Performative, ProtocolState};

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// The seed example, verbatim apart from the crate path and the assertions
/// added after it.
#[test]
#[rustfmt::skip]
fn seed_walk_through() -> Result<(), Box<dyn std::error::Error>> {
    let m = FipaMessage::builder().performative(Performative::Request).sender("agent-1")
        .receiver("agent-2").content("Please perform analysis").protocol("fipa-request")
        .ontology("market-analysis").reply_by(chrono::Utc::now() + chrono::Duration::minutes(5))
        .build()?;                                  // Err without a performative
    let r = m.create_reply().performative(Performative::Agree).sender("agent-2").content("ok").build()?;
    FipaMessage::inform("s", "r", "Task complete"); FipaMessage::cfp("manager", "worker", "Translate");
    FipaMessage::query_if("a", "b", "Is the service healthy?"); FipaMessage::request("a", "b", "Do it");
    let mut cnp = ContractNetProtocol::new();
    let cfp = cnp.create_initial_message("manager", "translator", "Translate 500 pages");
    cnp.process_message(&cfp);
    let bid = cnp.create_proposal(&cfp, "2 days, 500 EUR");      // sent by "translator"
    cnp.process_message(&bid);
    assert!(cnp.select_proposal("translator"));
    let accept = cnp.create_acceptance(&bid); cnp.process_message(&accept);
    let done = cnp.create_response(&accept, Performative::Inform, "Translation delivered");
    cnp.process_message(&done);
    assert!(cnp.is_successful()); assert_eq!(cnp.result(), Some("Translation delivered"));
    cnp.state();                                                  // ProtocolState

    assert_eq!(r.in_reply_to(), m.reply_with());
    let state: ProtocolState = cnp.state();
    assert_eq!(state, CompletedSuccess);
    assert_eq!(Performative::Cfp.category(), Category::Directive);
    Ok(())
}

#[test]
fn walk_through_states_and_messages() {
    let mut cnp = ContractNetProtocol::new();
    assert_eq!(cnp.state(), Initial);
    let cfp = cnp.create_initial_message("manager", "translator", "Translate 500 pages");
    assert_eq!(cnp.state(), AwaitingInitiation);
    assert_eq!(cfp.protocol(), Some("fipa-contract-net"));
    assert_eq!(cnp.process_message(&cfp), AwaitingResponse);
    assert_eq!(cnp.participants(), ["translator"]);

    let bid = cnp.create_proposal(&cfp, "2 days, 500 EUR");
    assert_eq!(bid.performative(), Propose);
    assert_eq!(bid.sender(), Some("translator"));
    assert_eq!(bid.receiver(), Some("manager"));
    assert_eq!(bid.conversation_id(), cfp.conversation_id());
    assert!(cnp.is_valid_response(&cfp, &bid));
    assert!(!cnp.select_proposal("translator"), "nothing to select yet");
    assert_eq!(cnp.process_message(&bid), Negotiating);
    assert!(cnp.select_proposal("translator"));
    assert_eq!(cnp.selected(), Some("translator"));

    let accept = cnp.create_acceptance(&bid);
    assert_eq!(accept.performative(), AcceptProposal);
    assert_eq!(accept.sender(), Some("manager"));
    assert_eq!(accept.receiver(), Some("translator"));
    assert!(cnp.is_valid_response(&bid, &accept));
    assert_eq!(cnp.process_message(&accept), AwaitingResponse);
    assert_eq!(cnp.contractor(), Some("translator"));

    let done = cnp.create_response(&accept, Inform, "Translation delivered");
    assert_eq!(done.sender(), Some("translator"));
    assert!(cnp.is_valid_response(&accept, &done));
    assert!(cnp.is_valid_message(&done));
    assert_eq!(cnp.process_message(&done), CompletedSuccess);
    assert_eq!(cnp.history(), [cfp, bid, accept, done]);
}

#[test]
fn refusal_and_not_understood_end_in_failure() {
    for answer in [Refuse, NotUnderstood] {
        let mut cnp = ContractNetProtocol::new();
        let cfp = cnp.create_initial_message("m", "c", "task");
        cnp.process_message(&cfp);
        let no = cnp.create_response(&cfp, answer, "busy");
        assert_eq!(cnp.process_message(&no), CompletedFailure, "{answer}");
        assert_eq!(cnp.declined(), ["c"]);
        assert!(cnp.is_complete() && !cnp.is_successful());
        assert_eq!(cnp.result(), None);
    }
}

#[test]
fn failure_after_acceptance() {
    let mut cnp = ContractNetProtocol::new();
    let cfp = cnp.create_initial_message("m", "c", "task");
    cnp.process_message(&cfp);
    let bid = cnp.create_proposal(&cfp, "100");
    cnp.process_message(&bid);
    let accept = cnp.create_acceptance(&bid);
    cnp.process_message(&accept);
    let failed = cnp.create_response(&accept, Failure, "disk full");
    assert_eq!(cnp.process_message(&failed), CompletedFailure);
    assert_eq!(cnp.failure_reason(), Some("disk full"));
    assert_eq!(cnp.result(), None);
}

#[test]
fn several_bidders_one_cfp() -> TestResult {
    let mut cnp = ContractNetProtocol::new();
    let cfp = FipaMessage::cfp("m", "a", "task")
        .into_builder()
        .receivers(["a", "b", "c"])
        .build()?;
    cnp.process_message(&cfp);
    assert_eq!(cnp.participants(), ["a", "b", "c"]);
    let from_a = cnp.create_proposal(&cfp, "120");
    let from_b = cnp.create_proposal_from(&cfp, "b", "90");
    let from_c = cnp.create_refusal_from(&cfp, "c", "no capacity");
    assert_eq!(from_b.sender(), Some("b"));
    cnp.process_message(&from_a);
    cnp.process_message(&from_b);
    assert_eq!(cnp.process_message(&from_c), Negotiating);
    assert_eq!(cnp.proposals().len(), 2);
    assert!(!cnp.select_proposal("c"), "c refused");
    assert!(cnp.select_proposal("b"));

    // A second answer and one from a stranger are ignored.
    let again = cnp.create_proposal_from(&cfp, "a", "80");
    let stranger = cnp.create_proposal_from(&cfp, "zed", "1");
    assert!(!cnp.is_valid_message(&again) && !cnp.is_valid_message(&stranger));
    cnp.process_message(&again);
    cnp.process_message(&stranger);
    assert_eq!(cnp.proposals().len(), 2);
    assert_eq!(
        cnp.proposal_from("a").and_then(FipaMessage::content),
        Some("120")
    );

    let reject = cnp.create_rejection(&from_a, "too expensive");
    assert_eq!(reject.performative(), RejectProposal);
    assert_eq!(cnp.process_message(&reject), Negotiating);
    assert!(!cnp.select_proposal("a"), "a was rejected");
    let accept = cnp.create_acceptance(&from_b);
    assert_eq!(cnp.process_message(&accept), AwaitingResponse);
    // A late inform from someone else does not settle the contract.
    let stray = cnp.create_response(&cfp, Inform, "I did it anyway");
    assert_eq!(cnp.process_message(&stray), AwaitingResponse);
    let done = cnp.create_response(&accept, Inform, "done by b");
    assert_eq!(cnp.process_message(&done), CompletedSuccess);
    assert_eq!(cnp.result(), Some("done by b"));
    Ok(())
}

#[test]
fn broadcast_cfp_needs_named_proposers() -> TestResult {
    let mut cnp = ContractNetProtocol::new();
    let cfp = FipaMessage::builder()
        .performative(Cfp)
        .sender("m")
        .content("anyone?")
        .protocol("fipa-contract-net")
        .build()?;
    cnp.process_message(&cfp);
    assert!(cnp.participants().is_empty());

    let anonymous = cnp.create_proposal(&cfp, "50");
    assert_eq!(anonymous.sender(), None);
    assert!(!cnp.is_valid_message(&anonymous));
    assert_eq!(cnp.process_message(&anonymous), AwaitingResponse);

    let named = cnp.create_proposal_from(&cfp, "translator-2", "40");
    assert_eq!(cnp.process_message(&named), Negotiating);
    assert!(cnp.select_proposal("translator-2"));
    let accept = cnp.create_acceptance(&named);
    assert_eq!(accept.sender(), Some("m"));
    assert_eq!(accept.receiver(), Some("translator-2"));
    cnp.process_message(&accept);
    let done = cnp.create_response(&accept, Inform, "ok");
    assert_eq!(cnp.process_message(&done), CompletedSuccess);
    Ok(())
}

#[test]
fn every_proposal_rejected_ends_in_failure() -> TestResult {
    let mut cnp = ContractNetProtocol::new();
    let cfp = FipaMessage::cfp("m", "a", "task")
        .into_builder()
        .receivers(["a", "b"])
        .build()?;
    cnp.process_message(&cfp);
    let from_a = cnp.create_proposal_from(&cfp, "a", "1000");
    let from_b = cnp.create_refusal_from(&cfp, "b", "no");
    cnp.process_message(&from_a);
    cnp.process_message(&from_b);
    let reject = cnp.create_rejection(&from_a, "too much");
    assert_eq!(cnp.process_message(&reject), CompletedFailure);
    Ok(())
}

#[test]
fn protocol_violations_move_to_error() {
    let start = |steps: usize| {
        let mut cnp = ContractNetProtocol::new();
        let cfp = cnp.create_initial_message("m", "c", "task");
        let bid = cnp.create_proposal(&cfp, "1");
        let accept = cnp.create_acceptance(&bid);
        for m in [&cfp, &bid, &accept].into_iter().take(steps) {
            cnp.process_message(m);
        }
        (cnp, cfp, bid, accept)
    };

    let (mut cnp, cfp, ..) = start(0);
    assert_eq!(cnp.process_message(&cnp.create_proposal(&cfp, "1")), Error);

    let (mut cnp, cfp, ..) = start(1);
    let accept_stranger = cnp.create_acceptance(&cnp.create_proposal_from(&cfp, "x", "1"));
    assert!(!cnp.is_valid_message(&accept_stranger));
    assert_eq!(cnp.process_message(&accept_stranger), Error);

    let (mut cnp, cfp, ..) = start(2);
    let subscribe = cnp.create_response(&cfp, Subscribe, "?");
    assert_eq!(cnp.process_message(&subscribe), Error);
    assert_eq!(cnp.history().len(), 3, "the offending message is recorded");

    let (mut cnp, _, bid, _) = start(3);
    let reject_winner = cnp.create_rejection(&bid, "changed my mind");
    assert_eq!(cnp.process_message(&reject_winner), Error);

    let (mut cnp, _, _, accept) = start(3);
    let agree = cnp.create_response(&accept, Performative::Agree, "");
    assert_eq!(cnp.process_message(&agree), Error);
    assert!(cnp.is_complete() && !cnp.is_successful());
    // Error is terminal: the result no longer counts.
    let done = cnp.create_response(&accept, Inform, "late");
    assert_eq!(cnp.process_message(&done), Error);
}

#[test]
fn cancel_message_and_call() {
    let mut cnp = ContractNetProtocol::new();
    let cfp = cnp.create_initial_message("m", "c", "task");
    cnp.process_message(&cfp);
    let cancel = cnp
        .create_response(&cfp, Cancel, "")
        .into_builder()
        .sender("m")
        .build();
    let Ok(cancel) = cancel else {
        panic!("cancel message");
    };
    assert_eq!(cnp.process_message(&cancel), Cancelled);
    assert!(!cnp.is_complete() && cnp.state().is_terminal());

    let mut cnp = ContractNetProtocol::new();
    assert_eq!(cnp.cancel(), Cancelled);
    let cfp = FipaMessage::cfp("m", "c", "task");
    assert_eq!(
        cnp.process_message(&cfp),
        Cancelled,
        "ignored once cancelled"
    );
}

#[test]
fn valid_responses_table() {
    let cnp = ContractNetProtocol::new();
    let cfp = FipaMessage::cfp("m", "c", "task");
    let answers: [(Performative, &[Performative]); 4] = [
        (Cfp, &[Propose, Refuse, NotUnderstood]),
        (Propose, &[AcceptProposal, RejectProposal]),
        (AcceptProposal, &[Inform, Failure]),
        (Cancel, &[Inform, Failure]),
    ];
    for (question, allowed) in answers {
        let original = cnp.create_response(&cfp, question, "");
        for &p in Performative::all() {
            let response = cnp.create_response(&original, p, "");
            assert_eq!(
                cnp.is_valid_response(&original, &response),
                allowed.contains(&p),
                "{p} answering {question}"
            );
        }
    }
}
