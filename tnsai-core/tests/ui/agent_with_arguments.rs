use tnsai_core::prelude::*;

#[agent(endpoint = "http://127.0.0.1:8080")]
struct Quiet;

fn main() {}
