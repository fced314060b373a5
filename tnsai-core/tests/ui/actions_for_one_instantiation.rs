use tnsai_core::prelude::*;

#[direct_message]
struct Wrapper<T> {
    inner: T,
}

#[actions]
impl Wrapper<u32> {
    #[action]
    async fn double(&self, _params: Params) -> ActionResult {
        Ok(serde_json::json!(self.inner * 2))
    }
}

fn main() {}
