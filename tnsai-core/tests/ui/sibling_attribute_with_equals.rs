use tnsai_core::prelude::*;

#[direct_message]
#[broadcast = "news"]
struct Reader;

fn main() {}
