use tnsai_core::prelude::*;

#[direct_message]
struct Billing;

#[actions]
impl Billing {
    #[action]
    async fn refund(&self, _params: Params) -> ActionResult {
        Ok(serde_json::Value::Null)
    }

    #[action(name = "refund")]
    async fn refund_all(&self, _params: Params) -> ActionResult {
        Ok(serde_json::Value::Null)
    }
}

fn main() {}
