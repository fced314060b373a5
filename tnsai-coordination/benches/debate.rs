//! Debate speed: scoring a 10,000-position round (a pure function), and a full
//! five-participant in-process debate (start, five positions, consensus), next to a
//! baseline of five bare mpsc request/reply exchanges measured in the same run.
//!
//! Run: `cargo bench -p tnsai-coordination --bench debate`

use std::hint::black_box;
use std::time::Instant;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use tnsai_coordination::debate::DebateScorer;
use tnsai_coordination::{DebateStatus, Platform, ProtocolManager};
use tnsai_core::prelude::*;
use tokio::runtime::Runtime;
use tokio::sync::{mpsc, oneshot};

#[debate(strategy = Majority)]
struct Member;

fn scoring(c: &mut Criterion) {
    let stances = ["deploy", "Deploy ", "wait", "rollback", "DEPLOY"];
    let positions: Vec<(String, i32)> = (0..10_000)
        .map(|i| (stances[i % stances.len()].to_owned(), (i % 10) as i32 + 1))
        .collect();
    let mut group = c.benchmark_group("score_round");
    group.throughput(Throughput::Elements(positions.len() as u64));
    for strategy in [
        ConsensusStrategy::Majority,
        ConsensusStrategy::WeightedConfidence,
    ] {
        let scorer = DebateScorer::new(strategy, None);
        group.bench_function(format!("10000_positions_{strategy}"), |b| {
            b.iter(|| black_box(scorer.score(positions.iter().map(|(s, c)| (s.as_str(), *c)))))
        });
    }
    group.finish();
}

fn full_debate(c: &mut Criterion) {
    let rt = Runtime::new().unwrap();
    let (_platform, chair, members): (Platform, ProtocolManager, Vec<ProtocolManager>) = rt
        .block_on(async {
            let platform = Platform::new();
            let chair = platform
                .spawn("chair", Member)
                .await
                .unwrap()
                .protocol_manager()
                .unwrap();
            let mut members = Vec::new();
            for i in 0..5 {
                members.push(
                    platform
                        .spawn(format!("m{i}"), Member)
                        .await
                        .unwrap()
                        .protocol_manager()
                        .unwrap(),
                );
            }
            (platform, chair, members)
        });
    let ids: Vec<String> = (0..5).map(|i| format!("m{i}")).collect();
    // Baseline: the same number of request/reply exchanges (5 invitations + 5 positions)
    // over bare channels to one task.
    let host = rt.block_on(async {
        let (tx, mut rx) = mpsc::channel::<(u32, oneshot::Sender<u32>)>(64);
        tokio::spawn(async move {
            while let Some((n, reply)) = rx.recv().await {
                let _ = reply.send(n + 1);
            }
        });
        tx
    });
    // Both contenders run in a task on the runtime, as agents do (see in_process.rs).
    let mut group = c.benchmark_group("debate_5_participants");
    group.bench_function("bare_10_request_replies", |b| {
        b.to_async(&rt).iter_custom(|iters| {
            let host = host.clone();
            async move {
                tokio::spawn(async move {
                    let started = Instant::now();
                    for _ in 0..iters {
                        for n in 0..10 {
                            let (reply, answer) = oneshot::channel();
                            host.send((n, reply)).await.unwrap();
                            black_box(answer.await.unwrap());
                        }
                    }
                    started.elapsed()
                })
                .await
                .unwrap()
            }
        })
    });
    group.bench_function("tnsai_start_to_consensus", |b| {
        b.to_async(&rt).iter_custom(|iters| {
            let (chair, members, ids) = (chair.clone(), members.clone(), ids.clone());
            async move {
                tokio::spawn(async move {
                    let started = Instant::now();
                    for _ in 0..iters {
                        let session = chair.start_debate("Deploy?", ids.clone()).await.unwrap();
                        let mut last = None;
                        for member in &members {
                            let position =
                                member.submit_debate_position(session.id(), "deploy", 7, "green");
                            last = Some(position.await.unwrap());
                        }
                        assert_eq!(last.unwrap().status(), DebateStatus::Consensus);
                    }
                    started.elapsed()
                })
                .await
                .unwrap()
            }
        })
    });
    group.finish();
}

criterion_group!(benches, scoring, full_debate);
criterion_main!(benches);
