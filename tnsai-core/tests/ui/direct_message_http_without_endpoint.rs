use tnsai_core::prelude::*;

#[direct_message(transport = Http)]
struct Remote;

fn main() {}
