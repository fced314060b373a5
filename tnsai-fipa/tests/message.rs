//! FipaMessage: builder defaults, replies, factories, receivers, user
//! parameters and JSON.

use chrono::{Duration, TimeZone, Utc};
use tnsai_fipa::{AgentIdentifier, BuildError, FipaMessage, Performative, REQUEST_PROTOCOL};

type TestResult = Result<(), Box<dyn std::error::Error>>;

#[test]
fn seed_builder_and_reply() -> TestResult {
    let m = FipaMessage::builder()
        .performative(Performative::Request)
        .sender("agent-1")
        .receiver("agent-2")
        .content("Please perform analysis")
        .protocol("fipa-request")
        .ontology("market-analysis")
        .reply_by(chrono::Utc::now() + chrono::Duration::minutes(5))
        .build()?;
    assert_eq!(m.performative(), Performative::Request);
    assert_eq!(m.sender(), Some("agent-1"));
    assert_eq!(m.receiver(), Some("agent-2"));
    assert_eq!(m.content(), Some("Please perform analysis"));
    assert_eq!(m.protocol(), Some("fipa-request"));
    assert_eq!(m.ontology(), Some("market-analysis"));
    assert!(m.reply_by().is_some_and(|t| t > Utc::now()));

    let r = m
        .create_reply()
        .performative(Performative::Agree)
        .sender("agent-2")
        .content("ok")
        .build()?;
    assert_eq!(r.performative(), Performative::Agree);
    assert_eq!(r.sender(), Some("agent-2"));
    assert_eq!(r.receiver(), Some("agent-1"));
    assert_eq!(r.content(), Some("ok"));
    assert_eq!(r.in_reply_to(), m.reply_with());
    assert_eq!(r.conversation_id(), m.conversation_id());
    assert_eq!(r.protocol(), m.protocol());
    assert_eq!(r.language(), m.language());
    assert_eq!(r.ontology(), m.ontology());
    assert_ne!(r.id(), m.id());
    Ok(())
}

#[test]
fn missing_performative_is_an_error_usable_with_question_mark() {
    fn build() -> Result<FipaMessage, Box<dyn std::error::Error>> {
        Ok(FipaMessage::builder().sender("a").content("x").build()?)
    }
    let err = build().err().map(|e| e.to_string());
    assert_eq!(err.as_deref(), Some("a FIPA message needs a performative"));
    assert_eq!(
        FipaMessage::builder().build().err(),
        Some(BuildError::MissingPerformative)
    );
}

#[test]
fn builder_defaults() -> TestResult {
    let before = Utc::now() - Duration::milliseconds(1);
    let a = FipaMessage::builder()
        .performative(Performative::Inform)
        .build()?;
    let b = FipaMessage::builder()
        .performative(Performative::Inform)
        .build()?;
    let after = Utc::now();
    assert_ne!(a.id(), b.id(), "ids are random");
    assert_ne!(a.conversation_id(), b.conversation_id());
    assert!(uuid::Uuid::parse_str(a.id().as_str()).is_ok());
    assert!(uuid::Uuid::parse_str(a.conversation_id().as_str()).is_ok());
    assert_eq!(a.language(), Some("natural"));
    assert_eq!(a.encoding(), Some("UTF-8"));
    assert!(a.timestamp() >= before && a.timestamp() <= after);
    assert_eq!(a.reply_with(), Some(format!("reply-{}", a.id()).as_str()));
    assert_eq!(a.sender(), None);
    assert_eq!(a.receiver(), None);
    assert!(a.receivers().is_empty());
    assert_eq!(a.content(), None);
    assert_eq!(a.protocol(), None);
    assert_eq!(a.ontology(), None);
    assert_eq!(a.in_reply_to(), None);
    assert_eq!(a.reply_by(), None);
    assert!(a.user_parameters().is_empty());
    Ok(())
}

#[test]
fn explicit_values_override_defaults() -> TestResult {
    let t = Utc.with_ymd_and_hms(2024, 2, 29, 23, 59, 58).single();
    let m = FipaMessage::builder()
        .performative(Performative::Confirm)
        .id("m-1")
        .conversation_id("c-1")
        .language("fipa-sl")
        .encoding("ISO-8859-1")
        .reply_with("r-1")
        .timestamp(t.ok_or("date")?)
        .build()?;
    assert_eq!(m.id(), &"m-1");
    assert_eq!(m.id().to_string(), "m-1");
    assert_eq!(m.conversation_id().to_string(), "c-1");
    assert_eq!(m.language(), Some("fipa-sl"));
    assert_eq!(m.encoding(), Some("ISO-8859-1"));
    assert_eq!(m.reply_with(), Some("r-1"));
    assert_eq!(Some(m.timestamp()), t);
    Ok(())
}

#[test]
fn replies_get_no_automatic_reply_with_and_quote_the_id_without_one() -> TestResult {
    let original = FipaMessage::builder()
        .performative(Performative::Inform)
        .sender("a")
        .in_reply_to("earlier")
        .build()?;
    assert_eq!(original.reply_with(), None, "a reply is not initiating");
    let reply = original
        .create_reply()
        .performative(Performative::Confirm)
        .build()?;
    assert_eq!(reply.in_reply_to(), Some(original.id().as_str()));
    assert_eq!(reply.sender(), None, "sender is left to the caller");
    Ok(())
}

#[test]
fn create_reply_copies_conversation_fields_and_addresses_reply_to() -> TestResult {
    let m = FipaMessage::builder()
        .performative(Performative::QueryRef)
        .sender("asker")
        .receiver("oracle")
        .add_reply_to("mailbox-1")
        .add_reply_to("mailbox-2")
        .protocol("fipa-query")
        .language("fipa-sl")
        .encoding("US-ASCII")
        .ontology("weather")
        .reply_with("q7")
        .build()?;
    let r = m
        .create_reply()
        .performative(Performative::Inform)
        .build()?;
    assert_eq!(r.receivers(), ["mailbox-1", "mailbox-2"]);
    assert_eq!(r.in_reply_to(), Some("q7"));
    assert_eq!(r.protocol(), Some("fipa-query"));
    assert_eq!(r.language(), Some("fipa-sl"));
    assert_eq!(r.encoding(), Some("US-ASCII"));
    assert_eq!(r.ontology(), Some("weather"));
    assert_eq!(r.conversation_id(), m.conversation_id());
    assert_eq!(r.performative(), Performative::Inform);
    assert!(
        m.create_reply().build().is_err(),
        "the reply builder leaves the performative unset"
    );
    Ok(())
}

#[test]
fn factories() {
    let inform = FipaMessage::inform("s", "r", "Task complete");
    assert_eq!(inform.performative(), Performative::Inform);
    assert_eq!(inform.protocol(), None);
    assert_eq!(inform.sender(), Some("s"));
    assert_eq!(inform.receiver(), Some("r"));
    assert_eq!(inform.content(), Some("Task complete"));

    let cfp = FipaMessage::cfp("manager", "worker", "Translate");
    assert_eq!(cfp.performative(), Performative::Cfp);
    assert_eq!(cfp.protocol(), Some("fipa-contract-net"));

    let query = FipaMessage::query_if("a", "b", "Is the service healthy?");
    assert_eq!(query.performative(), Performative::QueryIf);
    assert_eq!(query.protocol(), Some("fipa-query"));

    let request = FipaMessage::request("a", "b", "Do it");
    assert_eq!(request.performative(), Performative::Request);
    assert_eq!(request.protocol(), Some(REQUEST_PROTOCOL));
    assert_eq!(
        request.reply_with(),
        Some(format!("reply-{}", request.id()).as_str())
    );
}

#[test]
fn several_receivers() -> TestResult {
    let m = FipaMessage::builder()
        .performative(Performative::Cfp)
        .receiver("a")
        .add_receiver("b")
        .add_receiver_id(AgentIdentifier::new("c").with_address("http://c:7778/acc"))
        .build()?;
    assert_eq!(m.receiver(), Some("a"));
    assert_eq!(m.receivers(), vec!["a", "b", "c"]);
    assert_eq!(m.receiver_ids()[2].addresses(), ["http://c:7778/acc"]);

    let replaced = m.clone().into_builder().receivers(["x", "y"]).build()?;
    assert_eq!(replaced.receivers(), ["x", "y"]);
    let single = replaced.into_builder().receiver("z").build()?;
    assert_eq!(single.receivers(), ["z"], "receiver() replaces the list");
    Ok(())
}

#[test]
fn into_builder_keeps_every_field() -> TestResult {
    let m = FipaMessage::builder()
        .performative(Performative::Propose)
        .sender("s")
        .receiver("r")
        .content("c")
        .reply_by(Utc::now())
        .user_parameter("X-k", "v")
        .build()?;
    assert_eq!(m.clone().into_builder().build()?, m);
    Ok(())
}

#[test]
fn user_parameters_get_the_x_prefix_and_bad_names_fail() -> TestResult {
    let m = FipaMessage::builder()
        .performative(Performative::Inform)
        .user_parameter("priority", "high")
        .user_parameter("X-cost", "3")
        .user_parameter("x-lower", "kept as written")
        .build()?;
    assert_eq!(m.user_parameter("priority"), Some("high"));
    assert_eq!(m.user_parameter("X-priority"), Some("high"));
    assert_eq!(m.user_parameter("X-cost"), Some("3"));
    assert_eq!(m.user_parameter("x-lower"), Some("kept as written"));
    assert_eq!(
        m.user_parameters().keys().collect::<Vec<_>>(),
        ["X-cost", "X-priority", "x-lower"]
    );

    for bad in ["", "X-", "has space", "paren(", "tab\there"] {
        let err = FipaMessage::builder()
            .performative(Performative::Inform)
            .user_parameter(bad, "v")
            .build()
            .err();
        assert!(
            matches!(err, Some(BuildError::InvalidParameterName { .. })),
            "{bad:?}: {err:?}"
        );
    }
    let reserved = FipaMessage::builder()
        .performative(Performative::Inform)
        .user_parameter("X-tnsai-id", "v")
        .build()
        .err();
    assert!(matches!(
        reserved,
        Some(BuildError::ReservedParameterName { .. })
    ));
    let in_agent = FipaMessage::builder()
        .performative(Performative::Inform)
        .sender_id(AgentIdentifier::new("a").with_user_parameter("bad name", "v"))
        .build()
        .err();
    assert!(matches!(
        in_agent,
        Some(BuildError::InvalidParameterName { .. })
    ));
    Ok(())
}

#[test]
fn times_are_kept_to_the_millisecond_and_must_fit_four_digit_years() -> TestResult {
    let t = Utc
        .with_ymd_and_hms(2030, 1, 2, 3, 4, 5)
        .single()
        .ok_or("date")?
        + Duration::nanoseconds(123_456_789);
    let m = FipaMessage::builder()
        .performative(Performative::Inform)
        .reply_by(t)
        .timestamp(t)
        .build()?;
    let millis = t - Duration::nanoseconds(456_789);
    assert_eq!(m.reply_by(), Some(millis));
    assert_eq!(m.timestamp(), millis);

    let far = Utc
        .with_ymd_and_hms(10_000, 1, 1, 0, 0, 0)
        .single()
        .ok_or("date")?;
    let err = FipaMessage::builder()
        .performative(Performative::Inform)
        .reply_by(far)
        .build()
        .err();
    assert!(matches!(
        err,
        Some(BuildError::DateOutOfRange {
            field: "reply_by",
            ..
        })
    ));
    Ok(())
}

#[test]
fn json_round_trip_and_shape() -> TestResult {
    let m = FipaMessage::builder()
        .performative(Performative::Request)
        .sender("agent-1")
        .receivers(["agent-2", "agent-3"])
        .add_reply_to_id(AgentIdentifier::new("box").with_address("http://h:1/acc"))
        .content("Please perform analysis")
        .ontology("market-analysis")
        .protocol("fipa-request")
        .reply_by(Utc::now())
        .user_parameter("priority", "high")
        .build()?;
    let json = serde_json::to_value(&m)?;
    assert_eq!(json["performative"], "request");
    assert_eq!(json["sender"], "agent-1");
    assert_eq!(json["receivers"], serde_json::json!(["agent-2", "agent-3"]));
    assert_eq!(
        json["reply-to"],
        serde_json::json!([{"name": "box", "addresses": ["http://h:1/acc"]}])
    );
    assert_eq!(json["conversation-id"], m.conversation_id().as_str());
    assert_eq!(json["reply-with"], format!("reply-{}", m.id()));
    assert_eq!(json["user-parameters"]["X-priority"], "high");
    assert_eq!(json["language"], "natural");
    assert!(
        json.get("in-reply-to").is_none(),
        "absent fields are left out"
    );
    let back: FipaMessage = serde_json::from_value(json)?;
    assert_eq!(back, m);
    Ok(())
}

#[test]
fn json_input_goes_through_the_builder() -> TestResult {
    let m: FipaMessage =
        serde_json::from_str(r#"{"performative": "inform", "sender": "a", "content": "hi"}"#)?;
    assert_eq!(m.performative(), Performative::Inform);
    assert_eq!(m.language(), Some("natural"));
    assert_eq!(m.reply_with(), Some(format!("reply-{}", m.id()).as_str()));

    assert!(serde_json::from_str::<FipaMessage>(r#"{"sender": "a"}"#).is_err());
    assert!(serde_json::from_str::<FipaMessage>(r#"{"performative": "shout"}"#).is_err());
    let bad_param = serde_json::from_str::<FipaMessage>(
        r#"{"performative": "inform", "user-parameters": {"X-a b": "v"}}"#,
    );
    assert!(bad_param.is_err());
    Ok(())
}
