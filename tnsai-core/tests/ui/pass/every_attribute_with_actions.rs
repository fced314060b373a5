// Every struct attribute at once, in an unusual order, with a derive in the middle and
// an `#[actions]` block using every marker.
use std::sync::Arc;

use tnsai_core::prelude::*;

#[pub_sub(topics = ["alerts.>", "metrics.*"], filter = "severity == \"high\"")]
#[derive(Default)]
#[debate(strategy = Majority, consensus_threshold = 0.6, round_timeout_ms = 500)]
#[direct_message(endpoint = "http://127.0.0.1:8080", transport = Http, durable = true)]
#[broadcast(topic = "team", broker = "nats://127.0.0.1:4222", transport = Nats)]
#[request_reply(timeout = 1000)]
struct Everything;

#[actions]
impl Everything {
    /// Runs.
    #[action(name = "run", role = "runner")]
    async fn run(&self, params: Params) -> ActionResult {
        Ok(params.into_value())
    }

    #[on_message_received]
    async fn heard(&self, _message: Message) {}

    #[language_model]
    fn model(&self) -> Arc<dyn LanguageModel> {
        Arc::new(ScriptedModel::new().otherwise("ok"))
    }
}

fn main() {
    let agent = Everything::default();
    let specs = agent.protocol_specs();
    assert_eq!(specs.paradigms().len(), 5);
    assert_eq!(specs.validate(), Ok(()));
    assert_eq!(agent.actions()[0].role(), Some("runner"));
    assert!(agent.language_model().is_some());
}
