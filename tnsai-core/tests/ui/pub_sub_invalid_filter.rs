use tnsai_core::prelude::*;

#[pub_sub(topics = ["alerts"], filter = "level >= ")]
struct Pager;

fn main() {}
