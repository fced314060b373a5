//! The struct attributes: finding the sibling attributes on the item, reading their
//! arguments and checking them into an [`AgentModel`].
//!
//! Attribute macros expand outermost first, so the first tnsai attribute on a struct sees
//! the others still in place. It claims them all (matching the last segment of their path),
//! removes them from the item and reads every one, so a single `impl Agent` comes out.

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::{Attribute, Generics, Ident, Item, LitStr, Meta};
use tnsai_patterns::{PayloadFilter, TopicPattern, validate_topic};

use crate::args::{self, Arg, Slot};
use crate::errors::Errors;

/// One of the struct attributes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    DirectMessage,
    Broadcast,
    PubSub,
    RequestReply,
    Debate,
    Agent,
}

impl Kind {
    const ALL: [Kind; 6] = [
        Kind::DirectMessage,
        Kind::Broadcast,
        Kind::PubSub,
        Kind::RequestReply,
        Kind::Debate,
        Kind::Agent,
    ];

    /// The attribute's name, as written.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Kind::DirectMessage => "direct_message",
            Kind::Broadcast => "broadcast",
            Kind::PubSub => "pub_sub",
            Kind::RequestReply => "request_reply",
            Kind::Debate => "debate",
            Kind::Agent => "agent",
        }
    }

    /// The valid argument keys.
    fn keys(self) -> &'static [&'static str] {
        match self {
            Kind::DirectMessage => &["endpoint", "transport", "durable"],
            Kind::Broadcast => &[
                "topic",
                "broker",
                "transport",
                "can_publish",
                "can_subscribe",
            ],
            Kind::PubSub => &[
                "topics",
                "broker",
                "transport",
                "can_publish",
                "can_subscribe",
                "filter",
            ],
            Kind::RequestReply => &["timeout", "endpoint", "transport"],
            Kind::Debate => &[
                "max_rounds",
                "consensus_threshold",
                "strategy",
                "round_timeout_ms",
                "can_initiate",
                "can_vote",
                "broker",
                "transport",
            ],
            Kind::Agent => &[],
        }
    }

    /// The struct attribute an attribute path names, judged by its last segment.
    fn of(attr: &Attribute) -> Option<Kind> {
        let last = attr.path().segments.last()?;
        Kind::ALL.into_iter().find(|kind| last.ident == kind.name())
    }
}

/// `transport = ...`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Transport {
    Auto,
    Internal,
    Http,
    Nats,
}

const TRANSPORTS: &[&str] = &["Auto", "Internal", "Http", "Nats"];

/// `strategy = ...`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Strategy {
    Majority,
    Supermajority,
    WeightedConfidence,
    Unanimous,
}

const STRATEGIES: &[&str] = &[
    "Majority",
    "Supermajority",
    "WeightedConfidence",
    "Unanimous",
];

/// `#[direct_message]`: the arguments that were given.
#[derive(Default)]
pub(crate) struct DirectArgs {
    pub(crate) endpoint: Option<String>,
    pub(crate) transport: Option<Transport>,
    pub(crate) durable: Option<bool>,
}

/// `#[broadcast]`.
#[derive(Default)]
pub(crate) struct BroadcastArgs {
    pub(crate) topic: Option<String>,
    pub(crate) broker: Option<String>,
    pub(crate) transport: Option<Transport>,
    pub(crate) can_publish: Option<bool>,
    pub(crate) can_subscribe: Option<bool>,
}

/// `#[pub_sub]`.
#[derive(Default)]
pub(crate) struct PubSubArgs {
    pub(crate) topics: Option<Vec<String>>,
    pub(crate) broker: Option<String>,
    pub(crate) transport: Option<Transport>,
    pub(crate) can_publish: Option<bool>,
    pub(crate) can_subscribe: Option<bool>,
    pub(crate) filter: Option<String>,
}

/// `#[request_reply]`.
#[derive(Default)]
pub(crate) struct RequestReplyArgs {
    pub(crate) timeout_ms: Option<u64>,
    pub(crate) endpoint: Option<String>,
    pub(crate) transport: Option<Transport>,
}

/// `#[debate]`.
#[derive(Default)]
pub(crate) struct DebateArgs {
    pub(crate) max_rounds: Option<u32>,
    pub(crate) consensus_threshold: Option<f64>,
    pub(crate) strategy: Option<Strategy>,
    pub(crate) round_timeout_ms: Option<u64>,
    pub(crate) can_initiate: Option<bool>,
    pub(crate) can_vote: Option<bool>,
    pub(crate) broker: Option<String>,
    pub(crate) transport: Option<Transport>,
}

/// Everything the struct attributes declare (all `None` for `#[agent]`).
#[derive(Default)]
pub(crate) struct AgentModel {
    pub(crate) direct: Option<DirectArgs>,
    pub(crate) broadcast: Option<BroadcastArgs>,
    pub(crate) pub_sub: Option<PubSubArgs>,
    pub(crate) request_reply: Option<RequestReplyArgs>,
    pub(crate) debate: Option<DebateArgs>,
}

/// The type that becomes an agent.
pub(crate) struct Target {
    pub(crate) ident: Ident,
    pub(crate) generics: Generics,
}

/// The outcome of reading the struct attributes.
pub(crate) struct Analysis {
    /// The item without any tnsai struct attribute.
    pub(crate) item: Item,
    /// The struct or enum, when the item is one.
    pub(crate) target: Option<Target>,
    /// What the valid arguments declare.
    pub(crate) model: AgentModel,
    /// Everything wrong, each on its token.
    pub(crate) errors: Errors,
}

/// Where an attribute's arguments come from.
enum Source {
    /// The attribute being expanded: its argument tokens (the path is not visible).
    Invoked(TokenStream),
    /// A sibling attribute still on the item.
    Sibling(Meta),
}

/// One struct attribute found for the item.
struct Found {
    kind: Kind,
    /// Where to point errors about the attribute as a whole.
    span: Span,
    source: Source,
}

/// Reads the invoked attribute (`invoked`, with `args`) and its siblings on `item`.
pub(crate) fn analyze(invoked: Kind, args: TokenStream, mut item: Item) -> Analysis {
    let mut errors = Errors::default();
    let mut found = vec![Found {
        kind: invoked,
        span: Span::call_site(),
        source: Source::Invoked(args),
    }];
    if let Some(attrs) = item_attrs(&mut item) {
        attrs.retain(|attr| match Kind::of(attr) {
            Some(kind) => {
                found.push(Found {
                    kind,
                    span: attr.path().span(),
                    source: Source::Sibling(attr.meta.clone()),
                });
                false
            }
            None => true,
        });
    }

    let target = match &item {
        Item::Struct(s) => Some(Target {
            ident: s.ident.clone(),
            generics: s.generics.clone(),
        }),
        Item::Enum(e) => Some(Target {
            ident: e.ident.clone(),
            generics: e.generics.clone(),
        }),
        other => {
            not_a_type(invoked, other, &mut errors);
            None
        }
    };

    let model = read_all(found, &mut errors);
    Analysis {
        item,
        target,
        model,
        errors,
    }
}

/// The attribute list of an item, for the kinds of item that have one.
fn item_attrs(item: &mut Item) -> Option<&mut Vec<Attribute>> {
    Some(match item {
        Item::Const(i) => &mut i.attrs,
        Item::Enum(i) => &mut i.attrs,
        Item::ExternCrate(i) => &mut i.attrs,
        Item::Fn(i) => &mut i.attrs,
        Item::ForeignMod(i) => &mut i.attrs,
        Item::Impl(i) => &mut i.attrs,
        Item::Macro(i) => &mut i.attrs,
        Item::Mod(i) => &mut i.attrs,
        Item::Static(i) => &mut i.attrs,
        Item::Struct(i) => &mut i.attrs,
        Item::Trait(i) => &mut i.attrs,
        Item::TraitAlias(i) => &mut i.attrs,
        Item::Type(i) => &mut i.attrs,
        Item::Union(i) => &mut i.attrs,
        Item::Use(i) => &mut i.attrs,
        _ => return None,
    })
}

/// The error for an attribute on something other than a struct or enum, on the item's
/// keyword.
fn not_a_type(kind: Kind, item: &Item, errors: &mut Errors) {
    let name = kind.name();
    let message = format!("#[{name}] can only be applied to a struct or an enum");
    match item {
        Item::Impl(i) => errors.at(
            i.impl_token.span,
            format!("{message}; put #[{name}] on the agent type and #[actions] on its impl block"),
        ),
        Item::Fn(i) => errors.at(i.sig.fn_token.span, message),
        Item::Trait(i) => errors.at(i.trait_token.span, message),
        Item::Union(i) => errors.at(i.union_token.span, format!("{message}, not a union")),
        Item::Type(i) => errors.at(i.type_token.span, message),
        Item::Mod(i) => errors.at(i.mod_token.span, message),
        Item::Const(i) => errors.at(i.const_token.span, message),
        Item::Static(i) => errors.at(i.static_token.span, message),
        Item::Use(i) => errors.at(i.use_token.span, message),
        other => errors.spanned(other, message),
    }
}

/// Reads every found attribute; the first of each kind counts, later ones are errors.
fn read_all(found: Vec<Found>, errors: &mut Errors) -> AgentModel {
    let mut model = AgentModel::default();
    let mut seen: Vec<Kind> = Vec::new();
    let agent_marker = found.iter().find(|f| f.kind == Kind::Agent).map(|f| f.span);
    let protocol = found.iter().find(|f| f.kind != Kind::Agent).map(|f| f.kind);
    if let (Some(span), Some(protocol)) = (agent_marker, protocol) {
        errors.at(
            span,
            format!(
                "#[agent] cannot be combined with protocol attributes: #[{}] already makes this type an agent; remove #[agent]",
                protocol.name()
            ),
        );
    }
    for attr in found {
        if seen.contains(&attr.kind) {
            errors.at(
                attr.span,
                format!(
                    "duplicate #[{}]: each protocol attribute may appear at most once on an agent",
                    attr.kind.name()
                ),
            );
            continue;
        }
        seen.push(attr.kind);
        if attr.kind == Kind::Agent {
            check_no_args(&attr.source, errors);
            continue;
        }
        let parsed = match attr.source {
            Source::Invoked(tokens) => args::parse_args(tokens),
            Source::Sibling(meta) => args::attribute_args(&meta, attr.kind.name()),
        };
        let Some(list) = errors.check(parsed) else {
            continue;
        };
        match attr.kind {
            Kind::DirectMessage => model.direct = Some(read_direct(&list, errors)),
            Kind::Broadcast => model.broadcast = Some(read_broadcast(&list, errors)),
            Kind::PubSub => model.pub_sub = Some(read_pub_sub(&list, errors)),
            Kind::RequestReply => model.request_reply = Some(read_request_reply(&list, errors)),
            Kind::Debate => model.debate = Some(read_debate(&list, errors)),
            Kind::Agent => {}
        }
    }
    model
}

/// `#[agent]` takes nothing; `#[agent()]` is tolerated.
fn check_no_args(source: &Source, errors: &mut Errors) {
    let offending: Option<TokenStream> = match source {
        Source::Invoked(tokens) => (!tokens.is_empty()).then(|| tokens.clone()),
        Source::Sibling(Meta::Path(_)) => None,
        Source::Sibling(Meta::List(list)) => (!list.tokens.is_empty()).then(|| list.tokens.clone()),
        Source::Sibling(Meta::NameValue(nv)) => Some(nv.value.to_token_stream()),
    };
    if let Some(tokens) = offending {
        errors.spanned(
            tokens,
            "#[agent] takes no arguments: it declares an agent without protocol attributes; \
             to configure a paradigm use its attribute, such as #[direct_message(endpoint = \"...\")]",
        );
    }
}

fn transport(arg: &Arg) -> syn::Result<(Transport, Span)> {
    let (name, span) = args::variant(arg, "transport", "TransportMode", TRANSPORTS)?;
    let transport = match name {
        "Internal" => Transport::Internal,
        "Http" => Transport::Http,
        "Nats" => Transport::Nats,
        _ => Transport::Auto,
    };
    Ok((transport, span))
}

fn strategy(arg: &Arg) -> syn::Result<Strategy> {
    let (name, _) = args::variant(arg, "strategy", "ConsensusStrategy", STRATEGIES)?;
    Ok(match name {
        "Majority" => Strategy::Majority,
        "WeightedConfidence" => Strategy::WeightedConfidence,
        "Unanimous" => Strategy::Unanimous,
        _ => Strategy::Supermajority,
    })
}

/// `transport = Http` and `Nats` need an address (`endpoint` or `broker`): missing is an
/// error on the transport, empty an error on the empty string.
fn check_address(
    attribute: Kind,
    transport: &Slot<(Transport, Span)>,
    field: &str,
    address: &Slot<LitStr>,
    errors: &mut Errors,
) {
    let Some((mode, span)) = transport.get() else {
        return;
    };
    let mode_name = match mode {
        Transport::Http => "Http",
        Transport::Nats => "Nats",
        Transport::Auto | Transport::Internal => return,
    };
    let example = match mode {
        Transport::Nats => "nats://127.0.0.1:4222",
        _ => "http://127.0.0.1:8080",
    };
    match address.get() {
        Some(lit) if lit.value().trim().is_empty() => errors.at(
            lit.span(),
            format!("`{field}` must not be empty with `transport = {mode_name}`"),
        ),
        Some(_) => {}
        None if address.is_seen() => {}
        None => errors.at(
            *span,
            format!(
                "`transport = {mode_name}` needs an address: add `{field} = \"{example}\"` to #[{}]",
                attribute.name()
            ),
        ),
    }
}

fn key(arg: &Arg) -> String {
    syn::ext::IdentExt::unraw(&arg.key).to_string()
}

fn read_direct(list: &[Arg], errors: &mut Errors) -> DirectArgs {
    let kind = Kind::DirectMessage;
    let mut endpoint = Slot::default();
    let mut transport_slot = Slot::default();
    let mut durable = Slot::default();
    for arg in list {
        match key(arg).as_str() {
            "endpoint" => endpoint.set_once(arg, args::string, errors),
            "transport" => transport_slot.set_once(arg, transport, errors),
            "durable" => durable.set_once(arg, args::boolean, errors),
            _ => errors.push(args::unknown_key(arg, kind.name(), kind.keys())),
        }
    }
    check_address(kind, &transport_slot, "endpoint", &endpoint, errors);
    DirectArgs {
        endpoint: endpoint.into_inner().map(|lit| lit.value()),
        transport: transport_slot.into_inner().map(|(t, _)| t),
        durable: durable.into_inner(),
    }
}

fn read_broadcast(list: &[Arg], errors: &mut Errors) -> BroadcastArgs {
    let kind = Kind::Broadcast;
    let mut topic = Slot::default();
    let mut broker = Slot::default();
    let mut transport_slot = Slot::default();
    let mut can_publish = Slot::default();
    let mut can_subscribe = Slot::default();
    for arg in list {
        match key(arg).as_str() {
            "topic" => topic.set_once(arg, broadcast_topic, errors),
            "broker" => broker.set_once(arg, args::string, errors),
            "transport" => transport_slot.set_once(arg, transport, errors),
            "can_publish" => can_publish.set_once(arg, args::boolean, errors),
            "can_subscribe" => can_subscribe.set_once(arg, args::boolean, errors),
            _ => errors.push(args::unknown_key(arg, kind.name(), kind.keys())),
        }
    }
    check_address(kind, &transport_slot, "broker", &broker, errors);
    BroadcastArgs {
        topic: topic.into_inner().map(|lit: LitStr| lit.value()),
        broker: broker.into_inner().map(|lit| lit.value()),
        transport: transport_slot.into_inner().map(|(t, _)| t),
        can_publish: can_publish.into_inner(),
        can_subscribe: can_subscribe.into_inner(),
    }
}

/// A broadcast topic is published to, so it may not hold wildcards.
fn broadcast_topic(arg: &Arg) -> syn::Result<LitStr> {
    let lit = args::string(arg)?;
    validate_topic(&lit.value()).map_err(|error| {
        syn::Error::new(lit.span(), format!("invalid #[broadcast] topic: {error}"))
    })?;
    Ok(lit)
}

/// Subscriptions: a non-empty list of valid patterns.
fn pub_sub_topics(arg: &Arg) -> syn::Result<Vec<String>> {
    let (topics, span) = args::string_list(arg)?;
    if topics.is_empty() {
        return Err(syn::Error::new(
            span,
            "`topics = []` subscribes to nothing: list at least one topic, such as `topics = [\"alerts.>\"]`, or leave `topics` out",
        ));
    }
    let mut errors = Errors::default();
    for topic in &topics {
        if let Err(error) = TopicPattern::parse(&topic.value()) {
            errors.at(
                topic.span(),
                format!("invalid #[pub_sub] topic pattern: {error}"),
            );
        }
    }
    errors.finish()?;
    Ok(topics.iter().map(LitStr::value).collect())
}

fn filter(arg: &Arg) -> syn::Result<String> {
    let lit = args::string(arg)?;
    let text = lit.value();
    PayloadFilter::parse(&text).map_err(|error| {
        syn::Error::new(
            lit.span(),
            format!(
                "invalid #[pub_sub] filter `{text}`: at byte {}, expected {}",
                error.offset, error.expected
            ),
        )
    })?;
    Ok(text)
}

fn read_pub_sub(list: &[Arg], errors: &mut Errors) -> PubSubArgs {
    let kind = Kind::PubSub;
    let mut topics = Slot::default();
    let mut broker = Slot::default();
    let mut transport_slot = Slot::default();
    let mut can_publish = Slot::default();
    let mut can_subscribe = Slot::default();
    let mut filter_slot = Slot::default();
    for arg in list {
        match key(arg).as_str() {
            "topics" => topics.set_once(arg, pub_sub_topics, errors),
            "broker" => broker.set_once(arg, args::string, errors),
            "transport" => transport_slot.set_once(arg, transport, errors),
            "can_publish" => can_publish.set_once(arg, args::boolean, errors),
            "can_subscribe" => can_subscribe.set_once(arg, args::boolean, errors),
            "filter" => filter_slot.set_once(arg, filter, errors),
            _ => errors.push(args::unknown_key(arg, kind.name(), kind.keys())),
        }
    }
    check_address(kind, &transport_slot, "broker", &broker, errors);
    PubSubArgs {
        topics: topics.into_inner(),
        broker: broker.into_inner().map(|lit| lit.value()),
        transport: transport_slot.into_inner().map(|(t, _)| t),
        can_publish: can_publish.into_inner(),
        can_subscribe: can_subscribe.into_inner(),
        filter: filter_slot.into_inner(),
    }
}

/// A positive millisecond count.
fn millis(arg: &Arg, hint: &str) -> syn::Result<u64> {
    let (value, span) = args::integer::<u64>(arg, "greater than 0")?;
    if value == 0 {
        let key = key(arg);
        return Err(syn::Error::new(
            span,
            format!("`{key}` must be greater than 0 (milliseconds){hint}"),
        ));
    }
    Ok(value)
}

fn read_request_reply(list: &[Arg], errors: &mut Errors) -> RequestReplyArgs {
    let kind = Kind::RequestReply;
    let mut timeout = Slot::default();
    let mut endpoint = Slot::default();
    let mut transport_slot = Slot::default();
    for arg in list {
        match key(arg).as_str() {
            "timeout" => timeout.set_once(arg, |arg| millis(arg, ""), errors),
            "endpoint" => endpoint.set_once(arg, args::string, errors),
            "transport" => transport_slot.set_once(arg, transport, errors),
            _ => errors.push(args::unknown_key(arg, kind.name(), kind.keys())),
        }
    }
    check_address(kind, &transport_slot, "endpoint", &endpoint, errors);
    RequestReplyArgs {
        timeout_ms: timeout.into_inner(),
        endpoint: endpoint.into_inner().map(|lit| lit.value()),
        transport: transport_slot.into_inner().map(|(t, _)| t),
    }
}

fn max_rounds(arg: &Arg) -> syn::Result<u32> {
    let (value, span) = args::integer::<u32>(arg, "at least 1")?;
    if value == 0 {
        return Err(syn::Error::new(span, "`max_rounds` must be at least 1"));
    }
    Ok(value)
}

fn threshold(arg: &Arg) -> syn::Result<f64> {
    let (value, tokens) = args::float(arg)?;
    if !(value > 0.0 && value <= 1.0) {
        return Err(syn::Error::new_spanned(
            tokens,
            format!(
                "`consensus_threshold` must be in (0, 1] (a share of the round's support), got {value:?}"
            ),
        ));
    }
    Ok(value)
}

fn read_debate(list: &[Arg], errors: &mut Errors) -> DebateArgs {
    let kind = Kind::Debate;
    let mut rounds = Slot::default();
    let mut consensus = Slot::default();
    let mut strategy_slot = Slot::default();
    let mut round_timeout = Slot::default();
    let mut can_initiate = Slot::default();
    let mut can_vote = Slot::default();
    let mut broker = Slot::default();
    let mut transport_slot = Slot::default();
    for arg in list {
        match key(arg).as_str() {
            "max_rounds" => rounds.set_once(arg, max_rounds, errors),
            "consensus_threshold" => consensus.set_once(arg, threshold, errors),
            "strategy" => strategy_slot.set_once(arg, strategy, errors),
            "round_timeout_ms" => round_timeout.set_once(
                arg,
                |arg| millis(arg, "; leave it out to let rounds wait for every position"),
                errors,
            ),
            "can_initiate" => can_initiate.set_once(arg, args::boolean, errors),
            "can_vote" => can_vote.set_once(arg, args::boolean, errors),
            "broker" => broker.set_once(arg, args::string, errors),
            "transport" => transport_slot.set_once(arg, transport, errors),
            _ => errors.push(args::unknown_key(arg, kind.name(), kind.keys())),
        }
    }
    check_address(kind, &transport_slot, "broker", &broker, errors);
    DebateArgs {
        max_rounds: rounds.into_inner(),
        consensus_threshold: consensus.into_inner(),
        strategy: strategy_slot.into_inner(),
        round_timeout_ms: round_timeout.into_inner(),
        can_initiate: can_initiate.into_inner(),
        can_vote: can_vote.into_inner(),
        broker: broker.into_inner().map(|lit| lit.value()),
        transport: transport_slot.into_inner().map(|(t, _)| t),
    }
}
