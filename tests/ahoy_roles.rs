//! Role selection: the roles an agent could play, a model's suggestion for a goal, and
//! the adapter configured only for what is confirmed.

use std::sync::Arc;

use tnsai_coordination::bspl::llm::{
    RoleCatalog, RoleSelection, RoleSelectionErrorKind, Terminations,
};
use tnsai_coordination::bspl::{Adapter, Specification, Termination};
use tnsai_core::{ModelError, ModelErrorKind, ScriptedModel};

fn catalog() -> RoleCatalog {
    let mut protocols = Vec::new();
    for text in [
        include_str!("../tnsai-bspl/protocols/purchase.bspl"),
        include_str!("../tnsai-bspl/protocols/logistics.bspl"),
    ] {
        protocols.extend(
            Specification::parse(text)
                .unwrap()
                .protocols()
                .iter()
                .cloned()
                .map(Arc::new),
        );
    }
    RoleCatalog::new(protocols)
}

const GOAL: &str = "I sell furniture online: I buy stock from suppliers and ship customer orders.";

#[test]
fn candidates_are_every_role_not_played_yet() {
    let catalog = catalog();
    let names: Vec<String> = catalog
        .candidates(&Adapter::new("shop"))
        .iter()
        .map(|c| format!("{}. {}", c.number, c.name()))
        .collect();
    assert_eq!(
        names,
        [
            "1. Purchase:Buyer",
            "2. Purchase:Seller",
            "3. Purchase:Shipper",
            "4. Logistics:Merchant",
            "5. Logistics:Wrapper",
            "6. Logistics:Labeler",
            "7. Logistics:Packer"
        ]
    );
    let buyer = &catalog.candidates(&Adapter::new("shop"))[0];
    assert_eq!(
        buyer.summary(),
        "Buyer in Purchase: sends rfq, accept, reject and completed; receives quote and deliver; can start enactments; done once it has sent reject or sent completed."
    );

    let mut adapter = Adapter::new("shop");
    catalog
        .select("Purchase", "Buyer")
        .unwrap()
        .configure(&mut adapter, &Terminations::new())
        .unwrap();
    let left = catalog.candidates(&adapter);
    assert_eq!(left.len(), 6);
    assert!(left.iter().all(|c| c.name() != "Purchase:Buyer"));
    assert_eq!(left[0].number, 1, "numbers are consecutive");
}

#[tokio::test]
async fn the_model_suggests_and_the_application_confirms() {
    let catalog = catalog();
    let mut adapter = Adapter::new("shop");
    let model = ScriptedModel::new()
        .then_reply(r#"Here you go: {"roles": [1, "Logistics:Merchant"], "reason": "buying stock and shipping orders"}"#);
    let suggestion = catalog.suggest(&model, &adapter, GOAL).await.unwrap();

    let picked: Vec<String> = suggestion.picks().iter().map(|c| c.name()).collect();
    assert_eq!(picked, ["Purchase:Buyer", "Logistics:Merchant"]);
    assert_eq!(
        suggestion.reason(),
        Some("buying stock and shipping orders")
    );
    // Suggesting configured nothing.
    assert!(adapter.protocols().next().is_none());
    // The model was shown the goal, the numbered roles and the protocols.
    let prompt = model.requests()[0].last_user_text().unwrap().to_owned();
    assert!(prompt.starts_with(&format!("Goal: {GOAL}")));
    assert!(prompt.contains("4. Merchant in Logistics: sends RequestLabel and RequestWrapping; receives Packed; can start enactments; done once it has received Packed."));
    assert!(prompt.contains("Packer -> Merchant: Packed["));

    let set = suggestion
        .confirm()
        .configure(&mut adapter, &Terminations::new())
        .unwrap();
    assert_eq!(adapter.roles("Purchase"), ["Buyer"]);
    assert_eq!(adapter.roles("Logistics"), ["Merchant"]);
    assert_eq!(
        set[1],
        (
            "Logistics".to_owned(),
            "Merchant".to_owned(),
            Termination::Received("Packed".into())
        )
    );
    // The user may overrule the suggestion.
    let mut other = Adapter::new("shop");
    suggestion
        .confirm_numbers(&[2])
        .configure(&mut other, &Terminations::new())
        .unwrap();
    assert_eq!(other.roles("Purchase"), ["Seller"]);
    assert!(other.roles("Logistics").is_empty());
}

#[tokio::test]
async fn bad_suggestions_are_asked_again_once() {
    let catalog = catalog();
    let adapter = Adapter::new("shop");
    let model = ScriptedModel::new()
        .then_reply(r#"{"roles": [99]}"#)
        .then_reply(r#"{"roles": []}"#);
    let suggestion = catalog.suggest(&model, &adapter, GOAL).await.unwrap();
    assert!(suggestion.picks().is_empty());
    assert!(suggestion.confirm().is_empty());
    assert!(
        model.requests()[1]
            .last_user_text()
            .unwrap()
            .contains("99 is not a role number from 1 to 7")
    );

    let model = ScriptedModel::new().otherwise("Buyer, obviously.");
    let error = catalog.suggest(&model, &adapter, GOAL).await.unwrap_err();
    assert_eq!(error.kind(), RoleSelectionErrorKind::InvalidAnswer);
    assert_eq!(model.requests().len(), 2);

    let model =
        ScriptedModel::new().then_fail(ModelError::new(ModelErrorKind::Unavailable, "down"));
    let error = catalog.suggest(&model, &adapter, GOAL).await.unwrap_err();
    assert_eq!(error.kind(), RoleSelectionErrorKind::Model);
}

#[tokio::test]
async fn nothing_left_and_unknown_roles() {
    let catalog = catalog();
    let mut adapter = Adapter::new("everything");
    let mut all = RoleSelection::new();
    for candidate in catalog.candidates(&adapter) {
        all = all
            .and(&catalog, candidate.protocol.name(), &candidate.role)
            .unwrap();
    }
    all.configure(&mut adapter, &Terminations::new()).unwrap();
    let model = ScriptedModel::new().otherwise(r#"{"roles": []}"#);
    let error = catalog.suggest(&model, &adapter, GOAL).await.unwrap_err();
    assert_eq!(error.kind(), RoleSelectionErrorKind::NoCandidates);
    assert!(model.requests().is_empty());

    let error = catalog.select("Purchase", "Auditor").unwrap_err();
    assert_eq!(error.kind(), RoleSelectionErrorKind::UnknownRole);
    assert_eq!(
        error.to_string(),
        "no role Auditor of protocol Purchase is available"
    );
}
