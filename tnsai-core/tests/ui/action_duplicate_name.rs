use tnsai_core::prelude::*;

#[direct_message]
struct Billing;

#[actions]
impl Billing {
    #[action(name = "charge")]
    async fn charge_card(&self, _params: Params) -> ActionResult {
        Ok(serde_json::Value::Null)
    }

    #[action(name = "charge")]
    async fn charge_account(&self, _params: Params) -> ActionResult {
        Ok(serde_json::Value::Null)
    }
}

fn main() {}
