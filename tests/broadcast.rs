//! Broadcast: who receives it, who does not, and what the sender learns.

mod common;

use common::Inbox;
use serde_json::json;
use tnsai_coordination::{Platform, ProtocolError};
use tnsai_core::prelude::*;

macro_rules! listener {
    ($name:ident, $(#[$attr:meta])*) => {
        $(#[$attr])*
        #[derive(Default)]
        struct $name {
            inbox: Inbox,
        }

        #[actions]
        impl $name {
            #[on_message_received]
            async fn on_message(&self, message: Message) {
                self.inbox.messages.lock().await.push(message);
            }
        }
    };
}

listener!(NewsDesk, #[broadcast(topic = "news")]);
listener!(ShoutingDesk, #[broadcast(topic = "NEWS")]);
listener!(SportsDesk, #[broadcast(topic = "sports")]);
listener!(Silent, #[broadcast(topic = "news", can_subscribe = false)]);
listener!(Mute, #[broadcast(topic = "news", can_publish = false)]);
listener!(Subscriber, #[pub_sub(topics = ["weather", "News"])]);
listener!(HighOnly, #[pub_sub(topics = ["news"], filter = "priority == 'high'")]);
listener!(Lurker, #[agent]);

#[tokio::test]
async fn broadcast_reaches_every_matching_agent_and_reports_them_sorted() {
    let platform = Platform::new();
    let sender = platform
        .spawn("a-sender", NewsDesk::default())
        .await
        .unwrap();
    let desk = platform.spawn("desk", NewsDesk::default()).await.unwrap();
    let shouting = platform
        .spawn("shouting", ShoutingDesk::default())
        .await
        .unwrap();
    let sports = platform
        .spawn("sports", SportsDesk::default())
        .await
        .unwrap();
    let silent = platform.spawn("silent", Silent::default()).await.unwrap();
    let subscriber = platform
        .spawn("subscriber", Subscriber::default())
        .await
        .unwrap();
    let high = platform
        .spawn("high-only", HighOnly::default())
        .await
        .unwrap();
    platform.spawn("lurker", Lurker::default()).await.unwrap();

    let pm = sender.protocol_manager().unwrap();
    let report = pm
        .broadcast(json!({"headline": "rates cut", "priority": "low"}))
        .await
        .unwrap();
    let delivered: Vec<&str> = report.delivered().iter().map(AgentId::as_str).collect();
    // Sorted; the sender, other topics, can_subscribe = false, the filter and agents
    // without a subscription are skipped.
    assert_eq!(delivered, ["desk", "shouting", "subscriber"]);
    assert!(report.failed().is_empty());

    desk.agent().inbox.wait_for(1).await;
    shouting.agent().inbox.wait_for(1).await;
    subscriber.agent().inbox.wait_for(1).await;
    let received = &desk.agent().inbox.messages.lock().await[0];
    assert_eq!(received.kind(), MessageKind::Broadcast);
    assert_eq!(received.sender(), "a-sender");
    assert_eq!(received.topic(), Some("news"));
    assert_eq!(received.payload()["headline"], "rates cut");
    assert_eq!(sports.agent().inbox.len().await, 0);
    assert_eq!(silent.agent().inbox.len().await, 0);
    assert_eq!(high.agent().inbox.len().await, 0);
    assert_eq!(sender.agent().inbox.len().await, 0);

    let report = pm
        .broadcast(json!({"headline": "storm", "priority": "high"}))
        .await
        .unwrap();
    let delivered: Vec<&str> = report.delivered().iter().map(AgentId::as_str).collect();
    assert_eq!(delivered, ["desk", "high-only", "shouting", "subscriber"]);
    high.agent().inbox.wait_for(1).await;
}

#[tokio::test]
async fn can_publish_false_refuses_the_call() {
    let platform = Platform::new();
    let mute = platform.spawn("mute", Mute::default()).await.unwrap();
    let listener = platform
        .spawn("listener", NewsDesk::default())
        .await
        .unwrap();
    let error = mute
        .protocol_manager()
        .unwrap()
        .broadcast("hello")
        .await
        .unwrap_err();
    assert_eq!(error, ProtocolError::PublishNotAllowed(Paradigm::Broadcast));
    assert!(error.to_string().contains("can_publish = false"));
    // It still receives what others broadcast.
    let report = listener
        .protocol_manager()
        .unwrap()
        .broadcast("hi")
        .await
        .unwrap();
    assert_eq!(report.delivered(), [AgentId::from("mute")]);
}

#[tokio::test]
async fn callbacks_run_one_at_a_time_in_arrival_order() {
    let platform = Platform::new();
    let sender = platform.spawn("sender", NewsDesk::default()).await.unwrap();
    let reader = platform.spawn("reader", NewsDesk::default()).await.unwrap();
    let pm = sender.protocol_manager().unwrap();
    for i in 0..300 {
        pm.broadcast(json!({ "seq": i })).await.unwrap();
    }
    reader.agent().inbox.wait_for(300).await;
    let seqs: Vec<i64> = reader
        .agent()
        .inbox
        .payloads()
        .await
        .iter()
        .map(|p| p["seq"].as_i64().unwrap())
        .collect();
    assert_eq!(seqs, (0..300).collect::<Vec<_>>());
}

#[tokio::test]
async fn a_stopped_or_terminated_subscriber_is_reported_as_failed_or_gone() {
    let platform = Platform::new();
    let sender = platform.spawn("sender", NewsDesk::default()).await.unwrap();
    let paused = platform.spawn("paused", NewsDesk::default()).await.unwrap();
    let gone = platform.spawn("gone", NewsDesk::default()).await.unwrap();
    paused.protocol_manager().unwrap().stop().await;
    gone.terminate().await;
    let report = sender
        .protocol_manager()
        .unwrap()
        .broadcast("hi")
        .await
        .unwrap();
    assert!(report.delivered().is_empty());
    assert_eq!(report.failed().len(), 1);
    let (id, reason) = &report.failed()[0];
    assert_eq!(id, "paused");
    assert!(reason.contains("not started"), "{reason}");
    paused.protocol_manager().unwrap().start().await.unwrap();
    let report = sender
        .protocol_manager()
        .unwrap()
        .broadcast("again")
        .await
        .unwrap();
    assert_eq!(report.delivered(), [AgentId::from("paused")]);
}
