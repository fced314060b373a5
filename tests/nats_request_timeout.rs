//! Timeouts over NATS: the `#[request_reply]` timeout, late replies, and the transport's
//! answer timeout for calls without one.

mod common;
mod nats_support;

use std::time::{Duration, Instant};

use common::{Caller, Worker};
use nats_support::{NatsServer, config, discover, platform};
use serde_json::json;
use tnsai_coordination::{Platform, ProtocolError};
use tnsai_core::prelude::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_receiver_times_out_and_its_late_reply_reaches_no_later_request() {
    let server = NatsServer::start();
    let (a, nats_a) = platform(&server.url()).await;
    let (b, _nats_b) = platform(&server.url()).await;
    b.spawn("worker", Worker::default()).await.unwrap();
    let caller = a.spawn("caller", Caller).await.unwrap(); // #[request_reply(timeout = 300)]
    discover(&nats_a, &["worker"]).await;
    let pm = caller.protocol_manager().unwrap();

    let started = Instant::now();
    let error = pm
        .request("worker", "sleep", params! {"ms" => 800, "tag" => "slow"})
        .await
        .unwrap_err();
    let waited = started.elapsed();
    assert_eq!(error, ProtocolError::Timeout);
    assert_eq!(error.to_string(), "Request timed out");
    assert!(
        waited >= Duration::from_millis(300),
        "gave up early: {waited:?}"
    );
    assert!(waited < Duration::from_secs(5), "gave up late: {waited:?}");

    // The slow reply arrives while these run; each gets its own answer.
    for tag in ["a", "b", "c", "d"] {
        let reply = pm
            .request("worker", "sleep", params! {"ms" => 200, "tag" => tag})
            .await
            .unwrap();
        assert_eq!(reply.payload(), &json!({"tag": tag}));
    }
    a.shutdown().await;
    b.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_direct_call_without_a_timeout_ends_after_the_transport_answer_timeout() {
    let server = NatsServer::start();
    let a = Platform::new();
    let nats_a = a
        .connect_nats(config(&server.url()).with_answer_timeout(Some(Duration::from_millis(400))))
        .await
        .unwrap();
    let (b, _nats_b) = platform(&server.url()).await;
    b.spawn("worker", Worker::default()).await.unwrap();
    let caller = a.spawn("caller", Caller).await.unwrap();
    discover(&nats_a, &["worker"]).await;
    let pm = caller.protocol_manager().unwrap();

    let started = Instant::now();
    let error = pm
        .execute_action("worker", "sleep", params! {"ms" => 3000})
        .await
        .unwrap_err();
    assert_eq!(error, ProtocolError::Timeout);
    let waited = started.elapsed();
    assert!(waited >= Duration::from_millis(400), "{waited:?}");
    assert!(waited < Duration::from_secs(3), "{waited:?}");
    // The connection and the receiver are fine: quick calls still work.
    let reply = pm
        .execute_action("worker", "echo", params! {"n" => 1})
        .await
        .unwrap();
    assert_eq!(reply.payload(), &json!({"n": 1}));
    a.shutdown().await;
    b.shutdown().await;
}
