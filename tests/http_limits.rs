//! Security and limits over real sockets: every bad input gets its status code and a
//! JSON error, and the server keeps serving.
#![cfg(feature = "http")]

mod common;
mod http_support;

use std::time::Duration;

use serde_json::{Value, json};
use tnsai_coordination::Platform;
use tnsai_coordination::transport::http::RateLimit;
use tnsai_core::prelude::*;

async fn send(request: reqwest::RequestBuilder) -> (u16, Value) {
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let text = response.text().await.unwrap();
    let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
    (status, body)
}

/// Sends a POST that declares `length` body bytes but sends none, and reads the answer.
async fn declared_length_only(url: &str, token: &str, length: usize) -> (u16, Value) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let url = reqwest::Url::parse(url).unwrap();
    let address = format!("{}:{}", url.host_str().unwrap(), url.port().unwrap());
    let mut stream = tokio::net::TcpStream::connect(address).await.unwrap();
    let head = format!(
        "POST {} HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer {token}\r\n\
         Content-Type: application/json\r\nContent-Length: {length}\r\nConnection: close\r\n\r\n",
        url.path()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut answer))
        .await
        .expect("the server answers without waiting for the body")
        .unwrap();
    let answer = String::from_utf8_lossy(&answer);
    let status = answer[9..12].parse().unwrap();
    let body = answer.split("\r\n\r\n").nth(1).unwrap_or_default();
    (status, serde_json::from_str(body).unwrap_or(Value::Null))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_inputs_each_get_their_status() {
    let platform = Platform::new();
    platform
        .spawn("worker", common::Worker::default())
        .await
        .unwrap();
    let config = http_support::config()
        .require_tokens(true)
        .body_limit(64 * 1024)
        .request_timeout(Duration::from_millis(300));
    let http = platform.serve_http(config).await.unwrap();
    let token = http.issue_token();
    let base = http.url().unwrap().to_owned();
    let worker = http.agent_url("worker").unwrap();
    let client = reqwest::Client::new();
    let authed = |r: reqwest::RequestBuilder| r.bearer_auth(token.bearer());
    let sleep_hash = {
        let (_, entry) = send(authed(client.get(format!("{base}/agents/worker")))).await;
        entry["protocols"]["sleep"].as_str().unwrap().to_owned()
    };

    let cases: Vec<(&str, reqwest::RequestBuilder, u16, &str)> = vec![
        (
            "no token",
            client.post(&worker).body(http_support::agora(None, "hi")),
            401,
            "unauthorized",
        ),
        (
            "wrong token",
            client
                .post(&worker)
                .bearer_auth("abc.def")
                .body(http_support::agora(None, "hi")),
            401,
            "unauthorized",
        ),
        (
            "truncated JSON",
            authed(client.post(&worker)).body(r#"{"protocolHash": null, "body": "h"#),
            400,
            "malformed_json",
        ),
        (
            "wrong types",
            authed(client.post(&worker)).body(r#"{"protocolHash": [], "body": {}}"#),
            400,
            "invalid_request",
        ),
        (
            "unknown agent",
            authed(client.post(format!("{base}/agents/ghost")))
                .body(http_support::agora(None, "hi")),
            404,
            "unknown_agent",
        ),
        (
            "unknown conversation",
            authed(client.post(format!("{worker}/conversations/c-1")))
                .body(http_support::agora(None, "hi")),
            404,
            "unknown_conversation",
        ),
        (
            "closing an unknown conversation",
            authed(client.delete(format!("{worker}/conversations/c-1"))),
            404,
            "unknown_conversation",
        ),
        (
            "slow action",
            authed(client.post(&worker))
                .body(http_support::agora(Some(&sleep_hash), r#"{"ms": 5000}"#)),
            504,
            "timeout",
        ),
    ];
    for (what, request, status, code) in cases {
        let (got, body) = send(request).await;
        assert_eq!(got, status, "{what}: {body}");
        assert_eq!(body["error"], code, "{what}: {body}");
    }
    // A body declared at 10 MB is refused before any of it is read. (Over a raw socket:
    // a client that writes the whole body may see the refusal as a broken pipe.)
    let (status, body) = declared_length_only(&worker, token.bearer(), 10 * 1024 * 1024).await;
    assert_eq!(status, 413, "{body}");
    assert_eq!(body["error"], "too_large", "{body}");
    // Still serving.
    let (status, answer) = send(authed(client.post(&worker)).body(http_support::agora(
        Some(&sleep_hash),
        r#"{"ms": 1, "tag": "ok"}"#,
    )))
    .await;
    assert_eq!(status, 200);
    assert_eq!(
        serde_json::from_str::<Value>(answer["body"].as_str().unwrap()).unwrap(),
        json!({"ok": true, "result": {"tag": "ok"}})
    );
    platform.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rate_limited_senders_get_429_and_platforms_retry() {
    let server = Platform::new();
    server
        .spawn("worker", common::Worker::default())
        .await
        .unwrap();
    let limit = RateLimit::per_second(20).with_burst(2);
    let server_http = server
        .serve_http(http_support::config().rate_limit(Some(limit)))
        .await
        .unwrap();
    let client = reqwest::Client::new();
    let listing = format!("{}/agents", server_http.url().unwrap());
    let mut statuses = Vec::new();
    for _ in 0..5 {
        statuses.push(client.get(&listing).send().await.unwrap().status().as_u16());
    }
    assert_eq!(&statuses[..2], [200, 200]);
    assert!(statuses.contains(&429), "{statuses:?}");
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(client.get(&listing).send().await.unwrap().status(), 200);

    // Another platform's calls wait for Retry-After instead of failing.
    let other = Platform::new();
    let caller = other
        .spawn("caller", http_support::PatientCaller)
        .await
        .unwrap();
    let other_http = other.serve_http(http_support::config()).await.unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    other_http
        .add_peer(server_http.url().unwrap())
        .await
        .unwrap();
    let pm = caller.protocol_manager().unwrap();
    for i in 0..6 {
        let reply = pm
            .execute_action("worker", "echo", params! {"i" => i})
            .await
            .unwrap();
        assert_eq!(reply.payload(), &json!({"i": i}));
    }
    other.shutdown().await;
    server.shutdown().await;
}
