use tnsai_core::prelude::*;

#[debate(max_rounds = 0, consensus_threshold = 2.0, strategy = Plurality)]
#[request_reply(timeout = 0, tiemout = 5)]
struct Everything;

fn main() {}
