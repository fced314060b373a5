//! Many agents, many messages: concurrency, ordering, backpressure and load.

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{Caller, Worker};
use serde_json::json;
use tnsai_coordination::{
    AgentHandle, DebateSession, DeliveryReport, Platform, PlatformConfig, ProtocolError,
    ProtocolManager,
};
use tnsai_core::prelude::*;

fn assert_send_sync<T: Send + Sync + 'static>() {}
fn assert_send<T: Send>(_: &T) {}

#[test]
fn public_types_are_send_and_sync() {
    assert_send_sync::<Platform>();
    assert_send_sync::<ProtocolManager>();
    assert_send_sync::<AgentHandle<Worker>>();
    assert_send_sync::<Message>();
    assert_send_sync::<AgentId>();
    assert_send_sync::<Params>();
    assert_send_sync::<DeliveryReport>();
    assert_send_sync::<DebateSession>();
    assert_send_sync::<ProtocolError>();
    assert_send_sync::<Arc<dyn LanguageModel>>();
}

#[tokio::test]
async fn manager_futures_are_send() {
    let platform = Platform::new();
    let pm = common::manager(&platform, "caller", Caller).await;
    let future = pm.execute_action("caller", "x", Params::new());
    assert_send(&future);
    assert_send(&pm.request("caller", "x", Params::new()));
    assert_send(&pm.send_message("caller", "x"));
    assert_send(&pm.start_debate("t", ["a"]));
    assert_send(&platform.spawn("another", Caller));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_slow_action_never_holds_up_the_others() {
    let platform = Platform::new();
    platform.spawn("worker", Worker::default()).await.unwrap();
    let pm = common::manager(&platform, "caller", Caller).await;
    let slow = tokio::spawn(pm.execute_action("worker", "sleep", params! {"ms" => 3_000}));
    tokio::time::sleep(Duration::from_millis(20)).await;
    let started = Instant::now();
    for i in 0..20 {
        pm.execute_action("worker", "echo", params! {"i" => i})
            .await
            .unwrap();
    }
    // Generous bound: twenty quick calls must not wait for the 3 s action.
    assert!(
        started.elapsed() < Duration::from_millis(2_500),
        "{:?}",
        started.elapsed()
    );
    assert!(!slow.is_finished());
    slow.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn actions_of_one_agent_run_concurrently_up_to_the_limit() {
    let platform = Platform::with_config(PlatformConfig::new().with_max_concurrent_actions(10));
    platform.spawn("worker", Worker::default()).await.unwrap();
    let pm = common::manager(&platform, "caller", Caller).await;
    let started = Instant::now();
    let calls: Vec<_> = (0..10)
        .map(|_| tokio::spawn(pm.execute_action("worker", "sleep", params! {"ms" => 400})))
        .collect();
    for call in calls {
        call.await.unwrap().unwrap();
    }
    // Ten 400 ms actions side by side take about 400 ms, not 4 s.
    assert!(
        started.elapsed() < Duration::from_millis(2_000),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_into_a_small_mailbox_waits_and_loses_nothing() {
    let platform = Platform::with_config(
        PlatformConfig::new()
            .with_mailbox_capacity(4)
            .with_max_concurrent_actions(2),
    );
    let worker = platform.spawn("worker", Worker::default()).await.unwrap();
    let pm = common::manager(&platform, "caller", Caller).await;
    let calls: Vec<_> = (0..500)
        .map(|i| tokio::spawn(pm.execute_action("worker", "echo", params! {"i" => i})))
        .collect();
    for (i, call) in calls.into_iter().enumerate() {
        let reply = call.await.unwrap().unwrap();
        assert_eq!(reply.payload(), &json!({"i": i}));
    }
    assert_eq!(
        worker
            .agent()
            .calls
            .load(std::sync::atomic::Ordering::SeqCst),
        500
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_hundred_agents_each_make_fifty_calls_to_others() {
    const AGENTS: usize = 200;
    const CALLS: usize = 50;
    let platform = Platform::new();
    let mut managers = Vec::with_capacity(AGENTS);
    for i in 0..AGENTS {
        let handle = platform
            .spawn(format!("agent-{i}"), Worker::default())
            .await
            .unwrap();
        managers.push(handle.protocol_manager().unwrap());
    }
    let tasks: Vec<_> = managers
        .into_iter()
        .enumerate()
        .map(|(i, pm)| {
            tokio::spawn(async move {
                for call in 0..CALLS {
                    let target = format!("agent-{}", (i + call * 7 + 1) % AGENTS);
                    let params = params! {"from" => i, "call" => call};
                    let reply = if call % 2 == 0 {
                        pm.execute_action(target.as_str(), "echo", params).await
                    } else {
                        pm.request(target.as_str(), "echo", params).await
                    }
                    .unwrap();
                    assert_eq!(reply.payload(), &json!({"from": i, "call": call}));
                    assert_eq!(reply.sender().as_str(), target);
                }
                CALLS
            })
        })
        .collect();
    let mut total = 0;
    for task in tasks {
        total += task.await.unwrap();
    }
    assert_eq!(total, AGENTS * CALLS);
}
