//! The protocol documents a platform speaks: the tnsai message protocol, and one
//! generated document per action.

use std::sync::{Arc, LazyLock};

use crate::{ActionDescription, AgentDescription};

use super::agora::document::yaml_quoted;
use super::agora::{ProtocolDocument, encode_data_uri};

/// The text of the tnsai message protocol: how platforms carry `Message`s to each
/// other over Agora.
pub const TNSAI_PROTOCOL_DOCUMENT: &str = r#"---
name: "tnsai-message"
description: "tnsai platform-to-platform traffic: one tnsai Message envelope as JSON."
multiround: false
---

# tnsai message

Carries one tnsai `Message` between platforms: actions, text, requests, debate steps,
FIPA ACL and BSPL messages, their answers, broadcasts and publications.

## Request body

The JSON of one `Message`, every key present (`null` when unset):

    {"id": "<uuid>", "kind": "action | request | text | reply | error | broadcast |
     publish | debate | acl | bspl", "sender": "<agent id>", "receiver": "<agent id> or
     null", "topic": null, "action": null, "role": null, "params": {}, "payload": null,
     "content": null, "conversation_id": "<id>", "in_reply_to": "<uuid> or null",
     "timestamp": "<RFC 3339, UTC>", "context": {}}

A message that names a receiver is sent to `<platform URL>/agents/<receiver>`;
broadcasts and publications are sent to `<platform URL>/`. A sender that can be called
back names its platform's URL in the `X-Tnsai-Origin` header.

## Response body

- For `action`, `request` and `text` messages: the answer, a `Message` of kind `reply`
  (the result in `payload`, a model's text in `content`) or `error` (the error text in
  `content`, its code in `payload.code`).
- For other messages that name a receiver: an empty body once the message is in the
  receiver's mailbox. Their answers, if any, travel as messages of their own to the
  sender's platform.
- For broadcasts and publications: `{"delivered": ["<agent id>", ...], "failed":
  [{"agent": "<agent id>", "reason": "<text>"}]}`.

A `failure` has the body `{"code": "<code>", "message": "<text>"}`, with code
`unknown_receiver`, `receiver_unavailable`, `not_started`, `invalid_message` or
`delivery`.
"#;

/// The tnsai message protocol, parsed once.
pub(crate) static TNSAI_PROTOCOL: LazyLock<ProtocolDocument> = LazyLock::new(|| {
    ProtocolDocument::parse(TNSAI_PROTOCOL_DOCUMENT)
        .unwrap_or_else(|_| unreachable!("the built-in protocol document has front matter"))
});

/// The hash of the tnsai message protocol.
///
/// ```
/// use tnsai_coordination::transport::http::{agora::protocol_hash, tnsai_protocol_hash, TNSAI_PROTOCOL_DOCUMENT};
///
/// assert_eq!(tnsai_protocol_hash(), protocol_hash(TNSAI_PROTOCOL_DOCUMENT));
/// ```
pub fn tnsai_protocol_hash() -> &'static str {
    TNSAI_PROTOCOL.hash()
}

/// The protocol document generated for an action: its name, its doc comment, how to pass
/// parameters and what comes back.
///
/// ```
/// use tnsai_coordination::ActionDescription;
/// use tnsai_coordination::transport::http::action_protocol;
///
/// let action = ActionDescription {
///     name: "processOrder".into(),
///     role: None,
///     description: "Charges an order.".into(),
/// };
/// let document = action_protocol(&action);
/// assert_eq!(document.name(), "processOrder");
/// assert_eq!(document.description(), "Charges an order.");
/// assert!(document.text().contains("## Request body"));
/// ```
pub fn action_protocol(action: &ActionDescription) -> ProtocolDocument {
    let summary = if action.description.trim().is_empty() {
        format!("Runs the action `{}`.", action.name)
    } else {
        action.description.trim().to_owned()
    };
    let role = match &action.role {
        Some(role) => format!(
            "\nThe action is reserved for the role `{role}`; a request under this protocol \
             invokes it in that role.\n"
        ),
        None => String::new(),
    };
    let text = format!(
        r#"---
name: {name}
description: {description}
multiround: false
---

# {title}

{summary}
{role}
## Request body

A JSON object whose members are the action's parameters, by name; for example
`{{"orderId": "12345", "amountCents": 4999}}`. An empty body, `null` or `{{}}` passes
no parameters. Which parameters the action reads is told by its description above.

## Response body

A JSON object:

- on success: `{{"ok": true, "result": <the action's result, any JSON value>}}`;
- when the action refuses the request (its own error, or a body that is not a JSON
  object): `{{"ok": false, "error": "<the error text>", "code": "<code>"}}`, with code
  `action_failed` or `invalid_argument`.

Anything else (the action panicked, the agent stopped) is answered with the status
`failure` and the reason as the body.
"#,
        name = yaml_quoted(&action.name),
        description = yaml_quoted(&summary),
        title = action.name,
    );
    ProtocolDocument::parse(text)
        .unwrap_or_else(|_| unreachable!("generated documents have front matter"))
}

/// One action and its protocol.
pub(crate) struct ActionProtocol {
    pub(crate) name: String,
    pub(crate) role: Option<String>,
    pub(crate) document: ProtocolDocument,
}

/// What one local agent speaks over Agora.
pub(crate) struct AgentProtocols {
    pub(crate) description: AgentDescription,
    pub(crate) actions: Vec<ActionProtocol>,
}

impl AgentProtocols {
    pub(crate) fn of(description: AgentDescription) -> Arc<Self> {
        let actions = description
            .actions
            .iter()
            .map(|action| ActionProtocol {
                name: action.name.clone(),
                role: action.role.clone(),
                document: action_protocol(action),
            })
            .collect();
        Arc::new(Self {
            description,
            actions,
        })
    }

    /// The index of the action whose protocol has this hash.
    pub(crate) fn action_index(&self, hash: &str) -> Option<usize> {
        self.actions.iter().position(|a| a.document.hash() == hash)
    }

    pub(crate) fn action(&self, hash: &str) -> Option<&ActionProtocol> {
        self.action_index(hash).map(|i| &self.actions[i])
    }
}

/// The sources a document is listed with: this platform's URL for it when known, and
/// always a `data:` URI, so the list works without a round trip.
pub(crate) fn sources(document: &ProtocolDocument, base: Option<&str>) -> Vec<String> {
    let mut sources = Vec::with_capacity(2);
    if let Some(base) = base {
        sources.push(protocol_url(base, document.hash()));
    }
    sources.push(encode_data_uri(document.text()));
    sources
}

/// Where this platform serves a document: `<base>/protocols/<percent-encoded hash>`.
pub(crate) fn protocol_url(base: &str, hash: &str) -> String {
    format!("{base}{}", super::urls::protocol_path(hash))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tnsai_document_reads_back() {
        assert_eq!(TNSAI_PROTOCOL.name(), "tnsai-message");
        assert!(!TNSAI_PROTOCOL.multiround());
    }

    #[test]
    fn role_actions_say_their_role() {
        let document = action_protocol(&ActionDescription {
            name: "refund".into(),
            role: Some("billing-role".into()),
            description: String::new(),
        });
        assert!(
            document
                .text()
                .contains("reserved for the role `billing-role`")
        );
        assert_eq!(document.description(), "Runs the action `refund`.");
    }
}

#[cfg(test)]
mod generated_documents {
    use super::*;

    proptest::proptest! {
        /// Names and descriptions come from users' code (doc comments): whatever they
        /// hold, the generated document parses and says the same thing.
        #[test]
        fn any_action_text_makes_a_readable_document(
            name in "[a-zA-Z-]{1,12}",
            description in "(\\PC|[\\x00-\\x1f]|-{3,7}|\"|\\\\){0,40}",
        ) {
            let action = ActionDescription { name: name.clone(), role: None, description: description.clone() };
            let document = action_protocol(&action);
            // The words survive; only runs of dashes are broken up.
            let essence = |text: &str| {
                text.chars().filter(|c| !c.is_whitespace() && *c != '-').collect::<String>()
            };
            proptest::prop_assert_eq!(essence(document.name()), essence(&name));
            if !name.contains("---") {
                proptest::prop_assert_eq!(document.name(), name.as_str());
            }
            if !description.trim().is_empty() {
                proptest::prop_assert_eq!(essence(document.description()), essence(description.trim()));
            }
        }
    }

    #[test]
    fn runs_of_dashes_do_not_end_the_front_matter() {
        for dashes in 3..12 {
            let action = ActionDescription {
                name: "charge".to_owned(),
                role: None,
                description: format!("Charges {} carefully", "-".repeat(dashes)),
            };
            let document = action_protocol(&action);
            assert!(document.description().starts_with("Charges"), "{dashes}");
        }
    }
}
