use std::fmt::Display;

use tnsai_core::prelude::*;

#[direct_message]
struct Wrapper<T> {
    inner: T,
}

// The generated `impl Agent` only knows `T: Send + Sync + 'static`, so it could never
// reach these actions: the fix is `struct Wrapper<T: Display>`.
#[actions]
impl<T: Display> Wrapper<T> {
    #[action]
    async fn show(&self, _params: Params) -> ActionResult {
        Ok(serde_json::json!(self.inner.to_string()))
    }
}

fn main() {}
