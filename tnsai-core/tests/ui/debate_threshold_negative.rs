use tnsai_core::prelude::*;

#[debate(consensus_threshold = -0.5)]
struct Judge;

fn main() {}
