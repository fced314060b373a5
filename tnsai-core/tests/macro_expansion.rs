//! What the protocol attributes and `#[actions]` expand to, observed through the public
//! API of tnsai-core only (no runtime crate).

use std::fmt::Display;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::json;
use tnsai_core::prelude::*;
use tnsai_core::{
    ActionInfo, BroadcastSpec, DebateSpec, DirectSpec, ProtocolSpecs, PubSubSpec, RequestReplySpec,
};

// ----- every attribute alone, with its defaults ---------------------------------------

#[direct_message]
struct DirectDefault;

#[broadcast]
struct BroadcastDefault;

#[pub_sub]
struct PubSubDefault;

#[request_reply]
struct RequestReplyBare;

#[request_reply()]
struct RequestReplyEmptyParens;

#[debate]
struct DebateDefault;

#[agent]
struct Plain;

#[agent()]
struct PlainEmptyParens;

#[test]
fn each_attribute_alone_declares_its_paradigm_with_the_defaults() {
    assert_eq!(
        DirectDefault.protocol_specs(),
        ProtocolSpecs::new().with_direct(DirectSpec::new())
    );
    assert_eq!(
        BroadcastDefault.protocol_specs(),
        ProtocolSpecs::new().with_broadcast(BroadcastSpec::new())
    );
    assert_eq!(
        PubSubDefault.protocol_specs(),
        ProtocolSpecs::new().with_pub_sub(PubSubSpec::new())
    );
    assert_eq!(
        RequestReplyBare.protocol_specs(),
        ProtocolSpecs::new().with_request_reply(RequestReplySpec::new())
    );
    assert_eq!(
        RequestReplyEmptyParens.protocol_specs(),
        RequestReplyBare.protocol_specs()
    );
    assert_eq!(
        DebateDefault.protocol_specs(),
        ProtocolSpecs::new().with_debate(DebateSpec::new())
    );
    assert_eq!(Plain.protocol_specs(), ProtocolSpecs::new());
    assert!(PlainEmptyParens.protocol_specs().is_empty());
}

#[test]
fn the_defaults_are_the_documented_values() {
    let specs = ProtocolSpecs::new()
        .with_direct(DirectSpec::new())
        .with_broadcast(BroadcastSpec::new())
        .with_request_reply(RequestReplySpec::new())
        .with_debate(DebateSpec::new());
    let direct = DirectDefault.protocol_specs().direct().cloned().unwrap();
    assert_eq!(direct.endpoint(), "");
    assert_eq!(direct.transport(), TransportMode::Auto);
    assert!(!direct.durable());
    let broadcast = BroadcastDefault
        .protocol_specs()
        .broadcast()
        .cloned()
        .unwrap();
    assert_eq!(broadcast.topic(), "default");
    assert!(broadcast.can_publish() && broadcast.can_subscribe());
    let pub_sub = PubSubDefault.protocol_specs().pub_sub().cloned().unwrap();
    assert!(pub_sub.topics().is_empty());
    assert_eq!(pub_sub.filter(), None);
    let timeout = RequestReplyBare
        .protocol_specs()
        .request_reply()
        .unwrap()
        .timeout();
    assert_eq!(timeout, Duration::from_millis(30_000));
    let debate = DebateDefault.protocol_specs().debate().cloned().unwrap();
    assert_eq!(debate.max_rounds(), 5);
    assert_eq!(debate.strategy(), ConsensusStrategy::Supermajority);
    assert_eq!(debate.consensus_threshold(), None);
    assert_eq!(debate.round_timeout(), None);
    assert!(debate.can_initiate() && debate.can_vote());
    assert!(specs.validate().is_ok());
}

// ----- every argument ------------------------------------------------------------------

#[direct_message(endpoint = "http://127.0.0.1:9000", transport = Http, durable = true)]
struct DirectFull;

#[broadcast(
    topic = "news.eu",
    broker = "nats://127.0.0.1:4222",
    transport = TransportMode::Nats,
    can_publish = false,
    can_subscribe = false,
)]
struct BroadcastFull;

#[pub_sub(
    topics = ["alerts.>", "metrics.*", "orders"],
    broker = "nats://127.0.0.1:4222",
    transport = Nats,
    can_publish = false,
    can_subscribe = true,
    filter = r#"severity == "high" && count >= 3"#
)]
struct PubSubFull;

#[request_reply(timeout = 5_000, endpoint = "http://127.0.0.1:9001", transport = Http)]
struct RequestReplyFull;

#[debate(
    max_rounds = 3,
    consensus_threshold = 0.75,
    strategy = ConsensusStrategy::WeightedConfidence,
    round_timeout_ms = 1500,
    can_initiate = false,
    can_vote = false,
    broker = "nats://127.0.0.1:4222",
    transport = Nats
)]
struct DebateFull;

#[debate(consensus_threshold = 1, strategy = Unanimous)]
struct DebateIntegerThreshold;

#[debate(strategy = Majority, transport = Internal)]
struct DebateMajority;

#[debate(strategy = Supermajority, transport = Auto, max_rounds = 1)]
struct DebateSupermajority;

#[direct_message(transport = Internal, endpoint = "")]
struct DirectInternal;

#[test]
fn direct_message_takes_every_argument() {
    let expected = DirectSpec::new()
        .with_endpoint("http://127.0.0.1:9000")
        .with_transport(TransportMode::Http)
        .with_durable(true);
    assert_eq!(
        DirectFull.protocol_specs(),
        ProtocolSpecs::new().with_direct(expected)
    );
    assert_eq!(
        DirectInternal.protocol_specs(),
        ProtocolSpecs::new().with_direct(DirectSpec::new().with_transport(TransportMode::Internal))
    );
}

#[test]
fn broadcast_takes_every_argument() {
    let expected = BroadcastSpec::new()
        .with_topic("news.eu")
        .with_broker("nats://127.0.0.1:4222")
        .with_transport(TransportMode::Nats)
        .with_can_publish(false)
        .with_can_subscribe(false);
    assert_eq!(
        BroadcastFull.protocol_specs(),
        ProtocolSpecs::new().with_broadcast(expected)
    );
}

#[test]
fn pub_sub_takes_every_argument() {
    let expected = PubSubSpec::new()
        .with_topics(["alerts.>", "metrics.*", "orders"])
        .with_broker("nats://127.0.0.1:4222")
        .with_transport(TransportMode::Nats)
        .with_can_publish(false)
        .with_can_subscribe(true)
        .with_filter(r#"severity == "high" && count >= 3"#);
    let specs = PubSubFull.protocol_specs();
    assert_eq!(specs, ProtocolSpecs::new().with_pub_sub(expected));
    assert!(specs.validate().is_ok());
}

#[test]
fn request_reply_takes_every_argument() {
    let expected = RequestReplySpec::new()
        .with_timeout(Duration::from_millis(5000))
        .with_endpoint("http://127.0.0.1:9001")
        .with_transport(TransportMode::Http);
    assert_eq!(
        RequestReplyFull.protocol_specs(),
        ProtocolSpecs::new().with_request_reply(expected)
    );
}

#[test]
fn debate_takes_every_argument() {
    let expected = DebateSpec::new()
        .with_max_rounds(3)
        .with_consensus_threshold(0.75)
        .with_strategy(ConsensusStrategy::WeightedConfidence)
        .with_round_timeout(Duration::from_millis(1500))
        .with_can_initiate(false)
        .with_can_vote(false)
        .with_broker("nats://127.0.0.1:4222")
        .with_transport(TransportMode::Nats);
    assert_eq!(
        DebateFull.protocol_specs(),
        ProtocolSpecs::new().with_debate(expected)
    );
    let integer = DebateIntegerThreshold
        .protocol_specs()
        .debate()
        .cloned()
        .unwrap();
    assert_eq!(integer.consensus_threshold(), Some(1.0));
    assert_eq!(integer.strategy(), ConsensusStrategy::Unanimous);
    let majority = DebateMajority.protocol_specs().debate().cloned().unwrap();
    assert_eq!(majority.strategy(), ConsensusStrategy::Majority);
    assert_eq!(majority.transport(), TransportMode::Internal);
    let supermajority = DebateSupermajority
        .protocol_specs()
        .debate()
        .cloned()
        .unwrap();
    assert_eq!(supermajority.strategy(), ConsensusStrategy::Supermajority);
    assert_eq!(supermajority.max_rounds(), 1);
}

// ----- combinations and orders ---------------------------------------------------------

/// Docs before the attributes stay.
#[direct_message]
#[request_reply(timeout = 5000)]
#[derive(Default)]
struct DeriveAfter {
    counter: u32,
}

#[derive(Default, Debug, PartialEq)]
#[request_reply(timeout = 5000)]
#[direct_message]
struct DeriveBefore {
    counter: u32,
}

#[request_reply(timeout = 5000)]
#[derive(Default, Clone)]
/// Docs between the attributes stay.
#[direct_message]
struct DeriveBetween {
    counter: u32,
}

#[debate(max_rounds = 2)]
#[pub_sub(topics = ["alerts.>"])]
#[broadcast(topic = "team")]
#[request_reply]
#[direct_message]
struct Everything;

#[direct_message]
#[debate(max_rounds = 2)]
#[request_reply]
#[broadcast(topic = "team")]
#[pub_sub(topics = ["alerts.>"])]
struct EverythingShuffled;

#[tnsai_core::broadcast(topic = "qualified")]
#[tnsai_core::direct_message]
struct QualifiedPaths;

#[request_reply(timeout = 250)]
#[derive(serde::Serialize, serde::Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct WithSerde {
    order_count: u32,
}

#[test]
fn the_attributes_combine_in_any_order_into_one_spec() {
    let billing = ProtocolSpecs::new()
        .with_direct(DirectSpec::new())
        .with_request_reply(RequestReplySpec::new().with_timeout(Duration::from_millis(5000)));
    assert_eq!(DeriveAfter::default().protocol_specs(), billing);
    assert_eq!(DeriveBefore::default().protocol_specs(), billing);
    assert_eq!(DeriveBetween::default().clone().protocol_specs(), billing);
    assert_eq!(DeriveAfter::default().counter, 0);
    assert_eq!(DeriveBefore::default(), DeriveBefore { counter: 0 });
    assert_eq!(DeriveBetween { counter: 2 }.counter, 2);

    let all = Everything.protocol_specs();
    assert_eq!(all, EverythingShuffled.protocol_specs());
    assert_eq!(all.paradigms(), Paradigm::ALL.into_iter().collect());
    assert_eq!(all.broadcast().unwrap().topic(), "team");
    assert_eq!(all.debate().unwrap().max_rounds(), 2);
    assert_eq!(all.pub_sub().unwrap().topics(), ["alerts.>"]);

    let qualified = QualifiedPaths.protocol_specs();
    assert_eq!(qualified.broadcast().unwrap().topic(), "qualified");
    assert!(qualified.direct().is_some());
}

#[test]
fn other_attributes_are_kept() {
    let json = serde_json::to_value(WithSerde { order_count: 3 }).unwrap();
    assert_eq!(json, json!({ "orderCount": 3 }));
    let back: WithSerde = serde_json::from_value(json!({ "orderCount": 4 })).unwrap();
    assert_eq!(back.order_count, 4);
    assert_eq!(
        back.protocol_specs().request_reply().unwrap().timeout(),
        Duration::from_millis(250)
    );
}

// ----- an agent with every kind of method ----------------------------------------------

#[direct_message]
#[request_reply(timeout = 5000)]
struct BillingAgent {
    charged: Mutex<Vec<String>>,
    received: Mutex<Vec<String>>,
    model: Arc<ScriptedModel>,
}

impl BillingAgent {
    fn new() -> Self {
        Self {
            charged: Mutex::new(Vec::new()),
            received: Mutex::new(Vec::new()),
            model: Arc::new(
                ScriptedModel::new().when_contains("summar", "Revenue grew 12% in Q3."),
            ),
        }
    }
}

#[actions]
impl BillingAgent {
    /// Processes an order
    ///   and reports its status.
    ///
    /// Needs `orderId`.
    #[action(name = "processOrder")]
    async fn process_order(&self, params: Params) -> ActionResult {
        let order = params.require_str("orderId")?;
        Ok(json!({ "orderId": order, "status": "processed" }))
    }

    /// Charges a card.
    #[action(role = "billing-role")]
    async fn charge(&self, params: Params) -> ActionResult {
        let amount = params.require_i64("amount")?;
        self.charged
            .lock()
            .unwrap()
            .push(format!("charged {amount}"));
        tokio::task::yield_now().await;
        Ok(json!({ "charged": amount }))
    }

    /** Refunds, under both a name and a role. */
    #[action(name = "refund", role = "billing-role")]
    async fn refund_order(&self, _params: Params) -> ActionResult {
        Err(ActionError::new("refunds are closed"))
    }

    #[action]
    async fn undocumented(&self, params: Params) -> ActionResult {
        Ok(params.into_value())
    }

    #[on_message_received]
    async fn on_message(&self, message: Message) {
        let line = format!("{}: {}", message.sender(), message.payload());
        self.received.lock().unwrap().push(line);
    }

    #[language_model]
    fn model(&self) -> Arc<dyn LanguageModel> {
        self.model.clone()
    }

    /// An ordinary method stays an ordinary method.
    fn charges(&self) -> usize {
        self.charged.lock().unwrap().len()
    }
}

#[test]
fn the_action_table_lists_names_roles_and_descriptions_in_order() {
    let agent = BillingAgent::new();
    assert_eq!(
        agent.actions(),
        [
            ActionInfo::new(
                "processOrder",
                None,
                "Processes an order\nand reports its status.\n\nNeeds `orderId`."
            ),
            ActionInfo::new("charge", Some("billing-role"), "Charges a card."),
            ActionInfo::new(
                "refund",
                Some("billing-role"),
                "Refunds, under both a name and a role."
            ),
            ActionInfo::new("undocumented", None, ""),
        ]
    );
}

#[tokio::test]
async fn invoking_actions_runs_the_methods() {
    let agent = Arc::new(BillingAgent::new());

    let processed = Agent::invoke_action(
        Arc::clone(&agent),
        "processOrder",
        params! { "orderId" => "12345" },
    )
    .expect("processOrder exists")
    .await;
    assert_eq!(
        processed,
        Ok(json!({ "orderId": "12345", "status": "processed" }))
    );

    let charged = Arc::clone(&agent)
        .invoke_action("charge", params! { "amount" => 40 })
        .expect("charge exists")
        .await;
    assert_eq!(charged, Ok(json!({ "charged": 40 })));
    assert_eq!(agent.charges(), 1);

    let echoed = Arc::clone(&agent)
        .invoke_action("undocumented", params! { "a" => 1 })
        .expect("undocumented exists")
        .await;
    assert_eq!(echoed, Ok(json!({ "a": 1 })));
}

#[tokio::test]
async fn an_actions_error_reaches_the_caller() {
    let agent = Arc::new(BillingAgent::new());
    let refused = Arc::clone(&agent)
        .invoke_action("refund", Params::new())
        .expect("refund exists")
        .await;
    assert_eq!(refused, Err(ActionError::new("refunds are closed")));

    let missing = Arc::clone(&agent)
        .invoke_action("processOrder", Params::new())
        .expect("processOrder exists")
        .await
        .unwrap_err();
    assert_eq!(missing.to_string(), "missing parameter `orderId`");
}

#[test]
fn unknown_and_method_names_are_not_actions() {
    let agent = Arc::new(BillingAgent::new());
    // Renamed actions answer only to their new name.
    assert!(
        Arc::clone(&agent)
            .invoke_action("process_order", Params::new())
            .is_none()
    );
    assert!(
        Arc::clone(&agent)
            .invoke_action("refund_order", Params::new())
            .is_none()
    );
    assert!(
        Arc::clone(&agent)
            .invoke_action("charges", Params::new())
            .is_none()
    );
    assert!(agent.invoke_action("nope", Params::new()).is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn action_futures_are_send_and_static() {
    let agent = Arc::new(BillingAgent::new());
    let future = Arc::clone(&agent)
        .invoke_action("charge", params! { "amount" => 7 })
        .unwrap();
    // Only a Send + 'static future can be spawned onto the multi-threaded runtime.
    let result = tokio::spawn(future).await.unwrap();
    assert_eq!(result, Ok(json!({ "charged": 7 })));
}

#[tokio::test]
async fn the_callback_receives_messages() {
    let agent = Arc::new(BillingAgent::new());
    let message = Message::builder(MessageKind::Broadcast, "news-agent")
        .topic("default")
        .payload(json!({ "headline": "rates up" }))
        .build();
    Arc::clone(&agent)
        .on_message_received(message)
        .expect("the agent has a callback")
        .await;
    assert_eq!(
        *agent.received.lock().unwrap(),
        [r#"news-agent: {"headline":"rates up"}"#]
    );
}

#[tokio::test]
async fn the_language_model_answers() {
    let agent = BillingAgent::new();
    let model = agent.language_model().expect("the agent has a model");
    assert_eq!(
        model
            .ask("Please summarize the quarterly report")
            .await
            .unwrap(),
        "Revenue grew 12% in Q3."
    );
    assert_eq!(agent.model.requests().len(), 1);
}

// ----- agents without actions, or with only some parts ---------------------------------

#[tokio::test]
async fn an_agent_without_actions_has_an_empty_table_and_nothing_to_run() {
    assert!(Plain.actions().is_empty());
    assert!(
        Arc::new(Plain)
            .invoke_action("anything", Params::new())
            .is_none()
    );
    let message = Message::builder(MessageKind::Broadcast, "x").build();
    assert!(Arc::new(Plain).on_message_received(message).is_none());
    assert!(Plain.language_model().is_none());
    assert!(DirectDefault.actions().is_empty());
}

#[pub_sub(topics = ["alerts.>"])]
#[derive(Default)]
struct Listener {
    seen: Mutex<Vec<String>>,
}

#[actions]
impl Listener {
    #[on_message_received]
    async fn heard(&self, message: Message) -> () {
        let topic = message.topic().unwrap_or("").to_owned();
        self.seen.lock().unwrap().push(topic);
    }
}

#[tokio::test]
async fn a_block_with_only_a_callback_has_no_actions_and_no_model() {
    let listener = Arc::new(Listener::default());
    assert!(listener.actions().is_empty());
    assert!(
        Arc::clone(&listener)
            .invoke_action("heard", Params::new())
            .is_none()
    );
    assert!(listener.language_model().is_none());
    let message = Message::builder(MessageKind::Publish, "ops")
        .topic("alerts.disk")
        .build();
    Arc::clone(&listener)
        .on_message_received(message)
        .unwrap()
        .await;
    assert_eq!(*listener.seen.lock().unwrap(), ["alerts.disk"]);
}

#[agent]
struct Oracle;

#[actions]
impl Oracle {
    #[language_model]
    fn model(&self) -> Arc<ScriptedModel> {
        Arc::new(ScriptedModel::new().otherwise("42"))
    }
}

#[tokio::test]
async fn a_model_method_may_return_a_concrete_arc() {
    assert!(Oracle.actions().is_empty());
    let message = Message::builder(MessageKind::Broadcast, "x").build();
    assert!(Arc::new(Oracle).on_message_received(message).is_none());
    let model = Oracle.language_model().unwrap();
    assert_eq!(model.ask("meaning?").await.unwrap(), "42");
}

// ----- generic agents, enums, other modules, macros ------------------------------------

/// A generic agent without bounds: its actions may use `T` as the agent impl knows it
/// (`Send + Sync + 'static`).
#[direct_message]
#[derive(Default)]
struct Wrapper<T> {
    inner: T,
}

#[actions]
impl<T> Wrapper<T> {
    /// Names the wrapped type.
    #[action]
    async fn describe(&self, _params: Params) -> ActionResult {
        Ok(json!({
            "type": std::any::type_name::<T>(),
            "size": std::mem::size_of_val(&self.inner),
        }))
    }
}

/// A generic agent whose bounds are declared on the struct and repeated on the block.
#[request_reply(timeout = 1000)]
struct Labeled<T: Display + Send + Sync + 'static> {
    inner: T,
}

#[actions]
impl<T: Display + Send + Sync + 'static> Labeled<T> {
    #[action]
    async fn label(&self, params: Params) -> ActionResult {
        let prefix = params.get_str("prefix").unwrap_or("");
        Ok(json!(format!("{prefix}{}", self.inner)))
    }
}

/// Bounds in a where clause work the same.
#[agent]
struct Counted<T>
where
    T: Clone + Into<serde_json::Value>,
{
    items: Vec<T>,
}

#[actions]
impl<T> Counted<T>
where
    T: Clone + Into<serde_json::Value>,
{
    #[action]
    async fn items(&self, _params: Params) -> ActionResult {
        Ok(serde_json::Value::Array(
            self.items.iter().cloned().map(Into::into).collect(),
        ))
    }
}

/// Lifetimes are allowed when they are `'static`.
#[broadcast(topic = "names")]
struct Named<'a> {
    name: &'a str,
}

#[actions]
impl<'a> Named<'a> {
    #[action]
    async fn name(&self, _params: Params) -> ActionResult {
        Ok(json!(self.name))
    }
}

#[tokio::test]
async fn generic_agents_get_their_actions() {
    let wrapper = Arc::new(Wrapper { inner: 7u16 });
    assert_eq!(wrapper.actions()[0].name(), "describe");
    assert_eq!(
        wrapper.actions()[0].description(),
        "Names the wrapped type."
    );
    let described = Arc::clone(&wrapper)
        .invoke_action("describe", Params::new())
        .unwrap()
        .await;
    assert_eq!(described, Ok(json!({ "type": "u16", "size": 2 })));
    assert!(
        Wrapper::<String>::default()
            .protocol_specs()
            .direct()
            .is_some()
    );

    let labeled = Arc::new(Labeled { inner: 3.5 });
    let label = Arc::clone(&labeled)
        .invoke_action("label", params! { "prefix" => "x=" })
        .unwrap()
        .await;
    assert_eq!(label, Ok(json!("x=3.5")));

    let counted = Arc::new(Counted {
        items: vec!["a", "b"],
    });
    let items = counted.invoke_action("items", Params::new()).unwrap().await;
    assert_eq!(items, Ok(json!(["a", "b"])));

    let named = Arc::new(Named { name: "ada" });
    assert_eq!(named.protocol_specs().broadcast().unwrap().topic(), "names");
    let name = named.invoke_action("name", Params::new()).unwrap().await;
    assert_eq!(name, Ok(json!("ada")));
}

/// An enum agent.
#[pub_sub(topics = ["modes"])]
#[derive(Debug, Clone, Copy, PartialEq)]
enum Mode {
    Fast,
    Careful { retries: u8 },
}

#[actions]
impl Mode {
    /// Reports the mode.
    #[action(name = "currentMode")]
    async fn current(&self, _params: Params) -> ActionResult {
        Ok(match self {
            Mode::Fast => json!("fast"),
            Mode::Careful { retries } => json!({ "careful": retries }),
        })
    }
}

#[tokio::test]
async fn enums_are_agents_too() {
    assert_eq!(
        Mode::Fast.protocol_specs(),
        ProtocolSpecs::new().with_pub_sub(PubSubSpec::new().with_topics(["modes"]))
    );
    assert_eq!(Mode::Fast.actions()[0].name(), "currentMode");
    let careful = Arc::new(Mode::Careful { retries: 2 })
        .invoke_action("currentMode", Params::new())
        .unwrap()
        .await;
    assert_eq!(careful, Ok(json!({ "careful": 2 })));
}

mod agents {
    use tnsai_core::prelude::*;

    /// Defined here, with its actions in another module.
    #[direct_message(endpoint = "http://127.0.0.1:7000", transport = Http)]
    #[derive(Default)]
    pub(crate) struct Remote {
        pub(crate) greeting: String,
    }
}

mod behaviour {
    use super::agents::Remote;
    use tnsai_core::prelude::*;

    #[actions]
    impl Remote {
        /// Greets.
        #[action(name = "greet")]
        async fn greet(&self, params: Params) -> ActionResult {
            let name = params.require_str("name")?;
            Ok(serde_json::json!(format!("{} {name}", self.greeting)))
        }
    }
}

#[tokio::test]
async fn actions_may_live_in_another_module_than_the_struct() {
    let remote = Arc::new(agents::Remote {
        greeting: "hello".into(),
    });
    assert_eq!(
        remote.actions(),
        [ActionInfo::new("greet", None, "Greets.")]
    );
    let greeted = remote
        .invoke_action("greet", params! { "name" => "ada" })
        .unwrap()
        .await;
    assert_eq!(greeted, Ok(json!("hello ada")));
}

macro_rules! echo_agent {
    ($name:ident, $action:literal) => {
        #[direct_message]
        struct $name;

        #[actions]
        impl $name {
            #[action(name = $action)]
            async fn run(&self, params: Params) -> ActionResult {
                Ok(params.into_value())
            }
        }
    };
}

echo_agent!(MacroMade, "echo");

#[tokio::test]
async fn agents_defined_by_a_declarative_macro_work() {
    assert_eq!(MacroMade.actions()[0].name(), "echo");
    let echoed = Arc::new(MacroMade)
        .invoke_action("echo", params! { "k" => "v" })
        .unwrap()
        .await;
    assert_eq!(echoed, Ok(json!({ "k": "v" })));
}

#[tokio::test]
async fn agents_defined_inside_a_function_work() {
    #[agent]
    struct Local;

    #[actions]
    impl Local {
        #[action]
        async fn ping(&self, _params: Params) -> ActionResult {
            Ok(json!("pong"))
        }
    }

    let pong = Arc::new(Local)
        .invoke_action("ping", Params::new())
        .unwrap()
        .await;
    assert_eq!(pong, Ok(json!("pong")));
}

#[test]
fn generated_specs_pass_the_runtime_validation() {
    for specs in [
        DirectFull.protocol_specs(),
        BroadcastFull.protocol_specs(),
        PubSubFull.protocol_specs(),
        RequestReplyFull.protocol_specs(),
        DebateFull.protocol_specs(),
        Everything.protocol_specs(),
    ] {
        assert_eq!(specs.validate(), Ok(()), "{specs:?}");
    }
}
