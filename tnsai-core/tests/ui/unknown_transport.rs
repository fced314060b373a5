use tnsai_core::prelude::*;

#[pub_sub(transport = Htp)]
struct Remote;

fn main() {}
