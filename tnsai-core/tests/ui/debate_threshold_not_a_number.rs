use tnsai_core::prelude::*;

#[debate(consensus_threshold = "high")]
struct Judge;

fn main() {}
