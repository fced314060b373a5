use tnsai_core::prelude::*;

#[pub_sub(topics = ["alerts", 42])]
struct Pager;

fn main() {}
