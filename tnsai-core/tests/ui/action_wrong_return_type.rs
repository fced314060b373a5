use tnsai_core::prelude::*;

#[direct_message]
struct Billing;

#[actions]
impl Billing {
    #[action]
    async fn charge(&self, _params: Params) -> String {
        String::from("charged")
    }
}

fn main() {}
