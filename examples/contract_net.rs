//! Contract net: a manager asks four translators for bids on a job, picks the cheapest,
//! and gets the work delivered. One translator refuses.
//!
//! Run with `cargo run --example contract_net`.

use std::time::Duration;

use serde_json::json;
use tnsai_coordination::Platform;
use tnsai_coordination::acl;
use tnsai_coordination::fipa::{NegotiationOutcome, evaluator};
use tnsai_core::prelude::*;

/// Hands out translation jobs.
#[direct_message]
struct ProjectManager;

/// A freelance translator with a price per page and a list of languages.
#[agent]
struct Translator {
    euro_per_page: f64,
    languages: &'static [&'static str],
}

#[actions]
impl Translator {
    /// Bids on a call for proposals when it covers one of our languages.
    #[action(name = "cfp")]
    async fn bid(&self, params: Params) -> ActionResult {
        let task = params.require_str("content")?;
        let Some(language) = self.languages.iter().find(|l| task.contains(*l)) else {
            return Ok(acl::refuse(format!(
                "I only translate into {}",
                self.languages.join(", ")
            )));
        };
        let pages = 500.0;
        let total = self.euro_per_page * pages;
        Ok(acl::propose(
            format!("{language}: {pages} pages in 4 days for {total} EUR"),
            Some(total),
        ))
    }

    /// Delivers the job once our proposal is accepted.
    #[action(name = "accept-proposal")]
    async fn deliver(&self, params: Params) -> ActionResult {
        tokio::time::sleep(Duration::from_millis(50)).await;
        Ok(json!(format!(
            "Delivered: {}",
            params.require_str("content")?
        )))
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let platform = Platform::new();
    let manager = platform
        .spawn("manager", ProjectManager)
        .await?
        .protocol_manager()
        .expect("annotated");
    let translators = [
        ("ana", 1.10, &["German", "Spanish"][..]),
        ("bo", 0.95, &["German"][..]),
        ("chen", 1.40, &["German", "Chinese"][..]),
        ("dora", 0.80, &["Italian"][..]),
    ];
    for (name, euro_per_page, languages) in translators {
        platform
            .spawn(
                name,
                Translator {
                    euro_per_page,
                    languages,
                },
            )
            .await?;
        println!("{name}: {euro_per_page:.2} EUR/page, translates {languages:?}");
    }

    let task = "Translate the 500-page manual into German";
    println!("\nmanager: call for proposals: {task}");
    let report = manager
        .negotiate(
            task,
            ["ana", "bo", "chen", "dora"],
            Duration::from_secs(2),
            evaluator::lowest_price(),
        )
        .await?;

    for message in &report.history {
        println!(
            "  {:<16} {:>8} -> {:<8} {}",
            message.performative().as_str(),
            message.sender().unwrap_or("?"),
            message.receiver().unwrap_or("?"),
            message.content().unwrap_or_default()
        );
    }
    match &report.outcome {
        NegotiationOutcome::Awarded { winner, result } => {
            println!("\nawarded to {winner}: {result}")
        }
        other => println!("\nno award: {other:?}"),
    }
    platform.shutdown().await;
    Ok(())
}
