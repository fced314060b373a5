//! HTTP transport speed on loopback against a bare axum JSON echo, measured in the same
//! run with the same reqwest client:
//!
//! * `agora_action`: an Agora request under an action's generated protocol to
//!   `/agents/echo` (parsed, turned into a tnsai call, run, answered) vs `bare_echo`:
//!   the same request bytes posted to an axum handler that parses the JSON and sends it
//!   back. Sequential, and 32 requests in flight.
//! * `platform_to_platform`: `execute_action` from an agent on one platform to an agent
//!   on another over HTTP (tnsai message protocol, answer in the response), sequential
//!   and 32 in flight, against the same bare echo.
//!
//! Run: `cargo bench -p tnsai-coordination --bench http` (criterion groups, then a paired
//! report); `-- paired` runs only the paired report: alternating rounds of each path and
//! the bare echo, so that load from other processes hits both alike.

use std::hint::black_box;
use std::time::Instant;

use axum::Json;
use axum::routing::post;
use criterion::{Criterion, Throughput, criterion_group};
use futures_util::future::join_all;
use serde_json::{Value, json};
use tnsai_coordination::transport::http::agora::AgoraRequest;
use tnsai_coordination::transport::http::{HttpConfig, HttpTransport};
use tnsai_coordination::{Platform, ProtocolManager};
use tnsai_core::prelude::*;
use tokio::runtime::Runtime;

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

const IN_FLIGHT: usize = 32;

struct Setup {
    client: reqwest::Client,
    agent_url: String,
    bare_url: String,
    request: Vec<u8>,
    caller: ProtocolManager,
    _platforms: (Platform, Platform, HttpTransport, HttpTransport),
}

async fn bare_server() -> String {
    async fn echo(Json(value): Json<Value>) -> Json<Value> {
        Json(value)
    }
    let app = axum::Router::new().route("/echo", post(echo));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/echo", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    url
}

async fn setup() -> Setup {
    let server = Platform::new();
    server.spawn("echo", Echo).await.unwrap();
    let config = HttpConfig::new().discovery_interval(None);
    let server_http = server.serve_http(config.clone()).await.unwrap();
    let client_platform = Platform::new();
    let caller = client_platform
        .spawn("caller", Caller)
        .await
        .unwrap()
        .protocol_manager()
        .unwrap();
    let client_http = client_platform.serve_http(config).await.unwrap();
    client_http
        .add_peer(server_http.url().unwrap())
        .await
        .unwrap();

    let client = reqwest::Client::builder()
        .tcp_nodelay(true)
        .build()
        .unwrap();
    let entry: Value = client
        .get(format!("{}/agents/echo", server_http.url().unwrap()))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let hash = entry["protocols"]["echo"].as_str().unwrap();
    let body = json!({ "orderId": "12345", "amountCents": 4999 }).to_string();
    let request = serde_json::to_vec(&AgoraRequest::new(hash, Vec::new(), body)).unwrap();
    Setup {
        client,
        agent_url: server_http.agent_url("echo").unwrap(),
        bare_url: bare_server().await,
        request,
        caller,
        _platforms: (server, client_platform, server_http, client_http),
    }
}

async fn post_json(client: &reqwest::Client, url: &str, body: &[u8]) -> Value {
    let response = client
        .post(url)
        .header("content-type", "application/json")
        .body(body.to_vec())
        .send()
        .await
        .unwrap();
    assert!(response.status().is_success());
    response.json().await.unwrap()
}

fn http(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let setup = runtime.block_on(setup());
    check(&runtime, &setup);

    let mut group = c.benchmark_group("http_sequential");
    group.throughput(Throughput::Elements(1));
    group.bench_function("bare_echo", |b| {
        b.to_async(&runtime).iter(|| async {
            black_box(post_json(&setup.client, &setup.bare_url, &setup.request).await)
        })
    });
    group.bench_function("agora_action", |b| {
        b.to_async(&runtime).iter(|| async {
            black_box(post_json(&setup.client, &setup.agent_url, &setup.request).await)
        })
    });
    group.bench_function("platform_to_platform", |b| {
        b.to_async(&runtime).iter(|| async {
            black_box(
                setup
                    .caller
                    .execute_action("echo", "echo", params! {"orderId" => "12345"})
                    .await
                    .unwrap(),
            )
        })
    });
    group.finish();

    let mut group = c.benchmark_group("http_32_in_flight");
    group.throughput(Throughput::Elements(IN_FLIGHT as u64));
    group.bench_function("bare_echo", |b| {
        b.to_async(&runtime).iter(|| async {
            let calls =
                (0..IN_FLIGHT).map(|_| post_json(&setup.client, &setup.bare_url, &setup.request));
            black_box(join_all(calls).await)
        })
    });
    group.bench_function("agora_action", |b| {
        b.to_async(&runtime).iter(|| async {
            let calls =
                (0..IN_FLIGHT).map(|_| post_json(&setup.client, &setup.agent_url, &setup.request));
            black_box(join_all(calls).await)
        })
    });
    group.bench_function("platform_to_platform", |b| {
        b.to_async(&runtime).iter(|| async {
            let calls = (0..IN_FLIGHT).map(|_| {
                setup
                    .caller
                    .execute_action("echo", "echo", params! {"orderId" => "12345"})
            });
            black_box(join_all(calls).await)
        })
    });
    group.finish();
}

/// The benchmarked calls answer what they should (outside the timed loops).
fn check(runtime: &Runtime, setup: &Setup) {
    runtime.block_on(async {
        let agora = post_json(&setup.client, &setup.agent_url, &setup.request).await;
        let body: Value = serde_json::from_str(agora["body"].as_str().unwrap()).unwrap();
        assert_eq!(body["result"]["orderId"], "12345");
        let bare = post_json(&setup.client, &setup.bare_url, &setup.request).await;
        assert_eq!(
            bare,
            serde_json::from_slice::<Value>(&setup.request).unwrap()
        );
        let reply = setup
            .caller
            .execute_action("echo", "echo", params! {"orderId" => "12345"})
            .await
            .unwrap();
        assert_eq!(reply.payload()["orderId"], "12345");
    });
}

/// Which path a paired round measures.
#[derive(Clone, Copy)]
enum Path {
    Bare,
    Agora,
    PlatformToPlatform,
    /// `Platform::call` in-process, as the Agora handler makes it: the platform's own
    /// share of an Agora request, without HTTP.
    InProcessCall,
}

async fn one(setup: &Setup, path: Path) {
    match path {
        Path::Bare => {
            black_box(post_json(&setup.client, &setup.bare_url, &setup.request).await);
        }
        Path::Agora => {
            black_box(post_json(&setup.client, &setup.agent_url, &setup.request).await);
        }
        Path::PlatformToPlatform => {
            let reply = setup
                .caller
                .execute_action("echo", "echo", params! {"orderId" => "12345"})
                .await;
            black_box(reply.unwrap());
        }
        Path::InProcessCall => {
            let message = Message::builder(MessageKind::Action, "bench-caller")
                .receiver("echo")
                .action("echo")
                .params(params! {"orderId" => "12345"})
                .build();
            let reply = setup
                ._platforms
                .0
                .call(message, std::time::Duration::from_secs(5))
                .await;
            black_box(reply.unwrap());
        }
    }
}

/// Requests a second over `requests` calls, `in_flight` at a time.
async fn throughput(setup: &Setup, path: Path, requests: usize, in_flight: usize) -> f64 {
    let started = Instant::now();
    for _ in 0..requests / in_flight {
        join_all((0..in_flight).map(|_| one(setup, path))).await;
    }
    requests as f64 / started.elapsed().as_secs_f64()
}

/// Throughput of each path relative to the bare echo, measured in alternating rounds so
/// that load from other processes hits both sides alike; prints the median ratio.
fn paired(runtime: &Runtime, setup: &Setup) {
    const ROUNDS: usize = 15;
    const REQUESTS: usize = 1_536;
    for in_flight in [1, IN_FLIGHT] {
        for (name, path) in [
            ("agora_action", Path::Agora),
            ("platform_to_platform", Path::PlatformToPlatform),
            ("in_process_call", Path::InProcessCall),
        ] {
            let mut ratios = Vec::with_capacity(ROUNDS);
            let mut bare_rates = Vec::with_capacity(ROUNDS);
            let mut path_rates = Vec::with_capacity(ROUNDS);
            runtime.block_on(async {
                for _ in 0..ROUNDS {
                    let bare = throughput(setup, Path::Bare, REQUESTS, in_flight).await;
                    let measured = throughput(setup, path, REQUESTS, in_flight).await;
                    bare_rates.push(bare);
                    path_rates.push(measured);
                    ratios.push(measured / bare);
                }
            });
            let median = |values: &mut Vec<f64>| {
                values.sort_by(f64::total_cmp);
                values[values.len() / 2]
            };
            println!(
                "paired {name:<21} in flight {in_flight:>2}: {:>7.0} req/s vs bare {:>7.0} req/s, median ratio {:.0}%",
                median(&mut path_rates),
                median(&mut bare_rates),
                median(&mut ratios) * 100.0
            );
        }
    }
}

criterion_group!(benches, http);

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
    // The paired report runs without a filter, or with the filter `paired` (which no
    // criterion benchmark matches).
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().all(|a| a.starts_with('-')) || args.iter().any(|a| a == "paired") {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let setup = runtime.block_on(setup());
        paired(&runtime, &setup);
    }
}
