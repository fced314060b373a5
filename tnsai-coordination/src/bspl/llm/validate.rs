//! Checking an answer against the options before anything is sent: the choice must be
//! one of them, the values must fill exactly its `out` parameters, and the bound message
//! must pass the adapter's own checks on a copy of the history (a dry run).

use serde_json::Value;
use tnsai_bspl::{Adapter, Bindings, EmitError, Emitted, MessageInstance};

use super::answer::{Answer, AnswerError, Choice};
use super::options::DecisionOption;
use super::wording::join;

/// What kind of problem an [`AnswerProblem`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum AnswerProblemKind {
    /// The answer could not be read.
    Unreadable,
    /// The choice names no option.
    NotAnOption,
    /// `out` parameters without a value.
    MissingParameters,
    /// Values for parameters the option does not have.
    UnexpectedParameters,
    /// A value for an `in` parameter that differs from the known one.
    InParameter,
    /// A value for a `nil` parameter.
    NilParameter,
    /// A value that is empty or not a string, number or boolean.
    InvalidValue,
    /// The adapter would refuse the message.
    Refused,
    /// Exactly this message was sent already.
    Duplicate,
    /// More rounds of tool requests than allowed.
    TooManyToolRounds,
}

/// Why an answer cannot be used. The text is what the model is told when it is asked
/// again.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AnswerProblem {
    /// The answer could not be read.
    #[error("{0}")]
    Unreadable(AnswerError),
    /// The choice names no option.
    #[error("choice {choice} is not an option; choose a number from 1 to {options}, or null")]
    NotAnOption {
        /// The choice as given.
        choice: String,
        /// How many options there are.
        options: usize,
    },
    /// `out` parameters without a value.
    #[error("option {option} needs a value for {}", join(.parameters, "and"))]
    MissingParameters {
        /// The option chosen.
        option: usize,
        /// The parameters without a value.
        parameters: Vec<String>,
    },
    /// Values for parameters the option does not have.
    #[error("option {option} has no parameter {}", join(.parameters, "or"))]
    UnexpectedParameters {
        /// The option chosen.
        option: usize,
        /// The parameters it does not have.
        parameters: Vec<String>,
    },
    /// A value for an `in` parameter that differs from the known one.
    #[error(
        "{parameter} is an \"in\" parameter, already bound to {known:?}; it cannot be set to {given:?}"
    )]
    InParameter {
        /// The parameter.
        parameter: String,
        /// Its known value.
        known: String,
        /// The value given.
        given: String,
    },
    /// A value for a `nil` parameter.
    #[error("{0} is a \"nil\" parameter of this option: it must stay unbound")]
    NilParameter(String),
    /// A value that is empty, or not a string, number or boolean.
    #[error("the value of {0} must be a non-empty string")]
    InvalidValue(String),
    /// The adapter would refuse the message.
    #[error("the protocol does not allow it: {0}")]
    Refused(EmitError),
    /// Exactly this message was sent already.
    #[error("exactly this message was sent already; use new key values or choose null")]
    Duplicate,
    /// More rounds of tool requests than allowed.
    #[error("no more tool requests are allowed for this decision (at most {0} rounds)")]
    TooManyToolRounds(usize),
}

impl AnswerProblem {
    /// What kind of problem this is.
    pub fn kind(&self) -> AnswerProblemKind {
        match self {
            Self::Unreadable(_) => AnswerProblemKind::Unreadable,
            Self::NotAnOption { .. } => AnswerProblemKind::NotAnOption,
            Self::MissingParameters { .. } => AnswerProblemKind::MissingParameters,
            Self::UnexpectedParameters { .. } => AnswerProblemKind::UnexpectedParameters,
            Self::InParameter { .. } => AnswerProblemKind::InParameter,
            Self::NilParameter(_) => AnswerProblemKind::NilParameter,
            Self::InvalidValue(_) => AnswerProblemKind::InvalidValue,
            Self::Refused(_) => AnswerProblemKind::Refused,
            Self::Duplicate => AnswerProblemKind::Duplicate,
            Self::TooManyToolRounds(_) => AnswerProblemKind::TooManyToolRounds,
        }
    }
}

/// A usable answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Send nothing now.
    Declined,
    /// Send `message`, the form of option `option` (index into the options) bound.
    Chosen {
        option: usize,
        message: MessageInstance,
    },
}

/// Checks `answer` against `options`, and the bound message against a copy of
/// `adapter`.
pub(crate) fn validate(
    answer: &Answer,
    options: &[DecisionOption],
    adapter: &Adapter,
) -> Result<Verdict, Vec<AnswerProblem>> {
    let Some(choice) = &answer.choice else {
        return Ok(Verdict::Declined);
    };
    let index = resolve(choice, options).ok_or_else(|| {
        vec![AnswerProblem::NotAnOption {
            choice: match choice {
                Choice::Number(n) => n.to_string(),
                Choice::Label(label) => format!("{label:?}"),
            },
            options: options.len(),
        }]
    })?;
    let option = &options[index];
    let form = &option.form;
    let mut problems = Vec::new();
    let mut outs = Bindings::new();
    let mut unexpected = Vec::new();
    for (name, value) in &answer.params {
        let Some(text) = value_text(value) else {
            problems.push(AnswerProblem::InvalidValue(name.clone()));
            continue;
        };
        if form.outs.contains(name) {
            outs.insert(name.clone(), text);
        } else if let Some(known) = form.ins.get(name) {
            // Repeating a known value is harmless; changing it is not.
            if *known != text {
                problems.push(AnswerProblem::InParameter {
                    parameter: name.clone(),
                    known: known.clone(),
                    given: text,
                });
            }
        } else if form.nils.contains(name) {
            problems.push(AnswerProblem::NilParameter(name.clone()));
        } else {
            unexpected.push(name.clone());
        }
    }
    let missing: Vec<String> = form
        .outs
        .iter()
        .filter(|o| !outs.contains_key(*o) && !answer.params.contains_key(*o))
        .cloned()
        .collect();
    if !missing.is_empty() {
        problems.push(AnswerProblem::MissingParameters {
            option: option.number,
            parameters: missing,
        });
    }
    if !unexpected.is_empty() {
        problems.push(AnswerProblem::UnexpectedParameters {
            option: option.number,
            parameters: unexpected,
        });
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let message = form.bind(outs);
    match adapter.clone().emit(message.clone()) {
        Ok(Emitted::Sent(message)) => Ok(Verdict::Chosen {
            option: index,
            message,
        }),
        Ok(Emitted::Duplicate(_)) => Err(vec![AnswerProblem::Duplicate]),
        Err(error) => Err(vec![AnswerProblem::Refused(error)]),
    }
}

/// The index of the option `choice` names: by number, or by exact label when only one
/// option has it.
fn resolve(choice: &Choice, options: &[DecisionOption]) -> Option<usize> {
    match choice {
        Choice::Number(n) => usize::try_from(*n)
            .ok()
            .and_then(|n| options.iter().position(|o| o.number == n)),
        Choice::Label(label) => {
            let mut matching = options
                .iter()
                .enumerate()
                .filter(|(_, o)| o.label.eq_ignore_ascii_case(label));
            match (matching.next(), matching.next()) {
                (Some((index, _)), None) => Some(index),
                _ => None,
            }
        }
    }
}

/// A parameter value as the binding text: strings as they are (trimmed), numbers and
/// booleans as written; nothing else.
fn value_text(value: &Value) -> Option<String> {
    let text = match value {
        Value::String(text) => text.trim().to_owned(),
        Value::Number(number) => number.to_string(),
        Value::Bool(flag) => flag.to_string(),
        _ => return None,
    };
    (!text.is_empty()).then_some(text)
}
