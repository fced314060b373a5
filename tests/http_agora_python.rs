//! Interoperability with the Agora protocol's Python library (agora-protocol 0.2.0).
//!
//! Ignored by default: it needs a Python with the library installed. Run it with
//!
//! ```text
//! python3 -m venv /tmp/agora && /tmp/agora/bin/pip install agora-protocol==0.2.0
//! AGORA_PYTHON=/tmp/agora/bin/python cargo test -p tnsai --test http_agora_python -- --ignored
//! ```
#![cfg(feature = "http")]

mod http_support;

use std::sync::Arc;

use serde_json::json;
use tnsai_coordination::Platform;
use tnsai_core::prelude::*;

/// The quickstart's billing agent, as `examples/http_serve.rs` serves it.
#[direct_message]
#[derive(Default)]
struct BillingAgent;

#[actions]
impl BillingAgent {
    /// Charges an order and reports its status.
    #[action(name = "processOrder")]
    async fn process_order(&self, params: Params) -> ActionResult {
        let order = params.require_str("orderId")?;
        let cents = params.require_i64("amountCents")?;
        if cents <= 0 {
            return Err(ActionError::new(format!(
                "order {order}: amount must be positive"
            )));
        }
        Ok(json!({ "orderId": order, "status": "charged", "amountCents": cents }))
    }

    /// Refunds an order.
    #[action(role = "billing-role")]
    async fn refund(&self, params: Params) -> ActionResult {
        Ok(json!({ "orderId": params.require_str("orderId")?, "status": "refunded" }))
    }
}

#[direct_message]
struct AnalystAgent;

#[actions]
impl AnalystAgent {
    #[language_model]
    fn model(&self) -> Arc<dyn LanguageModel> {
        Arc::new(
            ScriptedModel::new()
                .when_contains("summar", "Q3: revenue up 12%, refunds down 3%.")
                .otherwise("I can summarize the quarterly report."),
        )
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs Python with agora-protocol 0.2.0 (set AGORA_PYTHON)"]
async fn the_python_library_calls_tnsai_agents() {
    let platform = Platform::new();
    platform.spawn("billing-agent", BillingAgent).await.unwrap();
    platform.spawn("analyst-agent", AnalystAgent).await.unwrap();
    let http = platform.serve_http(http_support::config()).await.unwrap();
    let python = std::env::var("AGORA_PYTHON").unwrap_or_else(|_| "python3".to_owned());
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/http_support/agora_interop.py"
    );
    let output = tokio::process::Command::new(&python)
        .arg(script)
        .arg(http.url().unwrap())
        .output()
        .await
        .unwrap_or_else(|e| panic!("could not run {python}: {e}"));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains("all Agora interop checks passed"),
        "{stdout}"
    );
    platform.shutdown().await;
}
