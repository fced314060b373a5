// Protocol attributes alone make an agent; it has no actions, callback or model.
use std::sync::Arc;

use tnsai_core::prelude::*;

/// Listens for alerts.
#[derive(Debug, Default, Clone)]
#[broadcast(topic = "alerts", can_publish = false)]
enum Listener {
    #[default]
    Idle,
    #[allow(dead_code)]
    Busy(u32),
}

fn main() {
    let listener = Listener::default();
    assert!(listener.clone().protocol_specs().broadcast().is_some());
    assert!(listener.actions().is_empty());
    assert!(listener.language_model().is_none());
    assert!(
        Arc::new(listener)
            .invoke_action("anything", Params::new())
            .is_none()
    );
}
