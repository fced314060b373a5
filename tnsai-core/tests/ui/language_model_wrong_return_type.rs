use tnsai_core::prelude::*;

#[direct_message]
struct Billing;

#[actions]
impl Billing {
    #[language_model]
    fn model(&self) -> ScriptedModel {
        ScriptedModel::new()
    }
}

fn main() {}
