//! The HTTP transport's routes, in-process (`tower::ServiceExt::oneshot`): every route
//! and every error code.
#![cfg(feature = "http")]

mod common;
mod http_support;

use std::time::Duration;

use axum::http::StatusCode;
use http_support::{action_hash, agora, call, get, post, url_encode};
use serde_json::{Value, json};
use tnsai_coordination::Platform;
use tnsai_coordination::transport::http::agora::{
    ProtocolDocument, SourceFetcher, encode_data_uri, protocol_hash,
};
use tnsai_coordination::transport::http::{
    HttpConfig, HttpTransport, RateLimit, TNSAI_PROTOCOL_DOCUMENT, tnsai_protocol_hash,
};
use tnsai_core::prelude::*;

async fn served(config: HttpConfig) -> (Platform, HttpTransport, axum::Router) {
    let platform = Platform::new();
    platform
        .spawn("worker", common::Worker::default())
        .await
        .unwrap();
    platform.spawn("analyst", common::Analyst).await.unwrap();
    platform
        .spawn("desk", http_support::NewsDesk::default())
        .await
        .unwrap();
    let http = HttpTransport::new(&platform, config);
    let router = http.router();
    (platform, http, router)
}

async fn default_router() -> (Platform, HttpTransport, axum::Router) {
    served(http_support::config()).await
}

#[tokio::test]
async fn wellknown_maps_every_hash_to_sources_that_hold_it() {
    let (_platform, _http, router) = default_router().await;
    for path in ["/.wellknown", "/wellknown"] {
        let (status, map, _) = call(&router, get(path)).await;
        assert_eq!(status, StatusCode::OK);
        let map = map.as_object().unwrap();
        // tnsai protocol + worker's six actions (analyst and desk have none).
        assert_eq!(map.len(), 7, "{map:?}");
        assert!(map.contains_key(tnsai_protocol_hash()));
        let fetcher = SourceFetcher::new(1 << 20, Duration::from_secs(1));
        for (hash, sources) in map {
            let sources: Vec<String> = serde_json::from_value(sources.clone()).unwrap();
            assert!(
                sources.iter().all(|s| s.starts_with("data:")),
                "no URL without a base"
            );
            let document = fetcher.fetch_verified(hash, &sources).await.unwrap();
            assert_eq!(document.hash(), hash);
        }
    }
}

#[tokio::test]
async fn listing_and_agent_entries() {
    let (_platform, _http, router) = default_router().await;
    let (status, listing, _) = call(&router, get("/agents")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(listing["protocol"], tnsai_protocol_hash());
    let ids: Vec<&str> = listing["agents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["analyst", "desk", "worker"]);
    let (status, worker, _) = call(&router, get("/agents/worker")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(worker["url"], "/agents/worker");
    assert_eq!(worker["paradigms"], json!(["DIRECT", "REQUEST_REPLY"]));
    let actions = worker["actions"].as_array().unwrap();
    let echo = actions.iter().find(|a| a["name"] == "echo").unwrap();
    assert_eq!(echo["description"], "Returns its parameters.");
    let (status, analyst, _) = call(&router, get("/agents/analyst")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(analyst["has_language_model"], true);
    let (status, desk, _) = call(&router, get("/agents/desk")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(desk["subscriptions"], json!(["news"]));
}

#[tokio::test]
async fn generated_documents_describe_the_action() {
    let (_platform, _http, router) = default_router().await;
    let hash = action_hash(&router, "worker", "processOrder").await;
    let (_, text, _) = call(&router, get(&format!("/protocols/{}", url_encode(&hash)))).await;
    let document = ProtocolDocument::parse(text.as_str().unwrap()).unwrap();
    assert_eq!(document.name(), "processOrder");
    assert_eq!(document.description(), "Processes an order.");
    assert!(!document.multiround());
    assert!(document.text().contains("## Request body"));
    assert!(document.text().contains(r#"{"ok": true, "result":"#));
    let (_, tnsai, _) = call(
        &router,
        get(&format!("/protocols/{}", url_encode(tnsai_protocol_hash()))),
    )
    .await;
    assert_eq!(tnsai.as_str().unwrap(), TNSAI_PROTOCOL_DOCUMENT);
    let (status, body, _) = call(&router, get("/protocols/nope")).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(body["error"], "unknown_protocol");
}

#[tokio::test]
async fn actions_answer_under_their_protocol() {
    let (_platform, _http, router) = default_router().await;
    let order = action_hash(&router, "worker", "processOrder").await;
    let (status, answer, _) = call(
        &router,
        post(
            "/agents/worker",
            agora(Some(&order), r#"{"orderId": "A-1"}"#),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(answer["status"], "success");
    assert!(answer.get("conversationId").is_none());
    let body: Value = serde_json::from_str(answer["body"].as_str().unwrap()).unwrap();
    assert_eq!(
        body,
        json!({"ok": true, "result": {"orderId": "A-1", "status": "processed"}})
    );

    // The action's own error is a success whose body says so, as the document prescribes.
    let (_, answer, _) = call(&router, post("/agents/worker", agora(Some(&order), "{}"))).await;
    assert_eq!(answer["status"], "success");
    let body: Value = serde_json::from_str(answer["body"].as_str().unwrap()).unwrap();
    assert_eq!(body["ok"], false);
    assert_eq!(body["code"], "action_failed");
    assert!(body["error"].as_str().unwrap().contains("orderId"));

    let fail = action_hash(&router, "worker", "fail").await;
    let (_, answer, _) = call(&router, post("/agents/worker", agora(Some(&fail), ""))).await;
    let body: Value = serde_json::from_str(answer["body"].as_str().unwrap()).unwrap();
    assert_eq!(
        body,
        json!({"ok": false, "error": "card declined", "code": "action_failed"})
    );

    // A body that is not an object of parameters.
    let (_, answer, _) = call(
        &router,
        post("/agents/worker", agora(Some(&order), "[1, 2]")),
    )
    .await;
    let body: Value = serde_json::from_str(answer["body"].as_str().unwrap()).unwrap();
    assert_eq!(body["code"], "invalid_argument");

    // A panic is not covered by the protocol: failure, and the agent keeps running.
    let explode = action_hash(&router, "worker", "explode").await;
    let (status, answer, _) =
        call(&router, post("/agents/worker", agora(Some(&explode), ""))).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(answer["status"], "failure");
    assert!(
        answer["body"]
            .as_str()
            .unwrap()
            .contains("the action exploded")
    );
    let (_, answer, _) = call(
        &router,
        post(
            "/agents/worker",
            agora(Some(&order), r#"{"orderId": "A-2"}"#),
        ),
    )
    .await;
    assert_eq!(answer["status"], "success");

    // A role action's document invokes it in its role.
    let charge = action_hash(&router, "worker", "charge").await;
    let (_, answer, _) = call(
        &router,
        post("/agents/worker", agora(Some(&charge), r#"{"amount": 12}"#)),
    )
    .await;
    let body: Value = serde_json::from_str(answer["body"].as_str().unwrap()).unwrap();
    assert_eq!(body, json!({"ok": true, "result": {"charged": 12}}));
}

#[tokio::test]
async fn natural_language_goes_to_the_language_model() {
    let (_platform, _http, router) = default_router().await;
    let (status, answer, _) = call(
        &router,
        post("/agents/analyst", agora(None, "Please summarize Q3")),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(answer["status"], "success");
    assert_eq!(answer["body"], "Revenue grew 12% in Q3; costs fell 3%.");

    let (status, answer, _) = call(&router, post("/agents/worker", agora(None, "hello?"))).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(answer["status"], "failure");
    assert_eq!(
        answer["body"],
        "Agent worker has no language model to answer text"
    );
}

#[tokio::test]
async fn unknown_protocols_are_rejected_or_followed_by_the_model() {
    let (_platform, _http, router) = default_router().await;
    let document = "---\nname: greeting\ndescription: Says hello.\nmultiround: false\n---\nThe body is a name; answer with a greeting.\n";
    let hash = protocol_hash(document);
    // No model: rejected without fetching anything.
    let (status, answer, _) = call(
        &router,
        post(
            "/agents/worker",
            json!({"protocolHash": hash, "protocolSources": [encode_data_uri(document)], "body": "Ada"})
                .to_string(),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(answer["status"], "rejected");
    assert!(
        answer["body"]
            .as_str()
            .unwrap()
            .contains("no language model")
    );
    // A model, but no source that holds the document: rejected, body says why.
    let (_, answer, _) = call(
        &router,
        post(
            "/agents/analyst",
            json!({"protocolHash": hash, "protocolSources": [encode_data_uri("other text")], "body": "Ada"})
                .to_string(),
        ),
    )
    .await;
    assert_eq!(answer["status"], "rejected");
    assert!(
        answer["body"]
            .as_str()
            .unwrap()
            .contains("does not hold protocol")
    );
    // A model and a data: source: the model follows the protocol.
    let (_, answer, _) = call(
        &router,
        post(
            "/agents/analyst",
            json!({"protocolHash": hash, "protocolSources": [encode_data_uri(document)], "body": "summarize"})
                .to_string(),
        ),
    )
    .await;
    assert_eq!(answer["status"], "success");
    assert_eq!(answer["body"], "Revenue grew 12% in Q3; costs fell 3%.");
}

#[tokio::test]
async fn multi_round_conversations_open_continue_and_close() {
    let (_platform, http, router) = default_router().await;
    let first =
        json!({"protocolHash": null, "protocolSources": [], "body": "hello", "multiround": true});
    let (status, answer, _) = call(&router, post("/agents/analyst", first.to_string())).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(answer["status"], "success");
    assert_eq!(answer["body"], "I only summarize reports.");
    let id = answer["conversationId"].as_str().unwrap().to_owned();
    assert_eq!(http.open_conversations(), 1);

    let turn = format!("/agents/analyst/conversations/{id}");
    let (status, answer, _) = call(&router, post(&turn, agora(None, "then summarize"))).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(answer["body"], "Revenue grew 12% in Q3; costs fell 3%.");

    // Another agent's URL does not reach this conversation.
    let (status, body, _) = call(
        &router,
        post(
            &format!("/agents/worker/conversations/{id}"),
            agora(None, "x"),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(body["error"], "unknown_conversation");

    let close = axum::http::Request::delete(&turn)
        .body(axum::body::Body::empty())
        .unwrap();
    let (status, answer, _) = call(&router, close).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(answer["status"], "success");
    assert_eq!(http.open_conversations(), 0);

    let (status, body, _) = call(&router, post(&turn, agora(None, "still there?"))).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(body["error"], "unknown_conversation");
    let close = axum::http::Request::delete(&turn)
        .body(axum::body::Body::empty())
        .unwrap();
    let (status, _, _) = call(&router, close).await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    // Action protocols keep their protocol for every turn.
    let echo = action_hash(&router, "worker", "echo").await;
    let first = json!({"protocolHash": echo, "protocolSources": [], "body": "{\"n\": 1}", "multiround": true});
    let (_, answer, _) = call(&router, post("/agents/worker", first.to_string())).await;
    let id = answer["conversationId"].as_str().unwrap().to_owned();
    let (_, answer, _) = call(
        &router,
        post(
            &format!("/agents/worker/conversations/{id}"),
            agora(None, r#"{"n": 2}"#),
        ),
    )
    .await;
    let body: Value = serde_json::from_str(answer["body"].as_str().unwrap()).unwrap();
    assert_eq!(body, json!({"ok": true, "result": {"n": 2}}));
}

#[tokio::test]
async fn bad_inputs_get_json_errors_with_their_status() {
    let (_platform, _http, router) = served(http_support::config().body_limit(1024)).await;
    let cases: Vec<(axum::http::Request<axum::body::Body>, StatusCode, &str)> = vec![
        (
            post("/agents/worker", r#"{"protocolHash": null, "bo"#),
            StatusCode::BAD_REQUEST,
            "malformed_json",
        ),
        (
            post("/agents/worker", "not json at all"),
            StatusCode::BAD_REQUEST,
            "malformed_json",
        ),
        (
            post("/agents/worker", r#"{"protocolHash": 5, "body": "x"}"#),
            StatusCode::BAD_REQUEST,
            "invalid_request",
        ),
        (
            post("/agents/worker", r#"{"protocolHash": null, "body": 5}"#),
            StatusCode::BAD_REQUEST,
            "invalid_request",
        ),
        (
            post("/agents/worker", r#"{"protocolHash": null}"#),
            StatusCode::BAD_REQUEST,
            "invalid_request",
        ),
        (
            post(
                "/agents/worker",
                r#"{"protocolHash": null, "protocolSources": "x", "body": ""}"#,
            ),
            StatusCode::BAD_REQUEST,
            "invalid_request",
        ),
        (
            post(
                "/agents/worker",
                r#"{"protocolHash": null, "body": "", "multiround": "yes"}"#,
            ),
            StatusCode::BAD_REQUEST,
            "invalid_request",
        ),
        (
            post("/agents/worker", "[]"),
            StatusCode::BAD_REQUEST,
            "invalid_request",
        ),
        (
            post("/agents/worker", vec![b'x'; 2048]),
            StatusCode::PAYLOAD_TOO_LARGE,
            "too_large",
        ),
        (
            post("/agents/ghost", agora(None, "hi")),
            StatusCode::NOT_FOUND,
            "unknown_agent",
        ),
        (get("/agents/ghost"), StatusCode::NOT_FOUND, "unknown_agent"),
        (
            post("/agents/worker/conversations/nope", agora(None, "hi")),
            StatusCode::NOT_FOUND,
            "unknown_conversation",
        ),
        (get("/nowhere"), StatusCode::NOT_FOUND, "unknown_route"),
        (
            axum::http::Request::put("/agents/worker")
                .body(axum::body::Body::empty())
                .unwrap(),
            StatusCode::METHOD_NOT_ALLOWED,
            "method_not_allowed",
        ),
        (
            post("/.wellknown", "{}"),
            StatusCode::METHOD_NOT_ALLOWED,
            "method_not_allowed",
        ),
    ];
    for (request, status, code) in cases {
        let what = format!("{} {}", request.method(), request.uri());
        let (got, body, _) = call(&router, request).await;
        assert_eq!(got, status, "{what}: {body}");
        assert_eq!(body["error"], code, "{what}: {body}");
        assert_eq!(body["status"], "failure", "{what}");
        assert!(
            body["body"].as_str().is_some_and(|b| !b.is_empty()),
            "{what}"
        );
    }
    // The unknown agent's error names it the way the platform does.
    let (_, body, _) = call(&router, post("/agents/ghost", agora(None, "hi"))).await;
    assert_eq!(body["body"], "Unknown receiver: ghost");
}

#[tokio::test]
async fn tokens_are_required_when_configured() {
    let (_platform, http, router) = served(http_support::config().require_tokens(true)).await;
    let (status, body, headers) = call(&router, get("/.wellknown")).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(body["error"], "unauthorized");
    assert_eq!(headers["www-authenticate"], "Bearer");

    let token = http.issue_token();
    let with = |bearer: &str| {
        axum::http::Request::get("/.wellknown")
            .header("authorization", format!("Bearer {bearer}"))
            .body(axum::body::Body::empty())
            .unwrap()
    };
    let (status, _, _) = call(&router, with(token.bearer())).await;
    assert_eq!(status, StatusCode::OK);
    let wrong = format!("{}x", token.bearer());
    let (status, _, _) = call(&router, with(&wrong)).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, _, _) = call(&router, with("garbage")).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);

    let other = http.issue_token();
    assert!(http.revoke_token(token.id()));
    let (status, _, _) = call(&router, with(token.bearer())).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, _, _) = call(&router, with(other.bearer())).await;
    assert_eq!(
        status,
        StatusCode::OK,
        "revoking one token leaves the others"
    );
    assert!(!http.revoke_token(token.id()));
}

#[tokio::test]
async fn rate_limit_answers_429_with_retry_after() {
    let limit = RateLimit::per_second(1).with_burst(3);
    let (_platform, _http, router) = served(http_support::config().rate_limit(Some(limit))).await;
    for _ in 0..3 {
        let (status, _, _) = call(&router, get("/agents")).await;
        assert_eq!(status, StatusCode::OK);
    }
    let (status, body, headers) = call(&router, get("/agents")).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(body["error"], "rate_limited");
    let retry: u64 = headers["retry-after"].to_str().unwrap().parse().unwrap();
    assert!((1..=2).contains(&retry));
}

#[tokio::test]
async fn slow_requests_time_out_with_504() {
    let config = http_support::config().request_timeout(Duration::from_millis(200));
    let (_platform, _http, router) = served(config).await;
    let sleep = action_hash(&router, "worker", "sleep").await;
    let started = std::time::Instant::now();
    let (status, body, _) = call(
        &router,
        post("/agents/worker", agora(Some(&sleep), r#"{"ms": 3000}"#)),
    )
    .await;
    assert_eq!(status, StatusCode::GATEWAY_TIMEOUT);
    assert_eq!(body["error"], "timeout");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "answered at the timeout"
    );
    let (status, _, _) = call(
        &router,
        post("/agents/worker", agora(Some(&sleep), r#"{"ms": 10}"#)),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test]
async fn platform_url_takes_publications_under_the_tnsai_protocol() {
    let (platform, _http, router) = default_router().await;
    let desk = platform.describe("desk").unwrap();
    assert_eq!(desk.subscriptions, ["news"]);
    let message = Message::builder(MessageKind::Broadcast, "remote-sender")
        .topic("news")
        .payload(json!({"headline": "hi"}))
        .build();
    let body = serde_json::to_string(&message).unwrap();
    let (status, answer, _) = call(
        &router,
        post("/", agora(Some(tnsai_protocol_hash()), &body)),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(answer["status"], "success");
    let report: Value = serde_json::from_str(answer["body"].as_str().unwrap()).unwrap();
    assert_eq!(report, json!({"delivered": ["desk"], "failed": []}));

    let (_, answer, _) = call(&router, post("/", agora(None, "hello"))).await;
    assert_eq!(answer["status"], "rejected");
    // A directed message does not belong at the platform URL.
    let direct = Message::builder(MessageKind::Action, "x")
        .receiver("worker")
        .action("echo")
        .build();
    let (_, answer, _) = call(
        &router,
        post(
            "/",
            agora(
                Some(tnsai_protocol_hash()),
                &serde_json::to_string(&direct).unwrap(),
            ),
        ),
    )
    .await;
    assert_eq!(answer["status"], "failure");
    let error: Value = serde_json::from_str(answer["body"].as_str().unwrap()).unwrap();
    assert_eq!(error["code"], "invalid_message");
}

#[tokio::test]
async fn tnsai_messages_are_checked_and_answered_in_the_response() {
    let (_platform, _http, router) = default_router().await;
    let hash = tnsai_protocol_hash();
    let message = Message::builder(MessageKind::Action, "remote-caller")
        .receiver("worker")
        .action("echo")
        .params(params! {"k" => "v"})
        .build();
    let (status, answer, _) = call(
        &router,
        post(
            "/agents/worker",
            agora(Some(hash), &serde_json::to_string(&message).unwrap()),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(answer["status"], "success");
    let reply: Message = serde_json::from_str(answer["body"].as_str().unwrap()).unwrap();
    assert_eq!(reply.kind(), MessageKind::Reply);
    assert_eq!(reply.in_reply_to(), Some(message.id()));
    assert_eq!(reply.payload(), &json!({"k": "v"}));

    // Sent to the wrong agent's URL.
    let (_, answer, _) = call(
        &router,
        post(
            "/agents/analyst",
            agora(Some(hash), &serde_json::to_string(&message).unwrap()),
        ),
    )
    .await;
    assert_eq!(answer["status"], "failure");
    let error: Value = serde_json::from_str(answer["body"].as_str().unwrap()).unwrap();
    assert_eq!(error["code"], "invalid_message");
    // Not a message at all.
    let (_, answer, _) = call(
        &router,
        post("/agents/worker", agora(Some(hash), "{\"kind\": 1}")),
    )
    .await;
    assert_eq!(answer["status"], "failure");
    // An error answer carries its code.
    let fail = Message::builder(MessageKind::Action, "remote-caller")
        .receiver("worker")
        .action("nope")
        .build();
    let (_, answer, _) = call(
        &router,
        post(
            "/agents/worker",
            agora(Some(hash), &serde_json::to_string(&fail).unwrap()),
        ),
    )
    .await;
    let reply: Message = serde_json::from_str(answer["body"].as_str().unwrap()).unwrap();
    assert_eq!(reply.kind(), MessageKind::Error);
    assert_eq!(reply.payload()["code"], "unknown_action");
}

#[tokio::test]
async fn a_stopped_transport_answers_503() {
    let (platform, _http, router) = default_router().await;
    platform.shutdown().await;
    let (status, body, _) = call(&router, get("/agents")).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(body["error"], "not_started");
}
