//! ContractNetNegotiation: a manager with many contractors, late and stray
//! messages, every outcome, and the ready-made evaluators.

use chrono::{DateTime, Duration, TimeZone, Utc};
use tnsai_fipa::Performative::{
    AcceptProposal, Agree, Cfp, Failure, Inform, NotUnderstood, Propose, Refuse, RejectProposal,
};
use tnsai_fipa::{
    AgentName, ContractNetNegotiation, FipaMessage, NegotiationError, NegotiationOutcome,
    NegotiationPhase, Performative, Proposal, evaluator,
};

type TestResult = Result<(), Box<dyn std::error::Error>>;

fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2025, 6, 1, 9, 0, 0)
        .single()
        .unwrap_or_default()
}

fn at(seconds: i64) -> DateTime<Utc> {
    t0() + Duration::seconds(seconds)
}

/// The answer `sender` gives to `original`.
fn answer(
    original: &FipaMessage,
    performative: Performative,
    sender: &str,
    content: &str,
) -> Result<FipaMessage, tnsai_fipa::BuildError> {
    original
        .create_reply()
        .performative(performative)
        .sender(sender)
        .content(content)
        .build()
}

fn bid(cfp: &FipaMessage, price: &str) -> Result<FipaMessage, tnsai_fipa::BuildError> {
    cfp.create_reply()
        .performative(Propose)
        .sender(cfp.receiver().unwrap_or_default())
        .content("will do")
        .user_parameter("X-price", price)
        .build()
}

fn names(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("c{i:02}")).collect()
}

#[test]
fn twenty_contractors_with_refusals_late_answers_and_a_failing_winner() -> TestResult {
    let contractors = names(20);
    let deadline = at(60);
    let mut n =
        ContractNetNegotiation::new("manager", "Index the archive", &contractors, deadline)?;
    let cfps = n.call_for_proposals();
    assert_eq!(cfps.len(), 20);
    for (cfp, name) in cfps.iter().zip(&contractors) {
        assert_eq!(cfp.performative(), Cfp);
        assert_eq!(cfp.sender(), Some("manager"));
        assert_eq!(cfp.receivers(), [name.as_str()]);
        assert_eq!(cfp.conversation_id(), n.conversation_id());
        assert_eq!(cfp.reply_by(), Some(deadline));
        assert_eq!(cfp.protocol(), Some("fipa-contract-net"));
    }

    let refusers = [3, 7, 11];
    let confused = 15;
    let late = [17, 18, 19];
    let winner = 5;
    for (i, cfp) in cfps.iter().enumerate() {
        let name = contractors[i].as_str();
        let when = at(i as i64); // in time for everyone but the late ones
        if refusers.contains(&i) {
            n.receive(&answer(cfp, Refuse, name, "busy")?, when)?;
        } else if i == confused {
            n.receive(&answer(cfp, NotUnderstood, name, "?")?, when)?;
        } else if !late.contains(&i) {
            let price = if i == winner { 40 } else { 100 + i };
            n.receive(&bid(cfp, &price.to_string())?, when)?;
        }
    }
    assert_eq!(n.proposals().len(), 13);
    assert_eq!(n.refused().collect::<Vec<_>>(), ["c03", "c07", "c11"]);
    assert_eq!(n.not_understood().collect::<Vec<_>>(), ["c15"]);
    assert_eq!(n.pending().collect::<Vec<_>>(), ["c17", "c18", "c19"]);
    assert!(!n.all_answered());

    // Stray messages are turned down with typed errors, changing nothing.
    let again = bid(&cfps[1], "1")?;
    assert_eq!(
        n.receive(&again, at(30)),
        Err(NegotiationError::DuplicateAnswer {
            contractor: "c01".into()
        })
    );
    let intruder = answer(&cfps[0], Propose, "intruder", "cheap")?;
    assert_eq!(
        n.receive(&intruder, at(30)),
        Err(NegotiationError::UnknownContractor {
            name: "intruder".into()
        })
    );
    let elsewhere = FipaMessage::builder()
        .performative(Propose)
        .sender("c17")
        .build()?;
    assert!(matches!(
        n.receive(&elsewhere, at(30)),
        Err(NegotiationError::WrongConversation { .. })
    ));
    let anonymous = cfps[17].create_reply().performative(Propose).build()?;
    assert_eq!(
        n.receive(&anonymous, at(30)),
        Err(NegotiationError::MissingSender)
    );
    let misquoted = answer(&cfps[16], Propose, "c17", "1")?;
    assert!(matches!(
        n.receive(&misquoted, at(30)),
        Err(NegotiationError::UnrelatedReply { ref contractor, .. }) if contractor == "c17"
    ));
    let early_result = answer(&cfps[2], Inform, "c02", "done")?;
    assert!(matches!(
        n.receive(&early_result, at(30)),
        Err(NegotiationError::UnexpectedPerformative {
            phase: NegotiationPhase::Bidding,
            ..
        })
    ));

    // Bidding is still open before the deadline, with three silent.
    assert_eq!(
        n.award(&evaluator::lowest_price(), at(59)),
        Err(NegotiationError::BiddingOpen {
            pending: 3,
            deadline
        })
    );

    // The late ones answer after the deadline.
    for i in late {
        let name = contractors[i].clone();
        let result = n.receive(&bid(&cfps[i], "1")?, at(61 + i as i64));
        assert_eq!(
            result,
            Err(NegotiationError::LateMessage {
                contractor: name,
                deadline,
                received_at: at(61 + i as i64)
            })
        );
    }
    assert_eq!(n.proposals().len(), 13, "late bids are not recorded");

    let decisions = n.award(&evaluator::lowest_price(), at(61))?;
    assert_eq!(decisions.len(), 13);
    assert_eq!(decisions[0].performative(), AcceptProposal);
    assert_eq!(decisions[0].receiver(), Some("c05"));
    assert_eq!(decisions[0].sender(), Some("manager"));
    let winning_bid = n.proposals().iter().find(|p| p.contractor() == "c05");
    assert_eq!(
        decisions[0].in_reply_to(),
        winning_bid.map(|p| p.message().reply_key())
    );
    for reject in &decisions[1..] {
        assert_eq!(reject.performative(), RejectProposal);
        assert_ne!(reject.receiver(), Some("c05"));
        assert_eq!(reject.conversation_id(), n.conversation_id());
    }
    assert_eq!(n.phase(), NegotiationPhase::Awarded);
    assert_eq!(n.winner(), Some("c05"));
    assert_eq!(
        n.award(&evaluator::lowest_price(), at(62)),
        Err(NegotiationError::AlreadyAwarded)
    );

    // Results: only the winner's counts.
    let accept = &decisions[0];
    let impostor = answer(accept, Inform, "c06", "done")?;
    assert_eq!(
        n.receive(&impostor, at(100)),
        Err(NegotiationError::NotAwarded {
            contractor: "c06".into()
        })
    );
    let agree = answer(accept, Agree, "c05", "on it")?;
    assert!(matches!(
        n.receive(&agree, at(100)),
        Err(NegotiationError::UnexpectedPerformative {
            phase: NegotiationPhase::Awarded,
            ..
        })
    ));
    let failure = answer(accept, Failure, "c05", "archive unreadable")?;
    assert_eq!(n.receive(&failure, at(200))?, NegotiationPhase::Concluded);
    let outcome = NegotiationOutcome::FailedAfterAcceptance {
        winner: "c05".into(),
        reason: "archive unreadable".into(),
    };
    assert_eq!(n.outcome(), Some(&outcome));
    assert_eq!(
        n.receive(&answer(accept, Inform, "c05", "fixed it")?, at(300)),
        Err(NegotiationError::Concluded)
    );
    assert!(matches!(
        n.receive(&bid(&cfps[18], "1")?, at(300)),
        Err(NegotiationError::LateMessage { .. })
    ));

    let report = n.report().ok_or("concluded")?;
    assert_eq!(report.outcome, outcome);
    assert_eq!(report.proposals.len(), 13);
    // 20 CFPs, 13 proposals, 3 refusals, 1 not-understood, 13 decisions, 1 failure.
    assert_eq!(report.history.len(), 51);
    assert!(
        report
            .history
            .iter()
            .all(|m| m.conversation_id() == &report.conversation_id)
    );
    assert_eq!(report.history.last(), Some(&failure));
    Ok(())
}

#[test]
fn awarded_with_result_as_soon_as_everyone_answered() -> TestResult {
    let mut n = ContractNetNegotiation::new("m", "task", ["a", "b", "c"], at(60))?;
    let cfps = n.call_for_proposals();
    n.receive(&answer(&cfps[0], Propose, "a", "300")?, at(1))?;
    n.receive(&answer(&cfps[1], Propose, "b", "250")?, at(2))?;
    n.receive(&answer(&cfps[2], Refuse, "c", "no")?, at(3))?;
    assert!(n.all_answered() && n.is_bidding_closed(at(3)));
    let decisions = n.award(&evaluator::lowest_price(), at(3))?;
    assert_eq!(decisions.len(), 2);
    assert_eq!(decisions[0].receiver(), Some("b"));
    assert_eq!(decisions[1].receiver(), Some("a"));
    let done = answer(&decisions[0], Inform, "b", "delivered")?;
    n.receive(&done, at(1000))?;
    let outcome = n.outcome().ok_or("concluded")?;
    assert!(outcome.is_success());
    assert_eq!(outcome.winner(), Some("b"));
    assert_eq!(
        outcome,
        &NegotiationOutcome::Awarded {
            winner: "b".into(),
            result: "delivered".into()
        }
    );
    Ok(())
}

#[test]
fn outcomes_without_a_proposal() -> TestResult {
    // Everyone refused.
    let mut n = ContractNetNegotiation::new("m", "task", ["a", "b"], at(60))?;
    for cfp in n.call_for_proposals() {
        let name = cfp.receiver().unwrap_or_default().to_owned();
        n.receive(&answer(&cfp, Refuse, &name, "no")?, at(1))?;
    }
    assert_eq!(n.award(&evaluator::lowest_price(), at(1))?, vec![]);
    assert_eq!(n.outcome(), Some(&NegotiationOutcome::AllRefused));
    assert_eq!(
        n.award(&evaluator::lowest_price(), at(2)),
        Err(NegotiationError::Concluded)
    );

    // Everyone answered, one did not understand.
    let mut n = ContractNetNegotiation::new("m", "task", ["a", "b"], at(60))?;
    let cfps = n.call_for_proposals();
    n.receive(&answer(&cfps[0], Refuse, "a", "no")?, at(1))?;
    n.receive(&answer(&cfps[1], NotUnderstood, "b", "?")?, at(1))?;
    n.award(&evaluator::lowest_price(), at(1))?;
    assert_eq!(
        n.outcome(),
        Some(&NegotiationOutcome::NoProposals {
            refused: vec!["a".into()],
            not_understood: vec!["b".into()]
        })
    );

    // The deadline passed with someone silent.
    let mut n = ContractNetNegotiation::new("m", "task", ["a", "b"], at(60))?;
    let cfps = n.call_for_proposals();
    n.receive(&answer(&cfps[0], Refuse, "a", "no")?, at(1))?;
    n.award(&evaluator::lowest_price(), at(61))?;
    assert_eq!(
        n.outcome(),
        Some(&NegotiationOutcome::DeadlinePassed {
            silent: vec!["b".into()]
        })
    );
    Ok(())
}

#[test]
fn the_evaluator_may_decline_every_proposal() -> TestResult {
    let mut n = ContractNetNegotiation::new("m", "task", ["a", "b"], at(60))?;
    let cfps = n.call_for_proposals();
    n.receive(&answer(&cfps[0], Propose, "a", "900")?, at(1))?;
    n.receive(&answer(&cfps[1], Propose, "b", "800")?, at(1))?;
    let too_expensive = |proposals: &[Proposal]| -> Option<AgentName> {
        proposals
            .iter()
            .find(|p| p.price().is_some_and(|price| price < 500.0))
            .map(|p| p.contractor().to_owned())
    };
    let decisions = n.award(&too_expensive, at(2))?;
    assert_eq!(decisions.len(), 2);
    assert!(decisions.iter().all(|m| m.performative() == RejectProposal));
    assert_eq!(
        n.outcome(),
        Some(&NegotiationOutcome::NoAcceptableProposal { rejected: 2 })
    );
    assert_eq!(n.outcome().and_then(NegotiationOutcome::winner), None);
    Ok(())
}

#[test]
fn an_evaluator_naming_a_non_proposer_changes_nothing() -> TestResult {
    let mut n = ContractNetNegotiation::new("m", "task", ["a", "b"], at(60))?;
    let cfps = n.call_for_proposals();
    n.receive(&answer(&cfps[0], Propose, "a", "10")?, at(1))?;
    n.receive(&answer(&cfps[1], Refuse, "b", "no")?, at(1))?;
    let picks_b = |_: &[Proposal]| -> Option<AgentName> { Some("b".into()) };
    assert_eq!(
        n.award(&picks_b, at(2)),
        Err(NegotiationError::InvalidSelection { name: "b".into() })
    );
    assert_eq!(n.phase(), NegotiationPhase::Bidding);
    let history = n.history().len();
    let decisions = n.award(&evaluator::first_received(), at(2))?;
    assert_eq!(decisions.len(), 1);
    assert_eq!(n.history().len(), history + 1);
    assert_eq!(n.winner(), Some("a"));
    Ok(())
}

#[test]
fn result_deadline() -> TestResult {
    let mut n =
        ContractNetNegotiation::new("m", "task", ["a"], at(60))?.with_result_deadline(at(600));
    let cfps = n.call_for_proposals();
    n.receive(&answer(&cfps[0], Propose, "a", "10")?, at(1))?;
    let decisions = n.award(&evaluator::first_received(), at(1))?;
    assert_eq!(decisions[0].reply_by(), Some(at(600)));
    assert_eq!(n.check_timeout(at(600)), None);
    let outcome = NegotiationOutcome::ResultDeadlinePassed { winner: "a".into() };
    assert_eq!(n.check_timeout(at(601)), Some(&outcome));
    let too_late = answer(&decisions[0], Inform, "a", "done")?;
    assert_eq!(
        n.receive(&too_late, at(700)),
        Err(NegotiationError::LateMessage {
            contractor: "a".into(),
            deadline: at(600),
            received_at: at(700)
        })
    );

    // A late result concludes the negotiation even without check_timeout.
    let mut n =
        ContractNetNegotiation::new("m", "task", ["a"], at(60))?.with_result_deadline(at(600));
    let cfps = n.call_for_proposals();
    n.receive(&answer(&cfps[0], Propose, "a", "10")?, at(1))?;
    let decisions = n.award(&evaluator::first_received(), at(1))?;
    let too_late = answer(&decisions[0], Inform, "a", "done")?;
    assert!(n.receive(&too_late, at(700)).is_err());
    assert_eq!(n.outcome(), Some(&outcome));
    Ok(())
}

#[test]
fn construction_errors() {
    let none: [&str; 0] = [];
    assert_eq!(
        ContractNetNegotiation::new("m", "t", none, at(60)).err(),
        Some(NegotiationError::NoContractors)
    );
    assert_eq!(
        ContractNetNegotiation::new("m", "t", ["a", "b", "a"], at(60)).err(),
        Some(NegotiationError::DuplicateContractor { name: "a".into() })
    );
    let year_10000 = Utc.with_ymd_and_hms(10_000, 1, 1, 0, 0, 0).single();
    if let Some(far) = year_10000 {
        assert!(matches!(
            ContractNetNegotiation::new("m", "t", ["a"], far).err(),
            Some(NegotiationError::InvalidCfp(_))
        ));
    }
}

#[test]
fn ready_made_evaluators() -> TestResult {
    // Each proposal is taken by a negotiation of its own, which is how
    // `Proposal`s come to exist.
    let proposal = |who: &str,
                    content: &str,
                    price: Option<&str>|
     -> Result<Proposal, Box<dyn std::error::Error>> {
        let mut n = ContractNetNegotiation::new("m", "task", [who], at(60))?;
        let cfp = n.call_for_proposals().remove(0);
        let mut b = cfp
            .create_reply()
            .performative(Propose)
            .sender(who)
            .content(content);
        if let Some(price) = price {
            b = b.user_parameter("X-price", price);
        }
        n.receive(&b.build()?, at(1))?;
        n.proposals()
            .first()
            .cloned()
            .ok_or_else(|| "recorded".into())
    };
    let proposals = vec![
        proposal("prose", "2 days, 500 EUR", None)?,
        proposal("tagged", "2 days, 500 EUR", Some("480"))?,
        proposal("plain", " 480 ", None)?,
        proposal("nan", "NaN", None)?,
        proposal("dear", "999.5", None)?,
    ];
    assert_eq!(proposals[0].price(), None);
    assert_eq!(proposals[1].price(), Some(480.0));
    assert_eq!(proposals[2].price(), Some(480.0));
    assert_eq!(proposals[3].price(), None);

    use tnsai_fipa::ProposalEvaluator;
    // Ties go to the earliest.
    assert_eq!(
        evaluator::lowest_price().select(&proposals),
        Some("tagged".into())
    );
    assert_eq!(
        evaluator::highest_by(Proposal::price).select(&proposals),
        Some("dear".into())
    );
    assert_eq!(
        evaluator::first_received().select(&proposals),
        Some("prose".into())
    );
    assert_eq!(
        evaluator::lowest_by(|p: &Proposal| Some(p.content().len() as f64)).select(&proposals),
        Some("nan".into())
    );
    assert_eq!(evaluator::lowest_price().select(&proposals[..1]), None);
    assert_eq!(evaluator::first_received().select(&[]), None);
    let boxed: Box<dyn ProposalEvaluator> = Box::new(evaluator::lowest_price());
    assert_eq!(boxed.select(&proposals), Some("tagged".into()));
    Ok(())
}
