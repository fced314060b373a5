use tnsai_core::prelude::*;

#[debate(consensus_threshold = 1.5)]
struct Judge;

fn main() {}
