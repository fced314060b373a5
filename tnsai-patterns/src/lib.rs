//! Topic patterns and payload filters: the two small languages that tnsai's protocol
//! attributes accept.
//!
//! They live in their own crate because two parties need the same grammar: the
//! `tnsai-macros` attributes check them at compile time (so a bad pattern is a compile
//! error on its token), and the runtime uses them to pick the recipients of a broadcast or
//! a publish.
//!
//! * [`TopicPattern`]: NATS-style subscriptions. Topics are split into tokens on `.`; `*`
//!   matches exactly one token and `>` matches one or more trailing tokens. Matching
//!   ignores ASCII and Unicode case.
//! * [`PayloadFilter`]: a predicate on a JSON payload, such as
//!   `severity == "high" && region != "eu"`.
//!
//! ```
//! use tnsai_patterns::{PayloadFilter, TopicPattern};
//!
//! let pattern = TopicPattern::parse("metrics.*").unwrap();
//! assert!(pattern.matches("Metrics.CPU"));
//! assert!(!pattern.matches("metrics.cpu.load"));
//!
//! let filter = PayloadFilter::parse(r#"severity == "high" && count >= 3"#).unwrap();
//! assert!(filter.matches(&serde_json::json!({"severity": "high", "count": 5})));
//! assert!(!filter.matches(&serde_json::json!({"severity": "low", "count": 5})));
//! ```

mod filter;
mod topic;

pub use filter::{FilterError, PayloadFilter};
pub use topic::{TopicError, TopicPattern, validate_topic};
