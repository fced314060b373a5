//! The NATS server restarts mid-run: clients reconnect, calls in flight fail cleanly,
//! later calls work.

mod common;
mod nats_support;

use std::time::{Duration, Instant};

use common::{Caller, Worker};
use nats_support::{NatsServer, discover, platform};
use serde_json::json;
use tnsai_coordination::ProtocolError;
use tnsai_core::prelude::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_in_flight_fail_cleanly_and_later_calls_work_after_a_restart() {
    let mut server = NatsServer::start();
    let (a, nats_a) = platform(&server.url()).await;
    let (b, nats_b) = platform(&server.url()).await;
    b.spawn("worker", Worker::default()).await.unwrap();
    let caller = a.spawn("caller", Caller).await.unwrap();
    discover(&nats_a, &["worker"]).await;
    let pm = caller.protocol_manager().unwrap();
    pm.execute_action("worker", "echo", Params::new())
        .await
        .unwrap();

    let in_flight: Vec<_> = (0..5)
        .map(|n| {
            let pm = pm.clone();
            tokio::spawn(async move {
                pm.execute_action("worker", "sleep", params! {"ms" => 1500, "tag" => n})
                    .await
            })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(300)).await;
    server.kill();
    let killed = Instant::now();
    for call in in_flight {
        let error = call.await.unwrap().unwrap_err();
        assert!(
            error
                .to_string()
                .contains("Lost the connection to the NATS server"),
            "{error:?}"
        );
    }
    assert!(
        killed.elapsed() < Duration::from_secs(10),
        "in-flight calls hung"
    );
    // While the server is down a call fails at once, saying so.
    let error = pm
        .execute_action("worker", "echo", Params::new())
        .await
        .unwrap_err();
    assert!(matches!(error, ProtocolError::Transport(_)), "{error:?}");
    assert!(error.to_string().contains("not connected"), "{error}");

    server.restart();
    let deadline = Instant::now() + Duration::from_secs(30);
    let reply = loop {
        match pm
            .execute_action("worker", "echo", params! {"after" => "restart"})
            .await
        {
            Ok(reply) => break reply,
            Err(error) => {
                assert!(
                    Instant::now() < deadline,
                    "no call worked 30 s after the restart: {error}"
                );
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    };
    assert_eq!(reply.payload(), &json!({"after": "restart"}));
    assert!(nats_a.is_connected() && nats_b.is_connected());
    // Discovery keeps working after the restart: a new agent is found.
    b.spawn("late", Worker::default()).await.unwrap();
    discover(&nats_a, &["late"]).await;
    for n in 0..20 {
        let reply = pm
            .execute_action("late", "echo", params! {"n" => n})
            .await
            .unwrap();
        assert_eq!(reply.payload(), &json!({"n": n}));
    }
    a.shutdown().await;
    b.shutdown().await;
}
