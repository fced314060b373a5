//! Every paradigm between two platforms connected only through a real `nats-server`.

mod common;
mod nats_support;

use common::{Analyst, Caller, Worker};
use nats_support::{
    AlertListener, Announcer, Debater, NatsServer, NewsListener, discover, platform, received,
};
use serde_json::json;
use tnsai_coordination::{DebateEvent, DebateStatus, ProtocolError};
use tnsai_core::prelude::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn direct_actions_role_actions_text_and_their_errors_cross_platforms() {
    let server = NatsServer::start();
    let (a, nats_a) = platform(&server.url()).await;
    let (b, _nats_b) = platform(&server.url()).await;
    b.spawn("worker", Worker::default()).await.unwrap();
    b.spawn("analyst", Analyst).await.unwrap();
    let caller = a.spawn("caller", Caller).await.unwrap();
    discover(&nats_a, &["worker", "analyst"]).await;
    let pm = caller.protocol_manager().unwrap();

    common::assert_direct_calls_cross(&pm).await;

    let answered = pm
        .request("worker", "sleep", params! {"ms" => 0, "tag" => "quick"})
        .await
        .unwrap();
    assert_eq!(answered.payload(), &json!({"tag": "quick"}));

    a.shutdown().await;
    b.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ids_that_are_not_subject_tokens_are_reached_and_never_merged() {
    let server = NatsServer::start();
    let (a, nats_a) = platform(&server.url()).await;
    let (b, _nats_b) = platform(&server.url()).await;
    let odd = [
        "eu.billing agent",
        "eu=2Ebilling=20agent",
        "Grüße/*>",
        "UPPER",
        "upper",
    ];
    for id in odd {
        b.spawn(id, Worker::default()).await.unwrap();
    }
    let caller = a.spawn("caller", Caller).await.unwrap();
    discover(&nats_a, &odd).await;
    let pm = caller.protocol_manager().unwrap();
    for id in odd {
        let reply = pm
            .execute_action(id, "echo", params! {"to" => id})
            .await
            .unwrap();
        assert_eq!(reply.sender(), id);
        assert_eq!(reply.payload(), &json!({"to": id}));
    }
    a.shutdown().await;
    b.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn broadcasts_reach_remote_listeners_and_the_report_names_them() {
    let server = NatsServer::start();
    let (a, nats_a) = platform(&server.url()).await;
    let (b, _nats_b) = platform(&server.url()).await;
    let far1 = b.spawn("far-1", NewsListener::default()).await.unwrap();
    let far2 = b.spawn("far-2", NewsListener::default()).await.unwrap();
    let near = a.spawn("near", NewsListener::default()).await.unwrap();
    let announcer = a.spawn("announcer", Announcer).await.unwrap();
    discover(&nats_a, &["far-1", "far-2"]).await;

    let report = announcer
        .protocol_manager()
        .unwrap()
        .broadcast(json!({"headline": "release 1.0"}))
        .await
        .unwrap();
    assert_eq!(report.delivered(), ["far-1", "far-2", "near"]);
    assert!(report.failed().is_empty(), "{:?}", report.failed());
    for listener in [&far1, &far2, &near] {
        let got = received(&listener.agent().received, 1).await;
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].payload(), &json!({"headline": "release 1.0"}));
        assert_eq!(got[0].sender(), "announcer");
        assert_eq!(got[0].kind(), MessageKind::Broadcast);
    }
    a.shutdown().await;
    b.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn publications_use_nats_wildcards_ignore_case_and_apply_filters() {
    let server = NatsServer::start();
    let (a, nats_a) = platform(&server.url()).await;
    let (b, _nats_b) = platform(&server.url()).await;
    let pager = b.spawn("pager", AlertListener::default()).await.unwrap();
    let announcer = a.spawn("announcer", Announcer).await.unwrap();
    discover(&nats_a, &["pager"]).await;
    let pm = announcer.protocol_manager().unwrap();

    let cases = [
        ("alerts.disk.full", 3, true),
        ("alerts.disk", 1, false),
        ("metrics.cpu", 5, true),
        ("metrics.cpu.load", 5, false),
        ("Alerts.Disk", 2, true),
        ("alerts", 9, false),
    ];
    for (topic, level, expected) in cases {
        let report = pm.publish(topic, json!({"level": level})).await.unwrap();
        let delivered: Vec<&str> = report.delivered().iter().map(AgentId::as_str).collect();
        if expected {
            assert_eq!(delivered, ["pager"], "{topic} level {level}");
        } else {
            assert!(delivered.is_empty(), "{topic} level {level}: {delivered:?}");
        }
        assert!(report.failed().is_empty(), "{topic}: {:?}", report.failed());
    }
    let got = received(&pager.agent().received, 3).await;
    let topics: Vec<&str> = got.iter().filter_map(Message::topic).collect();
    assert_eq!(topics, ["alerts.disk.full", "metrics.cpu", "Alerts.Disk"]);
    // Nothing else trickles in later.
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    assert_eq!(pager.agent().received.lock().await.len(), 3);
    a.shutdown().await;
    b.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_debate_runs_with_participants_on_another_platform() {
    let server = NatsServer::start();
    let (a, nats_a) = platform(&server.url()).await;
    let (b, nats_b) = platform(&server.url()).await;
    let dev = a.spawn("dev", Debater).await.unwrap();
    let qa = b.spawn("qa", Debater).await.unwrap();
    let ops = b.spawn("ops", Debater).await.unwrap();
    discover(&nats_a, &["qa", "ops"]).await;
    discover(&nats_b, &["dev"]).await;
    let (dev, qa, ops) = (
        dev.protocol_manager().unwrap(),
        qa.protocol_manager().unwrap(),
        ops.protocol_manager().unwrap(),
    );

    let session = dev
        .start_debate("Deploy on Friday?", ["dev", "qa", "ops"])
        .await
        .unwrap();
    let mut events = qa.debate_events(session.id()).unwrap();
    ops.vote_in_debate(session.id(), "YES", true).await.unwrap();
    ops.counter_argument(session.id(), "dev", "Staging is green", "Deploy Thursday")
        .await
        .unwrap();
    qa.submit_debate_position(session.id(), "YES", 8, "All tests pass")
        .await
        .unwrap();
    ops.submit_debate_position(session.id(), " yes ", 6, "Rollback is ready")
        .await
        .unwrap();
    dev.submit_debate_position(session.id(), "NO", 9, "It is Friday")
        .await
        .unwrap();

    let seen_by_qa = qa.debate(session.id()).await.unwrap();
    assert_eq!(seen_by_qa.status(), DebateStatus::Consensus);
    assert_eq!(seen_by_qa.decision(), Some("YES"));
    assert_eq!(seen_by_qa.votes().len(), 1);
    assert_eq!(seen_by_qa.counter_arguments().len(), 1);
    let first = events.recv().await.unwrap();
    assert!(
        matches!(first, DebateEvent::RoundClosed { .. }),
        "{first:?}"
    );
    let last = events.recv().await.unwrap();
    assert!(
        matches!(&last, DebateEvent::Consensus { decision, .. } if decision == "YES"),
        "{last:?}"
    );
    let refused = ops
        .submit_debate_position(session.id(), "NO", 1, "late")
        .await
        .unwrap_err();
    assert!(
        matches!(refused, ProtocolError::DebateRefused(_)),
        "{refused:?}"
    );
    a.shutdown().await;
    b.shutdown().await;
}
