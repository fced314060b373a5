use tnsai_core::prelude::*;

#[request_reply(timeout = -5)]
struct Impatient;

fn main() {}
