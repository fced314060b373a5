use tnsai_core::prelude::*;

#[debate(strategy = TransportMode::Majority)]
struct Judge;

fn main() {}
