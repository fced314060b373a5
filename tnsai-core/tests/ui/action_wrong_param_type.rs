use tnsai_core::prelude::*;

#[direct_message]
struct Billing;

#[actions]
impl Billing {
    #[action]
    async fn charge(&self, amount: u64) -> ActionResult {
        Ok(serde_json::json!(amount))
    }
}

fn main() {}
