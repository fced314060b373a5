//! Agents and helpers shared by the HTTP transport's tests.
#![allow(dead_code, unreachable_pub, missing_docs)]

use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use http_body_util::BodyExt;
use serde_json::{Value, json};
use tnsai_coordination::Platform;
use tnsai_coordination::transport::http::{HttpConfig, HttpTransport, agora::protocol_hash};
use tnsai_core::prelude::*;
use tokio::sync::Mutex;
use tower::ServiceExt;

/// Records every broadcast and publication it receives.
#[derive(Default, Clone)]
pub struct Received {
    pub messages: Arc<Mutex<Vec<Message>>>,
}

impl Received {
    pub async fn len(&self) -> usize {
        self.messages.lock().await.len()
    }

    pub async fn payloads(&self) -> Vec<Value> {
        let messages = self.messages.lock().await;
        messages.iter().map(|m| m.payload().clone()).collect()
    }

    /// Waits (at most 5 s) until `count` messages arrived.
    pub async fn wait_for(&self, count: usize) {
        for _ in 0..500 {
            if self.len().await >= count {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("expected {count} messages, got {}", self.len().await);
    }
}

/// Listens on the `news` broadcast topic.
#[broadcast(topic = "news")]
#[direct_message]
#[derive(Default)]
pub struct NewsDesk {
    pub received: Received,
}

#[actions]
impl NewsDesk {
    #[on_message_received]
    async fn on_message(&self, message: Message) {
        self.received.messages.lock().await.push(message);
    }
}

/// Subscribes to `alerts.>` with a filter on `level`.
#[pub_sub(topics = ["alerts.>"], filter = "level >= 3")]
#[derive(Default)]
pub struct Pager {
    pub received: Received,
}

#[actions]
impl Pager {
    #[on_message_received]
    async fn on_message(&self, message: Message) {
        self.received.messages.lock().await.push(message);
    }
}

/// Speaks every paradigm: direct, request/reply, broadcast on `news`, publish, debate.
#[direct_message]
#[request_reply(timeout = 2000)]
#[broadcast(topic = "news")]
#[pub_sub(topics = ["none.here"])]
#[debate(strategy = Majority, max_rounds = 3)]
#[derive(Default)]
pub struct Hub;

/// A caller whose requests may wait long (for tests under load).
#[direct_message]
#[request_reply(timeout = 20000)]
#[derive(Default)]
pub struct PatientCaller;

/// A debate participant that can also be called directly.
#[debate]
#[direct_message]
#[derive(Default)]
pub struct Member;

/// A config for tests: loopback, free port, discovery on demand only.
pub fn config() -> HttpConfig {
    HttpConfig::new().discovery_interval(None)
}

/// Two platforms serving HTTP, each a peer of the other.
pub struct Pair {
    pub a: Platform,
    pub a_http: HttpTransport,
    pub b: Platform,
    pub b_http: HttpTransport,
}

impl Pair {
    /// Two empty platforms, serving, not yet peers.
    pub async fn new() -> Self {
        let a = Platform::new();
        let b = Platform::new();
        let a_http = a.serve_http(config()).await.expect("bind a");
        let b_http = b.serve_http(config()).await.expect("bind b");
        Self {
            a,
            a_http,
            b,
            b_http,
        }
    }

    /// Makes each platform a peer of the other (reads both listings).
    pub async fn connect(&self) {
        self.a_http
            .add_peer(self.b_http.url().unwrap())
            .await
            .expect("a adds b");
        self.b_http
            .add_peer(self.a_http.url().unwrap())
            .await
            .expect("b adds a");
    }

    pub async fn shutdown(self) {
        self.a.shutdown().await;
        self.b.shutdown().await;
    }
}

/// An in-process request to a router: status and JSON body (or the text as a JSON
/// string when it is not JSON).
pub async fn call(
    router: &axum::Router,
    request: axum::http::Request<Body>,
) -> (axum::http::StatusCode, Value, axum::http::HeaderMap) {
    let response = router.clone().oneshot(request).await.expect("infallible");
    let status = response.status();
    let headers = response.headers().clone();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    let value = serde_json::from_slice(&bytes)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned()));
    (status, value, headers)
}

pub fn post(uri: &str, body: impl Into<Body>) -> axum::http::Request<Body> {
    axum::http::Request::post(uri)
        .header("content-type", "application/json")
        .body(body.into())
        .unwrap()
}

pub fn get(uri: &str) -> axum::http::Request<Body> {
    axum::http::Request::get(uri).body(Body::empty()).unwrap()
}

/// An Agora request body.
pub fn agora(hash: Option<&str>, body: &str) -> String {
    json!({ "protocolHash": hash, "protocolSources": [], "body": body }).to_string()
}

/// The hash of `agent`'s generated document for `action`, from its listing entry.
pub async fn action_hash(router: &axum::Router, agent: &str, action: &str) -> String {
    let (status, entry, _) = call(router, get(&format!("/agents/{agent}"))).await;
    assert_eq!(status, 200, "{entry}");
    let hash = entry["protocols"][action]
        .as_str()
        .unwrap_or_else(|| panic!("{agent} has no protocol for {action}: {entry}"))
        .to_owned();
    // The listing's hash is the hash of the document the platform serves.
    let encoded = url_encode(&hash);
    let (status, text, _) = call(router, get(&format!("/protocols/{encoded}"))).await;
    assert_eq!(status, 200);
    assert_eq!(protocol_hash(text.as_str().unwrap()), hash);
    hash
}

pub fn url_encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}
