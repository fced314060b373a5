//! A release debate: a release manager asks a developer, a tester and an operator whether
//! to deploy. Each decides from its own state and from the previous round's tally; the
//! second round reaches a supermajority. A second debate, run under unanimity, deadlocks.
//!
//! Run with `cargo run --example debate`.

use std::sync::atomic::{AtomicU32, Ordering};

use tnsai_coordination::debate::{DebateEvent, RoundTally};
use tnsai_coordination::{DebateEvents, DebateSession, DebateStatus, Platform, ProtocolManager};
use tnsai_core::prelude::*;

/// Hosts release debates: two thirds must agree, within three rounds.
#[debate(strategy = Supermajority, max_rounds = 3)]
struct ReleaseManager;

/// Hosts changes to the on-call policy: everyone must agree, within two rounds.
#[debate(strategy = Unanimous, max_rounds = 2)]
struct PolicyOwner;

/// What a participant knows, and how it turns that into a stance.
#[debate]
struct Engineer {
    role: &'static str,
    /// Percent of tests passing, as this engineer last saw it.
    tests_passing: u32,
    /// Whether this engineer has seen the load test finish.
    load_test_done: AtomicU32,
    /// How much this engineer follows the room after a split round (0-10).
    openness: u32,
}

impl Engineer {
    fn new(role: &'static str, tests_passing: u32, openness: u32) -> Self {
        Self {
            role,
            tests_passing,
            load_test_done: AtomicU32::new(0),
            openness,
        }
    }

    /// Decides a stance for the release from local facts and the last round.
    fn release_position(&self, last: Option<&RoundTally>) -> (String, i32, String) {
        match self.role {
            "developer" => (
                "deploy".into(),
                8,
                format!("{}% of tests pass", self.tests_passing),
            ),
            "tester" if self.tests_passing < 99 => {
                // The tester holds out, but follows a clear lead after a split round.
                let lead = last.and_then(|t| t.leader.clone());
                match lead {
                    Some(lead) if self.openness >= 5 => (lead, 4, "the room is convinced".into()),
                    _ => (
                        "wait".into(),
                        7,
                        format!("only {}% of tests pass", self.tests_passing),
                    ),
                }
            }
            _ => {
                // The operator deploys once the load test has run (it finishes after round 1).
                if self.load_test_done.fetch_add(1, Ordering::SeqCst) >= 1 {
                    (
                        "deploy".into(),
                        9,
                        "the load test held 3x peak traffic".into(),
                    )
                } else {
                    (
                        "rollback plan first".into(),
                        6,
                        "the load test is still running".into(),
                    )
                }
            }
        }
    }

    /// The on-call policy: everyone has a firm view.
    fn policy_position(&self) -> (String, i32, String) {
        match self.role {
            "operator" => ("weekly rotation".into(), 9, "fewer hand-overs".into()),
            _ => ("daily rotation".into(), 6, "shorter stretches".into()),
        }
    }
}

fn print_tally(event: &DebateEvent) {
    match event {
        DebateEvent::RoundClosed { summary, .. } => {
            let tally = &summary.tally;
            let stances: Vec<String> = tally
                .stances
                .iter()
                .map(|s| {
                    format!(
                        "{} ({} positions, support {})",
                        s.stance, s.positions, s.support
                    )
                })
                .collect();
            println!(
                "  round {} closed: {} | leader: {} | share {:.2} | consensus: {}",
                summary.round,
                stances.join(", "),
                tally.leader.as_deref().unwrap_or("none (tie)"),
                tally.share,
                tally.consensus
            );
        }
        DebateEvent::Consensus {
            decision, round, ..
        } => println!("  consensus in round {round}: {decision}"),
        DebateEvent::Deadlock {
            decision, round, ..
        } => println!("  deadlock after round {round}: {decision}"),
        DebateEvent::Cancelled { .. } => println!("  cancelled"),
        other => println!("  {other:?}"),
    }
}

/// Prints what the round just produced: its tally, and the outcome when it was the last.
async fn print_round_events(events: &mut DebateEvents, finished: bool) {
    for _ in 0..if finished { 2 } else { 1 } {
        if let Some(event) = events.recv().await {
            print_tally(&event);
        }
    }
}

async fn run_release_round(
    session: &DebateSession,
    engineers: &[(ProtocolManager, &Engineer)],
    last: Option<&RoundTally>,
) -> Result<DebateSession, Box<dyn std::error::Error>> {
    let mut snapshot = session.clone();
    for (pm, engineer) in engineers {
        let (stance, confidence, argument) = engineer.release_position(last);
        println!(
            "  {:<9} says {stance:?} (confidence {confidence}): {argument}",
            engineer.role
        );
        snapshot = pm
            .submit_debate_position(session.id(), stance, confidence, argument)
            .await?;
    }
    Ok(snapshot)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let platform = Platform::new();
    let release = platform
        .spawn("release-manager", ReleaseManager)
        .await?
        .protocol_manager()
        .expect("annotated");
    let policy = platform
        .spawn("policy-owner", PolicyOwner)
        .await?
        .protocol_manager()
        .expect("annotated");
    let dev = platform
        .spawn("dev-agent", Engineer::new("developer", 97, 2))
        .await?;
    let qa = platform
        .spawn("qa-agent", Engineer::new("tester", 97, 6))
        .await?;
    let ops = platform
        .spawn("ops-agent", Engineer::new("operator", 97, 3))
        .await?;
    let engineers = [
        (dev.protocol_manager().expect("annotated"), dev.agent()),
        (qa.protocol_manager().expect("annotated"), qa.agent()),
        (ops.protocol_manager().expect("annotated"), ops.agent()),
    ];

    println!("Debate 1: Deploy release 4.2 today? (Supermajority, at most 3 rounds)");
    let session = release
        .start_debate(
            "Deploy release 4.2 today?",
            ["dev-agent", "qa-agent", "ops-agent"],
        )
        .await?;
    let mut events = release.debate_events(session.id())?;
    let mut snapshot = session.clone();
    let mut last_tally: Option<RoundTally> = None;
    while snapshot.status() == DebateStatus::InProgress {
        println!(" round {}:", snapshot.round());
        snapshot = run_release_round(&session, &engineers, last_tally.as_ref()).await?;
        last_tally = snapshot.rounds().last().map(|r| r.tally.clone());
        print_round_events(&mut events, snapshot.status() != DebateStatus::InProgress).await;
    }
    // Anyone taking part reads the same, fresh session from the initiator.
    let seen_by_qa = engineers[1].0.debate(session.id()).await?;
    println!(
        "  qa-agent reads: status {:?}, decision {:?}, {} positions over {} rounds\n",
        seen_by_qa.status(),
        seen_by_qa.decision(),
        seen_by_qa.positions().len(),
        seen_by_qa.round()
    );

    println!("Debate 2: Change the on-call rotation? (Unanimous, at most 2 rounds)");
    let session = policy
        .start_debate(
            "Change the on-call rotation?",
            ["dev-agent", "qa-agent", "ops-agent"],
        )
        .await?;
    let mut events = policy.debate_events(session.id())?;
    let mut snapshot = session.clone();
    while snapshot.status() == DebateStatus::InProgress {
        println!(" round {}:", snapshot.round());
        for (pm, engineer) in &engineers {
            let (stance, confidence, argument) = engineer.policy_position();
            println!(
                "  {:<9} says {stance:?} (confidence {confidence}): {argument}",
                engineer.role
            );
            snapshot = pm
                .submit_debate_position(session.id(), stance, confidence, argument)
                .await?;
        }
        print_round_events(&mut events, snapshot.status() != DebateStatus::InProgress).await;
    }
    println!(
        "  final: status {:?}, decision {:?}",
        snapshot.status(),
        snapshot.decision()
    );

    platform.shutdown().await;
    Ok(())
}
