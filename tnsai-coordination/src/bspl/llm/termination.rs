//! When a role's part in an enactment is over, inferred from the protocol, and whether
//! it is over in one particular enactment.

use std::collections::BTreeMap;

use tnsai_bspl::{Adapter, Direction, KeyBinding, Knowledge, Protocol, SetupError, Termination};

use super::causality::Causality;

/// The termination condition the rule below gives `role` in `protocol`; `None` when the
/// protocol has no such role.
///
/// # The rule
///
/// 1. A message is *terminal* for a role when the role sends or receives it, it binds at
///    least one `out` parameter, and nothing else the role sends or receives uses any of
///    those parameters as `in`: after it, the role has said or learned the last thing its
///    part depends on.
/// 2. Every terminal message the role sends ends its part: the role's own last move.
/// 3. A terminal message the role receives ends its part only if, once it arrived, none
///    of those sends is possible any more (in Purchase, `deliver` leaves `completed` open,
///    so the buyer is not done when the goods arrive; `reject` rules out `ship`, so the
///    seller is done when a quote is rejected).
/// 4. With no terminal message (a protocol whose every binding feeds another message),
///    the role is done when every public parameter is bound ([`Termination::Complete`]).
///
/// Purchase: Buyer ends after sending `reject` or `completed`; Seller after sending
/// `ship` or receiving `reject`; Shipper after sending `deliver`. Logistics: Merchant
/// after receiving `Packed`; Wrapper, Labeler and Packer after sending `Wrapped`,
/// `Labeled` and `Packed`. FlexiblePurchase: the customer after receiving `receipt`.
///
/// ```
/// use tnsai_coordination::bspl::llm::infer_termination;
/// use tnsai_coordination::bspl::{Specification, Termination};
///
/// let spec = Specification::parse(
///     "Ask { roles A, B parameters out id key, out answer \
///      A -> B: question[out id key] \
///      B -> A: reply[in id key, out answer] }",
/// )?;
/// let ask = spec.protocol("Ask").unwrap();
/// assert_eq!(infer_termination(ask, "A"), Some(Termination::Received("reply".into())));
/// assert_eq!(infer_termination(ask, "B"), Some(Termination::Sent("reply".into())));
/// # Ok::<(), tnsai_coordination::bspl::LoadError>(())
/// ```
pub fn infer_termination(protocol: &Protocol, role: &str) -> Option<Termination> {
    if !protocol.has_role(role) {
        return None;
    }
    let causality = Causality::new(protocol);
    let terminal = causality.terminal(role);
    let sends: Vec<_> = terminal.iter().filter(|m| m.sender() == role).collect();
    let mut conditions: Vec<Termination> = Vec::new();
    for message in &terminal {
        if message.sender() == role {
            conditions.push(Termination::Sent(message.name().to_owned()));
        } else if sends.iter().all(|s| causality.rules_out(message, s)) {
            conditions.push(Termination::Received(message.name().to_owned()));
        }
    }
    Some(match conditions.len() {
        0 => Termination::Complete,
        1 => conditions.remove(0),
        _ => Termination::AnyOf(conditions),
    })
}

/// Termination conditions by protocol and role: the inferred ones ([`infer_termination`]),
/// unless set otherwise.
///
/// [`apply`](Self::apply) hands them to an [`Adapter`], whose enactor then reports
/// `EnactmentEvent::Done` and completes `wait_done`; the decision maker uses the same
/// conditions to stop offering options of enactments that are over.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Terminations {
    explicit: BTreeMap<(String, String), Termination>,
}

impl Terminations {
    /// Only inferred conditions.
    pub fn new() -> Self {
        Self::default()
    }

    /// Uses `condition` for `role` in `protocol` instead of the inferred one.
    pub fn with(
        mut self,
        protocol: impl Into<String>,
        role: impl Into<String>,
        condition: Termination,
    ) -> Self {
        self.set(protocol, role, condition);
        self
    }

    /// [`with`](Self::with), in place.
    pub fn set(
        &mut self,
        protocol: impl Into<String>,
        role: impl Into<String>,
        condition: Termination,
    ) {
        self.explicit
            .insert((protocol.into(), role.into()), condition);
    }

    /// The condition for `role` in `protocol`: the one set, else the inferred one.
    pub fn condition(&self, protocol: &Protocol, role: &str) -> Option<Termination> {
        self.explicit
            .get(&(protocol.name().to_owned(), role.to_owned()))
            .cloned()
            .or_else(|| infer_termination(protocol, role))
    }

    /// Sets the condition of every role the adapter plays; returns what was set, as
    /// `(protocol, role, condition)`.
    ///
    /// # Errors
    ///
    /// The adapter's [`SetupError`] for a condition naming a message the protocol lacks
    /// (only possible with a condition set by hand).
    pub fn apply(
        &self,
        adapter: &mut Adapter,
    ) -> Result<Vec<(String, String, Termination)>, SetupError> {
        let mut planned = Vec::new();
        for protocol in adapter.protocols() {
            for role in adapter.roles(protocol.name()) {
                if let Some(condition) = self.condition(protocol, role) {
                    planned.push((protocol.name().to_owned(), role.clone(), condition));
                }
            }
        }
        for (protocol, role, condition) in &planned {
            adapter.set_termination(protocol, role, condition.clone())?;
        }
        Ok(planned)
    }

    /// Whether `role`'s part is over in the enactment `key`, judged on what was recorded
    /// in it or in an enactment enclosing it. [`Termination::Quiescent`] is never judged
    /// over here: telling needs the enabled set, which the adapter's own check has.
    pub fn is_over(&self, knowledge: &Knowledge, role: &str, key: &KeyBinding) -> bool {
        if key.is_empty() {
            return false;
        }
        self.condition(knowledge.protocol(), role)
            .is_some_and(|condition| holds(knowledge, &condition, key))
    }
}

fn holds(knowledge: &Knowledge, condition: &Termination, key: &KeyBinding) -> bool {
    let observed = |message: &str, direction: Direction| {
        let Some(name) = knowledge.protocol().message(message).map(|m| m.name()) else {
            return false;
        };
        knowledge
            .observations_within(key)
            .any(|o| o.direction == direction && o.message.message == name)
    };
    match condition {
        Termination::Sent(message) => observed(message, Direction::Sent),
        Termination::Received(message) => observed(message, Direction::Received),
        Termination::Complete => {
            let bindings = knowledge.bindings(key);
            knowledge
                .protocol()
                .public_adorned(tnsai_bspl::Adornment::Out)
                .all(|p| bindings.contains_key(p))
        }
        Termination::AnyOf(conditions) => conditions.iter().any(|c| holds(knowledge, c, key)),
        Termination::AllOf(conditions) => conditions.iter().all(|c| holds(knowledge, c, key)),
        Termination::Quiescent => false,
    }
}

/// Describes a condition for people and prompts.
///
/// ```
/// use tnsai_coordination::bspl::Termination;
/// use tnsai_coordination::bspl::llm::describe_termination;
///
/// let condition = Termination::AnyOf(vec![
///     Termination::Sent("reject".into()),
///     Termination::Sent("completed".into()),
/// ]);
/// assert_eq!(describe_termination(&condition), "sent reject or sent completed");
/// ```
pub fn describe_termination(condition: &Termination) -> String {
    describe(condition)
}

pub(crate) fn describe(condition: &Termination) -> String {
    match condition {
        Termination::Sent(message) => format!("sent {message}"),
        Termination::Received(message) => format!("received {message}"),
        Termination::Complete => "every public parameter is bound".to_owned(),
        Termination::Quiescent => "nothing is left for you to send".to_owned(),
        Termination::AnyOf(conditions) => join_conditions(conditions, "or"),
        Termination::AllOf(conditions) => join_conditions(conditions, "and"),
    }
}

fn join_conditions(conditions: &[Termination], word: &str) -> String {
    let parts: Vec<String> = conditions.iter().map(describe).collect();
    super::wording::join(&parts, word)
}

/// Whether `condition` ends the role's part when it sends (`Sent`) or receives
/// (`Received`) `message`.
pub(crate) fn ends_with(condition: &Termination, message: &str, direction: Direction) -> bool {
    match condition {
        Termination::Sent(m) => direction == Direction::Sent && m == message,
        Termination::Received(m) => direction == Direction::Received && m == message,
        Termination::AnyOf(conditions) => {
            conditions.iter().any(|c| ends_with(c, message, direction))
        }
        _ => false,
    }
}
