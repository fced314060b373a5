//! Scoring one debate round: a pure function of its positions.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use tnsai_core::ConsensusStrategy;

/// The stance text used when a deadlock's last round had no single leader.
pub const NO_CLEAR_POSITION: &str = "No clear position";

/// The lowest and highest confidence a position may carry; others are clamped.
pub const CONFIDENCE_RANGE: std::ops::RangeInclusive<i32> = 1..=10;

/// Clamps a confidence into [`CONFIDENCE_RANGE`].
pub fn clamp_confidence(confidence: i32) -> i32 {
    confidence.clamp(*CONFIDENCE_RANGE.start(), *CONFIDENCE_RANGE.end())
}

/// The key stances are compared by: trimmed and lower-cased.
pub fn stance_key(stance: &str) -> String {
    stance.trim().to_lowercase()
}

/// One stance's support in a round.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StanceSupport {
    /// The stance as first spelled in the round (trimmed).
    pub stance: String,
    /// Its support: the number of positions, or for `WeightedConfidence` the sum of their
    /// confidences.
    pub support: u64,
    /// How many positions took it.
    pub positions: usize,
}

/// How a round was judged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RoundTally {
    /// Every stance taken, strongest first (ties in order of first appearance).
    pub stances: Vec<StanceSupport>,
    /// All support in the round.
    pub total_support: u64,
    /// The single leading stance; `None` when the round is empty or tied for the lead.
    pub leader: Option<String>,
    /// The leader's share of all support (0 without a single leader).
    pub share: f64,
    /// Whether the round reached consensus under the strategy.
    pub consensus: bool,
}

/// Judges debate rounds under a [`ConsensusStrategy`] and an optional explicit threshold.
///
/// ```
/// use tnsai_coordination::debate::DebateScorer;
/// use tnsai_core::ConsensusStrategy;
///
/// let scorer = DebateScorer::new(ConsensusStrategy::Majority, None);
/// let tally = scorer.score([("YES", 8), (" yes ", 3), ("NO", 9)]);
/// assert_eq!(tally.leader.as_deref(), Some("YES"));
/// assert!(tally.consensus); // 2 of 3 positions > 0.5
///
/// let weighted = DebateScorer::new(ConsensusStrategy::WeightedConfidence, None);
/// let tally = weighted.score([("YES", 8), ("yes", 3), ("NO", 9)]);
/// assert!(!tally.consensus); // 11 of 20 confidence < 0.66
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DebateScorer {
    strategy: ConsensusStrategy,
    threshold: Option<f64>,
}

impl DebateScorer {
    /// A scorer for `strategy`; `threshold` (in (0, 1]) replaces the strategy's default
    /// share, except for `Unanimous`, which always needs every position.
    pub fn new(strategy: ConsensusStrategy, threshold: Option<f64>) -> Self {
        Self {
            strategy,
            threshold,
        }
    }

    /// The strategy.
    pub fn strategy(&self) -> ConsensusStrategy {
        self.strategy
    }

    /// Scores a round's positions, given as `(stance, confidence)` in submission order.
    /// Confidences are clamped to 1..=10 first.
    pub fn score<'a, I>(&self, positions: I) -> RoundTally
    where
        I: IntoIterator<Item = (&'a str, i32)>,
    {
        let mut stances: Vec<StanceSupport> = Vec::new();
        let mut by_key: HashMap<String, usize> = HashMap::new();
        for (stance, confidence) in positions {
            let weight = if self.strategy.weights_confidence() {
                clamp_confidence(confidence) as u64
            } else {
                1
            };
            let slot = *by_key.entry(stance_key(stance)).or_insert_with(|| {
                stances.push(StanceSupport {
                    stance: stance.trim().to_owned(),
                    support: 0,
                    positions: 0,
                });
                stances.len() - 1
            });
            stances[slot].support += weight;
            stances[slot].positions += 1;
        }
        let total_support: u64 = stances.iter().map(|s| s.support).sum();
        // Stable: equal support keeps the order of first appearance.
        stances.sort_by_key(|s| std::cmp::Reverse(s.support));
        let leader = match stances.as_slice() {
            [first, second, ..] if first.support == second.support => None,
            [first, ..] => Some(first),
            [] => None,
        };
        let share = match leader {
            Some(leader) if total_support > 0 => leader.support as f64 / total_support as f64,
            _ => 0.0,
        };
        let consensus = leader.is_some() && self.strategy.is_reached(share, self.threshold);
        RoundTally {
            leader: leader.map(|l| l.stance.clone()),
            stances,
            total_support,
            share,
            consensus,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ConsensusStrategy::*;

    struct Case {
        name: &'static str,
        strategy: ConsensusStrategy,
        threshold: Option<f64>,
        positions: &'static [(&'static str, i32)],
        leader: Option<&'static str>,
        share: f64,
        consensus: bool,
    }

    const CASES: &[Case] = &[
        Case {
            name: "majority needs more than half",
            strategy: Majority,
            threshold: None,
            positions: &[("YES", 5), ("NO", 5)],
            leader: None,
            share: 0.0,
            consensus: false,
        },
        Case {
            name: "majority 2 of 3",
            strategy: Majority,
            threshold: None,
            positions: &[("YES", 1), ("yes", 1), ("NO", 10)],
            leader: Some("YES"),
            share: 2.0 / 3.0,
            consensus: true,
        },
        Case {
            name: "majority exactly half with a single leader is not enough",
            strategy: Majority,
            threshold: None,
            positions: &[("A", 5), ("A", 5), ("B", 5), ("C", 5)],
            leader: Some("A"),
            share: 0.5,
            consensus: false,
        },
        Case {
            name: "majority with explicit threshold 0.5 accepts half",
            strategy: Majority,
            threshold: Some(0.5),
            positions: &[("A", 5), ("A", 5), ("B", 5), ("C", 5)],
            leader: Some("A"),
            share: 0.5,
            consensus: true,
        },
        Case {
            name: "supermajority 2 of 3 is 0.667 >= 0.66",
            strategy: Supermajority,
            threshold: None,
            positions: &[("YES", 1), ("YES", 1), ("NO", 1)],
            leader: Some("YES"),
            share: 2.0 / 3.0,
            consensus: true,
        },
        Case {
            name: "supermajority 3 of 5 is 0.6 < 0.66",
            strategy: Supermajority,
            threshold: None,
            positions: &[("Y", 1), ("Y", 1), ("Y", 1), ("N", 1), ("N", 1)],
            leader: Some("Y"),
            share: 0.6,
            consensus: false,
        },
        Case {
            name: "supermajority with explicit 0.6",
            strategy: Supermajority,
            threshold: Some(0.6),
            positions: &[("Y", 1), ("Y", 1), ("Y", 1), ("N", 1), ("N", 1)],
            leader: Some("Y"),
            share: 0.6,
            consensus: true,
        },
        Case {
            name: "weighted counts confidence",
            strategy: WeightedConfidence,
            threshold: None,
            positions: &[("YES", 10), ("NO", 2), ("NO", 2)],
            leader: Some("YES"),
            share: 10.0 / 14.0,
            consensus: true,
        },
        Case {
            name: "weighted: more positions can still lose",
            strategy: WeightedConfidence,
            threshold: None,
            positions: &[("YES", 9), ("NO", 3), ("NO", 3)],
            leader: Some("YES"),
            share: 0.6,
            consensus: false,
        },
        Case {
            name: "weighted clamps confidence",
            strategy: WeightedConfidence,
            threshold: None,
            positions: &[("YES", 100), ("NO", -5), ("NO", 0)],
            leader: Some("YES"),
            share: 10.0 / 12.0,
            consensus: true,
        },
        Case {
            name: "weighted tie in confidence",
            strategy: WeightedConfidence,
            threshold: None,
            positions: &[("YES", 6), ("NO", 3), ("NO", 3)],
            leader: None,
            share: 0.0,
            consensus: false,
        },
        Case {
            name: "unanimous needs everyone",
            strategy: Unanimous,
            threshold: None,
            positions: &[("YES", 1), ("yes ", 1), (" Yes", 1)],
            leader: Some("YES"),
            share: 1.0,
            consensus: true,
        },
        Case {
            name: "unanimous ignores a lower threshold",
            strategy: Unanimous,
            threshold: Some(0.5),
            positions: &[("YES", 1), ("YES", 1), ("NO", 1)],
            leader: Some("YES"),
            share: 2.0 / 3.0,
            consensus: false,
        },
        Case {
            name: "a single position is unanimous",
            strategy: Unanimous,
            threshold: None,
            positions: &[("maybe", 4)],
            leader: Some("maybe"),
            share: 1.0,
            consensus: true,
        },
        Case {
            name: "empty round",
            strategy: Majority,
            threshold: None,
            positions: &[],
            leader: None,
            share: 0.0,
            consensus: false,
        },
        Case {
            name: "three-way tie",
            strategy: Majority,
            threshold: Some(0.1),
            positions: &[("A", 1), ("B", 1), ("C", 1)],
            leader: None,
            share: 0.0,
            consensus: false,
        },
        Case {
            name: "threshold 1.0 behaves as unanimous",
            strategy: Majority,
            threshold: Some(1.0),
            positions: &[("A", 1), ("A", 1), ("B", 1)],
            leader: Some("A"),
            share: 2.0 / 3.0,
            consensus: false,
        },
    ];

    #[test]
    fn table_of_cases() {
        for case in CASES {
            let tally = DebateScorer::new(case.strategy, case.threshold)
                .score(case.positions.iter().copied());
            assert_eq!(tally.leader.as_deref(), case.leader, "{}", case.name);
            assert!(
                (tally.share - case.share).abs() < 1e-9,
                "{}: share {}",
                case.name,
                tally.share
            );
            assert_eq!(tally.consensus, case.consensus, "{}", case.name);
        }
    }

    #[test]
    fn first_spelling_is_reported_and_ties_keep_first_appearance_order() {
        let tally =
            DebateScorer::new(Majority, None).score([(" Deploy ", 1), ("wait", 1), ("DEPLOY", 1)]);
        assert_eq!(tally.stances[0].stance, "Deploy");
        assert_eq!(tally.stances[0].positions, 2);
        let tie = DebateScorer::new(Majority, None).score([("b", 1), ("a", 1)]);
        assert_eq!(tie.stances[0].stance, "b");
    }

    #[test]
    fn ten_thousand_positions() {
        let positions: Vec<(String, i32)> = (0..10_000)
            .map(|i| {
                (
                    if i % 4 == 0 {
                        "NO".to_owned()
                    } else {
                        format!(" yes{}", "")
                    },
                    (i % 10) + 1,
                )
            })
            .collect();
        let tally = DebateScorer::new(Supermajority, None)
            .score(positions.iter().map(|(s, c)| (s.as_str(), *c)));
        assert_eq!(tally.total_support, 10_000);
        assert_eq!(tally.leader.as_deref(), Some("yes"));
        assert!((tally.share - 0.75).abs() < 1e-9);
        assert!(tally.consensus);
    }

    #[test]
    fn clamp() {
        assert_eq!(clamp_confidence(0), 1);
        assert_eq!(clamp_confidence(11), 10);
        assert_eq!(clamp_confidence(i32::MIN), 1);
        assert_eq!(clamp_confidence(7), 7);
    }
}
