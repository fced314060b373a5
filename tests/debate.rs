//! Debates through the public API: separate agents on one platform, each taking part
//! through its own manager.

mod common;

use std::time::{Duration, Instant};

use tnsai_coordination::debate::NO_CLEAR_POSITION;
use tnsai_coordination::{DebateEvent, DebateStatus, Platform, ProtocolError, ProtocolManager};
use tnsai_core::prelude::*;

#[debate]
struct Member;

#[debate(strategy = Majority, max_rounds = 3)]
struct MajorityChair;

#[debate(strategy = Supermajority, max_rounds = 2)]
struct SuperChair;

#[debate(strategy = WeightedConfidence, max_rounds = 1)]
struct WeightedChair;

#[debate(strategy = Unanimous, max_rounds = 2)]
struct UnanimousChair;

#[debate(strategy = Majority, consensus_threshold = 0.75, max_rounds = 1)]
struct StrictChair;

#[debate(max_rounds = 3, round_timeout_ms = 150)]
struct HastyChair;

#[debate(can_initiate = false)]
struct Backbencher;

#[debate(can_vote = false)]
struct Observer;

#[direct_message]
struct Outsider;

struct Room {
    platform: Platform,
    chair: ProtocolManager,
    members: Vec<ProtocolManager>,
}

async fn room<C: Agent>(chair: C, members: usize) -> Room {
    let platform = Platform::new();
    let chair = common::manager(&platform, "chair", chair).await;
    let mut list = Vec::new();
    for i in 0..members {
        let pm = common::manager(&platform, format!("m{i}"), Member).await;
        list.push(pm);
    }
    Room {
        platform,
        chair,
        members: list,
    }
}

impl Room {
    fn ids(&self) -> Vec<String> {
        (0..self.members.len()).map(|i| format!("m{i}")).collect()
    }

    /// Every member takes the stance at the same index.
    async fn play(&self, id: &str, stances: &[(&str, i32)]) -> tnsai_coordination::DebateSession {
        let mut last = None;
        for (pm, (stance, confidence)) in self.members.iter().zip(stances) {
            last = Some(
                pm.submit_debate_position(id, *stance, *confidence, "because")
                    .await
                    .unwrap(),
            );
        }
        last.unwrap()
    }
}

#[tokio::test]
async fn majority_reaches_consensus_in_the_first_round() {
    let room = room(MajorityChair, 3).await;
    let s = room
        .chair
        .start_debate("Deploy?", room.ids())
        .await
        .unwrap();
    assert_eq!(s.status(), DebateStatus::InProgress);
    assert_eq!(s.round(), 1);
    assert_eq!(s.initiator(), "chair");
    assert_eq!(s.participants().len(), 3);
    let s = room
        .play(s.id(), &[("YES", 8), ("yes", 2), ("NO", 9)])
        .await;
    assert_eq!(s.status(), DebateStatus::Consensus);
    assert_eq!(s.decision(), Some("YES"));
    assert_eq!(s.round(), 1);
    assert_eq!(s.positions().len(), 3);
}

#[tokio::test]
async fn a_round_without_consensus_starts_the_next_one() {
    let room = room(SuperChair, 5).await;
    let s = room.chair.start_debate("Ship?", room.ids()).await.unwrap();
    // 3 of 5 = 0.6 < 0.66: no supermajority.
    let after = room
        .play(
            s.id(),
            &[
                ("ship", 1),
                ("ship", 1),
                ("ship", 1),
                ("hold", 1),
                ("hold", 1),
            ],
        )
        .await;
    assert_eq!(after.status(), DebateStatus::InProgress);
    assert_eq!(after.round(), 2);
    assert_eq!(after.rounds().len(), 1);
    assert!(!after.rounds()[0].tally.consensus);
    // 4 of 5 = 0.8.
    let done = room
        .play(
            s.id(),
            &[
                ("ship", 1),
                ("Ship", 1),
                ("SHIP ", 1),
                ("ship", 1),
                ("hold", 1),
            ],
        )
        .await;
    assert_eq!(done.status(), DebateStatus::Consensus);
    assert_eq!(done.decision(), Some("ship"));
    assert_eq!(done.round(), 2);
}

#[tokio::test]
async fn weighted_confidence_counts_confidence_not_heads() {
    let room = room(WeightedChair, 3).await;
    let s = room
        .chair
        .start_debate("Weighted", room.ids())
        .await
        .unwrap();
    let done = room.play(s.id(), &[("A", 10), ("B", 2), ("B", 2)]).await;
    assert_eq!(done.status(), DebateStatus::Consensus);
    assert_eq!(done.decision(), Some("A"));

    let s = room
        .chair
        .start_debate("Weighted again", room.ids())
        .await
        .unwrap();
    // One round only: 9 of 15 = 0.6 < 0.66 is a deadlock led by A.
    let done = room.play(s.id(), &[("A", 9), ("B", 3), ("B", 3)]).await;
    assert_eq!(done.status(), DebateStatus::Deadlock);
    assert_eq!(done.decision(), Some("A"));
}

#[tokio::test]
async fn unanimous_needs_everyone() {
    let room = room(UnanimousChair, 3).await;
    let s = room
        .chair
        .start_debate("All in?", room.ids())
        .await
        .unwrap();
    let after = room
        .play(s.id(), &[("in", 10), ("in", 10), ("out", 1)])
        .await;
    assert_eq!(after.status(), DebateStatus::InProgress);
    let done = room.play(s.id(), &[("in", 1), ("IN", 1), (" in", 1)]).await;
    assert_eq!(done.status(), DebateStatus::Consensus);
    assert_eq!(done.decision(), Some("in"));
}

#[tokio::test]
async fn an_explicit_threshold_replaces_the_strategy_default() {
    let room = room(StrictChair, 3).await;
    let s = room.chair.start_debate("Strict", room.ids()).await.unwrap();
    // 2 of 3 is a majority, but below 0.75.
    let done = room.play(s.id(), &[("x", 5), ("x", 5), ("y", 5)]).await;
    assert_eq!(done.status(), DebateStatus::Deadlock);
    assert_eq!(done.decision(), Some("x"));
}

#[tokio::test]
async fn deadlock_with_a_tied_last_round_has_no_clear_position() {
    let room = room(SuperChair, 2).await;
    let s = room.chair.start_debate("Tie", room.ids()).await.unwrap();
    room.play(s.id(), &[("a", 5), ("b", 5)]).await;
    let done = room.play(s.id(), &[("a", 5), ("b", 5)]).await;
    assert_eq!(done.status(), DebateStatus::Deadlock);
    assert_eq!(done.decision(), Some(NO_CLEAR_POSITION));
    assert_eq!(done.rounds().len(), 2);
}

#[tokio::test]
async fn confidence_is_clamped_and_stances_keep_their_first_spelling() {
    let room = room(WeightedChair, 2).await;
    let s = room.chair.start_debate("Clamp", room.ids()).await.unwrap();
    let done = room.play(s.id(), &[(" Deploy ", 99), ("DEPLOY", -4)]).await;
    assert_eq!(done.positions()[0].confidence(), 10);
    assert_eq!(done.positions()[1].confidence(), 1);
    assert_eq!(done.decision(), Some("Deploy"));
}

#[tokio::test]
async fn refused_calls() {
    let room = room(MajorityChair, 3).await;
    let outsider_debate = common::manager(&room.platform, "lurker", Member).await;
    let s = room
        .chair
        .start_debate("Refusals", room.ids())
        .await
        .unwrap();

    // A non-participant, and the initiator who is not listed.
    let error = outsider_debate
        .submit_debate_position(s.id(), "YES", 5, "me too")
        .await
        .unwrap_err();
    assert!(
        matches!(error, ProtocolError::DebateRefused(_)),
        "{error:?}"
    );
    let error = room
        .chair
        .submit_debate_position(s.id(), "YES", 5, "I decide")
        .await
        .unwrap_err();
    assert!(
        matches!(error, ProtocolError::DebateRefused(_)),
        "{error:?}"
    );
    assert!(error.to_string().contains("not a participant"), "{error}");
    // A second position in the same round.
    room.members[0]
        .submit_debate_position(s.id(), "YES", 5, "first")
        .await
        .unwrap();
    let error = room.members[0]
        .submit_debate_position(s.id(), "NO", 5, "second")
        .await
        .unwrap_err();
    assert!(error.to_string().contains("already"), "{error}");
    // Only the initiator may cancel.
    let error = room.members[1].cancel_debate(s.id()).await.unwrap_err();
    assert!(error.to_string().contains("Only the initiator"), "{error}");
    let cancelled = room.chair.cancel_debate(s.id()).await.unwrap();
    assert_eq!(cancelled.status(), DebateStatus::Cancelled);
    assert_eq!(cancelled.decision(), None);
    // Nothing more after cancel.
    for error in [
        room.members[1]
            .submit_debate_position(s.id(), "YES", 5, "late")
            .await
            .unwrap_err(),
        room.members[1]
            .vote_in_debate(s.id(), "YES", true)
            .await
            .unwrap_err(),
        room.members[1]
            .counter_argument(s.id(), "m0", "no", "maybe")
            .await
            .unwrap_err(),
        room.chair.cancel_debate(s.id()).await.unwrap_err(),
    ] {
        assert!(
            matches!(error, ProtocolError::DebateRefused(_)),
            "{error:?}"
        );
    }
    // Nothing more after a finished debate either.
    let s = room
        .chair
        .start_debate("Finished", room.ids())
        .await
        .unwrap();
    room.play(s.id(), &[("a", 1), ("a", 1), ("b", 1)]).await;
    let error = room.members[0]
        .submit_debate_position(s.id(), "b", 1, "again")
        .await
        .unwrap_err();
    assert!(error.to_string().contains("over"), "{error}");
    // Unknown sessions.
    let error = room.members[0].debate("no-such-debate").await.unwrap_err();
    assert_eq!(error, ProtocolError::DebateNotFound);
    assert_eq!(error.to_string(), "Debate not found");
    let error = room
        .chair
        .submit_debate_position("no-such-debate", "x", 1, "")
        .await
        .unwrap_err();
    assert_eq!(error.to_string(), "Debate not found");
}

#[tokio::test]
async fn can_initiate_and_can_vote_take_effect() {
    let platform = Platform::new();
    let backbencher = common::manager(&platform, "backbencher", Backbencher).await;
    let observer = common::manager(&platform, "observer", Observer).await;
    let chair = common::manager(&platform, "chair", Member).await;
    let error = backbencher
        .start_debate("Mine", ["observer"])
        .await
        .unwrap_err();
    assert!(
        error.to_string().contains("can_initiate = false"),
        "{error}"
    );

    let s = chair
        .start_debate("Votes", ["backbencher", "observer"])
        .await
        .unwrap();
    let error = observer
        .vote_in_debate(s.id(), "YES", true)
        .await
        .unwrap_err();
    assert!(error.to_string().contains("can_vote = false"), "{error}");
    let after = backbencher
        .vote_in_debate(s.id(), "YES", false)
        .await
        .unwrap();
    assert_eq!(after.votes().len(), 1);
    assert!(!after.votes()[0].support());
    // Votes are shown, not scored.
    assert!(after.positions().is_empty());
    assert_eq!(after.status(), DebateStatus::InProgress);
}

#[tokio::test]
async fn participants_must_carry_debate_and_exist() {
    let platform = Platform::new();
    let chair = common::manager(&platform, "chair", Member).await;
    platform.spawn("member", Member).await.unwrap();
    platform.spawn("outsider", Outsider).await.unwrap();
    let error = chair
        .start_debate("Who?", ["member", "outsider"])
        .await
        .unwrap_err();
    assert!(error.to_string().contains("no #[debate]"), "{error}");
    let error = chair
        .start_debate("Who?", ["member", "ghost"])
        .await
        .unwrap_err();
    assert_eq!(error.to_string(), "Unknown receiver: ghost");
    let error = chair
        .start_debate("Who?", Vec::<String>::new())
        .await
        .unwrap_err();
    assert!(matches!(error, ProtocolError::InvalidArgument(_)));
}

#[tokio::test]
async fn every_participant_reads_fresh_snapshots_with_votes_and_counter_arguments() {
    let room = room(MajorityChair, 3).await;
    let s = room
        .chair
        .start_debate("Deploy?", room.ids())
        .await
        .unwrap();
    room.members[0]
        .submit_debate_position(s.id(), "YES", 8, "All tests pass")
        .await
        .unwrap();
    room.members[1]
        .vote_in_debate(s.id(), "YES", true)
        .await
        .unwrap();
    room.members[2]
        .counter_argument(
            s.id(),
            "m0",
            "Staging is not production",
            "Wait for the load test",
        )
        .await
        .unwrap();
    for reader in room.members.iter().chain(std::iter::once(&room.chair)) {
        let snapshot = reader.debate(s.id()).await.unwrap();
        assert_eq!(snapshot.topic(), "Deploy?");
        assert_eq!(snapshot.positions().len(), 1);
        assert_eq!(snapshot.positions()[0].agent(), "m0");
        assert_eq!(snapshot.positions()[0].argument(), "All tests pass");
        assert_eq!(snapshot.votes().len(), 1);
        let counter = &snapshot.counter_arguments()[0];
        assert_eq!(counter.agent(), "m2");
        assert_eq!(counter.target(), "m0");
        assert_eq!(counter.alternative(), "Wait for the load test");
    }
    let lurker = common::manager(&room.platform, "lurker", Member).await;
    assert!(matches!(
        lurker.debate(s.id()).await,
        Err(ProtocolError::DebateRefused(_))
    ));
}

#[tokio::test]
async fn a_round_ends_when_its_timeout_passes_with_at_least_one_position() {
    let room = room(HastyChair, 3).await;
    let s = room.chair.start_debate("Hurry", room.ids()).await.unwrap();
    let started = Instant::now();
    room.members[0]
        .submit_debate_position(s.id(), "go", 5, "now")
        .await
        .unwrap();
    // Round 1 closes on the timer with one position (share 1.0 >= 0.66).
    let mut events = room.members[1].debate_events(s.id()).unwrap();
    loop {
        let snapshot = room.members[1].debate(s.id()).await.unwrap();
        if snapshot.status() != DebateStatus::InProgress {
            assert_eq!(snapshot.status(), DebateStatus::Consensus);
            assert_eq!(snapshot.decision(), Some("go"));
            assert_eq!(
                snapshot.rounds()[0].ended_by,
                tnsai_coordination::debate::RoundEnd::Timeout
            );
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "the round never timed out"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(started.elapsed() >= Duration::from_millis(120));
    let mut seen = Vec::new();
    while let Some(event) = events.recv().await {
        seen.push(event);
    }
    assert!(
        matches!(seen.last(), Some(DebateEvent::Consensus { decision, .. }) if decision == "go"),
        "{seen:?}"
    );
}

#[tokio::test]
async fn a_timed_out_round_without_positions_ends_with_the_first_one() {
    let room = room(HastyChair, 3).await;
    let s = room
        .chair
        .start_debate("Slow start", room.ids())
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let after = room.members[2]
        .submit_debate_position(s.id(), "late", 3, "sorry")
        .await
        .unwrap();
    assert_eq!(after.status(), DebateStatus::Consensus);
    assert_eq!(after.decision(), Some("late"));
}

#[tokio::test]
async fn events_show_the_debate_as_it_unfolds() {
    let room = room(MajorityChair, 3).await;
    let s = room.chair.start_debate("Events", room.ids()).await.unwrap();
    let mut at_chair = room.chair.debate_events(s.id()).unwrap();
    let mut at_member = room.members[2].debate_events(s.id()).unwrap();
    room.play(s.id(), &[("a", 1), ("b", 1), ("c", 1)]).await;
    room.play(s.id(), &[("a", 1), ("a", 1), ("c", 1)]).await;
    for events in [&mut at_chair, &mut at_member] {
        let mut seen = Vec::new();
        while let Some(event) = events.recv().await {
            seen.push(event);
        }
        assert_eq!(seen.len(), 3, "{seen:?}");
        match &seen[0] {
            DebateEvent::RoundClosed { summary, .. } => {
                assert_eq!(summary.round, 1);
                assert_eq!(summary.tally.leader, None);
                assert_eq!(summary.tally.stances.len(), 3);
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(&seen[1], DebateEvent::RoundClosed { summary, .. } if summary.round == 2));
        assert!(
            matches!(&seen[2], DebateEvent::Consensus { decision, round: 2, .. } if decision == "a")
        );
    }
    assert!(room.members[0].debate_events("unknown").is_err());
}

#[tokio::test]
async fn an_initiator_listed_as_participant_takes_part() {
    let platform = Platform::new();
    let chair = common::manager(&platform, "chair", MajorityChair).await;
    let member = common::manager(&platform, "member", Member).await;
    let s = chair
        .start_debate("Both", ["chair", "member", "member"])
        .await
        .unwrap();
    assert_eq!(s.participants().len(), 2);
    chair
        .submit_debate_position(s.id(), "yes", 5, "mine")
        .await
        .unwrap();
    let done = member
        .submit_debate_position(s.id(), "yes", 5, "agreed")
        .await
        .unwrap();
    assert_eq!(done.status(), DebateStatus::Consensus);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fifty_debates_at_once_with_five_participants_each() {
    let platform = Platform::new();
    let mut chairs = Vec::new();
    for d in 0..50 {
        chairs.push(common::manager(&platform, format!("chair-{d}"), MajorityChair).await);
    }
    let mut members = Vec::new();
    for m in 0..25 {
        members.push(common::manager(&platform, format!("member-{m}"), Member).await);
    }
    let members = std::sync::Arc::new(members);
    let tasks: Vec<_> = chairs
        .into_iter()
        .enumerate()
        .map(|(d, chair)| {
            let members = std::sync::Arc::clone(&members);
            tokio::spawn(async move {
                let picked: Vec<usize> = (0..5).map(|k| (d + k * 5) % 25).collect();
                let ids: Vec<String> = picked.iter().map(|m| format!("member-{m}")).collect();
                let s = chair
                    .start_debate(format!("debate {d}"), ids)
                    .await
                    .unwrap();
                // Round 1 splits 2/2/1; round 2 agrees 4 to 1 on the debate's own stance.
                let expected = format!("option-{}", d % 3);
                let round_one = ["x", "x", "y", "y", "z"];
                let mut joins = Vec::new();
                for (k, m) in picked.iter().enumerate() {
                    let pm = members[*m].clone();
                    let id = s.id().to_owned();
                    let stance = round_one[k];
                    joins.push(tokio::spawn(async move {
                        pm.submit_debate_position(id, stance, 5, "r1").await
                    }));
                }
                for join in joins {
                    join.await.unwrap().unwrap();
                }
                let mut joins = Vec::new();
                for (k, m) in picked.iter().enumerate() {
                    let pm = members[*m].clone();
                    let id = s.id().to_owned();
                    let stance = if k == 4 {
                        "dissent".to_owned()
                    } else {
                        expected.clone()
                    };
                    joins.push(tokio::spawn(async move {
                        pm.submit_debate_position(id, stance, 5, "r2").await
                    }));
                }
                for join in joins {
                    join.await.unwrap().unwrap();
                }
                let done = chair.debate(s.id()).await.unwrap();
                assert_eq!(done.status(), DebateStatus::Consensus);
                assert_eq!(done.decision(), Some(expected.as_str()));
                assert_eq!(done.round(), 2);
                assert_eq!(done.positions().len(), 10);
            })
        })
        .collect();
    for task in tasks {
        task.await.unwrap();
    }
}

#[tokio::test]
async fn finished_debates_are_forgotten_after_the_retention_period() {
    let platform = Platform::with_config(
        tnsai_coordination::PlatformConfig::new().with_debate_retention(Duration::from_millis(100)),
    );
    let chair = common::manager(&platform, "chair", MajorityChair).await;
    let member = common::manager(&platform, "m0", Member).await;
    let open = chair.start_debate("Still open", ["m0"]).await.unwrap();
    let done = chair.start_debate("Done", ["m0"]).await.unwrap();
    member
        .submit_debate_position(done.id(), "yes", 5, "sure")
        .await
        .unwrap();
    assert_eq!(
        member.debate(done.id()).await.unwrap().status(),
        DebateStatus::Consensus
    );
    tokio::time::sleep(Duration::from_millis(200)).await;
    // Starting another debate prunes what finished longer ago than the retention.
    chair.start_debate("Next", ["m0"]).await.unwrap();
    assert_eq!(
        chair.debate(done.id()).await.unwrap_err(),
        ProtocolError::DebateNotFound
    );
    assert_eq!(
        member.debate(done.id()).await.unwrap_err(),
        ProtocolError::DebateNotFound
    );
    // Sessions still in progress are kept, however old.
    assert_eq!(
        member.debate(open.id()).await.unwrap().status(),
        DebateStatus::InProgress
    );
}

#[tokio::test]
async fn a_debate_step_whose_host_is_gone_does_not_wait_forever() {
    let platform = Platform::with_config(
        tnsai_coordination::PlatformConfig::new()
            .with_debate_call_timeout(Duration::from_millis(200)),
    );
    let chair = platform.spawn("chair", MajorityChair).await.unwrap();
    let member = common::manager(&platform, "m0", Member).await;
    let s = chair
        .protocol_manager()
        .unwrap()
        .start_debate("Orphaned", ["m0"])
        .await
        .unwrap();
    // The host stops answering; the participant's call ends instead of hanging.
    chair.protocol_manager().unwrap().stop().await;
    let started = Instant::now();
    let error = member.debate(s.id()).await.unwrap_err();
    assert!(
        matches!(
            error,
            ProtocolError::DebateNotFound | ProtocolError::Timeout
        ),
        "{error:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(5));
}
