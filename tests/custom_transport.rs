//! A transport written outside the crate, against the public `Transport` trait, and the
//! router's choices between it and the in-process path.

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{Caller, Worker};
use tnsai_coordination::{DeliveryReport, Platform, Transport, TransportError};
use tnsai_core::prelude::*;
use tnsai_core::{BoxFuture, TransportMode};

/// Pretends to reach agents on another platform and records what it is given.
#[derive(Default)]
struct Recorder {
    reaches: Vec<&'static str>,
    sent: Mutex<Vec<Message>>,
}

impl Transport for Recorder {
    fn mode(&self) -> TransportMode {
        TransportMode::Http
    }
    fn start(&self) -> BoxFuture<'_, Result<(), TransportError>> {
        Box::pin(async { Ok(()) })
    }
    fn stop(&self) -> BoxFuture<'_, ()> {
        Box::pin(async {})
    }
    fn is_started(&self) -> bool {
        true
    }
    fn reaches(&self, agent: &AgentId) -> bool {
        self.reaches.contains(&agent.as_str())
    }
    fn send(&self, message: Message) -> BoxFuture<'_, Result<(), TransportError>> {
        self.sent.lock().unwrap().push(message);
        Box::pin(async { Ok(()) })
    }
    fn publish(&self, _message: Message) -> BoxFuture<'_, DeliveryReport> {
        Box::pin(async { DeliveryReport::new(vec![AgentId::from("remote-listener")], Vec::new()) })
    }
}

fn sent(recorder: &Recorder) -> Vec<Message> {
    recorder.sent.lock().unwrap().clone()
}

#[tokio::test]
async fn remote_receivers_go_through_the_transport_that_reaches_them() {
    let platform = Platform::new();
    let recorder = Arc::new(Recorder {
        reaches: vec!["far-away"],
        ..Recorder::default()
    });
    platform.add_transport(Arc::clone(&recorder) as Arc<dyn Transport>);
    let caller = common::manager(&platform, "caller", Caller).await;
    // Nobody answers over the recorder, so the call times out; what matters is the route.
    let error = caller
        .request("far-away", "echo", Params::new())
        .await
        .unwrap_err();
    assert_eq!(error.to_string(), "Request timed out");
    let carried = sent(&recorder);
    assert_eq!(carried.len(), 1);
    assert_eq!(carried[0].receiver().unwrap(), "far-away");
    // An id nobody reaches is still an unknown receiver.
    let error = caller
        .request("nowhere", "echo", Params::new())
        .await
        .unwrap_err();
    assert_eq!(error.to_string(), "Unknown receiver: nowhere");
}

#[tokio::test]
async fn publications_reach_remote_subscribers_too() {
    #[pub_sub(topics = ["news"])]
    struct Reader;

    let platform = Platform::new();
    let recorder = Arc::new(Recorder::default());
    platform.add_transport(Arc::clone(&recorder) as Arc<dyn Transport>);
    let publisher = common::manager(&platform, "publisher", Reader).await;
    platform.spawn("local-reader", Reader).await.unwrap();
    let report = publisher.publish("news", "hello").await.unwrap();
    let names: Vec<&str> = report.delivered().iter().map(AgentId::as_str).collect();
    assert_eq!(names, ["local-reader", "remote-listener"]);
}

#[tokio::test]
async fn an_answer_goes_to_the_caller_not_to_a_local_agent_with_the_same_id() {
    // The same id runs here and on another platform (as in a queue group). A request from
    // the other one arrives; its answer must travel back there, not to the local twin,
    // which is waiting for nothing.
    let platform = Platform::new();
    let recorder = Arc::new(Recorder {
        reaches: vec!["twin"],
        ..Recorder::default()
    });
    platform.add_transport(Arc::clone(&recorder) as Arc<dyn Transport>);
    platform.spawn("twin", Worker::default()).await.unwrap();
    platform.spawn("worker", Worker::default()).await.unwrap();
    let request = Message::builder(MessageKind::Action, "twin")
        .receiver("worker")
        .action("echo")
        .params(params! {"from" => "the other twin"})
        .build();
    platform.deliver(request.clone()).await.unwrap();
    common::eventually(|| !sent(&recorder).is_empty()).await;
    let answer = &sent(&recorder)[0];
    assert_eq!(answer.in_reply_to(), Some(request.id()));
    assert_eq!(answer.payload()["from"], "the other twin");

    // A call the local twin makes still gets its answer locally.
    let twin_caller = common::manager(&platform, "caller", Caller).await;
    let reply = tokio::time::timeout(
        Duration::from_secs(5),
        twin_caller.execute_action("worker", "echo", Params::new()),
    )
    .await
    .unwrap()
    .unwrap();
    assert_eq!(reply.receiver().unwrap(), "caller");
}

#[tokio::test]
async fn a_debate_step_to_a_host_that_never_answers_times_out() {
    #[debate]
    struct Member;

    // The host lives behind a transport that takes messages and never answers.
    let platform = Platform::with_config(
        tnsai_coordination::PlatformConfig::new()
            .with_debate_call_timeout(Duration::from_millis(200)),
    );
    let recorder = Arc::new(Recorder {
        reaches: vec!["far-chair"],
        ..Recorder::default()
    });
    platform.add_transport(Arc::clone(&recorder) as Arc<dyn Transport>);
    let member = common::manager(&platform, "member", Member).await;
    let invitation = Message::builder(MessageKind::Debate, "far-chair")
        .receiver("member")
        .action("invite")
        .params(params! {"session" => "s-1", "topic" => "Deploy?"})
        .build();
    platform.deliver(invitation).await.unwrap();
    common::eventually(|| !sent(&recorder).is_empty()).await; // the acceptance went out

    let started = std::time::Instant::now();
    let error = member.debate("s-1").await.unwrap_err();
    assert_eq!(error.to_string(), "Request timed out");
    assert!(started.elapsed() < Duration::from_secs(5));
}
