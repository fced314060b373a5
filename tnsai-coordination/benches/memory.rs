//! Memory per idle agent: spawn 100,000 agents and divide the growth of the process's
//! resident memory by their number, next to 100,000 bare actors (a bounded mpsc channel
//! and a task looping on it) measured the same way in the same process.
//!
//! Resident memory is what the operating system charges, allocator overhead included, so
//! the figure is honest rather than flattering. Run:
//! `cargo bench -p tnsai-coordination --bench memory`

use std::time::Duration;

use tnsai_coordination::Platform;
use tnsai_core::prelude::*;
use tokio::sync::mpsc;

#[direct_message]
#[request_reply]
struct Idle;

#[actions]
impl Idle {
    /// Never called here; present so the agent has an action table like a real one.
    #[action]
    async fn ping(&self, _params: Params) -> ActionResult {
        Ok(serde_json::Value::Null)
    }
}

const AGENTS: usize = 100_000;

fn resident_bytes() -> usize {
    let statm = std::fs::read_to_string("/proc/self/statm").expect("Linux /proc");
    let pages: usize = statm
        .split_whitespace()
        .nth(1)
        .and_then(|v| v.parse().ok())
        .expect("statm has a resident field");
    pages * 4096
}

async fn settle() {
    tokio::time::sleep(Duration::from_millis(300)).await;
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    settle().await;
    let before = resident_bytes();
    let mut bare = Vec::with_capacity(AGENTS);
    for _ in 0..AGENTS {
        let (tx, mut rx) = mpsc::channel::<Message>(1024);
        tokio::spawn(async move { while rx.recv().await.is_some() {} });
        bare.push(tx);
    }
    settle().await;
    let bare_bytes = resident_bytes().saturating_sub(before) as f64 / AGENTS as f64;

    let before = resident_bytes();
    let platform = Platform::new();
    let mut handles = Vec::with_capacity(AGENTS);
    for i in 0..AGENTS {
        handles.push(platform.spawn(format!("agent-{i:06}"), Idle).await.unwrap());
    }
    settle().await;
    let tnsai_bytes = resident_bytes().saturating_sub(before) as f64 / AGENTS as f64;

    println!("memory per idle actor, {AGENTS} spawned (resident set growth / count):");
    println!("  bare mpsc channel + task : {bare_bytes:>8.0} bytes");
    println!("  tnsai agent (with manager, handle kept): {tnsai_bytes:>8.0} bytes");
    println!(
        "  ratio tnsai / bare       : {:>8.2}",
        tnsai_bytes / bare_bytes
    );
    platform.shutdown().await;
    drop(bare);
}
