use tnsai_core::prelude::*;

#[direct_message]
struct Billing;

use std::rc::Rc;

#[actions]
impl Billing {
    #[action]
    async fn charge(&self, _params: Params) -> ActionResult {
        let local = Rc::new(5);
        tokio::task::yield_now().await;
        Ok(serde_json::json!(*local))
    }
}

fn main() {}
