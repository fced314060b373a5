use tnsai_core::prelude::*;

#[broadcast(topic = "a")]
#[direct_message]
#[broadcast(topic = "b")]
struct Twice;

fn main() {}
