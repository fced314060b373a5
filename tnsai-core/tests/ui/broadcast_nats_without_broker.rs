use tnsai_core::prelude::*;

#[broadcast(topic = "news", transport = Nats)]
struct Remote;

fn main() {}
