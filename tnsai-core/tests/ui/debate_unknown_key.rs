use tnsai_core::prelude::*;

#[debate(rounds = 3)]
struct Judge;

fn main() {}
