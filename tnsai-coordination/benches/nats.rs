//! NATS speed against bare async-nats baselines measured in the same run, through a
//! `nats-server -js` the bench starts itself on a free loopback port:
//!
//! * direct action round trip between two platforms (two connections) vs a bare
//!   async-nats request/reply between two connections with a payload of the same size
//!   (sequential, and 64 in flight), answered by one responder task, and by a responder
//!   that runs each request in a task of its own as a platform runs each action;
//! * a publication to 100 subscribers on another platform (until the report is back)
//!   vs a bare publish to 100 subscriptions on another connection (until all 100 got it).
//!
//! Run: `cargo bench -p tnsai-coordination --features nats --bench nats`

use std::hint::black_box;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group};
use futures_util::StreamExt;
use serde_json::json;
use tnsai_coordination::transport::nats::NatsConfig;
use tnsai_coordination::{Platform, ProtocolManager};
use tnsai_core::prelude::*;
use tokio::runtime::Runtime;
use tokio::sync::Notify;

const IN_FLIGHT: u64 = 64;
const SUBSCRIBERS: usize = 100;

/// A `nats-server -js` of the bench's own, killed on drop.
struct Server {
    child: Child,
    port: u16,
    store: std::path::PathBuf,
}

impl Server {
    fn start() -> Self {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .expect("a free port");
        let store = std::env::temp_dir().join(format!("tnsai-nats-bench-{}", std::process::id()));
        std::fs::create_dir_all(&store).expect("a store directory");
        let child = Command::new("nats-server")
            .args(["-js", "-a", "127.0.0.1", "-p", &port.to_string(), "-sd"])
            .arg(&store)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|error| {
                panic!("cannot start nats-server ({error}); install it with `apt-get install -y nats-server`")
            });
        let address = std::net::SocketAddr::from(([127, 0, 0, 1], port));
        let deadline = Instant::now() + Duration::from_secs(15);
        while std::net::TcpStream::connect(address).is_err() {
            assert!(Instant::now() < deadline, "nats-server did not start");
            std::thread::sleep(Duration::from_millis(20));
        }
        Self { child, port, store }
    }

    fn url(&self) -> String {
        format!("nats://127.0.0.1:{}", self.port)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.store);
    }
}

#[direct_message]
#[broadcast(topic = "bench.news")]
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

#[broadcast(topic = "bench.news")]
struct Listener {
    seen: Arc<AtomicUsize>,
}

#[actions]
impl Listener {
    #[on_message_received]
    async fn on_message(&self, _message: Message) {
        self.seen.fetch_add(1, Ordering::Relaxed);
    }
}

struct Setup {
    _platforms: (Platform, Platform),
    caller: ProtocolManager,
    bare: async_nats::Client,
    bare_payload: Vec<u8>,
    bare_fanout: Arc<(AtomicUsize, Notify)>,
}

async fn setup(url: &str) -> Setup {
    let config = || NatsConfig::new(url);
    let a = Platform::new();
    let nats_a = a.connect_nats(config()).await.unwrap();
    let b = Platform::new();
    b.connect_nats(config()).await.unwrap();
    b.spawn("echo", Echo).await.unwrap();
    let seen = Arc::new(AtomicUsize::new(0));
    for i in 0..SUBSCRIBERS {
        b.spawn(
            format!("listener-{i:03}"),
            Listener {
                seen: Arc::clone(&seen),
            },
        )
        .await
        .unwrap();
    }
    let caller = a
        .spawn("caller", Caller)
        .await
        .unwrap()
        .protocol_manager()
        .unwrap();
    while nats_a.discovered().len() < SUBSCRIBERS + 1 {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }

    // The baseline: two bare connections, an echo responder and 100 subscriptions.
    let bare = async_nats::connect(url).await.unwrap();
    let responder = async_nats::connect(url).await.unwrap();
    let mut requests = responder.subscribe("bare.echo").await.unwrap();
    let answering = responder.clone();
    tokio::spawn(async move {
        while let Some(request) = requests.next().await {
            if let Some(reply) = request.reply {
                answering.publish(reply, request.payload).await.unwrap();
            }
        }
    });
    // The same responder, but running each request in a task of its own, as a platform
    // runs each action: it shows what that concurrency model costs on the wire.
    let mut spawned_requests = responder.subscribe("bare.echo_task").await.unwrap();
    let answering = responder.clone();
    tokio::spawn(async move {
        while let Some(request) = spawned_requests.next().await {
            if let Some(reply) = request.reply {
                let answering = answering.clone();
                tokio::spawn(async move {
                    answering.publish(reply, request.payload).await.unwrap();
                });
            }
        }
    });
    let fanout = Arc::new((AtomicUsize::new(0), Notify::new()));
    for _ in 0..SUBSCRIBERS {
        let mut subscription = responder.subscribe("bare.news").await.unwrap();
        let fanout = Arc::clone(&fanout);
        tokio::spawn(async move {
            while subscription.next().await.is_some() {
                if fanout.0.fetch_add(1, Ordering::AcqRel) + 1 == SUBSCRIBERS {
                    fanout.1.notify_one();
                }
            }
        });
    }
    responder.flush().await.unwrap();
    // A payload as large as the tnsai message the round trip sends.
    let message = Message::builder(MessageKind::Action, "caller")
        .receiver("echo")
        .action("echo")
        .params(params! {"n" => 1})
        .build();
    let bare_payload = serde_json::to_vec(&message).unwrap();
    Setup {
        _platforms: (a, b),
        caller,
        bare,
        bare_payload,
        bare_fanout: fanout,
    }
}

fn round_trip(c: &mut Criterion, rt: &Runtime, setup: &Setup) {
    let mut group = c.benchmark_group("nats_round_trip");
    group.throughput(Throughput::Elements(1));
    group.bench_function("bare_async_nats_request", |b| {
        b.to_async(rt).iter(|| async {
            black_box(
                setup
                    .bare
                    .request("bare.echo", setup.bare_payload.clone().into())
                    .await
                    .unwrap(),
            )
        })
    });
    group.bench_function("tnsai_execute_action", |b| {
        b.to_async(rt).iter(|| async {
            black_box(
                setup
                    .caller
                    .execute_action("echo", "echo", params! {"n" => 1})
                    .await
                    .unwrap(),
            )
        })
    });
    group.finish();

    let mut group = c.benchmark_group("nats_round_trip_64_in_flight");
    group.throughput(Throughput::Elements(IN_FLIGHT));
    group.bench_function("bare_async_nats_request", |b| {
        b.to_async(rt).iter(|| async {
            let calls: Vec<_> = (0..IN_FLIGHT)
                .map(|_| {
                    let client = setup.bare.clone();
                    let payload = setup.bare_payload.clone();
                    tokio::spawn(async move { client.request("bare.echo", payload.into()).await })
                })
                .collect();
            for call in calls {
                black_box(call.await.unwrap().unwrap());
            }
        })
    });
    group.bench_function("bare_async_nats_request_task_per_request", |b| {
        b.to_async(rt).iter(|| async {
            let calls: Vec<_> = (0..IN_FLIGHT)
                .map(|_| {
                    let client = setup.bare.clone();
                    let payload = setup.bare_payload.clone();
                    tokio::spawn(
                        async move { client.request("bare.echo_task", payload.into()).await },
                    )
                })
                .collect();
            for call in calls {
                black_box(call.await.unwrap().unwrap());
            }
        })
    });
    group.bench_function("tnsai_execute_action", |b| {
        b.to_async(rt).iter(|| async {
            let calls: Vec<_> = (0..IN_FLIGHT)
                .map(|i| {
                    tokio::spawn(
                        setup
                            .caller
                            .execute_action("echo", "echo", params! {"n" => i}),
                    )
                })
                .collect();
            for call in calls {
                black_box(call.await.unwrap().unwrap());
            }
        })
    });
    group.finish();
}

fn publish(c: &mut Criterion, rt: &Runtime, setup: &Setup) {
    let mut group = c.benchmark_group("nats_publish_100_remote_subscribers");
    group.throughput(Throughput::Elements(SUBSCRIBERS as u64));
    group.bench_function("bare_async_nats_publish", |b| {
        b.to_async(rt).iter(|| async {
            let fanout = &setup.bare_fanout;
            fanout.0.store(0, Ordering::Release);
            let all = fanout.1.notified();
            setup
                .bare
                .publish("bare.news", setup.bare_payload.clone().into())
                .await
                .unwrap();
            setup.bare.flush().await.unwrap();
            all.await;
        })
    });
    group.bench_function("tnsai_broadcast_with_report", |b| {
        b.to_async(rt).iter(|| async {
            let report = setup.caller.broadcast(json!({"n": 1})).await.unwrap();
            assert_eq!(report.delivered().len(), SUBSCRIBERS);
        })
    });
    group.finish();
}

/// Throughput of both sides measured in alternating rounds, so that load from other
/// processes on a shared machine hits both alike; prints each side's calls per second
/// and tnsai's share of the bare figure.
fn interleaved_report(rt: &Runtime, setup: &Setup) {
    const ROUNDS: usize = 10;
    const CALLS: u64 = 2_048;
    for in_flight in [1_u64, IN_FLIGHT] {
        let (mut bare, mut bare_task, mut tnsai) = (Duration::ZERO, Duration::ZERO, Duration::ZERO);
        let bare_call = |subject: &'static str| {
            move |_| {
                let client = setup.bare.clone();
                let payload = setup.bare_payload.clone();
                async move {
                    client
                        .request(subject, payload.into())
                        .await
                        .expect("the bare responder answers");
                }
            }
        };
        for _ in 0..ROUNDS {
            bare += rt.block_on(timed(CALLS, in_flight, bare_call("bare.echo")));
            bare_task += rt.block_on(timed(CALLS, in_flight, bare_call("bare.echo_task")));
            tnsai += rt.block_on(timed(CALLS, in_flight, |i| {
                let call = setup
                    .caller
                    .execute_action("echo", "echo", params! {"n" => i});
                async move {
                    call.await.unwrap();
                }
            }));
        }
        let per_second = |total: Duration| (CALLS * ROUNDS as u64) as f64 / total.as_secs_f64();
        let (bare, bare_task, tnsai) = (per_second(bare), per_second(bare_task), per_second(tnsai));
        println!(
            "interleaved round trips, {in_flight:>2} in flight: bare async-nats {bare:>7.0}/s, \
             bare with a task per request {bare_task:>7.0}/s, tnsai {tnsai:>7.0}/s \
             = {:.0}% of bare, {:.0}% of bare with a task per request",
            100.0 * tnsai / bare,
            100.0 * tnsai / bare_task
        );
    }
}

/// Runs `calls` calls made by `call`, `in_flight` at a time, and returns how long they
/// took.
async fn timed<F, Fut>(calls: u64, in_flight: u64, call: F) -> Duration
where
    F: Fn(u64) -> Fut,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    let started = Instant::now();
    let mut next = 0;
    while next < calls {
        let batch: Vec<_> = (next..(next + in_flight).min(calls))
            .map(|i| tokio::spawn(call(i)))
            .collect();
        next += batch.len() as u64;
        for task in batch {
            task.await.unwrap();
        }
    }
    started.elapsed()
}

/// What the JSON envelope costs per round trip: the request and its answer, each
/// encoded once and decoded once (no network).
fn envelope(c: &mut Criterion) {
    let request = Message::builder(MessageKind::Action, "caller")
        .receiver("echo")
        .action("echo")
        .params(params! {"n" => 1})
        .build();
    let answer = request
        .reply_builder(MessageKind::Reply, "echo")
        .action("echo")
        .payload(json!({"n": 1}))
        .build();
    let mut group = c.benchmark_group("nats_envelope");
    group.throughput(Throughput::Elements(1));
    group.bench_function("json_encode_decode_request_and_answer", |b| {
        b.iter(|| {
            for message in [&request, &answer] {
                let bytes = serde_json::to_vec(black_box(message)).unwrap();
                black_box(serde_json::from_slice::<Message>(&bytes).unwrap());
            }
        })
    });
    group.finish();
}

fn benches(c: &mut Criterion) {
    envelope(c);
    let server = Server::start();
    // TNSAI_BENCH_WORKERS sets the runtime's worker threads (default 2, one per core of
    // the reference machine; nats-server shares those cores).
    let workers = std::env::var("TNSAI_BENCH_WORKERS")
        .ok()
        .and_then(|w| w.parse().ok())
        .unwrap_or(2);
    println!("tokio multi-thread runtime with {workers} worker thread(s)");
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .enable_all()
        .build()
        .unwrap();
    let setup = rt.block_on(setup(&server.url()));
    interleaved_report(&rt, &setup);
    round_trip(c, &rt, &setup);
    publish(c, &rt, &setup);
    drop(setup);
    drop(server);
}

criterion_group!(nats, benches);

fn main() {
    nats();
    Criterion::default().configure_from_args().final_summary();
}
