//! A receiver that is offline and comes back: durable inboxes keep its messages and
//! deliver each once; without one the sender gets a clear error.

mod common;
mod nats_support;

use std::collections::BTreeMap;
use std::time::Duration;

use common::{Caller, Worker};
use nats_support::{DurableWorker, NatsServer, discover, platform, within};
use serde_json::json;
use tnsai_coordination::{ProtocolError, Transport};
use tnsai_core::prelude::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_durable_inbox_an_offline_receiver_is_a_clear_error() {
    let server = NatsServer::start();
    let (a, nats_a) = platform(&server.url()).await;
    let (b, _nats_b) = platform(&server.url()).await;
    b.spawn("worker", Worker::default()).await.unwrap();
    let caller = a.spawn("caller", Caller).await.unwrap();
    discover(&nats_a, &["worker"]).await;
    let pm = caller.protocol_manager().unwrap();
    pm.execute_action("worker", "echo", Params::new())
        .await
        .unwrap();

    b.shutdown().await;
    within(Duration::from_secs(5), "the withdrawal is seen", || {
        !nats_a.reaches(&"worker".into())
    })
    .await;
    let error = pm
        .execute_action("worker", "echo", Params::new())
        .await
        .unwrap_err();
    assert_eq!(error, ProtocolError::UnknownReceiver("worker".into()));

    // Back on a new platform: reached again.
    let (b2, _nats_b2) = platform(&server.url()).await;
    b2.spawn("worker", Worker::default()).await.unwrap();
    discover(&nats_a, &["worker"]).await;
    let reply = pm
        .execute_action("worker", "echo", params! {"back" => true})
        .await
        .unwrap();
    assert_eq!(reply.payload(), &json!({"back": true}));
    a.shutdown().await;
    b2.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopped_receiver_refuses_at_once_without_a_durable_inbox() {
    let server = NatsServer::start();
    let (a, nats_a) = platform(&server.url()).await;
    let (b, _nats_b) = platform(&server.url()).await;
    let worker = b.spawn("worker", Worker::default()).await.unwrap();
    let caller = a.spawn("caller", Caller).await.unwrap();
    discover(&nats_a, &["worker"]).await;
    worker.protocol_manager().unwrap().stop().await;
    let error = caller
        .protocol_manager()
        .unwrap()
        .execute_action("worker", "echo", Params::new())
        .await
        .unwrap_err();
    assert!(
        matches!(error, ProtocolError::ReceiverUnavailable(_)),
        "{error:?}"
    );
    assert_eq!(error.to_string(), "Receiver worker is not started");
    a.shutdown().await;
    b.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_durable_inbox_keeps_messages_while_the_receiver_is_down_and_delivers_each_once() {
    let server = NatsServer::start();
    let (a, nats_a) = platform(&server.url()).await;
    let (b, _nats_b) = platform(&server.url()).await;
    let first = DurableWorker::default();
    let first_runs = std::sync::Arc::clone(&first.runs);
    b.spawn("inbox", first).await.unwrap();
    let caller = a.spawn("caller", Caller).await.unwrap();
    discover(&nats_a, &["inbox"]).await;
    within(
        Duration::from_secs(5),
        "the durable registration is seen",
        || nats_a.durable_agents().iter().any(|id| id == "inbox"),
    )
    .await;
    let pm = caller.protocol_manager().unwrap();

    // Online: a round trip through JetStream.
    let reply = pm
        .execute_action("inbox", "record", params! {"n" => "online"})
        .await
        .unwrap();
    assert_eq!(reply.payload(), &json!({"n": "online"}));
    assert_eq!(*first_runs.lock().unwrap(), ["online"]);

    // Down: its platform shuts down, the durable inbox stays reachable.
    b.shutdown().await;
    within(
        Duration::from_secs(5),
        "its announcement is withdrawn",
        || {
            !nats_a
                .discovered()
                .iter()
                .any(|a| a.description.id == "inbox")
        },
    )
    .await;
    assert!(
        nats_a.reaches(&"inbox".into()),
        "a durable inbox outlives its platform"
    );
    for n in 0..5 {
        // The caller's 300 ms request timeout passes: nothing answers yet, and nothing
        // pretends it did.
        let error = pm
            .request("inbox", "record", params! {"n" => format!("offline-{n}")})
            .await
            .unwrap_err();
        assert_eq!(error, ProtocolError::Timeout);
    }
    // The same message sent twice (a retry) is stored once (Nats-Msg-Id).
    let retry = Message::builder(MessageKind::Action, "cli")
        .receiver("inbox")
        .action("record")
        .params(params! {"n" => "retried"})
        .build();
    for _ in 0..2 {
        let error = a
            .call(retry.clone(), Duration::from_millis(200))
            .await
            .unwrap_err();
        assert_eq!(error, ProtocolError::Timeout);
    }

    // Back: a new platform runs the agent; everything sent meanwhile arrives, once.
    let (b2, _nats_b2) = platform(&server.url()).await;
    let second = DurableWorker::default();
    let second_runs = std::sync::Arc::clone(&second.runs);
    b2.spawn("inbox", second).await.unwrap();
    within(
        Duration::from_secs(10),
        "the stored messages are delivered",
        || second_runs.lock().unwrap().len() >= 6,
    )
    .await;
    // Longer than the ack wait (2 s in these tests): no redelivery runs anything twice.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for n in second_runs.lock().unwrap().iter() {
        *counts.entry(n.clone()).or_default() += 1;
    }
    let expected: BTreeMap<String, usize> = (0..5)
        .map(|n| (format!("offline-{n}"), 1))
        .chain([("retried".to_owned(), 1)])
        .collect();
    assert_eq!(counts, expected);
    assert_eq!(*first_runs.lock().unwrap(), ["online"], "nothing ran twice");

    // And it is served normally again.
    discover(&nats_a, &["inbox"]).await;
    let reply = pm
        .execute_action("inbox", "record", params! {"n" => "again"})
        .await
        .unwrap();
    assert_eq!(reply.payload(), &json!({"n": "again"}));
    a.shutdown().await;
    b2.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retired_durable_inbox_is_gone_with_its_queued_messages() {
    let server = NatsServer::start();
    let (a, nats_a) = platform(&server.url()).await;
    let (b, _nats_b) = platform(&server.url()).await;
    b.spawn("inbox", DurableWorker::default()).await.unwrap();
    let caller = a.spawn("caller", Caller).await.unwrap();
    within(
        Duration::from_secs(5),
        "the durable registration is seen",
        || nats_a.durable_agents().iter().any(|id| id == "inbox"),
    )
    .await;
    b.shutdown().await;
    let pm = caller.protocol_manager().unwrap();
    let error = pm
        .request("inbox", "record", params! {"n" => "queued"})
        .await
        .unwrap_err();
    assert_eq!(error, ProtocolError::Timeout);

    nats_a.retire_durable("inbox").await.unwrap();
    within(Duration::from_secs(5), "the retirement is seen", || {
        !nats_a.reaches(&"inbox".into())
    })
    .await;
    let error = pm
        .execute_action("inbox", "record", params! {"n" => "late"})
        .await
        .unwrap_err();
    assert_eq!(error.to_string(), "Unknown receiver: inbox");

    // The queued message went with it: a new durable inbox of that id starts empty.
    let (b2, _nats_b2) = platform(&server.url()).await;
    let fresh = DurableWorker::default();
    let runs = std::sync::Arc::clone(&fresh.runs);
    b2.spawn("inbox", fresh).await.unwrap();
    discover(&nats_a, &["inbox"]).await;
    let reply = pm
        .execute_action("inbox", "record", params! {"n" => "first"})
        .await
        .unwrap();
    assert_eq!(reply.payload(), &json!({"n": "first"}));
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(*runs.lock().unwrap(), ["first"]);
    a.shutdown().await;
    b2.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopped_durable_receiver_gets_its_messages_when_it_starts_again() {
    let server = NatsServer::start();
    let (a, nats_a) = platform(&server.url()).await;
    let (b, _nats_b) = platform(&server.url()).await;
    let worker = DurableWorker::default();
    let runs = std::sync::Arc::clone(&worker.runs);
    let inbox = b.spawn("inbox", worker).await.unwrap();
    let caller = a.spawn("caller", Caller).await.unwrap();
    discover(&nats_a, &["inbox"]).await;
    within(
        Duration::from_secs(5),
        "the durable registration is seen",
        || nats_a.durable_agents().iter().any(|id| id == "inbox"),
    )
    .await;
    let inbox_pm = inbox.protocol_manager().unwrap();
    inbox_pm.stop().await;
    let pm = caller.protocol_manager().unwrap();
    for n in 0..3 {
        // Refused for now, not answered with an error: it goes back to the stream.
        let error = pm
            .request(
                "inbox",
                "record",
                params! {"n" => format!("while-stopped-{n}")},
            )
            .await
            .unwrap_err();
        assert_eq!(error, ProtocolError::Timeout);
    }
    assert!(runs.lock().unwrap().is_empty());
    inbox_pm.start().await.unwrap();
    within(
        Duration::from_secs(10),
        "the refused messages are delivered",
        || runs.lock().unwrap().len() >= 3,
    )
    .await;
    tokio::time::sleep(Duration::from_secs(3)).await;
    let mut got = runs.lock().unwrap().clone();
    got.sort();
    assert_eq!(
        got,
        ["while-stopped-0", "while-stopped-1", "while-stopped-2"]
    );
    a.shutdown().await;
    b.shutdown().await;
}
