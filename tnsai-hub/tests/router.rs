//! The hub's routes in process with `tower::ServiceExt::oneshot`: status codes and JSON
//! error bodies for every refusal.

use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::{Method, Request, StatusCode, header};
use http_body_util::BodyExt;
use serde_json::{Value, json};
use tnsai_hub::{Hub, HubConfig, Limits};
use tower::ServiceExt;

struct App {
    _dir: tempfile::TempDir,
    hub: Hub,
    router: Router,
}

fn app(limits: Limits) -> App {
    let dir = tempfile::tempdir().unwrap();
    let hub = Hub::open(HubConfig::new(dir.path()).with_limits(limits)).unwrap();
    let router = hub.router();
    App {
        _dir: dir,
        hub,
        router,
    }
}

async fn call(
    router: &Router,
    method: Method,
    uri: &str,
    token: Option<&str>,
    body: Option<&str>,
) -> (StatusCode, Option<String>, Value) {
    let mut request = Request::builder().method(method).uri(uri);
    if let Some(token) = token {
        request = request.header(header::AUTHORIZATION, format!("Bearer {token}"));
    }
    let body = match body {
        Some(text) => {
            request = request.header(header::CONTENT_TYPE, "application/json");
            Body::from(text.to_owned())
        }
        None => Body::empty(),
    };
    let response = router
        .clone()
        .oneshot(request.body(body).unwrap())
        .await
        .unwrap();
    let status = response.status();
    let retry = response
        .headers()
        .get(header::RETRY_AFTER)
        .map(|v| v.to_str().unwrap().to_owned());
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    let value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    (status, retry, value)
}

fn code(body: &Value) -> &str {
    body["error"]["code"].as_str().unwrap_or("<no error code>")
}

async fn pair(app: &App, device: &str) -> String {
    let invite = app.hub.invite(Duration::from_secs(60)).await.unwrap();
    let body = json!({"code": invite.expose(), "device": device}).to_string();
    let (status, _, paired) = call(&app.router, Method::POST, "/v1/pair", None, Some(&body)).await;
    assert_eq!(status, StatusCode::CREATED, "{paired}");
    paired["token"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn health_and_unknown_routes() {
    let app = app(Limits::default());
    let (status, _, body) = call(&app.router, Method::GET, "/v1/health", None, None).await;
    assert_eq!((status, body), (StatusCode::OK, json!({"status": "ok"})));
    let (status, _, body) = call(&app.router, Method::GET, "/v1/nothing", None, None).await;
    assert_eq!((status, code(&body)), (StatusCode::NOT_FOUND, "not_found"));
    let (status, _, body) = call(&app.router, Method::DELETE, "/v1/messages", None, None).await;
    assert_eq!(
        (status, code(&body)),
        (StatusCode::METHOD_NOT_ALLOWED, "method_not_allowed")
    );
}

#[tokio::test]
async fn pairing_refusals_are_json() {
    let app = app(Limits::default());
    let router = &app.router;
    let (status, _, body) = call(router, Method::POST, "/v1/pair", None, Some("{not json")).await;
    assert_eq!(
        (status, code(&body)),
        (StatusCode::BAD_REQUEST, "invalid_request")
    );
    let (status, _, body) = call(
        router,
        Method::POST,
        "/v1/pair",
        None,
        Some("{\"code\": 1}"),
    )
    .await;
    assert_eq!(
        (status, code(&body)),
        (StatusCode::BAD_REQUEST, "invalid_request")
    );
    let request = Request::post("/v1/pair").body(Body::from("{}")).unwrap();
    let response = router.clone().oneshot(request).await.unwrap();
    assert_eq!(response.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
    let wrong = json!({"code": "AAAA", "device": "x"}).to_string();
    let (status, _, body) = call(router, Method::POST, "/v1/pair", None, Some(&wrong)).await;
    assert_eq!(
        (status, code(&body)),
        (StatusCode::UNAUTHORIZED, "invite_invalid")
    );
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not valid")
    );
}

#[tokio::test]
async fn authenticated_routes_refuse_missing_and_forged_tokens() {
    let app = app(Limits::default());
    let token = pair(&app, "alice").await;
    let body = json!({"to": "bob/x", "content": "hi"}).to_string();
    for bad in [
        None,
        Some("garbage"),
        Some("tnsai1.00000000000000000000000000000000.AAAA"),
    ] {
        let (status, _, reply) =
            call(&app.router, Method::POST, "/v1/messages", bad, Some(&body)).await;
        assert_eq!(
            (status, code(&reply)),
            (StatusCode::UNAUTHORIZED, "unauthorized"),
            "{bad:?}"
        );
    }
    // The right device id with a wrong secret is refused the same way.
    let last = if token.ends_with('A') { 'B' } else { 'A' };
    let forged = format!("{}{last}", &token[..token.len() - 1]);
    assert_ne!(forged, token);
    let (status, _, reply) = call(
        &app.router,
        Method::POST,
        "/v1/messages",
        Some(&forged),
        Some(&body),
    )
    .await;
    assert_eq!(
        (status, code(&reply)),
        (StatusCode::UNAUTHORIZED, "unauthorized")
    );

    let (status, _, reply) = call(&app.router, Method::GET, "/v1/agents", Some(&token), None).await;
    assert_eq!((status, reply), (StatusCode::OK, json!({"agents": []})));
    let (status, _, reply) =
        call(&app.router, Method::GET, "/v1/connect", Some(&token), None).await;
    assert_eq!(
        (status, code(&reply)),
        (StatusCode::BAD_REQUEST, "invalid_request")
    );
    let (status, _, reply) = call(&app.router, Method::GET, "/v1/connect", None, None).await;
    assert_eq!(
        (status, code(&reply)),
        (StatusCode::UNAUTHORIZED, "unauthorized")
    );

    app.hub.revoke("alice").await.unwrap();
    let (status, _, reply) = call(&app.router, Method::GET, "/v1/agents", Some(&token), None).await;
    assert_eq!(
        (status, code(&reply)),
        (StatusCode::UNAUTHORIZED, "device_revoked")
    );
}

#[tokio::test]
async fn send_bodies_are_checked() {
    let mut limits = Limits::default();
    limits.max_content_bytes = 1000;
    limits.max_context_bytes = 100;
    let app = app(limits);
    let token = pair(&app, "alice").await;
    let send = |body: String| {
        let router = app.router.clone();
        let token = token.clone();
        async move {
            call(
                &router,
                Method::POST,
                "/v1/messages",
                Some(&token),
                Some(&body),
            )
            .await
        }
    };
    let (status, _, reply) =
        send(json!({"to": "bob/x", "content": "hi", "context": [1]}).to_string()).await;
    assert_eq!(
        (status, code(&reply)),
        (StatusCode::BAD_REQUEST, "invalid_request")
    );
    let (status, _, reply) =
        send(json!({"to": "bob/x", "content": "hi", "run": "sh"}).to_string()).await;
    assert_eq!(
        (status, code(&reply)),
        (StatusCode::BAD_REQUEST, "invalid_request")
    );
    let (status, _, reply) =
        send(json!({"to": "bob/x", "content": "x".repeat(1001)}).to_string()).await;
    assert_eq!(
        (status, code(&reply)),
        (StatusCode::PAYLOAD_TOO_LARGE, "too_large")
    );
    // Past the body limit the body is not even read.
    let (status, _, reply) =
        send(json!({"to": "bob/x", "content": "x".repeat(100_000)}).to_string()).await;
    assert_eq!(
        (status, code(&reply)),
        (StatusCode::PAYLOAD_TOO_LARGE, "too_large")
    );
    let (status, _, reply) = send(json!({"to": "bob/x", "content": "hi"}).to_string()).await;
    assert_eq!((status, code(&reply)), (StatusCode::FORBIDDEN, "no_agent"));
}

#[tokio::test]
async fn rate_limited_requests_say_when_to_retry() {
    let mut limits = Limits::default();
    limits.rate_per_second = 0.2;
    limits.rate_burst = 2;
    let app = app(limits);
    let token = pair(&app, "alice").await;
    for _ in 0..2 {
        let (status, _, _) = call(&app.router, Method::GET, "/v1/agents", Some(&token), None).await;
        assert_eq!(status, StatusCode::OK);
    }
    let (status, retry, reply) =
        call(&app.router, Method::GET, "/v1/agents", Some(&token), None).await;
    assert_eq!(
        (status, code(&reply)),
        (StatusCode::TOO_MANY_REQUESTS, "rate_limited")
    );
    let retry: u64 = retry.expect("Retry-After").parse().unwrap();
    assert!((1..=5).contains(&retry), "{retry}");
}
