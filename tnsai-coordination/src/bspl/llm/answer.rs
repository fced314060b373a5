//! Reading the model's answer: one JSON object, found even when the model wraps it in
//! prose or a code fence.
//!
//! The format the prompt asks for:
//!
//! ```json
//! {"choice": 2, "params": {"address": "1 Main St"}, "tool_requests": [], "reason": "..."}
//! ```
//!
//! `choice` is an option number, `null` (send nothing now), or tolerated variants: a
//! number in a string (`"2"`) or an option's label (`"Purchase/accept{ID=1}"`).
//! `params` values are strings; numbers and booleans are taken as their text.

use std::collections::BTreeMap;

use serde_json::Value;

use super::tools::ToolRequest;

/// What the model answered, before it is checked against the options.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Answer {
    /// The option chosen, `None` for `null`.
    pub choice: Option<Choice>,
    /// Values for the chosen option's `out` parameters, as given.
    pub params: BTreeMap<String, Value>,
    /// Tools to run before deciding.
    pub tool_requests: Vec<ToolRequest>,
    /// The model's one-line reason, if it gave one.
    pub reason: Option<String>,
}

/// How the model named the option it chose.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Choice {
    /// By number (as shown; options count from 1).
    Number(i64),
    /// By label or any other text.
    Label(String),
}

/// What kind of failure an [`AnswerError`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum AnswerErrorKind {
    /// No JSON object in the answer.
    NoJson,
    /// A field has the wrong shape, or `choice` is missing.
    InvalidField,
}

/// Why an answer could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AnswerError {
    /// No JSON object in the answer.
    #[error("the answer holds no JSON object")]
    NoJson,
    /// A field has the wrong shape, or `choice` is missing.
    #[error("the answer's {field:?} {problem}")]
    InvalidField {
        /// The field.
        field: &'static str,
        /// What is wrong with it.
        problem: String,
    },
}

impl AnswerError {
    /// What kind of failure this is.
    pub fn kind(&self) -> AnswerErrorKind {
        match self {
            Self::NoJson => AnswerErrorKind::NoJson,
            Self::InvalidField { .. } => AnswerErrorKind::InvalidField,
        }
    }
}

/// The JSON object in `text`: the whole text, the inside of a code fence, or the first
/// object embedded in prose that has one of `wanted` as a field (else the first object).
pub(crate) fn find_object(text: &str, wanted: &[&str]) -> Option<serde_json::Map<String, Value>> {
    let mut first = None;
    for (start, _) in text.match_indices('{') {
        let mut stream = serde_json::Deserializer::from_str(&text[start..]).into_iter::<Value>();
        if let Some(Ok(Value::Object(object))) = stream.next() {
            if wanted.iter().any(|field| object.contains_key(*field)) {
                return Some(object);
            }
            if first.is_none() {
                first = Some(object);
            }
        }
    }
    first
}

/// Reads an answer.
///
/// ```
/// use tnsai_coordination::bspl::llm::{Choice, parse_answer};
///
/// let answer = parse_answer("Sure!\n```json\n{\"choice\": 1, \"params\": {\"price\": 20}}\n```")?;
/// assert_eq!(answer.choice, Some(Choice::Number(1)));
/// assert_eq!(answer.params["price"], 20);
/// assert_eq!(parse_answer(r#"{"choice": null}"#)?.choice, None);
/// # Ok::<(), tnsai_coordination::bspl::llm::AnswerError>(())
/// ```
///
/// # Errors
///
/// [`AnswerError::NoJson`] without a JSON object; [`AnswerError::InvalidField`] when
/// `choice` is missing (and no tool is requested) or a field has the wrong shape.
pub fn parse_answer(text: &str) -> Result<Answer, AnswerError> {
    let object =
        find_object(text, &["choice", "tool_requests", "params"]).ok_or(AnswerError::NoJson)?;
    let tool_requests = match object.get("tool_requests") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items.iter().map(tool_request).collect::<Result<_, _>>()?,
        Some(_) => {
            return Err(AnswerError::InvalidField {
                field: "tool_requests",
                problem: "must be a list of {\"tool\": ..., \"args\": {...}}".to_owned(),
            });
        }
    };
    let choice = match object.get("choice") {
        None if tool_requests.is_empty() => {
            return Err(AnswerError::InvalidField {
                field: "choice",
                problem: "is missing (write null to send nothing)".to_owned(),
            });
        }
        None | Some(Value::Null) => None,
        Some(Value::Number(number)) => Some(Choice::Number(whole_number(number)?)),
        Some(Value::String(text)) => {
            let text = text.trim();
            if text.eq_ignore_ascii_case("null") || text.eq_ignore_ascii_case("none") {
                None
            } else if let Ok(number) = text.trim_start_matches('#').parse::<i64>() {
                Some(Choice::Number(number))
            } else {
                Some(Choice::Label(text.to_owned()))
            }
        }
        Some(other) => {
            return Err(AnswerError::InvalidField {
                field: "choice",
                problem: format!("must be an option number or null, not {other}"),
            });
        }
    };
    let params = match object.get("params") {
        None | Some(Value::Null) => BTreeMap::new(),
        Some(Value::Object(params)) => params.clone().into_iter().collect(),
        Some(_) => {
            return Err(AnswerError::InvalidField {
                field: "params",
                problem: "must be an object of parameter names to values".to_owned(),
            });
        }
    };
    let reason = object
        .get("reason")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|r| !r.is_empty())
        .map(str::to_owned);
    Ok(Answer {
        choice,
        params,
        tool_requests,
        reason,
    })
}

fn whole_number(number: &serde_json::Number) -> Result<i64, AnswerError> {
    if let Some(n) = number.as_i64() {
        return Ok(n);
    }
    match number.as_f64() {
        Some(f) if f.fract() == 0.0 && f.abs() < 1e15 => Ok(f as i64),
        _ => Err(AnswerError::InvalidField {
            field: "choice",
            problem: format!("must be a whole option number, not {number}"),
        }),
    }
}

fn tool_request(item: &Value) -> Result<ToolRequest, AnswerError> {
    let invalid = |problem: &str| AnswerError::InvalidField {
        field: "tool_requests",
        problem: problem.to_owned(),
    };
    let object = item
        .as_object()
        .ok_or_else(|| invalid("must hold objects like {\"tool\": ..., \"args\": {...}}"))?;
    let tool = object
        .get("tool")
        .or_else(|| object.get("name"))
        .and_then(Value::as_str)
        .ok_or_else(|| invalid("needs a \"tool\" name in every request"))?;
    let args = match object.get("args").or_else(|| object.get("arguments")) {
        None | Some(Value::Null) => Value::Object(serde_json::Map::new()),
        Some(args) => args.clone(),
    };
    Ok(ToolRequest {
        tool: tool.to_owned(),
        args,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tolerates_fences_prose_and_loose_choices() {
        let fenced = "```json\n{\"choice\": 2, \"params\": {\"a\": \"x\"}}\n```";
        assert_eq!(
            parse_answer(fenced).unwrap().choice,
            Some(Choice::Number(2))
        );
        let prose = "I think option two. {\"note\": 1} Answer: {\"choice\": \"2\", \"reason\": \" cheap \"} done";
        let answer = parse_answer(prose).unwrap();
        assert_eq!(answer.choice, Some(Choice::Number(2)));
        assert_eq!(answer.reason.as_deref(), Some("cheap"));
        assert_eq!(
            parse_answer(r#"{"choice": 3.0}"#).unwrap().choice,
            Some(Choice::Number(3))
        );
        assert_eq!(
            parse_answer(r#"{"choice": "Purchase/accept{ID=1}"}"#)
                .unwrap()
                .choice,
            Some(Choice::Label("Purchase/accept{ID=1}".into()))
        );
        assert_eq!(parse_answer(r#"{"choice": "null"}"#).unwrap().choice, None);
    }

    #[test]
    fn tool_requests_without_a_choice_are_fine() {
        let answer =
            parse_answer(r#"{"tool_requests": [{"tool": "stock", "args": {"item": "kite"}}, {"name": "clock"}]}"#)
                .unwrap();
        assert_eq!(answer.choice, None);
        assert_eq!(answer.tool_requests.len(), 2);
        assert_eq!(answer.tool_requests[0].args, json!({"item": "kite"}));
        assert_eq!(answer.tool_requests[1].tool, "clock");
    }

    #[test]
    fn rejects_what_cannot_be_read() {
        assert_eq!(
            parse_answer("no idea").unwrap_err().kind(),
            AnswerErrorKind::NoJson
        );
        assert_eq!(
            parse_answer("{\"choice\": ").unwrap_err(),
            AnswerError::NoJson
        );
        for bad in [
            r#"{"params": {}}"#,
            r#"{"choice": [1]}"#,
            r#"{"choice": 1.5}"#,
            r#"{"choice": 1, "params": [1]}"#,
            r#"{"choice": 1, "tool_requests": {"tool": "x"}}"#,
            r#"{"choice": 1, "tool_requests": [{"args": {}}]}"#,
        ] {
            assert_eq!(
                parse_answer(bad).unwrap_err().kind(),
                AnswerErrorKind::InvalidField,
                "{bad}"
            );
        }
    }
}
