//! In-process speed against bare tokio baselines measured in the same run:
//!
//! * `execute_action` round trip between two agents vs a bare mpsc request with a oneshot
//!   reply (sequential, and 64 in flight), plus p50/p99 latency of both;
//! * publish to 1,000 subscribers vs a loop of 1,000 bare mpsc sends.
//!
//! Run: `cargo bench -p tnsai-coordination --bench in_process`

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group};
use serde_json::json;
use tnsai_coordination::{Platform, ProtocolManager};
use tnsai_core::prelude::*;
use tokio::runtime::Runtime;
use tokio::sync::{mpsc, oneshot};

#[direct_message]
struct Caller;

#[agent]
struct Echo;

#[actions]
impl Echo {
    /// Answers its parameters.
    #[action]
    async fn echo(&self, params: Params) -> ActionResult {
        Ok(params.into_value())
    }
}

#[pub_sub(topics = ["bench.topic"])]
struct Subscriber;

type Request = (serde_json::Value, oneshot::Sender<serde_json::Value>);

/// The baseline: a task that answers each request on its oneshot.
fn bare_echo() -> mpsc::Sender<Request> {
    let (tx, mut rx) = mpsc::channel::<Request>(1024);
    tokio::spawn(async move {
        while let Some((value, reply)) = rx.recv().await {
            let _ = reply.send(value);
        }
    });
    tx
}

async fn bare_call(tx: &mpsc::Sender<Request>, value: serde_json::Value) -> serde_json::Value {
    let (reply, answer) = oneshot::channel();
    tx.send((value, reply)).await.expect("echo task alive");
    answer.await.expect("echo answers")
}

async fn tnsai_pair() -> (Platform, ProtocolManager) {
    let platform = Platform::new();
    platform.spawn("echo", Echo).await.unwrap();
    let pm = platform
        .spawn("caller", Caller)
        .await
        .unwrap()
        .protocol_manager()
        .unwrap();
    (platform, pm)
}

fn round_trip(c: &mut Criterion) {
    let rt = Runtime::new().unwrap();
    let (_platform, pm) = rt.block_on(tnsai_pair());
    let bare = rt.block_on(async { bare_echo() });
    // Sequential calls are made from a task on the runtime, as agents make them: driven
    // from the bench's own thread, every call would also pay for parking and waking
    // that thread, which swamps both contenders with noise.
    let mut group = c.benchmark_group("round_trip");
    group.throughput(Throughput::Elements(1));
    group.bench_function("bare_mpsc_oneshot", |b| {
        b.to_async(&rt).iter_custom(|iters| {
            let bare = bare.clone();
            async move {
                tokio::spawn(async move {
                    let started = Instant::now();
                    for _ in 0..iters {
                        black_box(bare_call(&bare, json!({"n": 1})).await);
                    }
                    started.elapsed()
                })
                .await
                .unwrap()
            }
        })
    });
    group.bench_function("tnsai_execute_action", |b| {
        b.to_async(&rt).iter_custom(|iters| {
            let pm = pm.clone();
            async move {
                tokio::spawn(async move {
                    let started = Instant::now();
                    for _ in 0..iters {
                        let reply = pm.execute_action("echo", "echo", params! {"n" => 1});
                        black_box(reply.await.unwrap());
                    }
                    started.elapsed()
                })
                .await
                .unwrap()
            }
        })
    });
    group.finish();

    const IN_FLIGHT: u64 = 64;
    let mut group = c.benchmark_group("round_trip_64_in_flight");
    group.throughput(Throughput::Elements(IN_FLIGHT));
    group.bench_function("bare_mpsc_oneshot", |b| {
        b.to_async(&rt).iter(|| async {
            let calls: Vec<_> = (0..IN_FLIGHT)
                .map(|i| {
                    let tx = bare.clone();
                    tokio::spawn(async move { bare_call(&tx, json!({"n": i})).await })
                })
                .collect();
            for call in calls {
                black_box(call.await.unwrap());
            }
        })
    });
    group.bench_function("tnsai_execute_action", |b| {
        b.to_async(&rt).iter(|| async {
            let calls: Vec<_> = (0..IN_FLIGHT)
                .map(|i| tokio::spawn(pm.execute_action("echo", "echo", params! {"n" => i})))
                .collect();
            for call in calls {
                black_box(call.await.unwrap().unwrap());
            }
        })
    });
    group.finish();
}

fn publish(c: &mut Criterion) {
    const SUBSCRIBERS: usize = 1_000;
    let rt = Runtime::new().unwrap();
    let (_platform, publisher) = rt.block_on(async {
        let platform = Platform::new();
        for i in 0..SUBSCRIBERS {
            platform
                .spawn(format!("sub-{i:04}"), Subscriber)
                .await
                .unwrap();
        }
        let publisher = platform.spawn("publisher", Subscriber).await.unwrap();
        (platform.clone(), publisher.protocol_manager().unwrap())
    });
    let bare: Vec<mpsc::Sender<Message>> = rt.block_on(async {
        (0..SUBSCRIBERS)
            .map(|_| {
                let (tx, mut rx) = mpsc::channel::<Message>(1024);
                tokio::spawn(async move { while rx.recv().await.is_some() {} });
                tx
            })
            .collect()
    });
    let message = Message::builder(MessageKind::Publish, "publisher")
        .topic("bench.topic")
        .payload(json!({"cpu": 0.5}))
        .build();
    let mut group = c.benchmark_group("publish_1000_subscribers");
    group.throughput(Throughput::Elements(SUBSCRIBERS as u64));
    let bare = std::sync::Arc::new(bare);
    group.bench_function("bare_mpsc_send_loop", |b| {
        b.to_async(&rt).iter_custom(|iters| {
            let (bare, message) = (std::sync::Arc::clone(&bare), message.clone());
            async move {
                tokio::spawn(async move {
                    let started = Instant::now();
                    for _ in 0..iters {
                        for tx in bare.iter() {
                            tx.send(message.clone()).await.unwrap();
                        }
                    }
                    started.elapsed()
                })
                .await
                .unwrap()
            }
        })
    });
    group.bench_function("tnsai_publish", |b| {
        b.to_async(&rt).iter_custom(|iters| {
            let publisher = publisher.clone();
            async move {
                tokio::spawn(async move {
                    let started = Instant::now();
                    for _ in 0..iters {
                        let report = publisher.publish("bench.topic", json!({"cpu": 0.5}));
                        assert_eq!(report.await.unwrap().delivered().len(), SUBSCRIBERS);
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

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

/// p50/p99 of sequential round trips (criterion reports means and medians only).
fn latency_report() {
    const CALLS: usize = 50_000;
    let rt = Runtime::new().unwrap();
    rt.block_on(rt.spawn(async {
        let (_platform, pm) = tnsai_pair().await;
        let bare = bare_echo();
        let mut bare_times = Vec::with_capacity(CALLS);
        let mut tnsai_times = Vec::with_capacity(CALLS);
        for _ in 0..1_000 {
            bare_call(&bare, json!({"n": 1})).await;
            pm.execute_action("echo", "echo", params! {"n" => 1})
                .await
                .unwrap();
        }
        for _ in 0..CALLS {
            let started = Instant::now();
            black_box(bare_call(&bare, json!({"n": 1})).await);
            bare_times.push(started.elapsed());
            let started = Instant::now();
            black_box(
                pm.execute_action("echo", "echo", params! {"n" => 1})
                    .await
                    .unwrap(),
            );
            tnsai_times.push(started.elapsed());
        }
        bare_times.sort_unstable();
        tnsai_times.sort_unstable();
        for (name, times) in [
            ("bare_mpsc_oneshot", &bare_times),
            ("tnsai_execute_action", &tnsai_times),
        ] {
            println!(
                "latency {name:<22} p50 {:>9.2?}  p99 {:>9.2?}  ({CALLS} sequential calls)",
                percentile(times, 0.50),
                percentile(times, 0.99)
            );
        }
    }))
    .unwrap();
}

criterion_group!(benches, round_trip, publish);

fn main() {
    latency_report();
    benches();
    Criterion::default().configure_from_args().final_summary();
}
