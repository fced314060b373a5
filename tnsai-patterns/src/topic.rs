//! NATS-style topic patterns.

use std::fmt;

/// Why a topic or topic pattern was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TopicError {
    /// The topic is empty or only whitespace.
    #[error("topic must not be empty")]
    Empty,
    /// `>` appeared before the last token.
    #[error("`>` may only be the last token of a topic pattern (in `{pattern}`)")]
    TailWildcardNotLast {
        /// The pattern as written.
        pattern: String,
    },
    /// A topic to publish to contained a wildcard token.
    #[error(
        "`{topic}` contains a wildcard; wildcards (`*`, `>`) are only allowed in subscriptions"
    )]
    WildcardInTopic {
        /// The topic as written.
        topic: String,
    },
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Token {
    Literal(String),
    /// `*`: exactly one token.
    One,
    /// `>`: one or more tokens, only at the end.
    Tail,
}

/// A subscription to topics: a literal topic, or a pattern with `*` and `>` wildcards.
///
/// Tokens are separated by `.`. `*` stands for exactly one token and `>` for one or more
/// tokens at the end, as in NATS subjects. A wildcard is only a wildcard when it is a whole
/// token (`metrics*` is a literal). Comparison ignores case, so `Alerts.>` matches
/// `alerts.disk.full`.
///
/// ```
/// use tnsai_patterns::TopicPattern;
///
/// let any_alert = TopicPattern::parse("alerts.>").unwrap();
/// assert!(any_alert.matches("alerts.disk"));
/// assert!(any_alert.matches("ALERTS.disk.full"));
/// assert!(!any_alert.matches("alerts"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TopicPattern {
    source: String,
    normalized: String,
    tokens: Option<Vec<Token>>,
}

impl TopicPattern {
    /// Parses a subscription pattern.
    ///
    /// # Errors
    ///
    /// [`TopicError::Empty`] for an empty pattern and [`TopicError::TailWildcardNotLast`]
    /// when `>` is not the last token.
    pub fn parse(pattern: &str) -> Result<Self, TopicError> {
        if pattern.trim().is_empty() {
            return Err(TopicError::Empty);
        }
        let normalized = pattern.to_lowercase();
        let raw: Vec<&str> = normalized.split('.').collect();
        let has_wildcard = raw.iter().any(|t| *t == "*" || *t == ">");
        let tokens = if has_wildcard {
            let last = raw.len() - 1;
            let mut tokens = Vec::with_capacity(raw.len());
            for (i, token) in raw.iter().enumerate() {
                tokens.push(match *token {
                    "*" => Token::One,
                    ">" if i == last => Token::Tail,
                    ">" => {
                        return Err(TopicError::TailWildcardNotLast {
                            pattern: pattern.to_owned(),
                        });
                    }
                    literal => Token::Literal(literal.to_owned()),
                });
            }
            Some(tokens)
        } else {
            None
        };
        Ok(Self {
            source: pattern.to_owned(),
            normalized,
            tokens,
        })
    }

    /// The pattern as it was written.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// The pattern in the lower-case form used for matching.
    pub fn normalized(&self) -> &str {
        &self.normalized
    }

    /// Whether the pattern contains `*` or `>`; a pattern without them matches one topic.
    pub fn is_wildcard(&self) -> bool {
        self.tokens.is_some()
    }

    /// Whether `topic` is covered by this pattern, ignoring case.
    pub fn matches(&self, topic: &str) -> bool {
        match &self.tokens {
            None => {
                // Fast path for literal subscriptions: no allocation when the case already agrees.
                topic == self.normalized || topic.to_lowercase() == self.normalized
            }
            Some(tokens) => {
                let topic = topic.to_lowercase();
                Self::matches_tokens(tokens, &topic)
            }
        }
    }

    /// Like [`matches`](Self::matches) for a topic that is already lower-case.
    pub fn matches_normalized(&self, topic: &str) -> bool {
        match &self.tokens {
            None => topic == self.normalized,
            Some(tokens) => Self::matches_tokens(tokens, topic),
        }
    }

    fn matches_tokens(tokens: &[Token], topic: &str) -> bool {
        let mut parts = topic.split('.');
        for token in tokens {
            match token {
                Token::Tail => return parts.next().is_some(),
                Token::One => {
                    if parts.next().is_none() {
                        return false;
                    }
                }
                Token::Literal(literal) => match parts.next() {
                    Some(part) if part == literal => {}
                    _ => return false,
                },
            }
        }
        parts.next().is_none()
    }
}

impl fmt::Display for TopicPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}

/// Checks a topic that something is published to: not empty, and no wildcard tokens.
///
/// ```
/// use tnsai_patterns::validate_topic;
///
/// assert!(validate_topic("alerts.disk").is_ok());
/// assert!(validate_topic("alerts.*").is_err());
/// assert!(validate_topic("  ").is_err());
/// ```
///
/// # Errors
///
/// [`TopicError::Empty`] or [`TopicError::WildcardInTopic`].
pub fn validate_topic(topic: &str) -> Result<(), TopicError> {
    if topic.trim().is_empty() {
        return Err(TopicError::Empty);
    }
    if topic.split('.').any(|t| t == "*" || t == ">") {
        return Err(TopicError::WildcardInTopic {
            topic: topic.to_owned(),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(pattern: &str, topic: &str) -> bool {
        TopicPattern::parse(pattern).unwrap().matches(topic)
    }

    #[test]
    fn literal_patterns_compare_ignoring_case() {
        assert!(m("alerts", "ALERTS"));
        assert!(m("Order Events", "order events"));
        assert!(!m("alerts", "alerts.disk"));
        assert!(!m("metrics*", "metrics.cpu"));
        assert!(m("metrics*", "Metrics*"));
    }

    #[test]
    fn single_token_wildcard_matches_exactly_one_token() {
        assert!(m("metrics.*", "metrics.cpu"));
        assert!(!m("metrics.*", "metrics"));
        assert!(!m("metrics.*", "metrics.cpu.load"));
        assert!(m("*.cpu", "metrics.cpu"));
        assert!(m("a.*.c", "a.b.c"));
        assert!(!m("a.*.c", "a.b.d"));
    }

    #[test]
    fn tail_wildcard_matches_one_or_more_tokens() {
        assert!(m("alerts.>", "alerts.disk"));
        assert!(m("alerts.>", "alerts.disk.full"));
        assert!(!m("alerts.>", "alerts"));
        assert!(m(">", "anything.at.all"));
        assert!(m("*.>", "a.b"));
        assert!(!m("*.>", "a"));
    }

    #[test]
    fn misplaced_tail_wildcard_is_refused() {
        assert!(matches!(
            TopicPattern::parse("a.>.b"),
            Err(TopicError::TailWildcardNotLast { .. })
        ));
        assert_eq!(TopicPattern::parse(""), Err(TopicError::Empty));
    }

    proptest::proptest! {
        #[test]
        fn a_literal_pattern_matches_itself_in_any_case(topic in "[a-zA-Z0-9_-]{1,8}(\\.[a-zA-Z0-9_-]{1,8}){0,4}") {
            let pattern = TopicPattern::parse(&topic).unwrap();
            proptest::prop_assert!(pattern.matches(&topic));
            proptest::prop_assert!(pattern.matches(&topic.to_uppercase()));
        }

        #[test]
        fn tail_wildcard_matches_every_extension(
            prefix in "[a-z]{1,5}(\\.[a-z]{1,5}){0,3}",
            rest in "[a-z]{1,5}(\\.[a-z]{1,5}){0,3}",
        ) {
            let pattern = TopicPattern::parse(&format!("{prefix}.>")).unwrap();
            let extended = format!("{prefix}.{rest}");
            proptest::prop_assert!(pattern.matches(&extended));
            proptest::prop_assert!(!pattern.matches(&prefix));
        }
    }
}
