use tnsai_core::prelude::*;

#[debate(max_rounds = 0)]
struct Judge;

fn main() {}
