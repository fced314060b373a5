use tnsai_core::prelude::*;

#[direct_message(endpoint = "http://127.0.0.1:8080", transport = "Http")]
struct Remote;

fn main() {}
