//! Every paradigm between two platforms over real sockets on 127.0.0.1.
#![cfg(feature = "http")]

mod common;
mod http_support;

use std::time::Duration;

use http_support::{Hub, Member, NewsDesk, Pager, Pair, config};
use serde_json::json;
use tnsai_coordination::transport::http::{HttpTransport, PeerErrorKind};
use tnsai_coordination::{DebateEvent, DebateStatus, Platform, ProtocolError};
use tnsai_core::ProtocolSpecs;
use tnsai_core::prelude::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn direct_actions_roles_text_and_errors_cross_platforms() {
    let pair = Pair::new().await;
    pair.b
        .spawn("worker", common::Worker::default())
        .await
        .unwrap();
    pair.b.spawn("analyst", common::Analyst).await.unwrap();
    let caller = pair.a.spawn("caller", common::Caller).await.unwrap();
    pair.connect().await;
    let pm = caller.protocol_manager().unwrap();

    common::assert_direct_calls_cross(&pm).await;

    // Calls to itself and to local agents stay in-process.
    let local = pair
        .a
        .spawn("local-worker", common::Worker::default())
        .await
        .unwrap();
    pm.execute_action("local-worker", "echo", Params::new())
        .await
        .unwrap();
    assert_eq!(
        local
            .agent()
            .calls
            .load(std::sync::atomic::Ordering::SeqCst),
        1
    );
    pair.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_reply_or_time_out_across_platforms() {
    let pair = Pair::new().await;
    pair.b
        .spawn("worker", common::Worker::default())
        .await
        .unwrap();
    let caller = pair.a.spawn("caller", common::Caller).await.unwrap(); // timeout 300 ms
    pair.connect().await;
    let pm = caller.protocol_manager().unwrap();

    let reply = pm
        .request("worker", "sleep", params! {"ms" => 10, "tag" => "quick"})
        .await
        .unwrap();
    assert_eq!(reply.payload(), &json!({"tag": "quick"}));

    let started = std::time::Instant::now();
    let late = pm
        .request("worker", "sleep", params! {"ms" => 1500, "tag" => "late"})
        .await
        .unwrap_err();
    assert_eq!(late, ProtocolError::Timeout);
    assert_eq!(late.to_string(), "Request timed out");
    assert!(started.elapsed() < Duration::from_millis(1400));

    // The late reply is dropped, never handed to the next request.
    let next = pm
        .request("worker", "sleep", params! {"ms" => 1, "tag" => "next"})
        .await
        .unwrap();
    assert_eq!(next.payload(), &json!({"tag": "next"}));
    tokio::time::sleep(Duration::from_millis(1600)).await;
    let after = pm
        .request("worker", "sleep", params! {"ms" => 1, "tag" => "after"})
        .await
        .unwrap();
    assert_eq!(after.payload(), &json!({"tag": "after"}));
    pair.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn broadcasts_and_publications_reach_remote_subscribers() {
    let pair = Pair::new().await;
    let hub = pair.a.spawn("hub", Hub).await.unwrap();
    let local_desk = pair.a.spawn("desk-a", NewsDesk::default()).await.unwrap();
    let desk_b1 = pair.b.spawn("desk-b1", NewsDesk::default()).await.unwrap();
    let desk_b2 = pair.b.spawn("desk-b2", NewsDesk::default()).await.unwrap();
    let pager = pair.b.spawn("pager", Pager::default()).await.unwrap();
    pair.connect().await;
    let pm = hub.protocol_manager().unwrap();

    let report = pm.broadcast(json!({"headline": "launch"})).await.unwrap();
    assert_eq!(report.delivered(), ["desk-a", "desk-b1", "desk-b2"]);
    assert!(report.failed().is_empty());
    for desk in [&local_desk, &desk_b1, &desk_b2] {
        desk.agent().received.wait_for(1).await;
        assert_eq!(
            desk.agent().received.payloads().await,
            [json!({"headline": "launch"})]
        );
    }
    let message = desk_b1.agent().received.messages.lock().await[0].clone();
    assert_eq!(message.sender().as_str(), "hub");
    assert_eq!(message.topic(), Some("news"));

    // Publications: wildcard subscriptions and filters apply at the receiving platform.
    let report = pm
        .publish("alerts.disk.full", json!({"level": 5}))
        .await
        .unwrap();
    assert_eq!(report.delivered(), ["pager"]);
    let report = pm
        .publish("alerts.disk.full", json!({"level": 1}))
        .await
        .unwrap();
    assert!(report.delivered().is_empty());
    let report = pm
        .publish("metrics.cpu", json!({"level": 9}))
        .await
        .unwrap();
    assert!(report.delivered().is_empty());
    pager.agent().received.wait_for(1).await;
    assert_eq!(
        pager.agent().received.payloads().await,
        [json!({"level": 5})]
    );

    // A remote desk broadcasts back: the hub's platform delivers to its desk and to the
    // hub (it listens on `news` too), and the sender is skipped on its own platform.
    let b_pm = desk_b1.protocol_manager().unwrap();
    let report = b_pm.broadcast(json!({"headline": "reply"})).await.unwrap();
    assert_eq!(report.delivered(), ["desk-a", "desk-b2", "hub"]);
    desk_b2.agent().received.wait_for(2).await;
    assert_eq!(desk_b1.agent().received.len().await, 1, "not to itself");
    pair.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_debate_whose_participants_live_on_two_platforms() {
    let pair = Pair::new().await;
    let hub = pair.a.spawn("chair", Hub).await.unwrap();
    let near = pair.a.spawn("near", Member).await.unwrap();
    let far_1 = pair.b.spawn("far-1", Member).await.unwrap();
    let far_2 = pair.b.spawn("far-2", Member).await.unwrap();
    pair.connect().await;
    let chair = hub.protocol_manager().unwrap();

    let session = chair
        .start_debate("Deploy on Friday?", ["near", "far-1", "far-2"])
        .await
        .unwrap();
    assert_eq!(session.participants().len(), 3);
    let far_1 = far_1.protocol_manager().unwrap();
    let far_2 = far_2.protocol_manager().unwrap();
    let near = near.protocol_manager().unwrap();
    let mut events = far_1.debate_events(session.id()).unwrap();

    // Round 1: a split vote (Majority needs > 0.5 of three positions, with one leader).
    near.submit_debate_position(session.id(), "YES", 8, "Tests pass")
        .await
        .unwrap();
    far_1
        .submit_debate_position(session.id(), "no", 6, "Friday")
        .await
        .unwrap();
    far_2
        .counter_argument(session.id(), "near", "Staging is not production", "Wait")
        .await
        .unwrap();
    far_2
        .vote_in_debate(session.id(), "NO", true)
        .await
        .unwrap();
    let after_round_1 = far_2
        .submit_debate_position(session.id(), "Abstain", 2, "Unsure")
        .await
        .unwrap();
    assert_eq!(after_round_1.round(), 2);

    // Round 2: consensus, decided on platform A, seen from platform B.
    near.submit_debate_position(session.id(), "NO", 7, "Fine, Monday")
        .await
        .unwrap();
    far_1
        .submit_debate_position(session.id(), "NO", 9, "Monday")
        .await
        .unwrap();
    far_2
        .submit_debate_position(session.id(), "no", 5, "Agreed")
        .await
        .unwrap();

    let seen_from_b = far_2.debate(session.id()).await.unwrap();
    assert_eq!(seen_from_b.status(), DebateStatus::Consensus);
    assert_eq!(seen_from_b.decision(), Some("no"));
    assert_eq!(seen_from_b.votes().len(), 1);
    assert_eq!(seen_from_b.counter_arguments().len(), 1);

    let mut finals = Vec::new();
    while let Some(event) = tokio::time::timeout(Duration::from_secs(5), events.recv())
        .await
        .unwrap()
    {
        finals.push(event);
    }
    assert!(
        matches!(finals.first(), Some(DebateEvent::RoundClosed { .. })),
        "{finals:?}"
    );
    assert!(
        matches!(finals.last(), Some(DebateEvent::Consensus { decision, round: 2, .. }) if decision == "no"),
        "{finals:?}"
    );

    // Finished: nothing more is accepted, across the wire too.
    let late = far_1
        .submit_debate_position(session.id(), "YES", 1, "late")
        .await
        .unwrap_err();
    assert!(matches!(late, ProtocolError::DebateRefused(_)), "{late:?}");
    let not_chair = far_1.cancel_debate(session.id()).await.unwrap_err();
    assert!(
        matches!(not_chair, ProtocolError::DebateRefused(_)),
        "{not_chair:?}"
    );
    pair.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_platform_that_calls_becomes_a_peer() {
    let pair = Pair::new().await;
    let hub = pair.a.spawn("hub", Hub).await.unwrap();
    let desk = pair.b.spawn("desk-b", NewsDesk::default()).await.unwrap();
    let b_caller = pair.b.spawn("caller-b", common::Caller).await.unwrap();
    pair.a
        .spawn("worker", common::Worker::default())
        .await
        .unwrap();
    // Only b knows a.
    pair.b_http
        .add_peer(pair.a_http.url().unwrap())
        .await
        .unwrap();
    assert!(pair.a_http.peers().is_empty());
    b_caller
        .protocol_manager()
        .unwrap()
        .execute_action("worker", "echo", Params::new())
        .await
        .unwrap();
    // a learned b from the call's X-Tnsai-Origin and read its listing.
    let a_http = pair.a_http.clone();
    common::eventually(move || a_http.remote_agents().contains_key("desk-b")).await;
    assert_eq!(pair.a_http.peers(), [pair.b_http.url().unwrap().to_owned()]);
    let report = hub
        .protocol_manager()
        .unwrap()
        .broadcast("hello")
        .await
        .unwrap();
    assert_eq!(report.delivered(), ["desk-b"]);
    desk.agent().received.wait_for(1).await;
    pair.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discovery_follows_spawns_and_terminations() {
    let pair = Pair::new().await;
    let caller = pair.a.spawn("caller", common::Caller).await.unwrap();
    pair.connect().await;
    let pm = caller.protocol_manager().unwrap();
    assert!(pair.a_http.remote_agents().is_empty());

    let late = pair
        .b
        .spawn("late", common::Worker::default())
        .await
        .unwrap();
    pair.a_http.refresh().await.unwrap();
    assert_eq!(
        pair.a_http.remote_agents().get("late").map(String::as_str),
        pair.b_http.url()
    );
    pm.execute_action("late", "echo", Params::new())
        .await
        .unwrap();

    late.terminate().await;
    // Before the listing is read again the platform answers 404 for it.
    let gone = pm
        .execute_action("late", "echo", Params::new())
        .await
        .unwrap_err();
    assert_eq!(gone.to_string(), "Unknown receiver: late");
    pair.a_http.refresh().await.unwrap();
    assert!(pair.a_http.remote_agents().is_empty());

    // The periodic refresh finds new agents by itself.
    let a = Platform::new();
    let a_http = HttpTransport::bind(
        &a,
        config().discovery_interval(Some(Duration::from_millis(50))),
    )
    .await
    .unwrap();
    a_http.add_peer(pair.b_http.url().unwrap()).await.unwrap();
    pair.b
        .spawn("later", common::Worker::default())
        .await
        .unwrap();
    let watcher = a_http.clone();
    common::eventually(move || watcher.remote_agents().contains_key("later")).await;
    a.shutdown().await;
    pair.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokens_between_platforms() {
    let server = Platform::new();
    server
        .spawn("worker", common::Worker::default())
        .await
        .unwrap();
    let server_http = server
        .serve_http(config().require_tokens(true))
        .await
        .unwrap();
    let client = Platform::new();
    let caller = client.spawn("caller", common::Caller).await.unwrap();
    let client_http = client.serve_http(config()).await.unwrap();
    let url = server_http.url().unwrap().to_owned();

    let refused = client_http.add_peer(&url).await.unwrap_err();
    assert_eq!(refused.kind(), PeerErrorKind::Unauthorized);
    assert!(client_http.peers().is_empty(), "a refused peer is not kept");

    let token = server_http.issue_token();
    let agents = client_http
        .add_peer_with_token(&url, token.bearer())
        .await
        .unwrap();
    assert_eq!(agents, ["worker"]);
    let pm = caller.protocol_manager().unwrap();
    pm.execute_action("worker", "echo", params! {"a" => 1})
        .await
        .unwrap();

    assert!(server_http.revoke_token(token.id()));
    let error = pm
        .execute_action("worker", "echo", Params::new())
        .await
        .unwrap_err();
    assert!(error.to_string().contains("401"), "{error}");
    client.shutdown().await;
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_peer_is_reported_not_lost() {
    let pair = Pair::new().await;
    let hub = pair.a.spawn("hub", Hub).await.unwrap();
    pair.b.spawn("desk-b", NewsDesk::default()).await.unwrap();
    pair.b
        .spawn("worker", common::Worker::default())
        .await
        .unwrap();
    pair.connect().await;
    let b_url = pair.b_http.url().unwrap().to_owned();
    pair.b.shutdown().await;

    let pm = hub.protocol_manager().unwrap();
    let report = pm.broadcast("anyone?").await.unwrap();
    assert!(report.delivered().is_empty());
    assert_eq!(report.failed().len(), 1);
    assert_eq!(report.failed()[0].0.as_str(), "desk-b");
    assert!(
        report.failed()[0].1.contains(&b_url),
        "{:?}",
        report.failed()
    );

    let error = pm
        .execute_action("worker", "echo", Params::new())
        .await
        .unwrap_err();
    assert!(matches!(error, ProtocolError::Transport(_)), "{error:?}");
    pair.a.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn adding_peers_checks_the_url() {
    let platform = Platform::new();
    let http = platform.serve_http(config()).await.unwrap();
    let own = http.url().unwrap().to_owned();
    for (url, kind) in [
        ("not a url", PeerErrorKind::InvalidUrl),
        ("ftp://example.org", PeerErrorKind::InvalidUrl),
        (own.as_str(), PeerErrorKind::InvalidUrl),
        ("http://127.0.0.1:9", PeerErrorKind::Unreachable),
    ] {
        assert_eq!(http.add_peer(url).await.unwrap_err().kind(), kind, "{url}");
    }
    platform.shutdown().await;
    let error = http.add_peer("http://127.0.0.1:9").await.unwrap_err();
    assert_eq!(error.kind(), PeerErrorKind::NotStarted);
}

/// An agent whose attributes name another platform, as
/// `#[direct_message(transport = Http, endpoint = "http://...")]` does; written by hand
/// because the test platform's port is only known at run time.
struct Declared {
    specs: ProtocolSpecs,
}

impl Agent for Declared {
    fn protocol_specs(&self) -> ProtocolSpecs {
        self.specs.clone()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_attribute_endpoint_names_the_platform_to_reach() {
    use tnsai_core::{BroadcastSpec, DirectSpec, RequestReplySpec};

    let pair = Pair::new().await;
    pair.a
        .spawn("worker", common::Worker::default())
        .await
        .unwrap();
    let desk = pair.a.spawn("desk", NewsDesk::default()).await.unwrap();
    let url = pair.a_http.url().unwrap().to_owned();
    let specs = ProtocolSpecs::new()
        .with_direct(
            DirectSpec::new()
                .with_transport(TransportMode::Http)
                .with_endpoint(&url),
        )
        .with_request_reply(
            RequestReplySpec::new()
                .with_transport(TransportMode::Http)
                .with_endpoint(format!("{url}/")),
        )
        .with_broadcast(
            BroadcastSpec::new()
                .with_topic("news")
                .with_transport(TransportMode::Http)
                .with_broker(&url),
        );
    // No add_peer: spawning the agent makes its endpoint a peer of platform b.
    let caller = pair.b.spawn("declared", Declared { specs }).await.unwrap();
    assert_eq!(
        pair.b.describe("declared").unwrap().addresses,
        [url.clone(), format!("{url}/")]
    );
    let b_http = pair.b_http.clone();
    common::eventually(move || b_http.remote_agents().contains_key("worker")).await;
    assert_eq!(pair.b_http.peers(), std::slice::from_ref(&url));

    let pm = caller.protocol_manager().unwrap();
    let reply = pm
        .execute_action("worker", "processOrder", params! {"orderId" => "E-1"})
        .await
        .unwrap();
    assert_eq!(reply.payload()["orderId"], "E-1");
    let reply = pm
        .request("worker", "echo", params! {"via" => "request"})
        .await
        .unwrap();
    assert_eq!(reply.payload(), &json!({"via": "request"}));
    let report = pm.broadcast(json!({"from": "declared"})).await.unwrap();
    assert_eq!(report.delivered(), ["desk"]);
    desk.agent().received.wait_for(1).await;
    pair.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn learning_peers_can_be_turned_off() {
    let a = Platform::new();
    a.spawn("worker", common::Worker::default()).await.unwrap();
    let a_http = a.serve_http(config().learn_peers(false)).await.unwrap();
    let b = Platform::new();
    let caller = b.spawn("caller", common::Caller).await.unwrap();
    let b_http = b.serve_http(config()).await.unwrap();
    b_http.add_peer(a_http.url().unwrap()).await.unwrap();
    caller
        .protocol_manager()
        .unwrap()
        .execute_action("worker", "echo", Params::new())
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(a_http.peers().is_empty());
    assert!(a_http.remote_agents().is_empty());
    a.shutdown().await;
    b.shutdown().await;
}
