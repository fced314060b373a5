// After an attribute error the item is still emitted (its derives, fields, methods and an
// `impl Agent`), so the only errors are the attributes' own: nothing cascades.
use tnsai_core::prelude::*;

#[request_reply(timeout = 0)]
#[derive(Default)]
struct Billing {
    total: u64,
}

#[actions]
impl Billing {
    #[action(nmae = "charge")]
    async fn charge(&self, _params: Params) -> ActionResult {
        Ok(serde_json::json!(self.total))
    }

    fn total(&self) -> u64 {
        self.total
    }
}

fn requires_an_agent<A: Agent>(_agent: &A) {}

fn main() {
    let billing = Billing::default();
    requires_an_agent(&billing);
    let _ = billing.total();
    let _ = billing.protocol_specs();
}
