// A generic agent whose actions live in another module, in a crate that depends on
// tnsai-core alone.
mod agent {
    use tnsai_core::prelude::*;

    #[agent]
    pub struct Store<T> {
        pub items: Vec<T>,
    }
}

mod actions {
    use tnsai_core::prelude::*;

    #[actions]
    impl<T> super::agent::Store<T> {
        /// Counts the items.
        #[action]
        async fn count(&self, _params: Params) -> ActionResult {
            Ok(serde_json::json!(self.items.len()))
        }
    }
}

use tnsai_core::Agent;

fn main() {
    let store = agent::Store {
        items: vec![1, 2, 3],
    };
    assert!(store.protocol_specs().is_empty());
    assert_eq!(store.actions()[0].name(), "count");
    assert_eq!(store.actions()[0].description(), "Counts the items.");
}
