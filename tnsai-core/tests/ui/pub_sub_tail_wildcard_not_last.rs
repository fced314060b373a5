use tnsai_core::prelude::*;

#[pub_sub(topics = ["alerts.disk", "alerts.>.full"])]
struct Pager;

fn main() {}
