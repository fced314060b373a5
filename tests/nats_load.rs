//! Many agents and many calls: 3 platforms × 100 agents × 20 calls, every answer
//! checked.

mod common;
mod nats_support;

use std::sync::atomic::Ordering;

use common::Worker;
use nats_support::{NatsServer, discover, platform};
use serde_json::json;
use tnsai_core::prelude::*;

const PLATFORMS: usize = 3;
const AGENTS: usize = 100;
const CALLS: usize = 20;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_platforms_of_a_hundred_agents_make_twenty_calls_each() {
    let server = NatsServer::start();
    let mut platforms = Vec::new();
    let mut agents = Vec::new();
    for p in 0..PLATFORMS {
        let (platform, nats) = platform(&server.url()).await;
        let mut handles = Vec::new();
        for i in 0..AGENTS {
            handles.push(
                platform
                    .spawn(format!("p{p}.agent-{i}"), Worker::default())
                    .await
                    .unwrap(),
            );
        }
        platforms.push((platform, nats));
        agents.push(handles);
    }
    let everyone: Vec<String> = (0..PLATFORMS)
        .flat_map(|p| (0..AGENTS).map(move |i| format!("p{p}.agent-{i}")))
        .collect();
    for (p, (_, nats)) in platforms.iter().enumerate() {
        let remote: Vec<&str> = everyone
            .iter()
            .filter(|id| !id.starts_with(&format!("p{p}.")))
            .map(String::as_str)
            .collect();
        discover(nats, &remote).await;
    }

    let mut tasks = Vec::new();
    for (p, handles) in agents.iter().enumerate() {
        for (i, handle) in handles.iter().enumerate() {
            let pm = handle.protocol_manager().unwrap();
            tasks.push(tokio::spawn(async move {
                for k in 0..CALLS {
                    // Always another platform, spread over its agents.
                    let q = (p + 1 + k % (PLATFORMS - 1)) % PLATFORMS;
                    let j = (i * 7 + k * 13) % AGENTS;
                    let target = format!("p{q}.agent-{j}");
                    let params = params! {"from" => format!("p{p}.agent-{i}"), "k" => k};
                    let reply = pm
                        .execute_action(target.as_str(), "echo", params)
                        .await
                        .unwrap();
                    assert_eq!(reply.sender(), target.as_str());
                    assert_eq!(
                        reply.payload(),
                        &json!({"from": format!("p{p}.agent-{i}"), "k": k})
                    );
                }
            }));
        }
    }
    for task in tasks {
        task.await.unwrap();
    }
    let served: usize = agents
        .iter()
        .flatten()
        .map(|h| h.agent().calls.load(Ordering::SeqCst))
        .sum();
    assert_eq!(served, PLATFORMS * AGENTS * CALLS);
    for (platform, _) in platforms {
        platform.shutdown().await;
    }
}
