use tnsai_core::prelude::*;

#[request_reply(timeout = 1000, timeout = 2000)]
struct Twice;

fn main() {}
