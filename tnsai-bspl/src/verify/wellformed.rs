//! Static well-formedness rules, checked on every protocol when it is read.

use std::collections::BTreeSet;

use serde::Serialize;

use crate::protocol::{Adornment, Protocol};

/// A finding of the well-formedness check; [`Diagnostic::is_error`] tells
/// whether reading fails because of it or it is only a warning.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Diagnostic {
    /// Warning: a parameter is declared public and private; the private
    /// declaration is ignored.
    #[error(
        "parameter '{parameter}' in protocol '{protocol}' is declared both public and private; the private declaration is ignored"
    )]
    PublicAndPrivate {
        /// Protocol concerned.
        protocol: String,
        /// The parameter.
        parameter: String,
    },
    /// Warning: `out` parameters are declared but the protocol has no
    /// messages or references at all (a stub).
    #[error(
        "protocol '{protocol}' declares 'out' parameters {parameters:?} but has no messages or references"
    )]
    OutWithoutMessages {
        /// Protocol concerned.
        protocol: String,
        /// The `out` parameters, sorted.
        parameters: Vec<String>,
    },
    /// Warning: declared parameters that no message uses.
    #[error("protocol '{protocol}' declares parameters {parameters:?} but no message uses them")]
    UnusedDeclared {
        /// Protocol concerned.
        protocol: String,
        /// The unused parameters, sorted.
        parameters: Vec<String>,
    },
    /// Error: no public parameter is a key, so enactments cannot be told apart.
    #[error("protocol '{protocol}' must declare at least one public parameter as 'key'")]
    NoPublicKey {
        /// Protocol concerned.
        protocol: String,
    },
    /// Error: messages without a key parameter belong to no enactment.
    #[error("protocol '{protocol}' has messages {messages:?} without a key parameter")]
    KeylessMessages {
        /// Protocol concerned.
        protocol: String,
        /// The messages, sorted.
        messages: Vec<String>,
    },
    /// Error: declared `out` parameters that no message produces.
    #[error(
        "protocol '{protocol}' declares 'out' parameters {parameters:?} but no message produces them"
    )]
    UnproducedOut {
        /// Protocol concerned.
        protocol: String,
        /// The parameters, sorted.
        parameters: Vec<String>,
    },
    /// Error: declared `in` parameters that a message produces (`out`).
    #[error(
        "protocol '{protocol}' declares 'in' parameters {parameters:?} but messages produce them"
    )]
    ProducedIn {
        /// Protocol concerned.
        protocol: String,
        /// The parameters, sorted.
        parameters: Vec<String>,
    },
}

impl Diagnostic {
    /// Whether the finding makes the protocol unusable.
    pub fn is_error(&self) -> bool {
        !matches!(
            self,
            Self::PublicAndPrivate { .. }
                | Self::OutWithoutMessages { .. }
                | Self::UnusedDeclared { .. }
        )
    }

    /// Parameters (or messages) the finding is about, sorted.
    pub fn subjects(&self) -> Vec<&str> {
        match self {
            Self::PublicAndPrivate { parameter, .. } => vec![parameter.as_str()],
            Self::OutWithoutMessages { parameters, .. }
            | Self::UnusedDeclared { parameters, .. }
            | Self::UnproducedOut { parameters, .. }
            | Self::ProducedIn { parameters, .. } => {
                parameters.iter().map(String::as_str).collect()
            }
            Self::KeylessMessages { messages, .. } => messages.iter().map(String::as_str).collect(),
            Self::NoPublicKey { .. } => Vec::new(),
        }
    }
}

/// Checks the well-formedness rules on a resolved protocol, in the order the
/// reference tool applies them; errors come before the warnings that follow
/// them in that order.
///
/// Rules: some public parameter is a key; every message has a key; every
/// declared `out` parameter is produced by a message (a protocol without any
/// messages only gets a warning); no declared `in` parameter is produced by a
/// message; declared parameters no message uses are reported as a warning.
pub fn check_well_formed(protocol: &Protocol) -> Vec<Diagnostic> {
    let mut findings = Vec::new();
    let name = protocol.name().to_owned();

    if !protocol.public_parameters().iter().any(|p| p.key) {
        findings.push(Diagnostic::NoPublicKey { protocol: name });
        return findings;
    }

    let keyless: BTreeSet<String> = protocol
        .messages()
        .iter()
        .filter(|m| m.keys().is_empty())
        .map(|m| m.name().to_owned())
        .collect();
    if !keyless.is_empty() {
        findings.push(Diagnostic::KeylessMessages {
            protocol: name,
            messages: keyless.into_iter().collect(),
        });
        return findings;
    }

    let declared = || {
        protocol
            .public_parameters()
            .iter()
            .chain(protocol.private_parameters())
    };
    let produced: BTreeSet<&str> = protocol.messages().iter().flat_map(|m| m.outs()).collect();
    let used: BTreeSet<&str> = protocol
        .messages()
        .iter()
        .flat_map(|m| m.parameters().iter().map(|p| p.name.as_str()))
        .collect();

    let unproduced: Vec<String> = declared()
        .filter(|p| p.adornment == Some(Adornment::Out) && !produced.contains(p.name.as_str()))
        .map(|p| p.name.clone())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    if !unproduced.is_empty() {
        if protocol.declarations().is_empty() {
            findings.push(Diagnostic::OutWithoutMessages {
                protocol: name.clone(),
                parameters: unproduced,
            });
        } else {
            findings.push(Diagnostic::UnproducedOut {
                protocol: name,
                parameters: unproduced,
            });
            return findings;
        }
    }

    let produced_ins: Vec<String> = declared()
        .filter(|p| p.adornment == Some(Adornment::In) && produced.contains(p.name.as_str()))
        .map(|p| p.name.clone())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    if !produced_ins.is_empty() {
        findings.push(Diagnostic::ProducedIn {
            protocol: name,
            parameters: produced_ins,
        });
        return findings;
    }

    let unused: Vec<String> = declared()
        .filter(|p| !used.contains(p.name.as_str()))
        .map(|p| p.name.clone())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    if !unused.is_empty() {
        findings.push(Diagnostic::UnusedDeclared {
            protocol: name,
            parameters: unused,
        });
    }
    findings
}
