use tnsai_core::prelude::*;

#[direct_message]
#[agent]
struct Confused;

fn main() {}
