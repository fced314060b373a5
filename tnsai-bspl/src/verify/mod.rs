//! Verification: well-formedness, and safety, liveness, unbound and unused
//! parameters by exploring a protocol's state space.
//!
//! Defaults follow the reference tool's `bspl verify` commands: safety,
//! `unbound` and `unused` give every role the protocol's public `in`
//! parameters from an external source; liveness does not, so a protocol
//! whose public `in` parameters no message binds is not live when it has
//! public `out` parameters. All checks use partial-order reduction (see
//! [`VerifyOptions::reduction`]).
//!
//! ```
//! use tnsai_bspl::{Specification, verify};
//!
//! let spec = Specification::parse(
//!     "Race {
//!        roles Buyer, Seller
//!        parameters out ID key, out price
//!        Buyer -> Seller: ask[out ID]
//!        Buyer -> Seller: offer[in ID, out price]
//!        Seller -> Buyer: quote[in ID, out price]
//!      }",
//! )?;
//! let race = spec.protocol("Race").ok_or("no Race")?;
//! let report = verify::verify(race)?;
//! match &report.safety {
//!     verify::Safety::Unsafe { parameter, path } => {
//!         assert_eq!(parameter, "price");
//!         assert!(path.iter().any(|e| e.to_string() == "Seller!quote"));
//!     }
//!     verify::Safety::Safe => unreachable!("Race binds price twice"),
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod explore;
mod wellformed;

use serde::Serialize;

use crate::protocol::Protocol;

pub use explore::{Event, RunOutcome};
pub use wellformed::{Diagnostic, check_well_formed};

/// How to explore the state space.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct VerifyOptions {
    /// Let every role receive the protocol's public `in` parameters once
    /// from outside, as if an enclosing protocol provided them.
    pub external_sources: bool,
    /// Take a pending reception alone when it cannot disable anything its
    /// recipient might send (partial-order reduction; verdicts unchanged).
    pub reduction: bool,
    /// Give up with [`VerifyError::StateLimit`] beyond this many states.
    pub max_states: usize,
}

impl VerifyOptions {
    const DEFAULT_MAX_STATES: usize = 2_000_000;

    /// Defaults of the safety check (and of `unbound` / `unused`): external
    /// sources on, reduction on.
    pub fn safety() -> Self {
        Self {
            external_sources: true,
            reduction: true,
            max_states: Self::DEFAULT_MAX_STATES,
        }
    }

    /// Defaults of the liveness check: no external sources, reduction on.
    pub fn liveness() -> Self {
        Self {
            external_sources: false,
            ..Self::safety()
        }
    }
}

/// Why a verification could not finish.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum VerifyError {
    /// The state space is larger than [`VerifyOptions::max_states`].
    #[error("protocol '{protocol}' has more than {limit} states; raise VerifyOptions::max_states")]
    StateLimit {
        /// The protocol being explored.
        protocol: String,
        /// The limit that was hit.
        limit: usize,
    },
    /// A replayed path contains an event that cannot happen at that point.
    #[error("in protocol '{protocol}', step {index} ({event}) is not possible there")]
    ImpossibleStep {
        /// The protocol.
        protocol: String,
        /// Position of the event in the path, from 0.
        index: usize,
        /// The event.
        event: String,
    },
    /// A path text does not describe an event.
    #[error("'{text}' is not an event (expected role!message or role?message)")]
    UnreadableEvent {
        /// The text.
        text: String,
    },
}

/// Safety verdict: no reachable state where two roles bind the same
/// parameter (within one key context).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum Safety {
    /// No conflicting bindings are reachable.
    Safe,
    /// `parameter` can be bound by two roles; `path` reaches such a state.
    Unsafe {
        /// The parameter bound twice.
        parameter: String,
        /// Events from the initial state to the second binding.
        path: Vec<Event>,
    },
}

impl Safety {
    /// Whether the verdict is [`Safety::Safe`].
    pub fn is_safe(&self) -> bool {
        matches!(self, Self::Safe)
    }
}

/// Liveness verdict: every maximal run binds all public `out` parameters.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum Liveness {
    /// Every run can be completed.
    Live,
    /// A run gets stuck: `path` reaches a state where nothing can happen
    /// and the public `out` parameters in `incomplete` are still unbound.
    NotLive {
        /// Unbound public `out` parameters, sorted.
        incomplete: Vec<String>,
        /// Events from the initial state to the stuck state.
        path: Vec<Event>,
    },
}

impl Liveness {
    /// Whether the verdict is [`Liveness::Live`].
    pub fn is_live(&self) -> bool {
        matches!(self, Self::Live)
    }
}

/// Size of an exploration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ExplorationSize {
    /// Distinct states visited.
    pub states: usize,
    /// Transitions followed.
    pub transitions: usize,
}

/// All verdicts for one protocol.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Report {
    /// Protocol name.
    pub protocol: String,
    /// Well-formedness findings (warnings only: errors prevent loading).
    pub well_formedness: Vec<Diagnostic>,
    /// Safety verdict (external sources on).
    pub safety: Safety,
    /// Liveness verdict (external sources off).
    pub liveness: Liveness,
    /// Declared parameters no reachable message binds, sorted.
    pub unbound: Vec<String>,
    /// Parameters some reachable message binds but none uses as `in` or
    /// `nil`, sorted.
    pub unused: Vec<String>,
    /// Size of the exploration with external sources (safety, unbound, unused).
    pub safety_exploration: ExplorationSize,
    /// Size of the exploration without external sources (liveness).
    pub liveness_exploration: ExplorationSize,
}

/// Checks safety; stops at the first conflict found (breadth-first, so the
/// path is a shortest one).
pub fn check_safety(protocol: &Protocol, options: &VerifyOptions) -> Result<Safety, VerifyError> {
    let findings = explore::explore(protocol, options, true)?;
    Ok(safety_of(findings.unsafe_path))
}

/// Checks liveness; the counterexample is a shortest path to a stuck state.
pub fn check_liveness(
    protocol: &Protocol,
    options: &VerifyOptions,
) -> Result<Liveness, VerifyError> {
    let findings = explore::explore(protocol, options, false)?;
    Ok(liveness_of(findings.incomplete))
}

/// Every distinct way an enactment can get stuck: each set of public `out`
/// parameters left unbound in some final state, with a shortest path there.
/// (The reference tool reports one of these, which one varying from run to
/// run.)
pub fn stuck_outcomes(
    protocol: &Protocol,
    options: &VerifyOptions,
) -> Result<Vec<Liveness>, VerifyError> {
    let findings = explore::explore(protocol, options, false)?;
    Ok(findings
        .incomplete
        .into_iter()
        .map(|(incomplete, path)| Liveness::NotLive { incomplete, path })
        .collect())
}

/// Replays a run (for instance a counterexample) and reports whether it is
/// possible, conflicting and stuck.
pub fn replay(
    protocol: &Protocol,
    path: &[Event],
    options: &VerifyOptions,
) -> Result<RunOutcome, VerifyError> {
    explore::replay(protocol, path, options)
}

/// Declared parameters (public and private) that no reachable message binds.
pub fn unbound_parameters(
    protocol: &Protocol,
    options: &VerifyOptions,
) -> Result<Vec<String>, VerifyError> {
    let findings = explore::explore(protocol, options, false)?;
    Ok(unbound_of(protocol, &findings.bound))
}

/// Parameters some reachable message binds that no reachable message has as
/// `in` or `nil`.
pub fn unused_parameters(
    protocol: &Protocol,
    options: &VerifyOptions,
) -> Result<Vec<String>, VerifyError> {
    let findings = explore::explore(protocol, options, false)?;
    Ok(unused_of(&findings.bound, &findings.consumed))
}

/// Runs every check with its default options.
pub fn verify(protocol: &Protocol) -> Result<Report, VerifyError> {
    let with_sources = explore::explore(protocol, &VerifyOptions::safety(), false)?;
    let without_sources = explore::explore(protocol, &VerifyOptions::liveness(), false)?;
    Ok(Report {
        protocol: protocol.name().to_owned(),
        well_formedness: check_well_formed(protocol),
        unbound: unbound_of(protocol, &with_sources.bound),
        unused: unused_of(&with_sources.bound, &with_sources.consumed),
        safety_exploration: ExplorationSize {
            states: with_sources.states,
            transitions: with_sources.transitions,
        },
        liveness_exploration: ExplorationSize {
            states: without_sources.states,
            transitions: without_sources.transitions,
        },
        safety: safety_of(with_sources.unsafe_path),
        liveness: liveness_of(without_sources.incomplete),
    })
}

fn safety_of(conflict: Option<(String, Vec<Event>)>) -> Safety {
    match conflict {
        None => Safety::Safe,
        Some((parameter, path)) => Safety::Unsafe { parameter, path },
    }
}

fn liveness_of(stuck: Vec<(Vec<String>, Vec<Event>)>) -> Liveness {
    match stuck.into_iter().next() {
        None => Liveness::Live,
        Some((incomplete, path)) => Liveness::NotLive { incomplete, path },
    }
}

fn unbound_of(protocol: &Protocol, bound: &[String]) -> Vec<String> {
    let mut unbound: Vec<String> = protocol
        .public_parameters()
        .iter()
        .chain(protocol.private_parameters())
        .map(|p| p.name.clone())
        .filter(|name| !bound.contains(name))
        .collect();
    unbound.sort();
    unbound
}

fn unused_of(bound: &[String], consumed: &[String]) -> Vec<String> {
    let mut unused: Vec<String> = bound
        .iter()
        .filter(|p| !consumed.contains(p))
        .cloned()
        .collect();
    unused.sort();
    unused
}
