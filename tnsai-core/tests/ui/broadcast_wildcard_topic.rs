use tnsai_core::prelude::*;

#[broadcast(topic = "alerts.*")]
struct Shouter;

fn main() {}
