use tnsai_core::prelude::*;

struct Billing;

#[request_reply]
impl Billing {}

fn main() {}
