//! What the NATS integration tests share: a `nats-server` of their own (JetStream on, a
//! free loopback port, a temporary store directory, killed on drop), a TCP proxy that can
//! cut a platform off as if its machine died, fast timings, and agents.
#![allow(dead_code, unreachable_pub, missing_docs)]

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::json;
use tnsai_coordination::Platform;
use tnsai_coordination::transport::nats::{NatsConfig, NatsTransport};
use tnsai_core::prelude::*;
use tokio::sync::Mutex;

const INSTALL_HINT: &str = "nats-server is not installed, and the NATS integration tests need it: \
     install it with `apt-get install -y nats-server` (Debian's package; `.ci/run` does this)";

/// A `nats-server -js` of the test's own.
pub struct NatsServer {
    child: Option<Child>,
    port: u16,
    store: PathBuf,
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free loopback port")
}

fn temp_dir(what: &str) -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "tnsai-nats-{what}-{}-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default()
    ));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    dir
}

impl NatsServer {
    /// Starts a server; fails the test, saying how to install one, when `nats-server`
    /// is missing.
    pub fn start() -> Self {
        let mut server = Self {
            child: None,
            port: free_port(),
            store: temp_dir("store"),
        };
        server.launch();
        server
    }

    fn launch(&mut self) {
        let child = Command::new("nats-server")
            .args(["-js", "-a", "127.0.0.1", "-p"])
            .arg(self.port.to_string())
            .arg("-sd")
            .arg(&self.store)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn();
        let child = match child {
            Ok(child) => child,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => panic!("{INSTALL_HINT}"),
            Err(error) => panic!("could not start nats-server: {error}"),
        };
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(15);
        let address = SocketAddr::from(([127, 0, 0, 1], self.port));
        while TcpStream::connect_timeout(&address, Duration::from_millis(100)).is_err() {
            if let Some(Ok(Some(status))) = self.child.as_mut().map(Child::try_wait) {
                panic!(
                    "nats-server exited at start ({status}); is port {} taken?",
                    self.port
                );
            }
            assert!(
                Instant::now() < deadline,
                "nats-server did not start listening within 15 s"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// `nats://127.0.0.1:<port>`.
    pub fn url(&self) -> String {
        format!("nats://127.0.0.1:{}", self.port)
    }

    /// The port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Kills the server (its JetStream store stays for a restart).
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts it again on the same port with the same store.
    pub fn restart(&mut self) {
        self.kill();
        self.launch();
    }
}

impl Drop for NatsServer {
    fn drop(&mut self) {
        self.kill();
        let _ = std::fs::remove_dir_all(&self.store);
    }
}

/// Timings short enough for tests: heartbeat 100 ms, discovery TTL 600 ms.
pub fn config(url: &str) -> NatsConfig {
    NatsConfig::new(url)
        .with_heartbeat(Duration::from_millis(100))
        .with_discovery_ttl(Duration::from_millis(600))
        .with_publish_ack_timeout(Duration::from_secs(5))
        .with_answer_timeout(Some(Duration::from_secs(20)))
        .with_durable_ack_wait(Duration::from_secs(2))
        .with_connection_timeout(Duration::from_secs(5))
}

/// A platform connected to `url`.
pub async fn platform(url: &str) -> (Platform, NatsTransport) {
    let platform = Platform::new();
    let nats = platform
        .connect_nats(config(url))
        .await
        .expect("connect to the test's nats-server");
    (platform, nats)
}

/// Waits (generously, 10 s) until `nats` has discovered every one of `ids`.
pub async fn discover(nats: &NatsTransport, ids: &[&str]) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let known = nats.discovered();
        if ids
            .iter()
            .all(|id| known.iter().any(|a| a.description.id == *id))
        {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "not all of {ids:?} were discovered within 10 s; known: {:?}",
            known
                .iter()
                .map(|a| a.description.id.to_string())
                .collect::<Vec<_>>()
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Waits until `condition` holds (every 10 ms, at most `limit`); fails the test
/// otherwise.
pub async fn within(limit: Duration, what: &str, mut condition: impl FnMut() -> bool) {
    let deadline = Instant::now() + limit;
    while !condition() {
        assert!(Instant::now() < deadline, "{what}: not within {limit:?}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// A TCP proxy in front of the server: a platform connected through it can be cut off
/// without a word (its connection dies and it cannot reconnect), as if its machine died.
pub struct Proxy {
    port: u16,
    task: tokio::task::JoinHandle<()>,
    connections: Arc<std::sync::Mutex<Vec<tokio::task::JoinHandle<()>>>>,
}

impl Proxy {
    pub async fn start(upstream_port: u16) -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind the proxy");
        let port = listener.local_addr().expect("proxy address").port();
        let connections: Arc<std::sync::Mutex<Vec<tokio::task::JoinHandle<()>>>> = Arc::default();
        let tracked = Arc::clone(&connections);
        let task = tokio::spawn(async move {
            while let Ok((mut inbound, _)) = listener.accept().await {
                let connection = tokio::spawn(async move {
                    if let Ok(mut outbound) =
                        tokio::net::TcpStream::connect(("127.0.0.1", upstream_port)).await
                    {
                        let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                    }
                });
                tracked.lock().unwrap().push(connection);
            }
        });
        Self {
            port,
            task,
            connections,
        }
    }

    pub fn url(&self) -> String {
        format!("nats://127.0.0.1:{}", self.port)
    }

    /// Drops every connection and refuses new ones.
    pub fn cut(&self) {
        self.task.abort();
        for connection in self.connections.lock().unwrap().drain(..) {
            connection.abort();
        }
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.cut();
    }
}

/// Records every broadcast on "news".
#[broadcast(topic = "news")]
#[derive(Default)]
pub struct NewsListener {
    pub received: Arc<Mutex<Vec<Message>>>,
}

#[actions]
impl NewsListener {
    #[on_message_received]
    async fn on_message(&self, message: Message) {
        self.received.lock().await.push(message);
    }
}

/// Records alerts and metrics whose level is at least 2.
#[pub_sub(topics = ["alerts.>", "metrics.*"], filter = "level >= 2")]
#[derive(Default)]
pub struct AlertListener {
    pub received: Arc<Mutex<Vec<Message>>>,
}

#[actions]
impl AlertListener {
    #[on_message_received]
    async fn on_message(&self, message: Message) {
        self.received.lock().await.push(message);
    }
}

/// Waits (10 s at most) until `inbox` holds `count` messages.
pub async fn received(inbox: &Arc<Mutex<Vec<Message>>>, count: usize) -> Vec<Message> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let messages = inbox.lock().await.clone();
        if messages.len() >= count {
            return messages;
        }
        assert!(
            Instant::now() < deadline,
            "expected {count} messages within 10 s, got {}",
            messages.len()
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Broadcasts on "news" and publishes anywhere.
#[broadcast(topic = "news", transport = Nats, broker = "nats://127.0.0.1:4222")]
#[pub_sub(transport = Nats, broker = "nats://127.0.0.1:4222")]
#[derive(Default)]
pub struct Announcer;

/// Takes part in debates.
#[debate(strategy = Majority, max_rounds = 3)]
#[derive(Default)]
pub struct Debater;

/// A worker whose inbox is durable: it counts the messages it ran, by id.
#[direct_message(durable = true)]
#[request_reply(timeout = 300)]
#[derive(Default)]
pub struct DurableWorker {
    pub runs: Arc<std::sync::Mutex<Vec<String>>>,
}

#[actions]
impl DurableWorker {
    /// Records `n` and answers it.
    #[action]
    async fn record(&self, params: Params) -> ActionResult {
        let n = params.require_str("n")?.to_owned();
        self.runs.lock().unwrap().push(n.clone());
        Ok(json!({ "n": n }))
    }
}

/// A plain worker with a counter shared with the test.
#[direct_message]
#[derive(Default)]
pub struct Counter {
    pub count: Arc<AtomicUsize>,
}

#[actions]
impl Counter {
    /// Counts and answers `n`.
    #[action]
    async fn hit(&self, params: Params) -> ActionResult {
        self.count.fetch_add(1, Ordering::SeqCst);
        Ok(json!({ "n": params.get("n").cloned().unwrap_or_default() }))
    }
}
