use tnsai_core::prelude::*;

#[debate(round_timeout_ms = 0)]
struct Judge;

fn main() {}
