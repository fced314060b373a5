//! How a debate round is judged.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The rule that decides whether a debate round reached consensus.
///
/// In a round, a stance's *support* is the number of positions taking it (for
/// [`WeightedConfidence`](Self::WeightedConfidence), the sum of their confidences), and the
/// leader's *share* is its support divided by all support in the round. Consensus needs a
/// single leader (a tie for the lead never is consensus) and a large enough share:
///
/// | strategy | default rule | with `consensus_threshold = t` |
/// |---|---|---|
/// | `Majority` | share > 0.5 | share ≥ t |
/// | `Supermajority` | share ≥ 0.66 | share ≥ t |
/// | `WeightedConfidence` | share ≥ 0.66 | share ≥ t |
/// | `Unanimous` | share = 1.0 | share = 1.0 |
///
/// ```
/// use tnsai_core::ConsensusStrategy;
///
/// assert!(ConsensusStrategy::Majority.is_reached(0.6, None));
/// assert!(!ConsensusStrategy::Majority.is_reached(0.5, None));
/// assert!(ConsensusStrategy::Majority.is_reached(0.5, Some(0.5)));
/// assert!(!ConsensusStrategy::Unanimous.is_reached(0.9, Some(0.5)));
/// ```
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ConsensusStrategy {
    /// More than half of the positions.
    Majority,
    /// At least two thirds (0.66) of the positions. The default.
    #[default]
    Supermajority,
    /// At least 0.66 of the summed confidence.
    WeightedConfidence,
    /// Every position.
    Unanimous,
}

/// The two-thirds share, written as the seed framework wrote it.
const SUPERMAJORITY: f64 = 0.66;

impl ConsensusStrategy {
    /// Every strategy.
    pub const ALL: [ConsensusStrategy; 4] = [
        ConsensusStrategy::Majority,
        ConsensusStrategy::Supermajority,
        ConsensusStrategy::WeightedConfidence,
        ConsensusStrategy::Unanimous,
    ];

    /// Whether support is weighted by confidence rather than counted.
    pub const fn weights_confidence(self) -> bool {
        matches!(self, ConsensusStrategy::WeightedConfidence)
    }

    /// Whether a single leader with this `share` of the round's support reaches consensus,
    /// given the debate's explicit `consensus_threshold`, if any.
    pub fn is_reached(self, share: f64, threshold: Option<f64>) -> bool {
        match (self, threshold) {
            (ConsensusStrategy::Unanimous, _) => share >= 1.0,
            (_, Some(threshold)) => share >= threshold,
            (ConsensusStrategy::Majority, None) => share > 0.5,
            (ConsensusStrategy::Supermajority | ConsensusStrategy::WeightedConfidence, None) => {
                share >= SUPERMAJORITY
            }
        }
    }
}

impl fmt::Display for ConsensusStrategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ConsensusStrategy::Majority => "Majority",
            ConsensusStrategy::Supermajority => "Supermajority",
            ConsensusStrategy::WeightedConfidence => "WeightedConfidence",
            ConsensusStrategy::Unanimous => "Unanimous",
        })
    }
}
