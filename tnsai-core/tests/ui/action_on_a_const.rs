use tnsai_core::prelude::*;

#[direct_message]
struct Billing;

#[actions]
impl Billing {
    #[action]
    const LIMIT: u32 = 3;
}

fn main() {}
