use tnsai_core::prelude::*;

#[direct_message]
fn not_an_agent() {}

fn main() {}
