//! Request/reply: timeouts, and late replies that must never reach a later request.

mod common;

use std::time::{Duration, Instant};

use common::{Caller, Worker};
use serde_json::json;
use tnsai_coordination::{Platform, ProtocolError};
use tnsai_core::prelude::*;

#[tokio::test]
async fn a_request_returns_the_reply() {
    let platform = Platform::new();
    platform.spawn("worker", Worker::default()).await.unwrap();
    let pm = common::manager(&platform, "caller", Caller).await;
    let reply = pm
        .request("worker", "processOrder", params! {"orderId" => "7"})
        .await
        .unwrap();
    assert_eq!(reply.payload()["status"], "processed");
}

#[tokio::test]
async fn a_slow_reply_times_out_after_the_attribute_timeout() {
    let platform = Platform::new();
    platform.spawn("worker", Worker::default()).await.unwrap();
    let pm = common::manager(&platform, "caller", Caller).await;
    let started = Instant::now();
    let error = pm
        .request("worker", "sleep", params! {"ms" => 2_000, "tag" => "slow"})
        .await
        .unwrap_err();
    let waited = started.elapsed();
    assert_eq!(error, ProtocolError::Timeout);
    assert_eq!(error.to_string(), "Request timed out");
    // The caller's timeout is 300 ms: generous bounds, no speed assertion.
    assert!(waited >= Duration::from_millis(250), "{waited:?}");
    assert!(waited < Duration::from_millis(1_500), "{waited:?}");
}

#[tokio::test]
async fn late_replies_are_dropped_never_delivered_to_a_later_request() {
    let platform = Platform::new();
    platform.spawn("worker", Worker::default()).await.unwrap();
    let pm = common::manager(&platform, "caller", Caller).await;
    for round in 0..5 {
        // Replies after ~400 ms, past the 300 ms timeout.
        let late = pm
            .request(
                "worker",
                "sleep",
                params! {"ms" => 400, "tag" => format!("late-{round}")},
            )
            .await;
        assert_eq!(late.unwrap_err(), ProtocolError::Timeout);
        // Sleep past the late reply's arrival, then ask again: only our own answer counts.
        tokio::time::sleep(Duration::from_millis(150)).await;
        let fresh = pm
            .request(
                "worker",
                "sleep",
                params! {"ms" => 0, "tag" => format!("fresh-{round}")},
            )
            .await
            .unwrap();
        assert_eq!(fresh.payload(), &json!({"tag": format!("fresh-{round}")}));
    }
}

#[tokio::test]
async fn overlapping_requests_each_get_their_own_reply() {
    let platform = Platform::new();
    platform.spawn("worker", Worker::default()).await.unwrap();
    let pm = common::manager(&platform, "caller", Caller).await;
    let calls: Vec<_> = (0..40)
        .map(|i| {
            let ms = (40 - i) * 3;
            tokio::spawn(pm.request("worker", "sleep", params! {"ms" => ms, "tag" => i}))
        })
        .collect();
    for (i, call) in calls.into_iter().enumerate() {
        let reply = call.await.unwrap().unwrap();
        assert_eq!(reply.payload(), &json!({"tag": i}));
    }
}

/// Records that its slow action ran to the end.
#[direct_message]
#[request_reply(timeout = 100)]
#[derive(Default)]
struct Ledger {
    finished: std::sync::atomic::AtomicUsize,
}

#[actions]
impl Ledger {
    /// Takes 300 ms, then records the entry.
    #[action]
    async fn record(&self, _params: Params) -> ActionResult {
        tokio::time::sleep(Duration::from_millis(300)).await;
        self.finished
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Ok(json!("recorded"))
    }
}

#[tokio::test]
async fn an_action_runs_to_the_end_when_its_caller_gives_up() {
    let platform = Platform::new();
    let ledger = platform.spawn("ledger", Ledger::default()).await.unwrap();
    let pm = ledger.protocol_manager().unwrap();
    // The request times out after 100 ms; the action goes on.
    let error = pm
        .request("ledger", "record", Params::new())
        .await
        .unwrap_err();
    assert_eq!(error, ProtocolError::Timeout);
    // A caller that is cancelled outright does not cancel the action either.
    let abandoned = tokio::time::timeout(
        Duration::from_millis(50),
        pm.execute_action("ledger", "record", Params::new()),
    )
    .await;
    assert!(abandoned.is_err());
    tokio::time::sleep(Duration::from_millis(600)).await;
    let finished = ledger
        .agent()
        .finished
        .load(std::sync::atomic::Ordering::SeqCst);
    assert_eq!(finished, 2, "both actions ran to the end");
}
