//! Discovery across platforms: announcements, withdrawals, and the bound within which an
//! agent whose platform died disappears.

mod common;
mod nats_support;

use std::time::{Duration, Instant};

use common::{Caller, Worker};
use nats_support::{NatsServer, NewsListener, Proxy, config, discover, platform, within};
use serde_json::json;
use tnsai_coordination::{Platform, ProtocolError, Transport};
use tnsai_core::prelude::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_platform_that_connects_late_knows_everyone_at_once() {
    let server = NatsServer::start();
    let (a, _nats_a) = platform(&server.url()).await;
    for i in 0..5 {
        a.spawn(format!("worker-{i}"), Worker::default())
            .await
            .unwrap();
    }
    // Agents spawned before the connection are announced too.
    let b = Platform::new();
    b.spawn("early", Worker::default()).await.unwrap();
    let nats_b = b.connect_nats(config(&server.url())).await.unwrap();
    let known: Vec<String> = nats_b
        .discovered()
        .iter()
        .map(|agent| agent.description.id.to_string())
        .collect();
    assert_eq!(
        known,
        ["worker-0", "worker-1", "worker-2", "worker-3", "worker-4"]
    );
    let (c, nats_c) = platform(&server.url()).await;
    discover(&nats_c, &["early", "worker-3"]).await;
    let seen = nats_c
        .discovered()
        .into_iter()
        .find(|agent| agent.description.id == "worker-3")
        .unwrap();
    assert_eq!(seen.platform, _nats_a.platform_id());
    assert!(
        seen.description
            .actions
            .iter()
            .any(|a| a.name == "processOrder")
    );
    assert!(seen.description.paradigms.contains(&Paradigm::RequestReply));
    for p in [a, b, c] {
        p.shutdown().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_terminated_agent_is_withdrawn_and_then_unknown() {
    let server = NatsServer::start();
    let (a, nats_a) = platform(&server.url()).await;
    let (b, _nats_b) = platform(&server.url()).await;
    let worker = b.spawn("worker", Worker::default()).await.unwrap();
    let listener = b.spawn("listener", NewsListener::default()).await.unwrap();
    let caller = a.spawn("caller", Caller).await.unwrap();
    let announcer = a.spawn("announcer", nats_support::Announcer).await.unwrap();
    discover(&nats_a, &["worker", "listener"]).await;
    let pm = caller.protocol_manager().unwrap();
    pm.execute_action("worker", "echo", Params::new())
        .await
        .unwrap();

    worker.terminate().await;
    listener.terminate().await;
    within(Duration::from_secs(5), "withdrawal seen", || {
        !nats_a.reaches(&"worker".into()) && !nats_a.reaches(&"listener".into())
    })
    .await;
    let error = pm
        .execute_action("worker", "echo", Params::new())
        .await
        .unwrap_err();
    assert_eq!(error.to_string(), "Unknown receiver: worker");
    let report = announcer
        .protocol_manager()
        .unwrap()
        .broadcast(json!({"n": 1}))
        .await
        .unwrap();
    assert!(
        report.delivered().is_empty() && report.failed().is_empty(),
        "{report:?}"
    );
    a.shutdown().await;
    b.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_whose_platform_dies_disappears_within_the_documented_bound() {
    let server = NatsServer::start();
    let proxy = Proxy::start(server.port()).await;
    let a = Platform::new();
    let nats_a = a
        .connect_nats(config(&server.url()).with_answer_timeout(Some(Duration::from_secs(2))))
        .await
        .unwrap();
    let doomed = Platform::new();
    let nats_doomed = doomed.connect_nats(config(&proxy.url())).await.unwrap();
    doomed.spawn("worker", Worker::default()).await.unwrap();
    let caller = a.spawn("caller", Caller).await.unwrap();
    discover(&nats_a, &["worker"]).await;
    let pm = caller.protocol_manager().unwrap();
    pm.execute_action("worker", "echo", Params::new())
        .await
        .unwrap();

    // The machine "dies": its connection drops and nothing is withdrawn.
    proxy.cut();
    let cut_at = Instant::now();
    // A call made before discovery forgets the agent may be lost with the connection
    // (or find nobody subscribed); either way it ends with an error, never a reply.
    let error = pm
        .execute_action("worker", "echo", Params::new())
        .await
        .unwrap_err();
    assert!(
        matches!(
            error,
            ProtocolError::ReceiverUnavailable(_)
                | ProtocolError::UnknownReceiver(_)
                | ProtocolError::Timeout
        ),
        "{error:?}"
    );
    let bound = nats_a.discovery_bound();
    assert_eq!(bound, Duration::from_millis(700));
    // Generous slack over the bound for a loaded machine; the bound is what we document.
    within(bound * 5, "the dead platform's agent disappears", || {
        !nats_a.reaches(&"worker".into())
    })
    .await;
    assert!(cut_at.elapsed() < Duration::from_secs(10));
    let error = pm
        .execute_action("worker", "echo", Params::new())
        .await
        .unwrap_err();
    assert_eq!(error.to_string(), "Unknown receiver: worker");
    assert!(!nats_doomed.is_connected());
    a.shutdown().await;
    doomed.shutdown().await;
}
