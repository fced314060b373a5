use tnsai_core::prelude::*;

#[broadcast(can_publish)]
struct Reader;

fn main() {}
