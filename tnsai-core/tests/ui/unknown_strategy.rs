use tnsai_core::prelude::*;

#[debate(strategy = Plurality)]
struct Judge;

fn main() {}
