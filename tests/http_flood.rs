//! Many clients, many agents, many messages over real sockets: every reply checked.
#![cfg(feature = "http")]

mod common;
mod http_support;

use std::sync::atomic::Ordering;

use serde_json::{Value, json};
use tnsai_coordination::Platform;
use tnsai_coordination::transport::http::agora::AgoraRequest;
use tnsai_core::prelude::*;

const CLIENTS: usize = 32;
const REQUESTS: usize = 10_000;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_thousand_agora_requests_from_32_clients() {
    let platform = Platform::new();
    let worker = platform
        .spawn("worker", common::Worker::default())
        .await
        .unwrap();
    let http = platform.serve_http(http_support::config()).await.unwrap();
    let url = http.agent_url("worker").unwrap();
    let entry: Value = reqwest::get(format!("{}/agents/worker", http.url().unwrap()))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let echo = entry["protocols"]["echo"].as_str().unwrap().to_owned();

    let mut tasks = Vec::new();
    for client_no in 0..CLIENTS {
        let (url, echo) = (url.clone(), echo.clone());
        tasks.push(tokio::spawn(async move {
            let client = reqwest::Client::new();
            let mut checked = 0;
            for seq in (client_no..REQUESTS).step_by(CLIENTS) {
                let params = json!({ "client": client_no, "seq": seq });
                let request = AgoraRequest::new(echo.as_str(), Vec::new(), params.to_string());
                let response = client.post(&url).json(&request).send().await.unwrap();
                assert_eq!(response.status(), 200);
                let answer: Value = response.json().await.unwrap();
                assert_eq!(answer["status"], "success", "{answer}");
                let body: Value = serde_json::from_str(answer["body"].as_str().unwrap()).unwrap();
                assert_eq!(body, json!({ "ok": true, "result": params }));
                checked += 1;
            }
            checked
        }));
    }
    let mut total = 0;
    for task in tasks {
        total += task.await.unwrap();
    }
    assert_eq!(total, REQUESTS);
    assert_eq!(worker.agent().calls.load(Ordering::SeqCst), REQUESTS);
    platform.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_agents_call_across_platforms_at_once() {
    const CALLERS: usize = 24;
    const WORKERS: usize = 8;
    const CALLS: usize = 40;
    let pair = http_support::Pair::new().await;
    let mut workers = Vec::new();
    for w in 0..WORKERS {
        workers.push(
            pair.b
                .spawn(format!("worker-{w}"), common::Worker::default())
                .await
                .unwrap(),
        );
    }
    let mut callers = Vec::new();
    for c in 0..CALLERS {
        callers.push(
            pair.a
                .spawn(format!("caller-{c}"), http_support::PatientCaller)
                .await
                .unwrap()
                .protocol_manager()
                .unwrap(),
        );
    }
    pair.connect().await;
    let mut tasks = Vec::new();
    for (c, pm) in callers.into_iter().enumerate() {
        tasks.push(tokio::spawn(async move {
            for i in 0..CALLS {
                let worker = format!("worker-{}", (c + i) % WORKERS);
                let params = params! { "caller" => c as i64, "i" => i as i64 };
                let reply = if i % 2 == 0 {
                    pm.execute_action(worker.as_str(), "echo", params.clone())
                        .await
                } else {
                    pm.request(worker.as_str(), "echo", params.clone()).await
                }
                .unwrap();
                assert_eq!(reply.sender().as_str(), worker);
                assert_eq!(reply.payload(), &params.into_value());
            }
        }));
    }
    for task in tasks {
        task.await.unwrap();
    }
    let calls: usize = workers
        .iter()
        .map(|w| w.agent().calls.load(Ordering::SeqCst))
        .sum();
    assert_eq!(calls, CALLERS * CALLS);
    pair.shutdown().await;
}
