use tnsai_core::prelude::*;

#[request_reply(timeout = "5s")]
struct Slow;

fn main() {}
