//! Protocol documents: hashes against the Python library's values, and documents read
//! from `data:` and `http://` sources, with oversized and slow sources refused.
#![cfg(feature = "http")]

mod common;
mod http_support;

use std::time::Duration;

use axum::body::Body;
use axum::routing::get;
use futures_util::stream;
use serde_json::{Value, json};
use tnsai_coordination::Platform;
use tnsai_coordination::transport::http::agora::{
    SourceErrorKind, SourceFetcher, encode_data_uri, encode_data_uri_base64, protocol_hash,
};

const DOCUMENT: &str =
    "---\nname: weather\ndescription: Weather by city\nmultiround: false\n---\nBody: a city.\n";

#[test]
fn hashes_and_data_uris_match_the_python_library() {
    // Values printed by agora-protocol 0.2.0: compute_hash and encode_as_data_uri.
    let known = [
        (
            "hello\n",
            "9XLTlvrpIGYocU+yzgD3LpTyJY8=",
            "data:text/plain;charset=utf-8,hello%0A",
        ),
        (
            "",
            "2jmj7l5rSw0yVb/vlWAYkK/YBwk=",
            "data:text/plain;charset=utf-8,",
        ),
        (
            "Ünïcödé ✓\n",
            "Fu4eoTnZOeU6ykLvopWsQCC7BxU=",
            "data:text/plain;charset=utf-8,%C3%9Cn%C3%AFc%C3%B6d%C3%A9%20%E2%9C%93%0A",
        ),
        (
            DOCUMENT,
            "03oKOCgO2OTLXrZb4hLXrT4+b4w=",
            "data:text/plain;charset=utf-8,---%0Aname%3A%20weather%0Adescription%3A%20Weather%20by%20city%0Amultiround%3A%20false%0A---%0ABody%3A%20a%20city.%0A",
        ),
    ];
    for (text, hash, uri) in known {
        assert_eq!(protocol_hash(text), hash, "{text:?}");
        assert_eq!(encode_data_uri(text), uri, "{text:?}");
    }
}

/// A server of protocol documents: one as it should be, one too large (with and without
/// a length), one that trickles, one missing.
async fn document_server() -> String {
    let app = axum::Router::new()
        .route("/weather.md", get(|| async { DOCUMENT }))
        .route("/big.md", get(|| async { "x".repeat(4096) }))
        .route(
            "/big-stream.md",
            get(|| async {
                let chunks = (0..64).map(|_| Ok::<_, std::io::Error>("y".repeat(128)));
                Body::from_stream(stream::iter(chunks))
            }),
        )
        .route(
            "/slow.md",
            get(|| async {
                let chunks = stream::unfold(0, |n| async move {
                    if n == 20 {
                        return None;
                    }
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    Some((Ok::<_, std::io::Error>("z"), n + 1))
                });
                Body::from_stream(chunks)
            }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    url
}

#[tokio::test]
async fn the_fetcher_reads_verifies_and_refuses() {
    let base = document_server().await;
    let fetcher = SourceFetcher::new(1024, Duration::from_millis(500));
    let hash = protocol_hash(DOCUMENT);
    let document = fetcher
        .fetch_verified(&hash, &[format!("{base}/weather.md")])
        .await
        .unwrap();
    assert_eq!(document.name(), "weather");
    assert_eq!(document.description(), "Weather by city");
    for uri in [encode_data_uri(DOCUMENT), encode_data_uri_base64(DOCUMENT)] {
        assert_eq!(
            fetcher.fetch_verified(&hash, &[uri]).await.unwrap().text(),
            DOCUMENT
        );
    }
    // The first source that works wins; the others' errors do not matter.
    let sources = [format!("{base}/missing.md"), format!("{base}/weather.md")];
    assert!(fetcher.fetch_verified(&hash, &sources).await.is_ok());

    let refused = [
        ("/big.md", SourceErrorKind::TooLarge),
        ("/big-stream.md", SourceErrorKind::TooLarge),
        ("/slow.md", SourceErrorKind::Timeout),
        ("/missing.md", SourceErrorKind::Unavailable),
    ];
    for (path, kind) in refused {
        let started = std::time::Instant::now();
        let error = fetcher.fetch(&format!("{base}{path}")).await.unwrap_err();
        assert_eq!(error.kind(), kind, "{path}: {error}");
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "{path} took too long"
        );
    }
    let mismatch = fetcher
        .fetch_verified("not-the-hash", &[format!("{base}/weather.md")])
        .await
        .unwrap_err();
    assert_eq!(mismatch.kind(), SourceErrorKind::HashMismatch);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_with_a_model_follows_protocols_from_sources() {
    let base = document_server().await;
    let platform = Platform::new();
    platform.spawn("analyst", common::Analyst).await.unwrap();
    let config = http_support::config()
        .source_limit(1024)
        .source_timeout(Duration::from_millis(500));
    let http = platform.serve_http(config).await.unwrap();
    let url = http.agent_url("analyst").unwrap();
    let client = reqwest::Client::new();
    let ask = |hash: String, sources: Vec<String>| {
        let (client, url) = (client.clone(), url.clone());
        async move {
            let request =
                json!({"protocolHash": hash, "protocolSources": sources, "body": "summarize"});
            let response = client.post(&url).json(&request).send().await.unwrap();
            assert_eq!(response.status(), 200);
            response.json::<Value>().await.unwrap()
        }
    };
    let hash = protocol_hash(DOCUMENT);
    let answer = ask(hash.clone(), vec![format!("{base}/weather.md")]).await;
    assert_eq!(answer["status"], "success", "{answer}");
    assert_eq!(answer["body"], "Revenue grew 12% in Q3; costs fell 3%.");

    let big = "x".repeat(4096);
    for (hash, source, reason) in [
        (protocol_hash(&big), format!("{base}/big.md"), "larger than"),
        (
            protocol_hash("z".repeat(20).as_str()),
            format!("{base}/slow.md"),
            "did not deliver",
        ),
        (protocol_hash(&big), encode_data_uri(&big), "larger than"),
        (
            "unknown".to_owned(),
            "file:///etc/passwd".to_owned(),
            "unsupported",
        ),
    ] {
        let answer = ask(hash, vec![source.clone()]).await;
        assert_eq!(answer["status"], "rejected", "{source}: {answer}");
        assert!(
            answer["body"].as_str().unwrap().contains(reason),
            "{source}: {answer}"
        );
    }
    platform.shutdown().await;

    // With http sources off, only data: sources are read.
    let platform = Platform::new();
    platform.spawn("analyst", common::Analyst).await.unwrap();
    let http = platform
        .serve_http(http_support::config().fetch_http_sources(false))
        .await
        .unwrap();
    let request = json!({"protocolHash": hash, "protocolSources": [format!("{base}/weather.md")], "body": "x"});
    let answer: Value = client
        .post(http.agent_url("analyst").unwrap())
        .json(&request)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(answer["status"], "rejected");
    platform.shutdown().await;
}
