use tnsai_core::prelude::*;

#[broadcast(topc = "news")]
struct Reader;

fn main() {}
