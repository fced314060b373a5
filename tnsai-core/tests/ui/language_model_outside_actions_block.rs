use tnsai_core::prelude::*;

#[direct_message]
struct Billing;

use std::sync::Arc;

impl Billing {
    #[language_model]
    fn model(&self) -> Arc<dyn LanguageModel> {
        Arc::new(ScriptedModel::new())
    }
}

fn main() {}
