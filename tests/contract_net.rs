//! FIPA conversations between agents through the transport: contract-net negotiation and
//! ACL messages answered by actions.

mod common;

use std::time::{Duration, Instant};

use serde_json::json;
use tnsai_coordination::acl;
use tnsai_coordination::fipa::{NegotiationOutcome, Performative, evaluator};
use tnsai_coordination::{Platform, ProtocolError};
use tnsai_core::prelude::*;

#[direct_message]
struct Manager;

/// How a contractor behaves.
#[derive(Clone, Copy)]
enum Behaviour {
    Bid { price: f64 },
    Refuse,
    SlowBid { price: f64, delay_ms: u64 },
    BidThenFail { price: f64 },
}

#[agent]
struct Contractor {
    behaviour: Behaviour,
}

#[actions]
impl Contractor {
    /// Answers a call for proposals.
    #[action(name = "cfp")]
    async fn bid(&self, params: Params) -> ActionResult {
        assert!(params.require_str("content")?.starts_with("Translate"));
        assert!(params.get_str("reply_by").is_some());
        match self.behaviour {
            Behaviour::Bid { price } | Behaviour::BidThenFail { price } => {
                Ok(acl::propose(format!("{price} EUR"), Some(price)))
            }
            Behaviour::Refuse => Ok(acl::refuse("fully booked")),
            Behaviour::SlowBid { price, delay_ms } => {
                tokio::time::sleep(Duration::from_millis(delay_ms)).await;
                Ok(acl::propose(format!("{price} EUR"), Some(price)))
            }
        }
    }

    /// Does the work.
    #[action(name = "accept-proposal")]
    async fn work(&self, _params: Params) -> ActionResult {
        match self.behaviour {
            Behaviour::BidThenFail { .. } => Err(ActionError::new("the source files are corrupt")),
            _ => Ok(json!("Translation delivered")),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn twenty_contractors_refusals_slow_bidders_and_a_failure_after_acceptance() {
    let platform = Platform::new();
    let manager = common::manager(&platform, "manager", Manager).await;
    let mut names = Vec::new();
    for i in 0..20 {
        let behaviour = match i {
            0..=4 => Behaviour::Refuse,
            5..=7 => Behaviour::SlowBid {
                price: 10.0,
                delay_ms: 3_000,
            },
            8 => Behaviour::BidThenFail { price: 50.0 },
            _ => Behaviour::Bid {
                price: 100.0 + i as f64,
            },
        };
        let name = format!("translator-{i:02}");
        platform
            .spawn(name.as_str(), Contractor { behaviour })
            .await
            .unwrap();
        names.push(name);
    }
    let started = Instant::now();
    let report = manager
        .negotiate(
            "Translate 500 pages",
            names.clone(),
            Duration::from_millis(500),
            evaluator::lowest_price(),
        )
        .await
        .unwrap();
    // The slow bidders (10 EUR) would win but answer after the deadline; the cheapest
    // timely bid (50 EUR) wins and then fails.
    assert_eq!(
        report.outcome,
        NegotiationOutcome::FailedAfterAcceptance {
            winner: "translator-08".into(),
            reason: "the source files are corrupt".into(),
        }
    );
    assert!(
        started.elapsed() < Duration::from_millis(2_500),
        "{:?}",
        started.elapsed()
    );
    let proposers: Vec<&str> = report.proposals.iter().map(|p| p.contractor()).collect();
    assert_eq!(proposers.len(), 12, "{proposers:?}");
    assert!(
        proposers
            .iter()
            .all(|p| !["translator-05", "translator-06", "translator-07"].contains(p))
    );
    let count = |performative| {
        report
            .history
            .iter()
            .filter(|m| m.performative() == performative)
            .count()
    };
    assert_eq!(count(Performative::Cfp), 20);
    assert_eq!(count(Performative::Refuse), 5);
    assert_eq!(count(Performative::Propose), 12);
    assert_eq!(count(Performative::AcceptProposal), 1);
    assert_eq!(count(Performative::RejectProposal), 11);
    assert_eq!(count(Performative::Failure), 1);
    assert!(
        report
            .history
            .iter()
            .all(|m| m.conversation_id() == &report.conversation_id)
    );
}

#[tokio::test]
async fn the_cheapest_bid_wins_and_delivers() {
    let platform = Platform::new();
    let manager = common::manager(&platform, "manager", Manager).await;
    for (name, price) in [("anna", 500.0), ("bob", 450.0), ("carl", 700.0)] {
        platform
            .spawn(
                name,
                Contractor {
                    behaviour: Behaviour::Bid { price },
                },
            )
            .await
            .unwrap();
    }
    let report = manager
        .negotiate(
            "Translate 500 pages",
            ["anna", "bob", "carl"],
            Duration::from_secs(2),
            evaluator::lowest_price(),
        )
        .await
        .unwrap();
    assert_eq!(
        report.outcome,
        NegotiationOutcome::Awarded {
            winner: "bob".into(),
            result: "Translation delivered".into()
        }
    );
}

#[tokio::test]
async fn all_refusals_unknown_contractors_and_bad_arguments() {
    let platform = Platform::new();
    let manager = common::manager(&platform, "manager", Manager).await;
    platform
        .spawn(
            "busy",
            Contractor {
                behaviour: Behaviour::Refuse,
            },
        )
        .await
        .unwrap();
    let report = manager
        .negotiate(
            "Translate",
            ["busy"],
            Duration::from_secs(1),
            evaluator::lowest_price(),
        )
        .await
        .unwrap();
    assert_eq!(report.outcome, NegotiationOutcome::AllRefused);

    // A contractor that does not exist never answers.
    let report = manager
        .negotiate(
            "Translate",
            ["ghost"],
            Duration::from_millis(200),
            evaluator::lowest_price(),
        )
        .await
        .unwrap();
    assert_eq!(
        report.outcome,
        NegotiationOutcome::DeadlinePassed {
            silent: vec!["ghost".into()]
        }
    );

    let error = manager
        .negotiate(
            "Translate",
            Vec::<String>::new(),
            Duration::from_secs(1),
            evaluator::lowest_price(),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(error, ProtocolError::InvalidArgument(_)),
        "{error:?}"
    );
    let error = manager
        .negotiate(
            "Translate",
            ["busy", "busy"],
            Duration::from_secs(1),
            evaluator::lowest_price(),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(error, ProtocolError::InvalidArgument(_)),
        "{error:?}"
    );
}

#[tokio::test]
async fn an_agent_without_the_actions_does_not_understand() {
    #[agent]
    struct Bystander;

    let platform = Platform::new();
    let manager = common::manager(&platform, "manager", Manager).await;
    platform.spawn("bystander", Bystander).await.unwrap();
    let report = manager
        .negotiate(
            "Translate",
            ["bystander"],
            Duration::from_secs(1),
            evaluator::lowest_price(),
        )
        .await
        .unwrap();
    assert!(
        matches!(report.outcome, NegotiationOutcome::NoProposals { ref not_understood, .. } if not_understood == &["bystander".to_owned()])
    );
    let answer = report
        .history
        .iter()
        .find(|m| m.performative() == Performative::NotUnderstood)
        .unwrap();
    assert!(answer.content().unwrap().contains("no `cfp` action"));
}

#[tokio::test]
async fn negotiate_needs_direct_message() {
    #[broadcast]
    struct Announcer;

    let platform = Platform::new();
    let pm = common::manager(&platform, "announcer", Announcer).await;
    let error = pm
        .negotiate(
            "Translate",
            ["x"],
            Duration::from_secs(1),
            evaluator::lowest_price(),
        )
        .await
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "Direct message not configured for this agent"
    );
}
