//! Publish/subscribe: topics, NATS-style wildcards, case, filters.

mod common;

use common::Inbox;
use serde_json::json;
use tnsai_coordination::{Platform, ProtocolError};
use tnsai_core::prelude::*;

macro_rules! subscriber {
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

subscriber!(Publisher, #[pub_sub(topics = ["control"])]);
subscriber!(CpuWatcher, #[pub_sub(topics = ["metrics.cpu"])]);
subscriber!(AnyMetric, #[pub_sub(topics = ["metrics.*"])]);
subscriber!(AllAlerts, #[pub_sub(topics = ["Alerts.>"])]);
subscriber!(Everything, #[pub_sub(topics = [">"])]);
subscriber!(Deaf, #[pub_sub(topics = ["metrics.cpu"], can_subscribe = false)]);
subscriber!(ReadOnly, #[pub_sub(topics = ["metrics.cpu"], can_publish = false)]);
subscriber!(Critical, #[pub_sub(topics = ["alerts.>"], filter = "level >= 3 && source != 'test'")]);
subscriber!(NewsCaster, #[broadcast(topic = "metrics.cpu")]);

async fn names(report: &tnsai_coordination::DeliveryReport) -> Vec<String> {
    report.delivered().iter().map(ToString::to_string).collect()
}

#[tokio::test]
async fn wildcards_case_and_filters_pick_the_recipients() {
    let platform = Platform::new();
    let publisher = platform
        .spawn("publisher", Publisher::default())
        .await
        .unwrap();
    platform.spawn("cpu", CpuWatcher::default()).await.unwrap();
    platform
        .spawn("any-metric", AnyMetric::default())
        .await
        .unwrap();
    platform
        .spawn("all-alerts", AllAlerts::default())
        .await
        .unwrap();
    platform
        .spawn("everything", Everything::default())
        .await
        .unwrap();
    platform.spawn("deaf", Deaf::default()).await.unwrap();
    platform
        .spawn("critical", Critical::default())
        .await
        .unwrap();
    platform
        .spawn("newscaster", NewsCaster::default())
        .await
        .unwrap();
    let pm = publisher.protocol_manager().unwrap();

    let report = pm
        .publish("metrics.cpu", json!({"load": 0.9}))
        .await
        .unwrap();
    assert_eq!(
        names(&report).await,
        ["any-metric", "cpu", "everything", "newscaster"]
    );

    let report = pm.publish("METRICS.Memory", json!({})).await.unwrap();
    assert_eq!(names(&report).await, ["any-metric", "everything"]);

    let report = pm.publish("metrics.cpu.core0", json!({})).await.unwrap();
    assert_eq!(names(&report).await, ["everything"]);

    let report = pm
        .publish("alerts.disk.full", json!({"level": 4, "source": "sda"}))
        .await
        .unwrap();
    assert_eq!(
        names(&report).await,
        ["all-alerts", "critical", "everything"]
    );

    let report = pm
        .publish("alerts.disk", json!({"level": 4, "source": "test"}))
        .await
        .unwrap();
    assert_eq!(names(&report).await, ["all-alerts", "everything"]);

    let report = pm.publish("alerts", json!({"level": 9})).await.unwrap();
    assert_eq!(names(&report).await, ["everything"]);

    let report = pm.publish("nobody.listens", json!({})).await.unwrap();
    assert_eq!(names(&report).await, ["everything"]);
}

#[tokio::test]
async fn published_messages_arrive_with_topic_and_payload() {
    let platform = Platform::new();
    let publisher = platform
        .spawn("publisher", Publisher::default())
        .await
        .unwrap();
    let cpu = platform.spawn("cpu", CpuWatcher::default()).await.unwrap();
    let pm = publisher.protocol_manager().unwrap();
    pm.publish("metrics.cpu", json!({"load": 0.5}))
        .await
        .unwrap();
    cpu.agent().inbox.wait_for(1).await;
    let message = cpu.agent().inbox.messages.lock().await[0].clone();
    assert_eq!(message.kind(), MessageKind::Publish);
    assert_eq!(message.topic(), Some("metrics.cpu"));
    assert_eq!(message.payload(), &json!({"load": 0.5}));
    assert_eq!(message.sender(), "publisher");
}

#[tokio::test]
async fn bad_topics_and_can_publish_false_are_refused() {
    let platform = Platform::new();
    let publisher = platform
        .spawn("publisher", Publisher::default())
        .await
        .unwrap();
    let read_only = platform
        .spawn("read-only", ReadOnly::default())
        .await
        .unwrap();
    let pm = publisher.protocol_manager().unwrap();
    for topic in ["", "  ", "metrics.*", "alerts.>"] {
        let error = pm.publish(topic, json!({})).await.unwrap_err();
        assert!(
            matches!(error, ProtocolError::InvalidTopic(_)),
            "{topic:?}: {error:?}"
        );
    }
    let error = read_only
        .protocol_manager()
        .unwrap()
        .publish("metrics.cpu", 1)
        .await
        .unwrap_err();
    assert_eq!(error, ProtocolError::PublishNotAllowed(Paradigm::PubSub));
    // The publisher is never its own recipient, even when it subscribes to the topic.
    let report = pm.publish("control", json!({})).await.unwrap();
    assert!(report.delivered().is_empty());
}
