//! The JSON shapes of the chat-completions API, as far as the client uses them.

use serde::Serialize;
use serde_json::Value;
use tnsai_core::{ChatRole, CompletionRequest, ModelError, ModelErrorKind};

use super::OpenAiConfig;

/// The body of `POST /chat/completions`.
#[derive(Debug, Serialize)]
pub(super) struct ChatRequest<'a> {
    model: &'a str,
    messages: Vec<ChatLine<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    temperature: Option<f32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_tokens: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    response_format: Option<FormatField>,
    stream: bool,
}

#[derive(Debug, Serialize)]
struct ChatLine<'a> {
    role: &'static str,
    content: &'a str,
}

#[derive(Debug, Serialize)]
struct FormatField {
    #[serde(rename = "type")]
    kind: &'static str,
}

impl<'a> ChatRequest<'a> {
    pub(super) fn new(
        config: &'a OpenAiConfig,
        request: &'a CompletionRequest,
        json_format: bool,
    ) -> Self {
        Self {
            model: config.model(),
            messages: request
                .messages()
                .iter()
                .map(|line| ChatLine {
                    role: match line.role {
                        ChatRole::System => "system",
                        ChatRole::User => "user",
                        ChatRole::Assistant => "assistant",
                    },
                    content: &line.content,
                })
                .collect(),
            temperature: request.temperature_value().or(config.temperature()),
            max_tokens: request.max_tokens_value().or(config.max_tokens()),
            response_format: json_format.then_some(FormatField {
                kind: "json_object",
            }),
            stream: false,
        }
    }
}

/// The text of the first choice of a chat-completions answer.
pub(super) fn answer_text(body: &str) -> Result<String, ModelError> {
    let malformed = |what: &str| {
        ModelError::new(
            ModelErrorKind::MalformedResponse,
            format!("the server's answer {what}"),
        )
    };
    let value: Value =
        serde_json::from_str(body).map_err(|e| malformed(&format!("is not JSON ({e})")))?;
    let choice = value
        .get("choices")
        .and_then(Value::as_array)
        .and_then(|choices| choices.first())
        .ok_or_else(|| malformed("has no choices"))?;
    match choice.pointer("/message/content") {
        Some(Value::String(text)) => Ok(text.clone()),
        // Some servers send content as a list of typed parts.
        Some(Value::Array(parts)) => {
            let text: String = parts
                .iter()
                .filter_map(|part| part.get("text").and_then(Value::as_str))
                .collect();
            if text.is_empty() {
                Err(malformed("has no text in its first choice"))
            } else {
                Ok(text)
            }
        }
        _ => Err(malformed("has no text in its first choice")),
    }
}

/// The server's own explanation in an error answer: `error.message` when the body is the
/// usual `{"error": {"message": ...}}`, else the body's start.
pub(super) fn error_text(body: &str) -> String {
    let from_json = serde_json::from_str::<Value>(body).ok().and_then(|value| {
        value
            .pointer("/error/message")
            .or_else(|| value.get("error"))
            .or_else(|| value.get("message"))
            .and_then(Value::as_str)
            .map(str::to_owned)
    });
    let text = from_json.unwrap_or_else(|| body.trim().to_owned());
    // Long HTML error pages help nobody in an error message.
    let mut end = text.len().min(300);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    if end < text.len() {
        format!("{}…", &text[..end])
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_string_and_part_list_contents() {
        let body = r#"{"choices":[{"message":{"role":"assistant","content":"hi"}}]}"#;
        assert_eq!(answer_text(body).unwrap(), "hi");
        let parts = r#"{"choices":[{"message":{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}}]}"#;
        assert_eq!(answer_text(parts).unwrap(), "ab");
        for bad in [
            "nope",
            "{}",
            r#"{"choices":[]}"#,
            r#"{"choices":[{"message":{}}]}"#,
        ] {
            assert_eq!(
                answer_text(bad).unwrap_err().kind(),
                ModelErrorKind::MalformedResponse,
                "{bad}"
            );
        }
    }

    #[test]
    fn error_text_prefers_the_servers_message_and_stays_short() {
        assert_eq!(
            error_text(r#"{"error":{"message":"model not found"}}"#),
            "model not found"
        );
        assert_eq!(error_text(r#"{"error":"bad"}"#), "bad");
        let long = "é".repeat(400);
        assert!(error_text(&long).chars().count() <= 301);
    }
}
