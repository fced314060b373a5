//! Names of devices and agents, and an agent's identity `owner/name`.
//!
//! Names are short, printable and free of `/` so that `owner/name` splits one way only
//! and can be typed on any shell without quoting.

use std::fmt;
use std::str::FromStr;

use tnsai_core::AgentId;

/// The longest device, owner or agent name, in bytes.
pub const MAX_NAME_LEN: usize = 64;
/// The longest project, in bytes.
pub const MAX_PROJECT_LEN: usize = 64;
/// The longest agent description, in bytes.
pub const MAX_DESCRIPTION_LEN: usize = 1024;

/// A device, owner or agent name, or an agent identity, that breaks the naming rules.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid {what} {value:?}: {reason}")]
#[non_exhaustive]
pub struct NameError {
    /// What was being named (`device name`, `owner`, `agent name`, ...).
    pub what: &'static str,
    /// The refused text.
    pub value: String,
    /// Which rule it breaks.
    pub reason: &'static str,
}

/// Checks a device, owner or agent name: 1 to 64 ASCII letters, digits, `.`, `_` or `-`,
/// starting with a letter or digit.
///
/// ```
/// use tnsai_hub::identity::validate_name;
/// assert!(validate_name("agent name", "sdk-agent").is_ok());
/// assert!(validate_name("agent name", "bob/agent").is_err());
/// assert!(validate_name("agent name", "").is_err());
/// ```
pub fn validate_name(what: &'static str, value: &str) -> Result<(), NameError> {
    let fail = |reason| {
        Err(NameError {
            what,
            value: value.to_owned(),
            reason,
        })
    };
    if value.is_empty() {
        return fail("it is empty");
    }
    if value.len() > MAX_NAME_LEN {
        return fail("it is longer than 64 bytes");
    }
    if !value.as_bytes()[0].is_ascii_alphanumeric() {
        return fail("it must start with a letter or digit");
    }
    if !value
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
    {
        return fail("only ASCII letters, digits, '.', '_' and '-' are allowed");
    }
    Ok(())
}

/// Checks free text shown to other members (a project or a description): bounded length
/// and no control characters, so that listing agents can never send escape sequences to
/// somebody's terminal.
pub fn validate_label(what: &'static str, value: &str, max_len: usize) -> Result<(), NameError> {
    let fail = |reason| {
        Err(NameError {
            what,
            value: value.to_owned(),
            reason,
        })
    };
    if value.len() > max_len {
        return fail("it is too long");
    }
    if value.chars().any(char::is_control) {
        return fail("control characters are not allowed");
    }
    Ok(())
}

/// An agent's identity on the hub: `owner/name`, such as `alice/sdk-agent`.
///
/// Two connections have "the same name" when their identities are equal, so
/// `alice/sdk-agent` and `bob/sdk-agent` are different agents.
///
/// ```
/// use tnsai_hub::Identity;
/// let id: Identity = "alice/sdk-agent".parse().unwrap();
/// assert_eq!(id.owner(), "alice");
/// assert_eq!(id.name(), "sdk-agent");
/// assert_eq!(id.to_string(), "alice/sdk-agent");
/// assert!("sdk-agent".parse::<Identity>().is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Identity {
    owner: String,
    name: String,
}

impl Identity {
    /// Builds an identity from a valid owner and agent name.
    pub fn new(owner: impl Into<String>, name: impl Into<String>) -> Result<Self, NameError> {
        let owner = owner.into();
        let name = name.into();
        validate_name("owner", &owner)?;
        validate_name("agent name", &name)?;
        Ok(Self { owner, name })
    }

    /// The owner (by default the name of the device that registered the agent).
    pub fn owner(&self) -> &str {
        &self.owner
    }

    /// The agent's name.
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl fmt::Display for Identity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.owner, self.name)
    }
}

impl FromStr for Identity {
    type Err = NameError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text.split_once('/') {
            Some((owner, name)) => Identity::new(owner, name),
            None => Err(NameError {
                what: "agent identity",
                value: text.to_owned(),
                reason: "it must have the form owner/name",
            }),
        }
    }
}

impl From<&Identity> for AgentId {
    fn from(identity: &Identity) -> Self {
        AgentId::from(identity.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_rules() {
        for good in ["a", "sdk-agent", "alice.w", "A_1", &"x".repeat(64)] {
            assert!(validate_name("n", good).is_ok(), "{good}");
        }
        for bad in [
            "",
            "-a",
            ".a",
            "a b",
            "a/b",
            "é",
            "a\u{1b}[31m",
            &"x".repeat(65),
        ] {
            assert!(validate_name("n", bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn labels_refuse_control_characters_and_length() {
        assert!(validate_label("d", "changes the SDK — v2", 100).is_ok());
        assert!(validate_label("d", "evil\u{1b}]0;x\u{7}", 100).is_err());
        assert!(validate_label("d", "line\nbreak", 100).is_err());
        assert!(validate_label("d", "abcd", 3).is_err());
    }

    #[test]
    fn identities_parse_one_way() {
        assert!("a/b/c".parse::<Identity>().is_err());
        assert!("/b".parse::<Identity>().is_err());
        assert_eq!(
            "bob/backend-agent".parse::<Identity>().unwrap(),
            Identity::new("bob", "backend-agent").unwrap()
        );
    }
}
