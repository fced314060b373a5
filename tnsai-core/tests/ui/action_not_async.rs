use tnsai_core::prelude::*;

#[direct_message]
struct Billing;

#[actions]
impl Billing {
    #[action]
    fn charge(&self, _params: Params) -> ActionResult {
        Ok(serde_json::Value::Null)
    }
}

fn main() {}
