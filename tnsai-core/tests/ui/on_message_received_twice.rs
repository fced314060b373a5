use tnsai_core::prelude::*;

#[direct_message]
struct Billing;

#[actions]
impl Billing {
    #[on_message_received]
    async fn first(&self, _message: Message) {}

    #[on_message_received]
    async fn second(&self, _message: Message) {}
}

fn main() {}
