//! 50 agents on 10 devices exchange 100 messages each through one hub: nothing lost,
//! nothing duplicated, per-sender order kept.

mod common;

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use common::*;
use tnsai_core::MessageId;
use tnsai_hub::Inbox;
use tnsai_hub::client::{ListenEvent, listen};
use tnsai_hub::wire::SendRequest;
use tokio::sync::{mpsc, watch};

const DEVICES: usize = 10;
const AGENTS_PER_DEVICE: usize = 5;
const MESSAGES_EACH: usize = 100;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fifty_agents_on_ten_devices_exchange_five_thousand_messages() {
    let hub = TestHub::start().await;
    let files = tempfile::tempdir().unwrap();
    let agents = DEVICES * AGENTS_PER_DEVICE;
    let (stop_tx, stop_rx) = watch::channel(false);
    let (events_tx, mut events) = mpsc::unbounded_channel::<(usize, ListenEvent)>();

    let mut clients = Vec::new();
    let mut listeners = Vec::new();
    let mut names = Vec::new();
    for d in 0..DEVICES {
        let device = format!("dev{d}");
        let client = hub.device(&device).await;
        // The agents of one device share its inbox, as on a real machine.
        let inbox_path = files.path().join(&device).join("inbox.jsonl");
        for a in 0..AGENTS_PER_DEVICE {
            let index = d * AGENTS_PER_DEVICE + a;
            let name = format!("agent{a}");
            names.push(format!("{device}/{name}"));
            let (client, tx, mut stop) = (client.clone(), events_tx.clone(), stop_rx.clone());
            let inbox = Inbox::new(&inbox_path);
            listeners.push(tokio::spawn(async move {
                listen(
                    &client,
                    &registration(&name),
                    inbox,
                    move |event| {
                        let _ = tx.send((index, event));
                    },
                    async move {
                        let _ = stop.wait_for(|s| *s).await;
                    },
                )
                .await
            }));
        }
        clients.push(client);
    }
    drop(events_tx);
    let mut connected = 0;
    while connected < agents {
        let (_, event) = within("all agents to connect", events.recv())
            .await
            .unwrap();
        if matches!(event, ListenEvent::Connected(_)) {
            connected += 1;
        }
    }

    // Every agent sends 100 messages, spread over the 49 others, concurrently.
    let mut senders = Vec::new();
    for from in 0..agents {
        let client = clients[from / AGENTS_PER_DEVICE].clone();
        let names = names.clone();
        senders.push(tokio::spawn(async move {
            let mut sent = Vec::new();
            for k in 0..MESSAGES_EACH {
                let to = (from + 1 + k % (agents - 1)) % agents;
                let request = SendRequest {
                    to: names[to].clone(),
                    content: format!("{from}:{k}"),
                    from: Some(names[from].clone()),
                    ..SendRequest::default()
                };
                let receipt = client.send(&request).await.unwrap();
                assert!(receipt.dropped.is_empty(), "nothing may be dropped");
                sent.push((receipt.id, to));
            }
            sent
        }));
    }
    let mut expected: HashMap<MessageId, usize> = HashMap::new();
    for sender in senders {
        for (id, to) in within("the senders", sender).await.unwrap() {
            assert!(expected.insert(id, to).is_none(), "ids are unique");
        }
    }
    assert_eq!(expected.len(), agents * MESSAGES_EACH);

    let mut received: HashMap<MessageId, usize> = HashMap::new();
    let deadline = Duration::from_secs(120);
    tokio::time::timeout(deadline, async {
        while received.len() < expected.len() {
            let (index, event) = events.recv().await.expect("listeners alive");
            match event {
                ListenEvent::Message(m) => {
                    assert!(
                        received.insert(m.id(), index).is_none(),
                        "shown twice: {}",
                        m.id()
                    );
                }
                ListenEvent::Duplicate(id) => panic!("redelivered without a crash: {id}"),
                _ => {}
            }
        }
    })
    .await
    .expect("every message arrives");
    assert_eq!(
        received, expected,
        "each message reached exactly its recipient"
    );

    stop_tx.send_replace(true);
    for listener in listeners {
        within("listeners to stop", listener)
            .await
            .unwrap()
            .unwrap();
    }

    // Each device's inbox holds exactly its agents' messages, once, in send order per sender.
    let mut total = 0;
    for d in 0..DEVICES {
        let inbox = Inbox::new(files.path().join(format!("dev{d}")).join("inbox.jsonl"));
        let batch = inbox.read_from(0).unwrap();
        assert_eq!(batch.skipped, 0);
        let ids: HashSet<MessageId> = batch.messages.iter().map(|m| m.id()).collect();
        assert_eq!(ids.len(), batch.messages.len(), "no line twice in dev{d}");
        let mut last_seen: HashMap<(String, String), usize> = HashMap::new();
        for m in &batch.messages {
            let to = m.receiver().unwrap().to_string();
            assert!(to.starts_with(&format!("dev{d}/")));
            assert_eq!(names[expected[&m.id()]], to);
            let (from, k) = m.content().unwrap().split_once(':').unwrap();
            let k: usize = k.parse().unwrap();
            let key = (from.to_owned(), to);
            if let Some(previous) = last_seen.insert(key, k) {
                assert!(previous < k, "per-sender order kept");
            }
        }
        total += batch.messages.len();
    }
    assert_eq!(total, agents * MESSAGES_EACH);

    // Every message was acknowledged: no queue holds anything.
    for (index, name) in names.iter().enumerate() {
        let agent = name.split_once('/').unwrap().1;
        let session = session(&clients[index / AGENTS_PER_DEVICE], agent).await;
        assert_eq!(session.registered().pending, 0, "{name}");
        session.close().await;
    }
    hub.shutdown().await;
}
