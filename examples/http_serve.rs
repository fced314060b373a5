//! Serves the quickstart's billing agent (with its actions) and analyst (with a language
//! model) over HTTP, in the Agora wire format, without tokens, until it is killed.
//!
//! ```text
//! cargo run --example http_serve -- --listen 127.0.0.1:8080
//! ```
//!
//! It prints one line per agent URL on stdout; point any Agora client at one:
//!
//! ```text
//! curl -s http://127.0.0.1:8080/.wellknown
//! curl -s http://127.0.0.1:8080/agents
//! curl -s -X POST http://127.0.0.1:8080/agents/analyst-agent \
//!      -H 'content-type: application/json' \
//!      -d '{"protocolHash": null, "protocolSources": [], "body": "Please summarize the quarterly report"}'
//! ```

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use serde_json::json;
use tnsai_coordination::Platform;
use tnsai_coordination::transport::http::HttpConfig;
use tnsai_core::prelude::*;

/// Charges orders; refunds are reserved for the billing role.
#[direct_message]
#[derive(Default)]
struct BillingAgent {
    charged_cents: AtomicI64,
}

#[actions]
impl BillingAgent {
    /// Charges an order and reports its status. Parameters: orderId (string),
    /// amountCents (positive integer).
    #[action(name = "processOrder")]
    async fn process_order(&self, params: Params) -> ActionResult {
        let order = params.require_str("orderId")?;
        let cents = params.require_i64("amountCents")?;
        if cents <= 0 {
            return Err(ActionError::new(format!(
                "order {order}: amount must be positive"
            )));
        }
        let total = self.charged_cents.fetch_add(cents, Ordering::SeqCst) + cents;
        Ok(
            json!({ "orderId": order, "status": "charged", "amountCents": cents, "totalCents": total }),
        )
    }

    /// Refunds an order; only callers acting in the billing role may. Parameters:
    /// orderId (string).
    #[action(role = "billing-role")]
    async fn refund(&self, params: Params) -> ActionResult {
        let order = params.require_str("orderId")?;
        Ok(json!({ "orderId": order, "status": "refunded" }))
    }
}

/// Answers questions about the numbers with a (scripted, offline) language model.
#[direct_message]
struct AnalystAgent {
    model: Arc<dyn LanguageModel>,
}

#[actions]
impl AnalystAgent {
    #[language_model]
    fn model(&self) -> Arc<dyn LanguageModel> {
        Arc::clone(&self.model)
    }
}

fn listen_address() -> Result<SocketAddr, String> {
    let mut args = std::env::args().skip(1);
    let mut listen = "127.0.0.1:8080".to_owned();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--listen" => listen = args.next().ok_or("--listen needs an address")?,
            other => match other.strip_prefix("--listen=") {
                Some(address) => listen = address.to_owned(),
                None => {
                    return Err(format!(
                        "unknown argument `{other}`; use --listen HOST:PORT"
                    ));
                }
            },
        }
    }
    listen
        .parse()
        .map_err(|e| format!("`{listen}` is not an address: {e}"))
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let address = listen_address()?;
    let platform = Platform::new();
    platform
        .spawn("billing-agent", BillingAgent::default())
        .await?;
    let model = ScriptedModel::new()
        .when_contains(
            "summar",
            "Q3: revenue up 12%, refunds down 3%, two large orders pending.",
        )
        .otherwise("I can summarize the quarterly report.");
    platform
        .spawn(
            "analyst-agent",
            AnalystAgent {
                model: Arc::new(model),
            },
        )
        .await?;
    let http = platform
        .serve_http(HttpConfig::new().listen(address))
        .await?;
    for id in platform.agents() {
        if let Some(url) = http.agent_url(id.as_str()) {
            println!("{url}");
        }
    }
    eprintln!(
        "serving {} agents; protocols at {}/.wellknown, agents at {}/agents; Ctrl-C stops",
        platform.len(),
        http.url().unwrap_or_default(),
        http.url().unwrap_or_default()
    );
    tokio::signal::ctrl_c().await?;
    platform.shutdown().await;
    Ok(())
}
