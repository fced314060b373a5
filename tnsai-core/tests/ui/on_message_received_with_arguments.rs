use tnsai_core::prelude::*;

#[direct_message]
struct Billing;

#[actions]
impl Billing {
    #[on_message_received(topic = "news")]
    async fn on_message(&self, _message: Message) {}
}

fn main() {}
