//! Spawning, terminating, stopping and starting agents; platform isolation.

mod common;

use std::time::Duration;

use common::{Caller, Worker};
use serde_json::json;
use tnsai_coordination::{Platform, ProtocolError, SpawnError};
use tnsai_core::prelude::*;

#[tokio::test]
async fn ids_must_be_unique_and_non_empty() {
    let platform = Platform::new();
    platform.spawn("worker", Worker::default()).await.unwrap();
    let duplicate = platform
        .spawn("worker", Worker::default())
        .await
        .unwrap_err();
    assert_eq!(duplicate, SpawnError::DuplicateId(AgentId::from("worker")));
    assert!(duplicate.to_string().contains("already in use"));
    assert_eq!(
        platform.spawn("", Worker::default()).await.unwrap_err(),
        SpawnError::EmptyId
    );
    assert_eq!(
        platform.spawn("   ", Worker::default()).await.unwrap_err(),
        SpawnError::EmptyId
    );
    assert_eq!(platform.agents(), vec![AgentId::from("worker")]);
}

#[tokio::test]
async fn handles_expose_id_agent_and_manager() {
    #[agent]
    #[derive(Default)]
    struct Plain {
        value: u32,
    }

    let platform = Platform::new();
    let plain = platform.spawn("plain", Plain { value: 7 }).await.unwrap();
    assert_eq!(plain.id(), "plain");
    assert_eq!(plain.agent().value, 7);
    assert!(plain.protocol_manager().is_none());

    let caller = platform.spawn("caller", Caller).await.unwrap();
    let pm = caller.protocol_manager().expect("annotated agent");
    assert_eq!(pm.agent_id(), "caller");
    assert!(pm.is_started());
    assert!(pm.has_paradigm("DIRECT"));
    assert!(pm.has_paradigm("request_reply"));
    assert!(!pm.has_paradigm("BROADCAST"));
    assert!(!pm.has_paradigm("NOT-A-PARADIGM"));
    assert_eq!(
        pm.paradigms().into_iter().collect::<Vec<_>>(),
        [Paradigm::Direct, Paradigm::RequestReply]
    );
}

#[tokio::test]
async fn a_terminated_agent_leaves_discovery() {
    let platform = Platform::new();
    let worker = platform.spawn("worker", Worker::default()).await.unwrap();
    let pm = common::manager(&platform, "caller", Caller).await;
    pm.execute_action("worker", "echo", Params::new())
        .await
        .unwrap();
    worker.terminate().await;
    assert!(worker.is_terminated());
    assert!(!platform.contains("worker"));
    let error = pm
        .execute_action("worker", "echo", Params::new())
        .await
        .unwrap_err();
    assert_eq!(error.to_string(), "Unknown receiver: worker");
    // Its manager is stopped for good, and the id can be used again.
    let worker_pm = worker.protocol_manager().unwrap();
    assert!(!worker_pm.is_started());
    assert!(matches!(
        worker_pm.start().await,
        Err(ProtocolError::Terminated(_))
    ));
    let again = platform.spawn("worker", Worker::default()).await.unwrap();
    pm.execute_action("worker", "echo", Params::new())
        .await
        .unwrap();
    // Terminating the stale handle does not touch the new agent.
    worker.terminate().await;
    assert!(platform.contains("worker"));
    assert!(!again.is_terminated());
}

#[tokio::test]
async fn calls_queued_at_a_terminated_agent_get_an_error_not_silence() {
    let platform = Platform::with_config(
        tnsai_coordination::PlatformConfig::new().with_max_concurrent_actions(1),
    );
    let worker = platform.spawn("worker", Worker::default()).await.unwrap();
    let pm = common::manager(&platform, "caller", Caller).await;
    // One slow action occupies the only slot; the rest wait in the mailbox.
    let slow =
        tokio::spawn(pm.execute_action("worker", "sleep", params! {"ms" => 300, "tag" => "slow"}));
    tokio::time::sleep(Duration::from_millis(50)).await;
    let queued: Vec<_> = (0..5)
        .map(|i| tokio::spawn(pm.execute_action("worker", "echo", params! {"i" => i})))
        .collect();
    tokio::time::sleep(Duration::from_millis(50)).await;
    worker.terminate().await;
    // The running action finishes and answers; queued calls are refused.
    let slow = slow.await.unwrap().unwrap();
    assert_eq!(slow.payload(), &json!({"tag": "slow"}));
    for call in queued {
        let error = call.await.unwrap().unwrap_err();
        assert!(
            matches!(error, ProtocolError::ReceiverUnavailable(_)),
            "{error:?}"
        );
    }
}

#[tokio::test]
async fn stop_and_start() {
    let platform = Platform::new();
    let worker = platform.spawn("worker", Worker::default()).await.unwrap();
    let caller = platform.spawn("caller", Caller).await.unwrap();
    let pm = caller.protocol_manager().unwrap();
    pm.stop().await;
    assert!(!pm.is_started());
    let error = pm
        .execute_action("worker", "echo", Params::new())
        .await
        .unwrap_err();
    assert_eq!(error.to_string(), "Transport not started");
    pm.start().await.unwrap();
    pm.execute_action("worker", "echo", Params::new())
        .await
        .unwrap();

    // A stopped receiver refuses calls with a clear error.
    let worker_pm = worker.protocol_manager().unwrap();
    worker_pm.stop().await;
    let error = pm
        .execute_action("worker", "echo", Params::new())
        .await
        .unwrap_err();
    assert!(
        matches!(error, ProtocolError::ReceiverUnavailable(_)),
        "{error:?}"
    );
    worker_pm.start().await.unwrap();
    pm.execute_action("worker", "echo", Params::new())
        .await
        .unwrap();
}

#[tokio::test]
async fn stopping_ends_calls_that_wait_for_an_answer() {
    let platform = Platform::new();
    platform.spawn("worker", Worker::default()).await.unwrap();
    let pm = common::manager(&platform, "caller", Caller).await;
    let waiting = tokio::spawn(pm.execute_action("worker", "sleep", params! {"ms" => 5_000}));
    tokio::time::sleep(Duration::from_millis(50)).await;
    pm.stop().await;
    let error = waiting.await.unwrap().unwrap_err();
    assert_eq!(error, ProtocolError::TransportNotStarted);
}

#[tokio::test]
async fn dropping_a_handle_does_not_stop_its_agent() {
    let platform = Platform::new();
    drop(platform.spawn("worker", Worker::default()).await.unwrap());
    let pm = common::manager(&platform, "caller", Caller).await;
    pm.execute_action("worker", "echo", Params::new())
        .await
        .unwrap();
}

#[tokio::test]
async fn platforms_share_nothing() {
    let first = Platform::new();
    let second = Platform::new();
    first.spawn("worker", Worker::default()).await.unwrap();
    // The same id on another platform is fine.
    second.spawn("worker", Worker::default()).await.unwrap();
    let only_second = common::manager(&second, "caller", Caller).await;
    first.spawn("lonely", Worker::default()).await.unwrap();
    let error = only_second
        .execute_action("lonely", "echo", Params::new())
        .await
        .unwrap_err();
    assert_eq!(error.to_string(), "Unknown receiver: lonely");
}

#[tokio::test]
async fn shutdown_terminates_everything() {
    let platform = Platform::new();
    let worker = platform.spawn("worker", Worker::default()).await.unwrap();
    let caller = platform.spawn("caller", Caller).await.unwrap();
    platform.shutdown().await;
    assert!(platform.is_empty());
    assert!(worker.is_terminated() && caller.is_terminated());
    let error = caller
        .protocol_manager()
        .unwrap()
        .execute_action("worker", "echo", Params::new())
        .await;
    assert_eq!(error.unwrap_err(), ProtocolError::TransportNotStarted);
    assert_eq!(
        platform.spawn("late", Worker::default()).await.unwrap_err(),
        SpawnError::PlatformShutDown
    );
}

#[tokio::test]
async fn a_manager_kept_after_its_platform_is_gone_answers_not_started() {
    let pm = {
        let platform = Platform::new();
        let caller = platform.spawn("caller", Caller).await.unwrap();
        platform.shutdown().await;
        caller.protocol_manager().unwrap()
    };
    let error = pm
        .execute_action("anyone", "echo", Params::new())
        .await
        .unwrap_err();
    assert_eq!(error.to_string(), "Transport not started");
}
