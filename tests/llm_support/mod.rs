//! A local stub of the chat-completions API, for the OpenAI client's tests.
#![allow(dead_code, unreachable_pub, missing_docs)]

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::{Value, json};

/// One scripted answer of the stub.
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    pub body: String,
    pub delay: Duration,
    pub headers: Vec<(&'static str, String)>,
}

impl Reply {
    /// A chat completion whose first choice says `text`.
    pub fn text(text: &str) -> Self {
        Self::json(
            200,
            json!({
                "id": "chatcmpl-1",
                "object": "chat.completion",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
            }),
        )
    }

    /// An OpenAI-style error.
    pub fn error(status: u16, message: &str) -> Self {
        Self::json(
            status,
            json!({"error": {"message": message, "type": "error"}}),
        )
    }

    pub fn json(status: u16, body: Value) -> Self {
        Self::raw(status, &body.to_string())
    }

    pub fn raw(status: u16, body: &str) -> Self {
        Self {
            status,
            body: body.to_owned(),
            delay: Duration::ZERO,
            headers: Vec::new(),
        }
    }

    pub fn after(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }

    pub fn header(mut self, name: &'static str, value: &str) -> Self {
        self.headers.push((name, value.to_owned()));
        self
    }
}

/// A request the stub received.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub authorization: Option<String>,
    pub body: Value,
}

#[derive(Default)]
struct Script {
    key: Option<String>,
    replies: Mutex<VecDeque<Reply>>,
    requests: Mutex<Vec<Recorded>>,
}

/// The stub server, on a free loopback port.
pub struct Stub {
    /// The base URL to configure the client with (ends in `/v1`).
    pub base_url: String,
    script: Arc<Script>,
    server: tokio::task::JoinHandle<()>,
}

impl Stub {
    /// A stub that accepts any key (or none).
    pub async fn start() -> Self {
        Self::serve(None).await
    }

    /// A stub that answers 401 unless the bearer token is `key`; the 401 repeats the key
    /// it was given, as some servers do, so clients must keep it out of their errors.
    pub async fn with_key(key: &str) -> Self {
        Self::serve(Some(key.to_owned())).await
    }

    async fn serve(key: Option<String>) -> Self {
        let script = Arc::new(Script {
            key,
            ..Script::default()
        });
        let app = Router::new()
            .route("/v1/chat/completions", post(answer))
            .with_state(Arc::clone(&script));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let server = tokio::spawn(async move {
            axum::serve(listener, app).await.unwrap();
        });
        Self {
            base_url: format!("http://{address}/v1"),
            script,
            server,
        }
    }

    /// Queues answers, given in order; after them the stub echoes the last user line.
    pub fn then(&self, reply: Reply) -> &Self {
        self.script.replies.lock().unwrap().push_back(reply);
        self
    }

    /// Every request so far.
    pub fn requests(&self) -> Vec<Recorded> {
        self.script.requests.lock().unwrap().clone()
    }
}

impl Drop for Stub {
    fn drop(&mut self) {
        self.server.abort();
    }
}

async fn answer(State(script): State<Arc<Script>>, headers: HeaderMap, body: String) -> Response {
    let authorization = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let body: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
    script.requests.lock().unwrap().push(Recorded {
        authorization: authorization.clone(),
        body: body.clone(),
    });
    if let Some(key) = &script.key {
        let given = authorization
            .as_deref()
            .and_then(|a| a.strip_prefix("Bearer "))
            .unwrap_or("");
        if given != key {
            let reply = Reply::error(401, &format!("Incorrect API key provided: {given}"));
            return respond(reply).await;
        }
    }
    let reply = script.replies.lock().unwrap().pop_front();
    let reply = reply.unwrap_or_else(|| {
        let last = body["messages"]
            .as_array()
            .and_then(|m| m.last())
            .and_then(|m| m["content"].as_str())
            .unwrap_or("")
            .to_owned();
        Reply::text(&format!("echo: {last}"))
    });
    respond(reply).await
}

async fn respond(reply: Reply) -> Response {
    if !reply.delay.is_zero() {
        tokio::time::sleep(reply.delay).await;
    }
    let mut response = (
        StatusCode::from_u16(reply.status).unwrap(),
        [("content-type", "application/json")],
        reply.body,
    )
        .into_response();
    for (name, value) in reply.headers {
        response.headers_mut().insert(name, value.parse().unwrap());
    }
    response
}
