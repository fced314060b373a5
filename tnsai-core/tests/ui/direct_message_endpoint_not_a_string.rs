use tnsai_core::prelude::*;

#[direct_message(endpoint = 8080)]
struct Remote;

fn main() {}
