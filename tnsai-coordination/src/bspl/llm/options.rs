//! Which enabled forms a decision shows the model, and how they are numbered and named.
//!
//! One decision handles one event, and shows only what the event is about, so that
//! concurrent enactments do not crowd each other's prompts and two decisions never
//! offer the same choice for the same reason:
//!
//! * `Init` and external events: every enabled form (they may start anything);
//! * a received message: the forms of its enactment (and of enactments enclosing or
//!   within it), except forms that start a new (sub-)enactment and were offered before;
//! * newly enabled forms: those not offered before;
//!
//! always leaving out forms of enactments in which the sending role's part is over.
//!
//! Numbers count from 1 in the order the adapter lists enabled forms (protocol, message
//! declaration, enactment), and each option also has a label that stays the same for
//! the whole life of the form, such as `Purchase/accept{ID=1}`.

use std::collections::HashSet;

use tnsai_bspl::decision::Event;
use tnsai_bspl::{Adapter, Bindings, EnabledMessage, KeyBinding};

use super::termination::Terminations;

/// One numbered option of a prompt: an enabled form the model may choose.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct DecisionOption {
    /// Its number in the prompt (from 1).
    pub number: usize,
    /// A name that does not change while the form is enabled, such as
    /// `Purchase/accept{ID=1}` (the form's `in` keys with their values).
    pub label: String,
    /// The form.
    pub form: EnabledMessage,
    /// Whether it can be sent again after this (it starts a new enactment or
    /// sub-enactment, with new key values each time).
    pub repeatable: bool,
}

impl DecisionOption {
    /// Numbers `forms` from 1, in the order given.
    pub fn number(forms: impl IntoIterator<Item = EnabledMessage>) -> Vec<Self> {
        forms
            .into_iter()
            .enumerate()
            .map(|(index, form)| Self {
                number: index + 1,
                label: label(&form),
                repeatable: is_repeatable(&form),
                form,
            })
            .collect()
    }

    /// The form's `out` parameters that are keys (new key values to create).
    pub fn out_keys(&self) -> impl Iterator<Item = &str> {
        self.form
            .outs
            .iter()
            .filter(|o| self.form.keys.contains(o))
            .map(String::as_str)
    }
}

/// The stable name of a form: protocol, message, and the values of its `in` keys.
pub(crate) fn label(form: &EnabledMessage) -> String {
    let keys: Vec<String> = form
        .keys
        .iter()
        .filter_map(|k| form.ins.get(k).map(|v| format!("{k}={v}")))
        .collect();
    if keys.is_empty() {
        format!("{}/{}", form.protocol, form.message)
    } else {
        format!("{}/{}{{{}}}", form.protocol, form.message, keys.join(", "))
    }
}

fn is_repeatable(form: &EnabledMessage) -> bool {
    form.is_initiator() || form.outs.iter().any(|o| form.keys.contains(o))
}

/// A form's identity across enabled sets: the same message with the same `in` values.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct FormId {
    protocol: String,
    message: String,
    ins: Bindings,
}

impl FormId {
    pub(crate) fn of(form: &EnabledMessage) -> Self {
        Self {
            protocol: form.protocol.clone(),
            message: form.message.clone(),
            ins: form.ins.clone(),
        }
    }
}

/// The enactment a form belongs to: its `in` keys with their values.
pub(crate) fn enactment_of(form: &EnabledMessage) -> KeyBinding {
    KeyBinding::project(&form.ins, form.keys.iter().map(String::as_str))
}

/// Whether the sending role's part is over in the form's enactment.
fn is_over(form: &EnabledMessage, adapter: &Adapter, terminations: &Terminations) -> bool {
    adapter
        .knowledge(&form.protocol)
        .is_some_and(|knowledge| terminations.is_over(knowledge, &form.sender, &enactment_of(form)))
}

/// Every enabled form outside enactments that are over for its sender, in the adapter's
/// order.
pub(crate) fn open_forms(adapter: &Adapter, terminations: &Terminations) -> Vec<EnabledMessage> {
    adapter
        .enabled()
        .into_iter()
        .filter(|form| !is_over(form, adapter, terminations))
        .collect()
}

/// The forms a decision about `event` shows, in the adapter's order.
pub(crate) fn for_event(
    event: &Event,
    adapter: &Adapter,
    terminations: &Terminations,
    offered: &HashSet<FormId>,
) -> Vec<EnabledMessage> {
    let enabled = adapter.enabled();
    let shown: Vec<EnabledMessage> = match event {
        Event::Init | Event::External { .. } => enabled,
        Event::Received { message } => {
            let Some(key) = adapter
                .knowledge(&message.protocol)
                .and_then(|k| k.key_of(message))
            else {
                return Vec::new();
            };
            enabled
                .into_iter()
                .filter(|form| form.protocol == message.protocol)
                .filter(|form| enactment_of(form).is_compatible(&key))
                .filter(|form| !(is_repeatable(form) && offered.contains(&FormId::of(form))))
                .collect()
        }
        Event::EnabledChanged { added, .. } => {
            let added: HashSet<FormId> = added.iter().map(FormId::of).collect();
            enabled
                .into_iter()
                .filter(|form| {
                    let id = FormId::of(form);
                    added.contains(&id) && !offered.contains(&id)
                })
                .collect()
        }
    };
    shown
        .into_iter()
        .filter(|form| !is_over(form, adapter, terminations))
        .collect()
}
