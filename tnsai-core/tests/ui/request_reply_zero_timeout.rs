use tnsai_core::prelude::*;

#[request_reply(timeout = 0)]
struct Impatient;

fn main() {}
