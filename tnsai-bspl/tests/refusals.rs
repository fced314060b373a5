//! Every refused emission and reception, duplicates, enactment separation and
//! adapter setup errors.

mod common;

use std::sync::Arc;

use common::crate_protocol;
use tnsai_bspl::{
    Adapter, EmitError, Emitted, MessageInstance, Protocol, ReceiveError, Received, SetupError,
    Termination,
};

fn purchase() -> Arc<Protocol> {
    Arc::new(crate_protocol("purchase.bspl", "Purchase"))
}

fn flexible() -> Arc<Protocol> {
    Arc::new(crate_protocol("flexible-purchase.bspl", "FlexiblePurchase"))
}

fn playing(protocol: &Arc<Protocol>, roles: &[&str]) -> Adapter {
    let mut adapter = Adapter::new("agent");
    adapter
        .play(protocol.clone(), roles)
        .unwrap_or_else(|e| panic!("{e}"));
    adapter
}

fn message(protocol: &str, name: &str, sender: &str, bindings: &[(&str, &str)]) -> MessageInstance {
    MessageInstance::new(protocol, name, sender, bindings.iter().copied())
}

fn sent(adapter: &mut Adapter, message: MessageInstance) {
    let outcome = adapter.emit(message);
    assert!(matches!(outcome, Ok(Emitted::Sent(_))), "{outcome:?}");
}

fn received(adapter: &mut Adapter, message: MessageInstance) {
    assert_eq!(adapter.receive(message), Ok(Received::Accepted));
}

/// A buyer that asked for ID 1 (ball) and got a quote of 10.
fn quoted_buyer() -> Adapter {
    let mut buyer = playing(&purchase(), &["Buyer"]);
    sent(
        &mut buyer,
        message("Purchase", "rfq", "Buyer", &[("ID", "1"), ("item", "ball")]),
    );
    received(
        &mut buyer,
        message(
            "Purchase",
            "quote",
            "Seller",
            &[("ID", "1"), ("item", "ball"), ("price", "10")],
        ),
    );
    buyer
}

fn accept(price: &str) -> MessageInstance {
    message(
        "Purchase",
        "accept",
        "Buyer",
        &[
            ("ID", "1"),
            ("item", "ball"),
            ("price", price),
            ("address", "Main St"),
            ("resp", "yes"),
        ],
    )
}

#[test]
fn message_shape_errors() {
    let mut buyer = quoted_buyer();
    let history = buyer.knowledge("Purchase").map(|k| k.observations().len());

    let unknown_protocol = buyer.emit(message("Auction", "bid", "Buyer", &[]));
    assert!(
        matches!(unknown_protocol, Err(EmitError::UnknownProtocol { ref protocol }) if protocol == "Auction")
    );

    let unknown_message = buyer.emit(message("Purchase", "haggle", "Buyer", &[]));
    assert!(
        matches!(unknown_message, Err(EmitError::UnknownMessage { ref message, .. }) if message == "haggle")
    );

    let wrong_sender = buyer.emit(message(
        "Purchase",
        "rfq",
        "Seller",
        &[("ID", "2"), ("item", "bat")],
    ));
    assert!(matches!(
        wrong_sender,
        Err(EmitError::WrongSender { ref expected, ref found, .. }) if expected == "Buyer" && found == "Seller"
    ));

    let not_my_role = buyer.emit(message(
        "Purchase",
        "quote",
        "Seller",
        &[("ID", "1"), ("item", "ball"), ("price", "5")],
    ));
    assert!(
        matches!(not_my_role, Err(EmitError::NotSenderRole { ref role, .. }) if role == "Seller")
    );

    let mut misaddressed = message("Purchase", "rfq", "Buyer", &[("ID", "2"), ("item", "bat")]);
    misaddressed.recipients = vec!["Shipper".to_owned()];
    assert!(matches!(
        buyer.emit(misaddressed),
        Err(EmitError::WrongRecipients { .. })
    ));

    let missing = buyer.emit(message("Purchase", "rfq", "Buyer", &[("ID", "2")]));
    assert!(
        matches!(missing, Err(EmitError::MissingParameters { ref parameters, .. }) if parameters == &["item"])
    );

    let extra = buyer.emit(message(
        "Purchase",
        "rfq",
        "Buyer",
        &[("ID", "2"), ("item", "bat"), ("price", "3")],
    ));
    assert!(
        matches!(extra, Err(EmitError::UnexpectedParameters { ref parameters, .. }) if parameters == &["price"])
    );

    // Nothing refused reached the history.
    assert_eq!(
        buyer.knowledge("Purchase").map(|k| k.observations().len()),
        history
    );
}

#[test]
fn unbound_in_is_refused() {
    let mut buyer = playing(&purchase(), &["Buyer"]);
    sent(
        &mut buyer,
        message("Purchase", "rfq", "Buyer", &[("ID", "1"), ("item", "ball")]),
    );
    // No quote yet: price is unknown.
    let refused = buyer.emit(accept("10"));
    assert!(
        matches!(refused, Err(EmitError::UnboundIn { ref parameter, .. }) if parameter == "price"),
        "{refused:?}"
    );
    // An enactment the buyer never heard of.
    let unknown = buyer.emit(message(
        "Purchase",
        "completed",
        "Buyer",
        &[
            ("ID", "9"),
            ("item", "ball"),
            ("price", "1"),
            ("satisfaction", "ok"),
        ],
    ));
    assert!(
        matches!(unknown, Err(EmitError::UnboundIn { .. })),
        "{unknown:?}"
    );
}

#[test]
fn in_value_different_from_the_history_is_refused() {
    let mut buyer = quoted_buyer();
    let refused = buyer.emit(accept("8"));
    assert!(
        matches!(
            refused,
            Err(EmitError::InMismatch { ref parameter, ref known, ref supplied, .. })
                if parameter == "price" && known == "10" && supplied == "8"
        ),
        "{refused:?}"
    );
}

#[test]
fn already_bound_out_is_refused() {
    let mut buyer = quoted_buyer();
    sent(&mut buyer, accept("10"));
    let reject = message(
        "Purchase",
        "reject",
        "Buyer",
        &[
            ("ID", "1"),
            ("item", "ball"),
            ("price", "10"),
            ("outcome", "no"),
            ("resp", "no"),
        ],
    );
    let refused = buyer.emit(reject);
    assert!(
        matches!(refused, Err(EmitError::OutAlreadyBound { ref parameter, ref value, .. }) if parameter == "resp" && value == "yes"),
        "{refused:?}"
    );
    // Accepting again with another address changes bound values too.
    let mut again = accept("10");
    again.bindings.insert("address".into(), "Elm St".into());
    assert!(matches!(
        buyer.emit(again),
        Err(EmitError::OutAlreadyBound { .. })
    ));
}

#[test]
fn bound_nil_is_refused() {
    let protocol = flexible();
    let mut customer = playing(&protocol, &["FlexibleCustomer"]);
    let id = ("ID", "1");
    sent(
        &mut customer,
        message(
            "FlexiblePurchase",
            "rfq",
            "FlexibleCustomer",
            &[id, ("item", "phone")],
        ),
    );
    received(
        &mut customer,
        message(
            "FlexiblePurchase",
            "offer",
            "FlexibleMerchant",
            &[id, ("item", "phone"), ("price", "5")],
        ),
    );
    sent(
        &mut customer,
        message(
            "FlexiblePurchase",
            "accept",
            "FlexibleCustomer",
            &[id, ("item", "phone"), ("price", "5"), ("confirmation", "c")],
        ),
    );
    sent(
        &mut customer,
        message(
            "FlexiblePurchase",
            "express_delivery_request",
            "FlexibleCustomer",
            &[
                id,
                ("item", "phone"),
                ("confirmation", "c"),
                ("express_delivery", "fast"),
            ],
        ),
    );
    sent(
        &mut customer,
        message(
            "FlexiblePurchase",
            "standard_delivery_request",
            "FlexibleCustomer",
            &[
                id,
                ("item", "phone"),
                ("confirmation", "c"),
                ("standard_delivery", "slow"),
            ],
        ),
    );
    let pay = message(
        "FlexiblePurchase",
        "pay_express",
        "FlexibleCustomer",
        &[
            id,
            ("price", "5"),
            ("express_delivery", "fast"),
            ("payment", "card"),
        ],
    );
    let refused = customer.emit(pay);
    assert!(
        matches!(refused, Err(EmitError::NilBound { ref parameter, ref value, .. }) if parameter == "standard_delivery" && value == "slow"),
        "{refused:?}"
    );
    assert!(customer.enabled().iter().all(|f| f.message == "rfq"));

    // Supplying a value for a nil parameter is never allowed.
    let mut merchant = playing(&protocol, &["FlexibleMerchant"]);
    let nil_supplied = merchant.emit(message(
        "FlexiblePurchase",
        "express_delivery",
        "FlexibleMerchant",
        &[
            id,
            ("item", "phone"),
            ("express_delivery", "fast"),
            ("standard_delivery", "slow"),
        ],
    ));
    assert!(
        matches!(nil_supplied, Err(EmitError::UnexpectedParameters { ref parameters, .. }) if parameters == &["standard_delivery"]),
        "{nil_supplied:?}"
    );
}

#[test]
fn key_reuse_with_different_values_is_refused_and_exact_repeats_are_duplicates() {
    let mut buyer = playing(&purchase(), &["Buyer"]);
    let rfq = message("Purchase", "rfq", "Buyer", &[("ID", "1"), ("item", "ball")]);
    sent(&mut buyer, rfq.clone());
    let reuse = buyer.emit(message(
        "Purchase",
        "rfq",
        "Buyer",
        &[("ID", "1"), ("item", "bat")],
    ));
    assert!(
        matches!(
            reuse,
            Err(EmitError::KeyReuse { ref parameter, ref existing, ref supplied, .. })
                if parameter == "item" && existing == "ball" && supplied == "bat"
        ),
        "{reuse:?}"
    );
    let repeat = buyer.emit(rfq);
    assert!(matches!(repeat, Ok(Emitted::Duplicate(_))), "{repeat:?}");
    assert_eq!(
        buyer.knowledge("Purchase").map(|k| k.observations().len()),
        Some(1)
    );

    // A received key cannot be reused for a new enactment either.
    let mut seller = playing(&purchase(), &["Seller", "Buyer"]);
    received(
        &mut seller,
        message("Purchase", "rfq", "Buyer", &[("ID", "5"), ("item", "kite")]),
    );
    let own = seller.emit(message(
        "Purchase",
        "rfq",
        "Buyer",
        &[("ID", "5"), ("item", "ball")],
    ));
    assert!(matches!(own, Err(EmitError::KeyReuse { .. })), "{own:?}");
}

#[test]
fn sub_enactment_keys_may_be_new_but_not_reused() {
    let text = common::read_source("test_bspl_L102.bspl");
    let auction = Arc::new(
        tnsai_bspl::Specification::parse(&text)
            .ok()
            .and_then(|s| s.into_protocol("Auction"))
            .unwrap_or_else(|| panic!("Auction")),
    );
    let mut bidder = playing(&auction, &["B"]);
    received(
        &mut bidder,
        message("Auction", "Start", "A", &[("id", "1")]),
    );
    sent(
        &mut bidder,
        message(
            "Auction",
            "Bid",
            "B",
            &[("id", "1"), ("bidID", "b1"), ("bid", "3")],
        ),
    );
    sent(
        &mut bidder,
        message(
            "Auction",
            "Bid",
            "B",
            &[("id", "1"), ("bidID", "b2"), ("bid", "4")],
        ),
    );
    let changed = bidder.emit(message(
        "Auction",
        "Bid",
        "B",
        &[("id", "1"), ("bidID", "b1"), ("bid", "9")],
    ));
    assert!(
        matches!(changed, Err(EmitError::KeyReuse { ref parameter, ref existing, .. }) if parameter == "bid" && existing == "3"),
        "{changed:?}"
    );
}

#[test]
fn receptions_are_checked() {
    let mut seller = playing(&purchase(), &["Seller"]);
    let rfq = message("Purchase", "rfq", "Buyer", &[("ID", "1"), ("item", "ball")]);
    received(&mut seller, rfq.clone());
    assert_eq!(seller.receive(rfq), Ok(Received::Duplicate));

    let conflict = seller.receive(message(
        "Purchase",
        "accept",
        "Buyer",
        &[
            ("ID", "1"),
            ("item", "bat"),
            ("price", "10"),
            ("address", "x"),
            ("resp", "yes"),
        ],
    ));
    assert!(
        matches!(
            conflict,
            Err(ReceiveError::Conflict { ref parameter, ref known, ref received, .. })
                if parameter == "item" && known == "ball" && received == "bat"
        ),
        "{conflict:?}"
    );
    let other_protocol = seller.receive(message("Auction", "bid", "B", &[]));
    assert!(matches!(
        other_protocol,
        Err(ReceiveError::UnknownProtocol { .. })
    ));
    let unknown = seller.receive(message("Purchase", "haggle", "Buyer", &[]));
    assert!(matches!(unknown, Err(ReceiveError::UnknownMessage { .. })));
    let wrong_sender = seller.receive(message(
        "Purchase",
        "rfq",
        "Shipper",
        &[("ID", "2"), ("item", "x")],
    ));
    assert!(matches!(
        wrong_sender,
        Err(ReceiveError::WrongSender { .. })
    ));
    let mut misaddressed = message("Purchase", "rfq", "Buyer", &[("ID", "2"), ("item", "x")]);
    misaddressed.recipients = vec!["Shipper".into()];
    assert!(matches!(
        seller.receive(misaddressed),
        Err(ReceiveError::WrongRecipients { .. })
    ));
    let not_mine = seller.receive(message(
        "Purchase",
        "deliver",
        "Shipper",
        &[
            ("ID", "1"),
            ("item", "ball"),
            ("address", "x"),
            ("outcome", "ok"),
        ],
    ));
    assert!(matches!(not_mine, Err(ReceiveError::NotARecipient { .. })));
    let missing = seller.receive(message("Purchase", "rfq", "Buyer", &[("ID", "2")]));
    assert!(matches!(
        missing,
        Err(ReceiveError::MissingParameters { .. })
    ));
    let extra = seller.receive(message(
        "Purchase",
        "rfq",
        "Buyer",
        &[("ID", "2"), ("item", "x"), ("price", "1")],
    ));
    assert!(matches!(
        extra,
        Err(ReceiveError::UnexpectedParameters { .. })
    ));

    // Only the first rfq was recorded.
    assert_eq!(
        seller.knowledge("Purchase").map(|k| k.observations().len()),
        Some(1)
    );
}

#[test]
fn enactments_with_different_keys_stay_apart() {
    let mut seller = playing(&purchase(), &["Seller"]);
    received(
        &mut seller,
        message("Purchase", "rfq", "Buyer", &[("ID", "1"), ("item", "ball")]),
    );
    received(
        &mut seller,
        message("Purchase", "rfq", "Buyer", &[("ID", "2"), ("item", "bat")]),
    );
    sent(
        &mut seller,
        message(
            "Purchase",
            "quote",
            "Seller",
            &[("ID", "1"), ("item", "ball"), ("price", "10")],
        ),
    );
    // Quoting ID 2 with ID 1's item is refused; its own item is fine.
    let mixed = seller.emit(message(
        "Purchase",
        "quote",
        "Seller",
        &[("ID", "2"), ("item", "ball"), ("price", "10")],
    ));
    assert!(
        matches!(mixed, Err(EmitError::InMismatch { .. })),
        "{mixed:?}"
    );
    sent(
        &mut seller,
        message(
            "Purchase",
            "quote",
            "Seller",
            &[("ID", "2"), ("item", "bat"), ("price", "30")],
        ),
    );
    let knowledge = seller
        .knowledge("Purchase")
        .unwrap_or_else(|| panic!("knowledge"));
    let enactments = knowledge.enactments();
    assert_eq!(enactments.len(), 2);
    assert_eq!(
        enactments[0].bindings.get("price").map(String::as_str),
        Some("10")
    );
    assert_eq!(
        enactments[1].bindings.get("price").map(String::as_str),
        Some("30")
    );
    assert_eq!(enactments[1].observations.len(), 2);
}

#[test]
fn error_messages_say_what_is_wrong() {
    let mut buyer = quoted_buyer();
    let error = buyer
        .emit(accept("8"))
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        error.contains("price") && error.contains("10") && error.contains('8'),
        "{error}"
    );
}

#[test]
fn setup_errors_are_typed() {
    let mut adapter = Adapter::new("agent");
    assert!(matches!(
        adapter.play(purchase(), &["Auctioneer"]),
        Err(SetupError::UnknownRole { ref role, .. }) if role == "Auctioneer"
    ));
    adapter
        .play(purchase(), &["Buyer"])
        .unwrap_or_else(|e| panic!("{e}"));
    let impostor = tnsai_bspl::Specification::parse(
        "Purchase { roles Buyer, Seller parameters out ID key A -> B: x[out ID] }"
            .replace("A -> B", "Buyer -> Seller")
            .as_str(),
    )
    .ok()
    .and_then(|s| s.into_protocol("Purchase"))
    .unwrap_or_else(|| panic!("impostor"));
    assert!(matches!(
        adapter.play(Arc::new(impostor), &["Seller"]),
        Err(SetupError::ConflictingProtocol { .. })
    ));
    assert!(matches!(
        adapter.set_termination("Purchase", "Seller", Termination::Quiescent),
        Err(SetupError::RoleNotPlayed { .. })
    ));
    assert!(matches!(
        adapter.set_termination("Purchase", "Buyer", Termination::Sent("haggle".into())),
        Err(SetupError::UnknownMessage { .. })
    ));
    assert!(matches!(
        adapter.set_termination("Logistics", "Merchant", Termination::Complete),
        Err(SetupError::UnknownProtocol { .. })
    ));
    // Adding a role to a protocol already played is fine.
    adapter
        .play(purchase(), &["Shipper"])
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(adapter.roles("Purchase"), ["Buyer", "Shipper"]);
}

#[test]
fn playable_roles_describe_what_each_role_does() {
    let protocol = purchase();
    let adapter = playing(&protocol, &["Buyer"]);
    let roles = adapter.playable_roles(&protocol);
    let names: Vec<&str> = roles.iter().map(|r| r.role).collect();
    assert_eq!(names, ["Seller", "Shipper"]);
    let seller = &roles[0];
    let sends: Vec<&str> = seller.sends.iter().map(|m| m.name()).collect();
    assert_eq!(sends, ["quote", "ship"]);
    assert_eq!(seller.produces, ["price", "shipped"]);
    assert!(!seller.initiates());
    let buyer = protocol
        .role_view("Buyer")
        .unwrap_or_else(|| panic!("Buyer"));
    assert!(buyer.initiates());
}

#[test]
fn termination_conditions_follow_the_history() {
    let mut buyer = quoted_buyer();
    buyer
        .set_termination(
            "Purchase",
            "Buyer",
            Termination::AnyOf(vec![
                Termination::Sent("completed".into()),
                Termination::Complete,
            ]),
        )
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(!buyer.is_done("Purchase", "Buyer"));
    sent(&mut buyer, accept("10"));
    assert!(!buyer.is_done("Purchase", "Buyer"));
    received(
        &mut buyer,
        message(
            "Purchase",
            "deliver",
            "Shipper",
            &[
                ("ID", "1"),
                ("item", "ball"),
                ("address", "Main St"),
                ("outcome", "ok"),
            ],
        ),
    );
    // All public outs (ID, item, price, outcome) are now known.
    assert!(buyer.is_done("Purchase", "Buyer"));

    let mut shipper = playing(&purchase(), &["Shipper"]);
    shipper
        .set_termination("Purchase", "Shipper", Termination::Quiescent)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(!shipper.is_done("Purchase", "Shipper"), "no enactment yet");
    received(
        &mut shipper,
        message(
            "Purchase",
            "ship",
            "Seller",
            &[
                ("ID", "1"),
                ("item", "ball"),
                ("address", "Main St"),
                ("shipped", "y"),
            ],
        ),
    );
    assert!(!shipper.is_done("Purchase", "Shipper"));
    sent(
        &mut shipper,
        message(
            "Purchase",
            "deliver",
            "Shipper",
            &[
                ("ID", "1"),
                ("item", "ball"),
                ("address", "Main St"),
                ("outcome", "ok"),
            ],
        ),
    );
    assert!(shipper.is_done("Purchase", "Shipper"));
    assert!(shipper.all_done());
}
