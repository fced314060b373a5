//! Hand-written FIPA ACL texts in the JADE / FIPA specification style.

use chrono::{TimeZone, Utc};
use tnsai_fipa::{AclError, FipaMessage, Performative, parse_acl};

type TestResult = Result<(), Box<dyn std::error::Error>>;

#[test]
fn fipa_specification_example() -> TestResult {
    let m: FipaMessage = r#"(inform
        :sender (agent-identifier :name i)
        :receiver (set (agent-identifier :name j))
        :content "weather (today, raining)"
        :language Prolog)"#
        .parse()?;
    assert_eq!(m.performative(), Performative::Inform);
    assert_eq!(m.sender(), Some("i"));
    assert_eq!(m.receivers(), ["j"]);
    assert_eq!(m.content(), Some("weather (today, raining)"));
    assert_eq!(m.language(), Some("Prolog"));
    assert_eq!(
        m.encoding(),
        Some("UTF-8"),
        "absent parameters get defaults"
    );
    Ok(())
}

#[test]
fn jade_ams_registration_request() -> TestResult {
    let text = r#"(REQUEST
 :sender  ( agent-identifier :name df@myhost:1099/JADE  :addresses (sequence http://myhost:7778/acc ))
 :receiver  (set ( agent-identifier :name ams@myhost:1099/JADE  :addresses (sequence http://myhost:7778/acc http://backup:7778/acc )) )
 :content  "((action (agent-identifier :name ams@myhost:1099/JADE :addresses (sequence http://myhost:7778/acc)) (register (df-agent-description :name (agent-identifier :name df@myhost:1099/JADE)))))"
 :language  fipa-sl0  :ontology  FIPA-Agent-Management  :protocol  fipa-request
 :conversation-id  C1234_5678
 :reply-with  R1234_0
 :reply-by 20010202T165000000Z )"#;
    let m = parse_acl(text)?;
    assert_eq!(m.performative(), Performative::Request);
    let sender = m.sender_id().ok_or("sender")?;
    assert_eq!(sender.name(), "df@myhost:1099/JADE");
    assert_eq!(sender.addresses(), ["http://myhost:7778/acc"]);
    let receiver = &m.receiver_ids()[0];
    assert_eq!(
        receiver.addresses(),
        ["http://myhost:7778/acc", "http://backup:7778/acc"]
    );
    assert!(
        m.content()
            .is_some_and(|c| c.starts_with("((action (agent-identifier"))
    );
    assert_eq!(m.language(), Some("fipa-sl0"));
    assert_eq!(m.ontology(), Some("FIPA-Agent-Management"));
    assert_eq!(m.protocol(), Some("fipa-request"));
    assert_eq!(m.conversation_id().as_str(), "C1234_5678");
    assert_eq!(m.reply_with(), Some("R1234_0"));
    assert_eq!(
        m.reply_by(),
        Utc.with_ymd_and_hms(2001, 2, 2, 16, 50, 0).single()
    );
    Ok(())
}

#[test]
fn contract_net_cfp_with_s_expression_content_and_user_parameters() -> TestResult {
    let text = r#"(cfp
  :sender (agent-identifier :name manager@platform
            :resolvers (sequence (agent-identifier :name ams@platform :X-role registry)))
  :receiver (set (agent-identifier :name c1@platform) (agent-identifier :name c2@platform))
  :reply-to (set (agent-identifier :name inbox@platform))
  :content ((action (agent-identifier :name c1@platform) (sell plum 50)) (< (price plum) 5))
  :ontology fruit-market :language fipa-sl :protocol fipa-contract-net
  :conversation-id "conv 42"
  :reply-by 20250101T120000000
  :X-priority 3 :X-budget -12.5e2 :X-note "two words" :X-shape (a (b c)))"#;
    let m = parse_acl(text)?;
    assert_eq!(m.performative(), Performative::Cfp);
    assert_eq!(m.receivers(), ["c1@platform", "c2@platform"]);
    assert_eq!(m.reply_to(), ["inbox@platform"]);
    let resolver = &m.sender_id().ok_or("sender")?.resolvers()[0];
    assert_eq!(resolver.name(), "ams@platform");
    assert_eq!(
        resolver.user_parameters().get("X-role").map(String::as_str),
        Some("registry")
    );
    assert_eq!(
        m.content(),
        Some("((action (agent-identifier :name c1@platform) (sell plum 50)) (< (price plum) 5))"),
        "nested content is kept as its source text"
    );
    assert_eq!(m.conversation_id().as_str(), "conv 42");
    assert_eq!(
        m.reply_by(),
        Utc.with_ymd_and_hms(2025, 1, 1, 12, 0, 0).single(),
        "a date-time without designator is read as UTC"
    );
    assert_eq!(m.user_parameter("X-priority"), Some("3"));
    assert_eq!(m.user_parameter("X-budget"), Some("-12.5e2"));
    assert_eq!(m.user_parameter("X-note"), Some("two words"));
    assert_eq!(m.user_parameter("X-shape"), Some("(a (b c))"));
    Ok(())
}

#[test]
fn escapes_and_byte_length_strings() -> TestResult {
    let m = parse_acl(r#"(inform :content "say \"hi\" \\ then \n stays")"#)?;
    assert_eq!(m.content(), Some(r#"say "hi" \ then \n stays"#));

    let m = parse_acl("(inform :content #6\"(a \"b\")")?;
    assert_eq!(m.content(), Some("(a \"b\""), "bytes are taken verbatim");

    let m = parse_acl("(inform :content #2\"é)")?;
    assert_eq!(m.content(), Some("é"), "the count is in bytes");
    Ok(())
}

#[test]
fn keywords_ignore_case_and_numbers_are_values() -> TestResult {
    let m = parse_acl(
        "(Not-Understood :SENDER (AGENT-IDENTIFIER :NAME x) :Receiver (SET) \
         :conversation-id 12345 :in-reply-to 0x1F)",
    )?;
    assert_eq!(m.performative(), Performative::NotUnderstood);
    assert_eq!(m.sender(), Some("x"));
    assert!(m.receivers().is_empty());
    assert_eq!(m.conversation_id().as_str(), "12345");
    assert_eq!(m.in_reply_to(), Some("0x1F"));
    assert_eq!(m.reply_with(), None, "a reply gets no default reply-with");
    Ok(())
}

#[test]
fn not_understood_quoting_the_original_message() -> TestResult {
    let original = "(request :sender (agent-identifier :name a) :content \"do \\\"x\\\"\")";
    let m = parse_acl(&format!(
        "(not-understood :sender (agent-identifier :name b) :content ({original} (unknown-action x)))"
    ))?;
    assert_eq!(
        m.content(),
        Some(format!("({original} (unknown-action x))").as_str())
    );
    Ok(())
}

#[test]
fn printing_matches_the_expected_text() -> TestResult {
    let m = FipaMessage::builder()
        .performative(Performative::Inform)
        .id("m1")
        .conversation_id("c1")
        .sender("i")
        .receiver("j")
        .content("weather \"today\" (raining)")
        .language("Prolog")
        .user_parameter("X-note", "two words")
        .timestamp(
            Utc.with_ymd_and_hms(2025, 1, 1, 0, 0, 0)
                .single()
                .ok_or("date")?,
        )
        .build()?;
    assert_eq!(
        m.to_string(),
        "(inform :sender (agent-identifier :name i) :receiver (set (agent-identifier :name j)) \
         :content \"weather \\\"today\\\" (raining)\" :language Prolog :encoding UTF-8 \
         :conversation-id c1 :reply-with reply-m1 :X-note \"two words\" \
         :X-tnsai-id m1 :X-tnsai-timestamp 20250101T000000000Z)"
    );
    assert_eq!(
        format!("{m:#}"),
        "(inform\n :sender (agent-identifier :name i)\n :receiver (set (agent-identifier :name j))\n \
         :content \"weather \\\"today\\\" (raining)\"\n :language Prolog\n :encoding UTF-8\n \
         :conversation-id c1\n :reply-with reply-m1\n :X-note \"two words\"\n \
         :X-tnsai-id m1\n :X-tnsai-timestamp 20250101T000000000Z\n)"
    );
    assert_eq!(format!("{m:#}").parse::<FipaMessage>()?, m);
    Ok(())
}

#[test]
fn values_that_are_not_safe_words_are_quoted() -> TestResult {
    let m = FipaMessage::builder()
        .performative(Performative::Inform)
        .sender("1st agent")
        .ontology("")
        .protocol("(weird)")
        .reply_with("-3")
        .build()?;
    let text = m.to_string();
    assert!(text.contains(":name \"1st agent\""), "{text}");
    assert!(text.contains(":ontology \"\""), "{text}");
    assert!(text.contains(":protocol \"(weird)\""), "{text}");
    assert!(text.contains(":reply-with \"-3\""), "{text}");
    assert_eq!(text.parse::<FipaMessage>()?, m);
    Ok(())
}

#[test]
fn missing_id_and_timestamp_are_generated() -> Result<(), AclError> {
    let a = parse_acl("(agree)")?;
    let b = parse_acl("(agree)")?;
    assert_ne!(a.id(), b.id());
    assert_eq!(a.reply_with(), Some(format!("reply-{}", a.id()).as_str()));
    Ok(())
}
