//! What can be wrong with a FIPA ACL text, and where.

use crate::message::BuildError;

/// Why a text is not a FIPA ACL message in the string encoding.
///
/// Every variant carries the byte offset into the parsed text where the
/// problem was found ([`AclError::offset`]); the message says what was
/// expected there.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AclError {
    /// A token other than the one the grammar allows here.
    #[error("at byte {offset}: expected {expected}, found {found}")]
    UnexpectedToken {
        /// Where the token starts.
        offset: usize,
        /// What the grammar allows here.
        expected: &'static str,
        /// The token found, quoted and shortened.
        found: String,
    },
    /// The text stops before the message is complete.
    #[error("at byte {offset}: expected {expected}, found the end of the text")]
    UnexpectedEnd {
        /// The length of the text.
        offset: usize,
        /// What the grammar needs next.
        expected: &'static str,
    },
    /// A string literal has no closing `"`.
    #[error("at byte {offset}: expected a closing `\"` for the string that starts here")]
    UnterminatedString {
        /// Where the opening quote is.
        offset: usize,
    },
    /// A byte-length encoded string (`#<n>"<n bytes>`) is malformed.
    #[error("at byte {offset}: in a byte-length encoded string, expected {expected}")]
    InvalidByteLengthString {
        /// Where the `#` is.
        offset: usize,
        /// What the encoding needs.
        expected: &'static str,
    },
    /// A token starting like a number is neither a number nor a date-time.
    #[error(
        "at byte {offset}: expected a number or a date-time, found `{text}` (words may not start with a digit, `-` or `@`)"
    )]
    InvalidNumber {
        /// Where the token starts.
        offset: usize,
        /// The token.
        text: String,
    },
    /// The message type is not one of the 22 FIPA performatives.
    #[error("at byte {offset}: expected a FIPA performative such as `inform`, found `{name}`")]
    UnknownPerformative {
        /// Where the name starts.
        offset: usize,
        /// The name found.
        name: String,
    },
    /// A parameter that is neither a FIPA message parameter nor user-defined (`:X-...`).
    #[error(
        "at byte {offset}: expected a FIPA message parameter or a user-defined `:X-` parameter, found `:{name}`"
    )]
    UnknownParameter {
        /// Where the parameter name starts.
        offset: usize,
        /// The name found, without the colon.
        name: String,
    },
    /// A parameter given twice in one message or agent identifier.
    #[error("at byte {offset}: expected each parameter once, found `:{name}` again")]
    DuplicateParameter {
        /// Where the second occurrence starts.
        offset: usize,
        /// The parameter name, without the colon.
        name: String,
    },
    /// An agent identifier without `:name`.
    #[error("at byte {offset}: expected `:name` in the agent identifier that starts here")]
    MissingAgentName {
        /// Where the agent identifier starts.
        offset: usize,
    },
    /// A date-time that is not `YYYYMMDDThhmmssSSS` with an optional `Z`.
    #[error(
        "at byte {offset}: expected an absolute FIPA date-time like `20250101T120000000Z`, found `{text}`"
    )]
    InvalidDateTime {
        /// Where the date-time starts.
        offset: usize,
        /// The text found.
        text: String,
    },
    /// Parentheses nest deeper than the parser allows.
    #[error("at byte {offset}: expected at most {limit} levels of nested parentheses")]
    TooDeep {
        /// Where the parenthesis that is one level too deep is.
        offset: usize,
        /// The deepest nesting accepted.
        limit: usize,
    },
    /// More text follows the closing parenthesis of the message.
    #[error("at byte {offset}: expected the end of the text after the message")]
    TrailingInput {
        /// Where the extra text starts.
        offset: usize,
    },
    /// The parsed parameters do not make a valid message.
    #[error("at byte {offset}: {source}")]
    InvalidMessage {
        /// Where the message starts.
        offset: usize,
        /// Why the builder rejected it.
        source: BuildError,
    },
}

impl AclError {
    /// The byte offset into the parsed text where the problem was found.
    pub fn offset(&self) -> usize {
        match self {
            Self::UnexpectedToken { offset, .. }
            | Self::UnexpectedEnd { offset, .. }
            | Self::UnterminatedString { offset }
            | Self::InvalidByteLengthString { offset, .. }
            | Self::InvalidNumber { offset, .. }
            | Self::UnknownPerformative { offset, .. }
            | Self::UnknownParameter { offset, .. }
            | Self::DuplicateParameter { offset, .. }
            | Self::MissingAgentName { offset }
            | Self::InvalidDateTime { offset, .. }
            | Self::TooDeep { offset, .. }
            | Self::TrailingInput { offset }
            | Self::InvalidMessage { offset, .. } => *offset,
        }
    }
}
