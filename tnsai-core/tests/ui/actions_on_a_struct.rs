use tnsai_core::prelude::*;

#[actions]
struct Billing;

fn main() {}
