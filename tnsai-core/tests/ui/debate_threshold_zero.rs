use tnsai_core::prelude::*;

#[debate(consensus_threshold = 0.0)]
struct Judge;

fn main() {}
