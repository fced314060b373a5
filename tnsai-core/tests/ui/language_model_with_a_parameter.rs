use tnsai_core::prelude::*;

#[direct_message]
struct Billing;

use std::sync::Arc;

#[actions]
impl Billing {
    #[language_model]
    fn model(&self, _name: &str) -> Arc<dyn LanguageModel> {
        Arc::new(ScriptedModel::new())
    }
}

fn main() {}
