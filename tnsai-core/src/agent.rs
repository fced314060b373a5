//! The `Agent` trait: what the platform needs to know about an agent.

use std::sync::Arc;

use crate::{ActionResult, BoxFuture, LanguageModel, Message, Params, ProtocolSpecs};

/// The future of a running action.
pub type ActionFuture = BoxFuture<'static, ActionResult>;

/// The future of a running `#[on_message_received]` callback.
pub type CallbackFuture = BoxFuture<'static, ()>;

/// One action in an agent's action table.
///
/// ```
/// use tnsai_core::ActionInfo;
///
/// const CHARGE: ActionInfo = ActionInfo::new("charge", Some("billing-role"), "Charges a card.");
/// assert_eq!(CHARGE.role(), Some("billing-role"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ActionInfo {
    name: &'static str,
    role: Option<&'static str>,
    description: &'static str,
}

impl ActionInfo {
    /// Describes an action: its name, the role that may invoke it (if restricted) and a
    /// description (an `#[action]` method's doc comment).
    pub const fn new(
        name: &'static str,
        role: Option<&'static str>,
        description: &'static str,
    ) -> Self {
        Self {
            name,
            role,
            description,
        }
    }
    /// The name callers use.
    pub const fn name(&self) -> &'static str {
        self.name
    }
    /// The role this action is reserved for: only `execute_role_action` with that role
    /// reaches it.
    pub const fn role(&self) -> Option<&'static str> {
        self.role
    }
    /// What the action does.
    pub const fn description(&self) -> &'static str {
        self.description
    }
}

/// An agent: its protocol specs, its actions, its message callback and its language model.
///
/// The attributes generate this implementation: a protocol attribute (or `#[agent]`) on
/// the struct supplies [`protocol_specs`](Self::protocol_specs), and an optional
/// `#[actions]` impl block supplies the rest. Implementing it by hand works the same:
///
/// ```
/// use std::sync::Arc;
/// use tnsai_core::{ActionFuture, ActionInfo, Agent, DirectSpec, Params, ProtocolSpecs};
///
/// struct Echo;
///
/// impl Agent for Echo {
///     fn protocol_specs(&self) -> ProtocolSpecs {
///         ProtocolSpecs::new().with_direct(DirectSpec::new())
///     }
///     fn actions(&self) -> &'static [ActionInfo] {
///         const ACTIONS: &[ActionInfo] = &[ActionInfo::new("echo", None, "Returns its params.")];
///         ACTIONS
///     }
///     fn invoke_action(self: Arc<Self>, name: &str, params: Params) -> Option<ActionFuture> {
///         match name {
///             "echo" => Some(Box::pin(async move { Ok(params.into_value()) })),
///             _ => None,
///         }
///     }
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tnsai agent",
    label = "this type has no `Agent` implementation",
    note = "annotate the struct with a protocol attribute such as `#[direct_message]`, or with `#[agent]`"
)]
pub trait Agent: Send + Sync + 'static {
    /// The paradigms this agent speaks and their settings.
    fn protocol_specs(&self) -> ProtocolSpecs;

    /// The agent's actions.
    fn actions(&self) -> &'static [ActionInfo] {
        &[]
    }

    /// Starts the named action, or `None` when the agent has no action of that name. The
    /// platform checks roles against [`actions`](Self::actions) before calling this.
    fn invoke_action(self: Arc<Self>, name: &str, params: Params) -> Option<ActionFuture> {
        let _ = (name, params);
        None
    }

    /// Starts the `#[on_message_received]` callback for a broadcast or publication, or
    /// `None` when the agent has no callback.
    fn on_message_received(self: Arc<Self>, message: Message) -> Option<CallbackFuture> {
        let _ = message;
        None
    }

    /// The model that answers text sent to this agent, if it has one.
    fn language_model(&self) -> Option<Arc<dyn LanguageModel>> {
        None
    }
}
