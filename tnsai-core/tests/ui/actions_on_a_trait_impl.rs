use tnsai_core::prelude::*;

#[direct_message]
struct Billing;

trait Charge {
    fn charge(&self);
}

#[actions]
impl Charge for Billing {
    fn charge(&self) {}
}

fn main() {}
