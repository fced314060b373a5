//! The FIPA ACL string encoding (FIPA SC00070): printing and parsing.
//!
//! [`FipaMessage`] implements [`Display`](fmt::Display) (`{:#}` for one
//! parameter per line) and [`FromStr`]; [`parse_acl`] is the same parser as a
//! function.
//!
//! ```
//! use tnsai_fipa::{parse_acl, Performative};
//! let m = parse_acl(r#"(request
//!     :sender (agent-identifier :name buyer@shop :addresses (sequence http://shop:7778/acc))
//!     :receiver (set (agent-identifier :name seller@market))
//!     :content "((action (agent-identifier :name seller@market) (sell book)))"
//!     :language fipa-sl :protocol fipa-request :reply-with order-17
//!     :X-priority high)"#)?;
//! assert_eq!(m.performative(), Performative::Request);
//! assert_eq!(m.sender(), Some("buyer@shop"));
//! assert_eq!(m.user_parameter("X-priority"), Some("high"));
//! assert_eq!(m.to_string().parse::<tnsai_fipa::FipaMessage>()?, m);
//! # Ok::<(), tnsai_fipa::AclError>(())
//! ```
//!
//! # What is written
//!
//! The performative, then `:sender`, `:receiver`, `:reply-to`, `:content`
//! (always a string literal), `:language`, `:encoding`, `:ontology`,
//! `:protocol`, `:conversation-id`, `:reply-with`, `:in-reply-to`,
//! `:reply-by` (UTC, `YYYYMMDDThhmmssSSSZ`), the user-defined parameters,
//! and last the message's id and timestamp as `:X-tnsai-id` and
//! `:X-tnsai-timestamp`, so that parsing the text gives back an equal
//! message. Absent parameters are left out.
//!
//! # What is read
//!
//! The grammar is below. Parameters the text lacks
//! get the builder's defaults (random id and conversation id, timestamp now,
//! language `natural`, encoding `UTF-8`, `reply-<id>` for `reply_with` of a
//! message that is not a reply). String literals treat `\"` as a quote and
//! `\\` as a backslash; any other backslash is kept as written. A nested
//! expression used as a value (e.g. unquoted s-expression content) is kept as
//! its exact source text.
//!
//! ```text
//! Message          = "(" MessageType MessageParameter* ")"
//! MessageParameter = ":sender" AgentIdentifier | ":receiver" AgentIdentifierSet
//!                  | ":reply-to" AgentIdentifierSet | ":content" Expression
//!                  | ":reply-by" DateTime | ":protocol" Expression
//!                  | (":language" | ":encoding" | ":ontology" | ":conversation-id"
//!                     | ":reply-with" | ":in-reply-to") Expression
//!                  | ":X-" Word Expression
//! Expression       = Word | String | Number | DateTime | "(" Expression* ")"
//! String           = '"' ([^"\\] | '\"' | '\\' | '\' other)* '"'
//!                  | "#" Digit+ '"' <that many bytes>
//! AgentIdentifier  = "(" "agent-identifier" ":name" (Word | String)
//!                        [":addresses" "(" "sequence" (Word | String)* ")"]
//!                        [":resolvers" "(" "sequence" AgentIdentifier* ")"]
//!                        (":X-" Word Expression)* ")"
//! AgentIdentifierSet = "(" "set" AgentIdentifier* ")"
//! ```
//!
//! Keywords, performatives and parameter names are matched without regard to
//! case; parentheses may nest 64 deep. Errors are [`AclError`]s carrying the
//! byte offset of the problem.

mod datetime;
mod error;
mod lexer;
mod parser;
mod printer;

use std::fmt;
use std::str::FromStr;

use crate::message::FipaMessage;

pub use error::AclError;

/// Parses a FIPA ACL message in the string encoding.
///
/// # Errors
///
/// An [`AclError`] with the byte offset of the first problem.
pub fn parse_acl(text: &str) -> Result<FipaMessage, AclError> {
    parser::parse(text)
}

impl fmt::Display for FipaMessage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        printer::write_message(self, f.alternate(), f)
    }
}

impl FromStr for FipaMessage {
    type Err = AclError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parse_acl(s)
    }
}
