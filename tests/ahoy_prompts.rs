//! The Ahoy prompts, compared exactly with committed snapshots in tests/ahoy_snapshots.
//! After an intended change, regenerate them with
//! `TNSAI_UPDATE_SNAPSHOTS=1 cargo test --test ahoy_prompts` and review the diff.

use std::path::PathBuf;
use std::sync::Arc;

use tnsai_coordination::bspl::decision::Event;
use tnsai_coordination::bspl::llm::{LlmDecisionMaker, Tool, ToolRegistry};
use tnsai_coordination::bspl::{Adapter, MessageInstance, Protocol, Specification};
use tnsai_core::{ChatRole, CompletionRequest, ScriptedModel};

fn protocol(text: &str, name: &str) -> Arc<Protocol> {
    Arc::new(
        Specification::parse(text)
            .unwrap()
            .into_protocol(name)
            .unwrap(),
    )
}

/// Compares `actual` with the snapshot `name`, or writes it when asked to.
fn snapshot(name: &str, actual: &str) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/ahoy_snapshots")
        .join(name);
    if std::env::var_os("TNSAI_UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; run with TNSAI_UPDATE_SNAPSHOTS=1 to create it",
            path.display()
        )
    });
    if expected != actual {
        let line = expected
            .lines()
            .zip(actual.lines())
            .position(|(e, a)| e != a)
            .map_or_else(
                || expected.lines().count().min(actual.lines().count()) + 1,
                |i| i + 1,
            );
        panic!(
            "{name} differs from the snapshot from line {line}\n--- expected\n{expected}\n--- actual\n{actual}"
        );
    }
}

fn text(request: &CompletionRequest, role: ChatRole) -> &str {
    request
        .messages()
        .iter()
        .find(|m| m.role == role)
        .map(|m| m.content.as_str())
        .unwrap()
}

#[tokio::test]
async fn purchase_buyer_after_a_quote() {
    let purchase = protocol(
        include_str!("../tnsai-bspl/protocols/purchase.bspl"),
        "Purchase",
    );
    let mut buyer = Adapter::new("buyer");
    buyer.play(purchase, &["Buyer"]).unwrap();
    let rfq = buyer
        .enabled()
        .into_iter()
        .find(|f| f.message == "rfq")
        .unwrap();
    buyer
        .emit(rfq.bind([("ID", "1"), ("item", "kite")]))
        .unwrap();
    let quote = MessageInstance::new(
        "Purchase",
        "quote",
        "Seller",
        [("ID", "1"), ("item", "kite"), ("price", "20")],
    );
    buyer.receive(quote.clone()).unwrap();

    let tools = ToolRegistry::new().with(Tool::new(
        "budget",
        "How much money is left for purchases, in EUR",
        "{}",
        |_| Ok(serde_json::json!(45)),
    ));
    let maker = LlmDecisionMaker::new(
        Arc::new(ScriptedModel::new()),
        "Buy a kite for at most 30 EUR, delivered to 1 Main St.",
    )
    .with_tools(tools);
    let request = maker
        .prompt_for(&Event::Received { message: quote }, &buyer)
        .await
        .expect("accept, reject and completed are options");
    assert!(request.wants_json());
    snapshot(
        "purchase_buyer_system.txt",
        text(&request, ChatRole::System),
    );
    snapshot("purchase_buyer_user.txt", text(&request, ChatRole::User));
}

#[tokio::test]
async fn logistics_merchant_with_two_orders() {
    let logistics = protocol(
        include_str!("../tnsai-bspl/protocols/logistics.bspl"),
        "Logistics",
    );
    let mut merchant = Adapter::new("merchant");
    merchant.play(logistics, &["Merchant"]).unwrap();
    let label = merchant
        .enabled()
        .into_iter()
        .find(|f| f.message == "RequestLabel")
        .unwrap();
    merchant
        .emit(label.bind([("orderID", "o1"), ("address", "Pier 4, Dock 9")]))
        .unwrap();
    let wrapping = merchant
        .enabled()
        .into_iter()
        .find(|f| f.message == "RequestWrapping")
        .unwrap();
    merchant
        .emit(wrapping.bind([("itemID", "o1-vase"), ("item", "vase")]))
        .unwrap();
    merchant
        .receive(MessageInstance::new(
            "Logistics",
            "Packed",
            "Packer",
            [
                ("orderID", "o1"),
                ("itemID", "o1-vase"),
                ("item", "vase"),
                ("wrapping", "bubble wrap"),
                ("label", "L-17"),
                ("status", "packed"),
            ],
        ))
        .unwrap();
    let before = merchant.enabled();
    merchant
        .emit(label.bind([("orderID", "o2"), ("address", "Main St 3")]))
        .unwrap();
    let added = merchant
        .enabled()
        .into_iter()
        .filter(|f| !before.contains(f))
        .collect();

    let maker = LlmDecisionMaker::new(
        Arc::new(ScriptedModel::new()),
        "Ship order o1 (a vase, done) and order o2 (a lamp and a rug) to their addresses.",
    );
    let request = maker
        .prompt_for(
            &Event::EnabledChanged {
                added,
                removed: Vec::new(),
            },
            &merchant,
        )
        .await
        .expect("wrapping for o2 became possible");
    snapshot(
        "logistics_merchant_system.txt",
        text(&request, ChatRole::System),
    );
    snapshot(
        "logistics_merchant_user.txt",
        text(&request, ChatRole::User),
    );
}
