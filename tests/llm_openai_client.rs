//! The OpenAI-compatible client against a local stub of the chat-completions API.

mod llm_support;

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use llm_support::{Reply, Stub};
use serde_json::json;
use tnsai_coordination::openai::{ApiKey, OpenAiClient, OpenAiConfig, ResponseFormat};
use tnsai_core::{CompletionRequest, LanguageModel, ModelErrorKind};

fn stub_client(stub: &Stub) -> OpenAiClient {
    OpenAiClient::new(
        OpenAiConfig::new(&stub.base_url, "stub-model")
            .with_timeout(Duration::from_secs(5))
            .with_backoff(Duration::from_millis(10), Duration::from_millis(40)),
    )
    .unwrap()
}

fn chat() -> CompletionRequest {
    CompletionRequest::new()
        .system("Answer in French.")
        .user("Say hello")
}

#[tokio::test]
async fn a_completion_sends_the_chat_and_returns_the_first_choice() {
    let stub = Stub::start().await;
    stub.then(Reply::text("Bonjour"));
    let client = OpenAiClient::new(
        OpenAiConfig::new(format!("{}/", stub.base_url), "stub-model")
            .with_api_key(ApiKey::new("sk-test"))
            .with_max_tokens(64),
    )
    .unwrap();
    let answer = client.complete(&chat().temperature(0.25)).await.unwrap();
    assert_eq!(answer, "Bonjour");
    assert_eq!(client.name(), "stub-model");

    let requests = stub.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].authorization.as_deref(), Some("Bearer sk-test"));
    assert_eq!(
        requests[0].body,
        json!({
            "model": "stub-model",
            "messages": [
                {"role": "system", "content": "Answer in French."},
                {"role": "user", "content": "Say hello"}
            ],
            "temperature": 0.25,
            "max_tokens": 64,
            "stream": false
        })
    );
}

#[tokio::test]
async fn json_mode_asks_for_a_json_object_and_falls_back_when_refused() {
    let stub = Stub::start().await;
    stub.then(Reply::text("{\"ok\": true}"));
    let client = stub_client(&stub);
    client.complete(&chat().json(true)).await.unwrap();
    assert_eq!(
        stub.requests()[0].body["response_format"],
        json!({"type": "json_object"})
    );

    // A server that does not know the field: asked again without it, and never again.
    let stub = Stub::start().await;
    stub.then(Reply::error(
        400,
        "Unrecognized request argument supplied: response_format",
    ))
    .then(Reply::text("{}"))
    .then(Reply::text("{}"));
    let client = stub_client(&stub);
    assert_eq!(client.complete(&chat().json(true)).await.unwrap(), "{}");
    client.complete(&chat().json(true)).await.unwrap();
    let formats: Vec<bool> = stub
        .requests()
        .iter()
        .map(|r| r.body.get("response_format").is_some())
        .collect();
    assert_eq!(formats, [true, false, false]);

    // Off: never sent; JsonObject: a refusal is an error.
    let stub = Stub::start().await;
    let off = OpenAiClient::new(
        OpenAiConfig::new(&stub.base_url, "m").with_response_format(ResponseFormat::Off),
    )
    .unwrap();
    off.complete(&chat().json(true)).await.unwrap();
    assert!(stub.requests()[0].body.get("response_format").is_none());
    stub.then(Reply::error(400, "response_format is not supported"));
    let strict = OpenAiClient::new(
        OpenAiConfig::new(&stub.base_url, "m").with_response_format(ResponseFormat::JsonObject),
    )
    .unwrap();
    let error = strict.complete(&chat().json(true)).await.unwrap_err();
    assert_eq!(error.kind(), ModelErrorKind::InvalidRequest);
}

#[tokio::test]
async fn rate_limits_are_retried_with_backoff() {
    let stub = Stub::start().await;
    stub.then(Reply::error(429, "slow down").header("retry-after", "0"))
        .then(Reply::error(429, "slow down"))
        .then(Reply::text("finally"));
    assert_eq!(
        stub_client(&stub).complete(&chat()).await.unwrap(),
        "finally"
    );
    assert_eq!(stub.requests().len(), 3);

    // Retries run out: RateLimited, after 1 + max_retries attempts.
    let stub = Stub::start().await;
    for _ in 0..3 {
        stub.then(Reply::error(429, "slow down"));
    }
    let client = OpenAiClient::new(
        OpenAiConfig::new(&stub.base_url, "m")
            .with_max_retries(1)
            .with_backoff(Duration::from_millis(5), Duration::from_millis(5)),
    )
    .unwrap();
    let error = client.complete(&chat()).await.unwrap_err();
    assert_eq!(error.kind(), ModelErrorKind::RateLimited);
    assert!(error.message().contains("HTTP 429: slow down"), "{error}");
    assert_eq!(stub.requests().len(), 2);
}

#[tokio::test]
async fn server_errors_are_retried_then_reported() {
    let stub = Stub::start().await;
    stub.then(Reply::error(503, "warming up"))
        .then(Reply::text("ready"));
    assert_eq!(stub_client(&stub).complete(&chat()).await.unwrap(), "ready");

    let stub = Stub::start().await;
    for _ in 0..4 {
        stub.then(Reply::raw(500, "<html>Internal Server Error</html>"));
    }
    let error = stub_client(&stub).complete(&chat()).await.unwrap_err();
    assert_eq!(error.kind(), ModelErrorKind::Unavailable);
    assert!(error.message().contains("HTTP 500"), "{error}");
    assert_eq!(stub.requests().len(), 4, "the first attempt and 3 retries");
}

#[tokio::test]
async fn a_slow_server_times_out_without_retrying() {
    let stub = Stub::start().await;
    stub.then(Reply::text("too late").after(Duration::from_secs(3)));
    let client = OpenAiClient::new(
        OpenAiConfig::new(&stub.base_url, "m").with_timeout(Duration::from_millis(200)),
    )
    .unwrap();
    let error = client.complete(&chat()).await.unwrap_err();
    assert_eq!(error.kind(), ModelErrorKind::Timeout, "{error}");
    assert_eq!(stub.requests().len(), 1);
}

#[tokio::test]
async fn malformed_answers_are_typed() {
    let stub = Stub::start().await;
    stub.then(Reply::raw(200, "this is not JSON"))
        .then(Reply::json(200, json!({"choices": []})))
        .then(Reply::json(
            200,
            json!({"choices": [{"message": {"content": null}}]}),
        ));
    let client = stub_client(&stub);
    for _ in 0..3 {
        let error = client.complete(&chat()).await.unwrap_err();
        assert_eq!(error.kind(), ModelErrorKind::MalformedResponse, "{error}");
    }
    assert_eq!(
        stub.requests().len(),
        3,
        "a malformed answer is not retried"
    );
}

#[tokio::test]
async fn a_refused_key_is_unauthorized_and_never_shown() {
    let secret = "sk-wrong-0123456789-secret";
    let stub = Stub::with_key("sk-right").await;
    let client =
        OpenAiClient::new(OpenAiConfig::new(&stub.base_url, "m").with_api_key(ApiKey::new(secret)))
            .unwrap();
    let error = client.complete(&chat()).await.unwrap_err();
    assert_eq!(error.kind(), ModelErrorKind::Unauthorized);
    assert_eq!(stub.requests().len(), 1, "a refused key is not retried");
    // The stub's error text repeated the key; the client scrubbed it.
    assert!(
        error
            .message()
            .contains("Incorrect API key provided: <redacted>"),
        "{error}"
    );
    for shown in [
        error.to_string(),
        format!("{error:?}"),
        format!("{client:?}"),
        format!("{:?}", client.config()),
    ] {
        assert!(!shown.contains(secret), "{shown}");
    }

    let right = OpenAiClient::new(
        OpenAiConfig::new(&stub.base_url, "m").with_api_key(ApiKey::new("sk-right")),
    )
    .unwrap();
    assert!(right.complete(&chat()).await.is_ok());
}

/// A `tracing` writer into a shared buffer.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test(flavor = "current_thread")]
async fn the_key_stays_out_of_the_logs() {
    let secret = "sk-log-secret-9876";
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);

    let stub = Stub::with_key(secret).await;
    stub.then(Reply::error(503, "busy")).then(Reply::text("ok"));
    let client = OpenAiClient::new(
        OpenAiConfig::new(&stub.base_url, "m")
            .with_api_key(ApiKey::new(secret))
            .with_backoff(Duration::from_millis(5), Duration::from_millis(5)),
    )
    .unwrap();
    assert_eq!(client.complete(&chat()).await.unwrap(), "ok");
    let wrong = OpenAiClient::new(
        OpenAiConfig::new(&stub.base_url, "m").with_api_key(ApiKey::new(format!("{secret}-x"))),
    )
    .unwrap();
    assert!(wrong.complete(&chat()).await.is_err());

    let logs = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    assert!(logs.contains("retrying a chat completion"), "{logs}");
    assert!(logs.contains("chat completion answered"), "{logs}");
    assert!(!logs.contains(secret), "{logs}");
}

#[tokio::test]
async fn unreachable_servers_and_bad_configurations() {
    // A port nothing listens on: connection refused, retried, then Unavailable.
    let closed = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap()
    };
    let client = OpenAiClient::new(
        OpenAiConfig::new(format!("http://{closed}/v1"), "m")
            .with_max_retries(1)
            .with_backoff(Duration::from_millis(5), Duration::from_millis(5)),
    )
    .unwrap();
    let error = client.complete(&chat()).await.unwrap_err();
    assert_eq!(error.kind(), ModelErrorKind::Unavailable, "{error}");

    for base in ["", "localhost:8080", "ftp://example.org", "https://"] {
        let error = OpenAiClient::new(OpenAiConfig::new(base, "m")).unwrap_err();
        assert_eq!(error.kind(), ModelErrorKind::InvalidRequest, "{base:?}");
    }
    let error = OpenAiClient::new(OpenAiConfig::new("http://127.0.0.1:1/v1", " ")).unwrap_err();
    assert_eq!(error.kind(), ModelErrorKind::InvalidRequest);

    // An unknown model or route: InvalidRequest, not retried.
    let stub = Stub::start().await;
    stub.then(Reply::error(404, "The model `gpt-9` does not exist"));
    let error = stub_client(&stub).complete(&chat()).await.unwrap_err();
    assert_eq!(error.kind(), ModelErrorKind::InvalidRequest);
    assert!(error.message().contains("gpt-9"));
    assert_eq!(stub.requests().len(), 1);
}

#[tokio::test]
async fn the_environment_configures_the_client() {
    let stub = Stub::start().await;
    let base = stub.base_url.clone();
    let config = OpenAiConfig::from_lookup(move |name| match name {
        "OPENAI_BASE_URL" => Some(base.clone()),
        "OPENAI_API_KEY" => Some("sk-env".to_owned()),
        "TNSAI_MODEL" => Some("env-model".to_owned()),
        _ => None,
    });
    let client = OpenAiClient::new(config).unwrap();
    assert_eq!(
        client.endpoint(),
        format!("{}/chat/completions", stub.base_url)
    );
    let model: Arc<dyn LanguageModel> = Arc::new(client);
    assert_eq!(model.ask("ping").await.unwrap(), "echo: ping");
    let recorded = &stub.requests()[0];
    assert_eq!(recorded.body["model"], "env-model");
    assert_eq!(recorded.authorization.as_deref(), Some("Bearer sk-env"));
}
