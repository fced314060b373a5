//! `send_message` text answered by an agent whose `#[language_model]` is the
//! OpenAI-compatible client, served by a local stub.

mod llm_support;

use std::sync::Arc;
use std::time::Duration;

use llm_support::{Reply, Stub};
use tnsai_coordination::openai::{ApiKey, OpenAiClient, OpenAiConfig};
use tnsai_coordination::{Platform, ProtocolError};
use tnsai_core::prelude::*;

#[direct_message]
struct Analyst {
    model: Arc<OpenAiClient>,
}

#[actions]
impl Analyst {
    #[language_model]
    fn model(&self) -> Arc<dyn LanguageModel> {
        self.model.clone()
    }
}

#[direct_message]
struct Asker;

fn analyst(stub: &Stub, key: &str) -> Analyst {
    Analyst {
        model: Arc::new(
            OpenAiClient::new(
                OpenAiConfig::new(&stub.base_url, "analyst-model")
                    .with_api_key(ApiKey::new(key))
                    .with_timeout(Duration::from_secs(5)),
            )
            .unwrap(),
        ),
    }
}

#[tokio::test]
async fn text_is_answered_by_the_remote_model() {
    let stub = Stub::with_key("sk-analyst").await;
    stub.then(Reply::text("Revenue grew 12% in Q3."));
    let platform = Platform::new();
    platform
        .spawn("analyst", analyst(&stub, "sk-analyst"))
        .await
        .unwrap();
    let asker = platform.spawn("asker", Asker).await.unwrap();
    let pm = asker.protocol_manager().unwrap();

    let answer = pm
        .send_message("analyst", "Please summarize the quarterly report")
        .await
        .unwrap();
    assert_eq!(answer.content(), Some("Revenue grew 12% in Q3."));
    let request = &stub.requests()[0];
    assert_eq!(request.body["model"], "analyst-model");
    assert_eq!(
        request.body["messages"][0]["content"],
        "Please summarize the quarterly report"
    );
    platform.shutdown().await;
}

#[tokio::test]
async fn a_refused_key_comes_back_as_an_error_without_the_key() {
    let stub = Stub::with_key("sk-analyst").await;
    let platform = Platform::new();
    platform
        .spawn("analyst", analyst(&stub, "sk-expired-key-42"))
        .await
        .unwrap();
    let pm = platform
        .spawn("asker", Asker)
        .await
        .unwrap()
        .protocol_manager()
        .unwrap();
    let error = pm.send_message("analyst", "hello?").await.unwrap_err();
    assert!(
        matches!(&error, ProtocolError::LanguageModel(text) if text.contains("unauthorized")),
        "{error:?}"
    );
    assert!(!error.to_string().contains("sk-expired-key-42"), "{error}");
    platform.shutdown().await;
}
