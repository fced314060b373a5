use tnsai_core::prelude::*;

#[broadcast(can_publish = "yes")]
struct Reader;

fn main() {}
