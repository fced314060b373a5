use tnsai_core::prelude::*;

#[debate(transport = Nats, broker = "")]
struct Remote;

fn main() {}
