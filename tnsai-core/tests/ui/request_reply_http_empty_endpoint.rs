use tnsai_core::prelude::*;

#[request_reply(transport = TransportMode::Http, endpoint = "  ")]
struct Remote;

fn main() {}
