//! The hub in process on 127.0.0.1 port 0, driven through the client code the CLI uses.

mod common;

use std::time::Duration;

use common::*;
use tnsai_core::MessageKind;
use tnsai_hub::client::{
    ConnectError, HubClient, ListenEvent, RequestErrorKind, SessionErrorKind, SessionEvent, listen,
};
use tnsai_hub::inbox::Appended;
use tnsai_hub::wire::{DeliveryStatus, DropReason, PresenceEvent, RefusalCode, Registration};
use tnsai_hub::{Inbox, Store};
use tokio::sync::{mpsc, oneshot};

fn refused<T: std::fmt::Debug>(result: Result<T, tnsai_hub::client::SendError>) -> RefusalCode {
    match result.unwrap_err().kind() {
        RequestErrorKind::Refused(code) => code,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pairing_refuses_expired_reused_and_unknown_codes() {
    let hub = TestHub::start().await;
    let code = hub.hub().invite(Duration::from_secs(3600)).await.unwrap();
    let paired = HubClient::pair(&hub.url(), &code.expose(), "alice")
        .await
        .unwrap();
    assert_eq!(paired.device, "alice");
    assert!(paired.token.expose().starts_with("tnsai1."));

    let reused = HubClient::pair(&hub.url(), &code.expose(), "mallory")
        .await
        .unwrap_err();
    assert_eq!(
        reused.kind(),
        RequestErrorKind::Refused(RefusalCode::InviteUsed)
    );
    assert!(matches!(
        reused,
        tnsai_hub::client::PairError::Refused { status: 410, .. }
    ));

    let short = hub.hub().invite(Duration::from_millis(1)).await.unwrap();
    tokio::time::sleep(Duration::from_millis(20)).await;
    let expired = HubClient::pair(&hub.url(), &short.expose(), "bob")
        .await
        .unwrap_err();
    assert_eq!(
        expired.kind(),
        RequestErrorKind::Refused(RefusalCode::InviteExpired)
    );

    let unknown = HubClient::pair(&hub.url(), "AAAA-BBBB-CCCC-DDD", "bob")
        .await
        .unwrap_err();
    assert_eq!(
        unknown.kind(),
        RequestErrorKind::Refused(RefusalCode::InviteInvalid)
    );

    // A taken device name keeps the code usable for a second try.
    let code = hub.hub().invite(Duration::from_secs(3600)).await.unwrap();
    let taken = HubClient::pair(&hub.url(), &code.expose(), "alice")
        .await
        .unwrap_err();
    assert_eq!(
        taken.kind(),
        RequestErrorKind::Refused(RefusalCode::DeviceNameTaken)
    );
    let bad = HubClient::pair(&hub.url(), &code.expose(), "bob/evil")
        .await
        .unwrap_err();
    assert_eq!(
        bad.kind(),
        RequestErrorKind::Refused(RefusalCode::InvalidRequest)
    );
    // Typed back in lower case with spaces, the same code still works.
    let typed = code.expose().to_lowercase().replace('-', " ");
    assert!(HubClient::pair(&hub.url(), &typed, "bob").await.is_ok());
    hub.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn from_rules_decide_the_stamped_sender() {
    let hub = TestHub::start().await;
    let alice = hub.device("alice").await;
    let bob = hub.device("bob").await;
    let mut backend = session(&bob, "backend-agent").await;

    let none = alice.send(&text("bob/backend-agent", "hi")).await;
    assert_eq!(refused(none), RefusalCode::NoAgent);

    let sdk = session(&alice, "sdk-agent").await;
    let receipt = send(&alice, "bob/backend-agent", "from the only agent").await;
    assert_eq!(receipt.sender, "alice/sdk-agent");
    let got = next_message(&mut backend).await;
    assert_eq!(got.sender().as_str(), "alice/sdk-agent");
    assert_eq!(got.receiver().unwrap().as_str(), "bob/backend-agent");
    assert_eq!(got.kind(), MessageKind::Text);

    for other in ["backend-agent", "bob/backend-agent", "ghost"] {
        let mut request = text("bob/backend-agent", "spoof");
        request.from = Some(other.into());
        assert_eq!(
            refused(alice.send(&request).await),
            RefusalCode::NotYourAgent,
            "{other}"
        );
    }

    // A second agent on the device (registrations persist after it disconnects).
    session(&alice, "docs-agent").await.close().await;
    let ambiguous = alice.send(&text("bob/backend-agent", "who am I")).await;
    assert_eq!(refused(ambiguous), RefusalCode::FromRequired);
    let mut request = text("bob/backend-agent", "from docs");
    request.from = Some("alice/docs-agent".into());
    assert_eq!(
        alice.send(&request).await.unwrap().sender,
        "alice/docs-agent"
    );
    request.from = Some("sdk-agent".into());
    assert_eq!(
        alice.send(&request).await.unwrap().sender,
        "alice/sdk-agent"
    );

    // The sender is settled before the recipient is looked up.
    let unknown = alice.send(&text("carol/nobody", "x")).await;
    assert_eq!(refused(unknown), RefusalCode::FromRequired);
    let mut to_unknown = text("carol/nobody", "x");
    to_unknown.from = Some("sdk-agent".into());
    assert_eq!(
        refused(alice.send(&to_unknown).await),
        RefusalCode::UnknownRecipient
    );
    let mut malformed = text("no-slash", "x");
    malformed.from = Some("sdk-agent".into());
    assert_eq!(
        refused(alice.send(&malformed).await),
        RefusalCode::InvalidRequest
    );
    drop(sdk);
    hub.shutdown().await;
}

/// Runs `listen` in a task, reporting its events on a channel.
struct Listener {
    events: mpsc::UnboundedReceiver<ListenEvent>,
    stop: Option<oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<Result<(), tnsai_hub::client::ListenError>>,
}

impl Listener {
    fn start(client: HubClient, registration: Registration, inbox: Inbox) -> Self {
        let (tx, events) = mpsc::unbounded_channel();
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            listen(
                &client,
                &registration,
                inbox,
                move |event| {
                    let _ = tx.send(event);
                },
                async move {
                    let _ = stopped.await;
                },
            )
            .await
        });
        Self {
            events,
            stop: Some(stop),
            task,
        }
    }

    async fn next(&mut self) -> ListenEvent {
        within("a listen event", self.events.recv())
            .await
            .expect("listener ended")
    }

    async fn connected(&mut self) -> tnsai_hub::client::Registered {
        loop {
            if let ListenEvent::Connected(registered) = self.next().await {
                return registered;
            }
        }
    }

    async fn stop(mut self) {
        let _ = self.stop.take().unwrap().send(());
        within("listen to stop", self.task).await.unwrap().unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn live_messages_reach_the_inbox_and_are_acknowledged() {
    let hub = TestHub::start().await;
    let alice = hub.device("alice").await;
    let bob = hub.device("bob").await;
    let files = tempfile::tempdir().unwrap();
    let inbox_path = files.path().join("inbox.jsonl");
    let mut listener = Listener::start(
        bob.clone(),
        registration("backend-agent"),
        Inbox::new(&inbox_path),
    );
    let registered = listener.connected().await;
    assert_eq!(registered.agent.agent, "bob/backend-agent");
    assert_eq!(registered.pending, 0);

    let _sdk = session(&alice, "sdk-agent").await;
    let mut request = text("bob/backend-agent", "Renamed Client::fetch to Client::get");
    request.context = serde_json::json!({"commit": "abc123", "compat": "alias kept"})
        .as_object()
        .cloned();
    let receipt = alice.send(&request).await.unwrap();
    assert_eq!(receipt.status, DeliveryStatus::Live);

    let message = loop {
        if let ListenEvent::Message(m) = listener.next().await {
            break m;
        }
    };
    assert_eq!(message.id(), receipt.id);
    assert_eq!(message.timestamp(), receipt.timestamp);
    assert_eq!(message.context_value("commit").unwrap(), "abc123");
    let stored = Inbox::new(&inbox_path).read_from(0).unwrap();
    assert_eq!(stored.messages, vec![message.clone()]);
    listener.stop().await;

    // Acknowledged, so nothing waits for the next connection.
    let again = session(&bob, "backend-agent").await;
    assert_eq!(again.registered().pending, 0);
    hub.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn offline_messages_wait_survive_a_restart_and_arrive_in_order() {
    let mut hub = TestHub::start().await;
    let alice = hub.device("alice").await;
    let bob = hub.device("bob").await;
    session(&bob, "backend-agent").await.close().await;
    let _sdk = session(&alice, "sdk-agent").await;
    let mut ids = Vec::new();
    for i in 0..5 {
        let receipt = send(&alice, "bob/backend-agent", &format!("note {i}")).await;
        assert_eq!(receipt.status, DeliveryStatus::Queued);
        ids.push(receipt.id);
    }
    drop(_sdk);
    hub.restart().await;

    let mut backend = session(&bob, "backend-agent").await;
    assert_eq!(backend.registered().pending, 5);
    let mut got = Vec::new();
    for _ in 0..5 {
        got.push(next_message(&mut backend).await);
    }
    assert_eq!(got.iter().map(|m| m.id()).collect::<Vec<_>>(), ids);
    assert_eq!(got[4].content(), Some("note 4"));
    backend.ack(&ids).await.unwrap();
    backend.close().await;
    // The hub handles frames in order, so the acks were applied before the close.
    let after = session(&bob, "backend-agent").await;
    assert_eq!(after.registered().pending, 0);
    hub.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_crashes_before_acknowledging_gets_the_message_again() {
    let hub = TestHub::start().await;
    let alice = hub.device("alice").await;
    let bob = hub.device("bob").await;
    let _sdk = session(&alice, "sdk-agent").await;
    let mut backend = session(&bob, "backend-agent").await;
    let receipt = send(&alice, "bob/backend-agent", "important").await;
    assert_eq!(receipt.status, DeliveryStatus::Live);
    let first = next_message(&mut backend).await;
    assert_eq!(first.id(), receipt.id);
    drop(backend); // the process dies: no ack, no close handshake

    let mut backend = session(&bob, "backend-agent").await;
    assert_eq!(backend.registered().pending, 1);
    let again = next_message(&mut backend).await;
    assert_eq!(again, first);
    hub.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_delivered_twice_is_written_and_shown_once() {
    let hub = TestHub::start().await;
    let alice = hub.device("alice").await;
    let bob = hub.device("bob").await;
    let files = tempfile::tempdir().unwrap();
    let inbox_path = files.path().join("inbox.jsonl");
    let _sdk = session(&alice, "sdk-agent").await;

    // Written to the inbox, then the process died before its ack reached the hub.
    let mut backend = session(&bob, "backend-agent").await;
    let receipt = send(&alice, "bob/backend-agent", "once only").await;
    let message = next_message(&mut backend).await;
    assert_eq!(
        Inbox::new(&inbox_path).append(&message).unwrap(),
        Appended::Written
    );
    drop(backend);

    let mut listener = Listener::start(
        bob.clone(),
        registration("backend-agent"),
        Inbox::new(&inbox_path),
    );
    assert_eq!(listener.connected().await.pending, 1);
    match listener.next().await {
        ListenEvent::Duplicate(id) => assert_eq!(id, receipt.id),
        other => panic!("expected the duplicate, got {other:?}"),
    }
    let next = send(&alice, "bob/backend-agent", "a new one").await;
    match listener.next().await {
        ListenEvent::Message(m) => assert_eq!(m.id(), next.id),
        other => panic!("expected the new message, got {other:?}"),
    }
    listener.stop().await;
    let lines = Inbox::new(&inbox_path).read_from(0).unwrap().messages;
    let ids: Vec<_> = lines.iter().map(|m| m.id()).collect();
    assert_eq!(ids, [receipt.id, next.id]);
    assert_eq!(session(&bob, "backend-agent").await.registered().pending, 0);
    hub.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cap_drops_the_oldest_and_tells_their_sender() {
    let mut limits = test_limits();
    limits.queue_cap = 3;
    let hub = TestHub::with_limits(limits).await;
    let alice = hub.device("alice").await;
    let bob = hub.device("bob").await;
    session(&bob, "backend-agent").await.close().await;
    let mut sdk = session(&alice, "sdk-agent").await;
    let mut receipts = Vec::new();
    for i in 0..5 {
        receipts.push(send(&alice, "bob/backend-agent", &format!("m{i}")).await);
    }
    assert!(receipts[..3].iter().all(|r| r.dropped.is_empty()));
    assert_eq!(receipts[3].dropped.len(), 1);
    assert_eq!(receipts[3].dropped[0].id, receipts[0].id);
    assert_eq!(receipts[3].dropped[0].reason, DropReason::Cap);
    assert_eq!(receipts[4].dropped[0].id, receipts[1].id);

    // The sender's live connection gets a notice per dropped message.
    for dropped in [&receipts[0], &receipts[1]] {
        let notice = next_message(&mut sdk).await;
        assert_eq!(notice.kind(), MessageKind::Error);
        assert_eq!(notice.sender().as_str(), "hub");
        assert_eq!(notice.in_reply_to(), Some(dropped.id));
        assert_eq!(notice.payload()["reason"], "cap");
        assert_eq!(notice.payload()["recipient"], "bob/backend-agent");
    }
    let mut backend = session(&bob, "backend-agent").await;
    assert_eq!(backend.registered().pending, 3);
    for expected in &receipts[2..] {
        assert_eq!(next_message(&mut backend).await.id(), expected.id);
    }
    hub.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn messages_older_than_the_age_limit_are_dropped_and_reported() {
    let mut limits = test_limits();
    limits.queue_age = Duration::from_millis(300);
    limits.sweep_interval = Duration::from_millis(100);
    let hub = TestHub::with_limits(limits).await;
    let alice = hub.device("alice").await;
    let bob = hub.device("bob").await;
    session(&bob, "backend-agent").await.close().await;
    let mut sdk = session(&alice, "sdk-agent").await;
    let receipt = send(&alice, "bob/backend-agent", "stale soon").await;
    assert_eq!(receipt.status, DeliveryStatus::Queued);

    let notice = next_message(&mut sdk).await;
    assert_eq!(notice.in_reply_to(), Some(receipt.id));
    assert_eq!(notice.payload()["reason"], "age");
    let backend = session(&bob, "backend-agent").await;
    assert_eq!(backend.registered().pending, 0);
    hub.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn revocation_closes_connections_and_stops_the_token_at_once() {
    let hub = TestHub::start().await;
    let alice = hub.device("alice").await;
    let bob = hub.device("bob").await;
    let mut sdk = session(&alice, "sdk-agent").await;
    let mut backend = session(&bob, "backend-agent").await;

    hub.hub().revoke("bob").await.unwrap();
    assert_eq!(
        session_end(&mut backend).await.kind(),
        SessionErrorKind::Revoked
    );
    assert_eq!(
        refused(bob.send(&text("alice/sdk-agent", "still here?")).await),
        RefusalCode::DeviceRevoked
    );
    let reopened = bob
        .open_session(&registration("backend-agent"))
        .await
        .unwrap_err();
    assert!(matches!(
        reopened,
        ConnectError::Refused { status: Some(401), ref refusal } if refusal.code == RefusalCode::DeviceRevoked
    ));
    // Alice sees bob go offline and keeps working.
    let offline = within("an offline notice", async {
        loop {
            if let SessionEvent::Presence {
                event: PresenceEvent::Offline,
                agent,
            } = sdk.next_event().await.unwrap()
            {
                return agent;
            }
        }
    })
    .await;
    assert_eq!(offline.agent, "bob/backend-agent");

    // Revocation by another process (`tnsai hub revoke`) through the database.
    let admin = Store::open(hub.dir.path()).unwrap();
    admin.revoke_device("alice").unwrap();
    assert_eq!(
        session_end(&mut sdk).await.kind(),
        SessionErrorKind::Revoked
    );
    hub.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_connection_with_the_same_name_replaces_the_first() {
    let hub = TestHub::start().await;
    let alice = hub.device("alice").await;
    let bob = hub.device("bob").await;
    let carol = hub.device("carol").await;
    let _sdk = session(&alice, "sdk-agent").await;
    let mut first = session(&bob, "backend-agent").await;
    let mut second = session(&bob, "backend-agent").await;
    assert_eq!(
        session_end(&mut first).await.kind(),
        SessionErrorKind::Replaced
    );
    drop(first); // the first one's exit must not unregister the second

    let listed = alice.list(None).await.unwrap();
    assert!(listed.iter().any(|a| a.agent == "bob/backend-agent"));
    let receipt = send(&alice, "bob/backend-agent", "to the new one").await;
    assert_eq!(receipt.status, DeliveryStatus::Live);
    assert_eq!(next_message(&mut second).await.id(), receipt.id);

    // Another device cannot take bob's agent over.
    let mut steal = registration("backend-agent");
    steal.owner = Some("bob".into());
    let refused = carol.open_session(&steal).await.unwrap_err();
    assert_eq!(
        refused.kind(),
        RequestErrorKind::Refused(RefusalCode::NameTaken)
    );
    hub.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn presence_and_listing_show_owner_project_and_description() {
    let hub = TestHub::start().await;
    let alice = hub.device("alice").await;
    let bob = hub.device("bob").await;
    let mut sdk_reg = registration("sdk-agent");
    sdk_reg.project = Some("sdk".into());
    sdk_reg.description = Some("Changes the client SDK".into());
    let mut sdk = within("sdk", alice.open_session(&sdk_reg)).await.unwrap();
    assert!(sdk.registered().online.is_empty());
    let mut backend_reg = registration("backend-agent");
    backend_reg.project = Some("backend".into());
    let backend = within("backend", bob.open_session(&backend_reg))
        .await
        .unwrap();
    assert_eq!(backend.registered().online.len(), 1);
    assert_eq!(
        backend.registered().online[0].description.as_deref(),
        Some("Changes the client SDK")
    );

    match within("presence", sdk.next_event()).await.unwrap() {
        SessionEvent::Presence { event, agent } => {
            assert_eq!(event, PresenceEvent::Online);
            assert_eq!(agent.agent, "bob/backend-agent");
            assert_eq!(agent.device, "bob");
        }
        other => panic!("expected presence, got {other:?}"),
    }
    let sdk_only = bob.list(Some("sdk")).await.unwrap();
    assert_eq!(sdk_only.len(), 1);
    assert_eq!(
        (sdk_only[0].owner.as_str(), sdk_only[0].name.as_str()),
        ("alice", "sdk-agent")
    );
    assert_eq!(bob.list(None).await.unwrap().len(), 2);
    backend.close().await;
    match within("presence", sdk.next_event()).await.unwrap() {
        SessionEvent::Presence { event, .. } => assert_eq!(event, PresenceEvent::Offline),
        other => panic!("expected presence, got {other:?}"),
    }
    assert_eq!(alice.list(None).await.unwrap().len(), 1);

    // --owner sets another owner than the device's name.
    let mut owned = registration("helper");
    owned.owner = Some("team".into());
    let helper = within("helper", alice.open_session(&owned)).await.unwrap();
    assert_eq!(helper.registered().agent.agent, "team/helper");
    hub.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn limits_refuse_with_json_errors_and_bad_frames_close_one_connection() {
    let mut limits = test_limits();
    limits.max_content_bytes = 100;
    limits.max_context_bytes = 50;
    let hub = TestHub::with_limits(limits).await;
    let alice = hub.device("alice").await;
    let bob = hub.device("bob").await;
    let _sdk = session(&alice, "sdk-agent").await;
    let mut backend = session(&bob, "backend-agent").await;

    let big = alice
        .send(&text("bob/backend-agent", &"x".repeat(101)))
        .await;
    assert_eq!(refused(big), RefusalCode::TooLarge);
    let mut request = text("bob/backend-agent", "ok");
    request.context = serde_json::json!({"notes": "y".repeat(60)})
        .as_object()
        .cloned();
    assert_eq!(refused(alice.send(&request).await), RefusalCode::TooLarge);
    assert!(
        alice
            .send(&text("bob/backend-agent", &"x".repeat(100)))
            .await
            .is_ok()
    );
    assert_eq!(
        next_message(&mut backend).await.content().unwrap().len(),
        100
    );

    // A malformed frame closes that connection only.
    let mut mallory = session(&alice, "noisy-agent").await;
    mallory
        .send_raw("{\"type\": \"exec\", \"cmd\": \"rm -rf /\"}")
        .await
        .unwrap();
    let end = session_end(&mut mallory).await;
    assert!(
        matches!(end, tnsai_hub::client::SessionError::Closed { code: Some(1008), refusal: Some(ref r) } if r.code == RefusalCode::InvalidRequest),
        "{end:?}"
    );
    let mut request = text("bob/backend-agent", "still flowing");
    request.from = Some("sdk-agent".into());
    let receipt = alice.send(&request).await.unwrap();
    assert_eq!(next_message(&mut backend).await.id(), receipt.id);

    // A bad registration is refused with the reason.
    let bad = bob
        .open_session(&registration("no spaces"))
        .await
        .unwrap_err();
    assert_eq!(
        bad.kind(),
        RequestErrorKind::Refused(RefusalCode::InvalidRequest)
    );
    let mut evil = registration("fine");
    evil.description = Some("\u{1b}]0;pwned\u{7}".into());
    let bad = bob.open_session(&evil).await.unwrap_err();
    assert_eq!(
        bad.kind(),
        RequestErrorKind::Refused(RefusalCode::InvalidRequest)
    );
    hub.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_stops_answering_pings_is_dropped_and_shown_offline() {
    let mut limits = test_limits();
    limits.ping_interval = Duration::from_millis(100);
    let hub = TestHub::with_limits(limits).await;
    let alice = hub.device("alice").await;
    let bob = hub.device("bob").await;
    let mut sdk = session(&alice, "sdk-agent").await;
    // Never read: the client library answers pings only while it is read, so this
    // looks like a machine whose network vanished.
    let silent = session(&bob, "backend-agent").await;
    let offline = within("the silent agent to go offline", async {
        loop {
            if let SessionEvent::Presence {
                event: PresenceEvent::Offline,
                agent,
            } = sdk.next_event().await.unwrap()
            {
                return agent;
            }
        }
    })
    .await;
    assert_eq!(offline.agent, "bob/backend-agent");
    assert!(
        alice
            .list(None)
            .await
            .unwrap()
            .iter()
            .all(|a| a.agent != "bob/backend-agent")
    );
    // Alice keeps reading (so her client answers pings) and stays online.
    let reading = tokio::time::timeout(Duration::from_millis(600), async {
        loop {
            sdk.next_event().await.unwrap();
        }
    })
    .await;
    assert!(reading.is_err(), "alice's session stayed open while read");
    assert_eq!(alice.list(None).await.unwrap().len(), 1);
    drop(silent);
    hub.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_device_has_a_rate_limit() {
    let mut limits = test_limits();
    limits.rate_per_second = 0.5;
    limits.rate_burst = 3;
    let hub = TestHub::with_limits(limits).await;
    let alice = hub.device("alice").await;
    let bob = hub.device("bob").await;
    let _sdk = session(&alice, "sdk-agent").await; // one request of alice's budget
    let _backend = session(&bob, "backend-agent").await;
    let mut outcomes = Vec::new();
    for _ in 0..3 {
        outcomes.push(
            alice
                .send(&text("bob/backend-agent", "spam"))
                .await
                .map(|_| ()),
        );
    }
    assert!(outcomes[0].is_ok() && outcomes[1].is_ok());
    let limited = outcomes.pop().unwrap().unwrap_err();
    assert_eq!(
        limited.kind(),
        RequestErrorKind::Refused(RefusalCode::RateLimited)
    );
    assert!(matches!(
        limited,
        tnsai_hub::client::SendError::Refused { status: 429, .. }
    ));
    // Bob's budget is his own.
    assert!(bob.list(None).await.is_ok());
    hub.shutdown().await;
}
