//! Several platforms running the same agent id share its messages as a NATS queue group.

mod nats_support;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use nats_support::{Counter, NatsServer, discover, platform};
use serde_json::json;
use tnsai_core::prelude::*;

#[direct_message]
#[derive(Default)]
struct Client;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_call_reaches_exactly_one_platform_of_the_group() {
    let server = NatsServer::start();
    let (a, _nats_a) = platform(&server.url()).await;
    let (b, _nats_b) = platform(&server.url()).await;
    let (c, nats_c) = platform(&server.url()).await;
    let on_a = Arc::new(AtomicUsize::new(0));
    let on_b = Arc::new(AtomicUsize::new(0));
    a.spawn(
        "shared",
        Counter {
            count: Arc::clone(&on_a),
        },
    )
    .await
    .unwrap();
    b.spawn(
        "shared",
        Counter {
            count: Arc::clone(&on_b),
        },
    )
    .await
    .unwrap();
    let client = c.spawn("client", Client).await.unwrap();
    discover(&nats_c, &["shared"]).await;
    let platforms = nats_c
        .discovered()
        .into_iter()
        .filter(|agent| agent.description.id == "shared")
        .count();
    assert_eq!(platforms, 2, "both platforms announce the id");

    let pm = client.protocol_manager().unwrap();
    let calls = 200;
    let mut tasks = Vec::new();
    for n in 0..calls {
        let pm = pm.clone();
        tasks.push(tokio::spawn(async move {
            pm.execute_action("shared", "hit", params! {"n" => n}).await
        }));
    }
    for (n, task) in tasks.into_iter().enumerate() {
        let reply = task.await.unwrap().unwrap();
        assert_eq!(reply.payload(), &json!({"n": n}));
    }
    let (a_count, b_count) = (on_a.load(Ordering::SeqCst), on_b.load(Ordering::SeqCst));
    assert_eq!(a_count + b_count, calls, "each call ran exactly once");
    assert!(
        a_count > 0 && b_count > 0,
        "both members served calls: {a_count} / {b_count}"
    );

    // One member leaves: the other serves everything.
    a.shutdown().await;
    for n in 0..20 {
        let reply = pm
            .execute_action("shared", "hit", params! {"n" => n})
            .await
            .unwrap();
        assert_eq!(reply.payload(), &json!({"n": n}));
    }
    assert_eq!(on_a.load(Ordering::SeqCst), a_count);
    assert_eq!(on_b.load(Ordering::SeqCst), b_count + 20);
    b.shutdown().await;
    c.shutdown().await;
}
