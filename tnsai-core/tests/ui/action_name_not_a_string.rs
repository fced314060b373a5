use tnsai_core::prelude::*;

#[direct_message]
struct Billing;

#[actions]
impl Billing {
    #[action(name = processOrder)]
    async fn process_order(&self, _params: Params) -> ActionResult {
        Ok(serde_json::Value::Null)
    }
}

fn main() {}
