use tnsai_core::prelude::*;

#[pub_sub(topics = [])]
struct Deaf;

fn main() {}
