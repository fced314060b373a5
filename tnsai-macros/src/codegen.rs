//! Generating code from checked models: the `impl Agent` for the struct attributes and the
//! hidden inherent impl for `#[actions]`.
//!
//! Every path starts at `::tnsai_core`, so an agent can live in a crate that depends on
//! tnsai-core alone. Generated impls sit in `const _: () = { ... };` and are marked
//! `#[automatically_derived]`.

use proc_macro2::{Literal, Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{GenericParam, Generics, ItemImpl};

use crate::actions_attr::ActionsModel;
use crate::agent_attr::{AgentModel, Strategy, Target, Transport};
use crate::bounds;

/// `generics` with every type parameter bounded `Send + Sync + 'static` and every
/// lifetime outliving `'static`, as an `Agent` must be.
fn with_agent_bounds(generics: &Generics) -> Generics {
    let mut generics = generics.clone();
    let params: Vec<GenericParam> = generics.params.iter().cloned().collect();
    let where_clause = generics.make_where_clause();
    for param in params {
        match param {
            GenericParam::Type(ty) => {
                let ident = ty.ident;
                where_clause.predicates.push(syn::parse_quote!(
                    #ident: ::core::marker::Send + ::core::marker::Sync + 'static
                ));
            }
            GenericParam::Lifetime(lifetime) => {
                let lifetime = lifetime.lifetime;
                where_clause
                    .predicates
                    .push(syn::parse_quote!(#lifetime: 'static));
            }
            GenericParam::Const(_) => {}
        }
    }
    generics
}

fn transport(transport: Transport) -> TokenStream {
    match transport {
        Transport::Auto => quote!(::tnsai_core::TransportMode::Auto),
        Transport::Internal => quote!(::tnsai_core::TransportMode::Internal),
        Transport::Http => quote!(::tnsai_core::TransportMode::Http),
        Transport::Nats => quote!(::tnsai_core::TransportMode::Nats),
    }
}

fn strategy(strategy: Strategy) -> TokenStream {
    match strategy {
        Strategy::Majority => quote!(::tnsai_core::ConsensusStrategy::Majority),
        Strategy::Supermajority => quote!(::tnsai_core::ConsensusStrategy::Supermajority),
        Strategy::WeightedConfidence => {
            quote!(::tnsai_core::ConsensusStrategy::WeightedConfidence)
        }
        Strategy::Unanimous => quote!(::tnsai_core::ConsensusStrategy::Unanimous),
    }
}

fn millis(ms: u64) -> TokenStream {
    let ms = Literal::u64_suffixed(ms);
    quote!(::core::time::Duration::from_millis(#ms))
}

/// Appends `.#method(#value)` to `chain` when `value` is given.
fn with<T>(
    chain: &mut TokenStream,
    method: &str,
    value: Option<T>,
    tokens: impl Fn(T) -> TokenStream,
) {
    if let Some(value) = value {
        let method = syn::Ident::new(method, Span::call_site());
        let value = tokens(value);
        chain.extend(quote!(.#method(#value)));
    }
}

fn text(value: &String) -> TokenStream {
    quote!(#value)
}

fn flag(value: &bool) -> TokenStream {
    quote!(#value)
}

/// The `ProtocolSpecs` expression: one `with_*` per attribute, one `with_*` per argument
/// given (arguments left out keep the spec's defaults, which are the attribute's).
pub(crate) fn specs(model: &AgentModel) -> TokenStream {
    let mut chain = quote!(::tnsai_core::ProtocolSpecs::new());
    if let Some(d) = &model.direct {
        let mut spec = quote!(::tnsai_core::DirectSpec::new());
        with(&mut spec, "with_endpoint", d.endpoint.as_ref(), text);
        with(&mut spec, "with_transport", d.transport, transport);
        with(&mut spec, "with_durable", d.durable.as_ref(), flag);
        chain.extend(quote!(.with_direct(#spec)));
    }
    if let Some(b) = &model.broadcast {
        let mut spec = quote!(::tnsai_core::BroadcastSpec::new());
        with(&mut spec, "with_topic", b.topic.as_ref(), text);
        with(&mut spec, "with_broker", b.broker.as_ref(), text);
        with(&mut spec, "with_transport", b.transport, transport);
        with(&mut spec, "with_can_publish", b.can_publish.as_ref(), flag);
        with(
            &mut spec,
            "with_can_subscribe",
            b.can_subscribe.as_ref(),
            flag,
        );
        chain.extend(quote!(.with_broadcast(#spec)));
    }
    if let Some(p) = &model.pub_sub {
        let mut spec = quote!(::tnsai_core::PubSubSpec::new());
        with(
            &mut spec,
            "with_topics",
            p.topics.as_ref(),
            |topics| quote!([#(#topics),*]),
        );
        with(&mut spec, "with_broker", p.broker.as_ref(), text);
        with(&mut spec, "with_transport", p.transport, transport);
        with(&mut spec, "with_can_publish", p.can_publish.as_ref(), flag);
        with(
            &mut spec,
            "with_can_subscribe",
            p.can_subscribe.as_ref(),
            flag,
        );
        with(&mut spec, "with_filter", p.filter.as_ref(), text);
        chain.extend(quote!(.with_pub_sub(#spec)));
    }
    if let Some(r) = &model.request_reply {
        let mut spec = quote!(::tnsai_core::RequestReplySpec::new());
        with(&mut spec, "with_timeout", r.timeout_ms, millis);
        with(&mut spec, "with_endpoint", r.endpoint.as_ref(), text);
        with(&mut spec, "with_transport", r.transport, transport);
        chain.extend(quote!(.with_request_reply(#spec)));
    }
    if let Some(d) = &model.debate {
        let mut spec = quote!(::tnsai_core::DebateSpec::new());
        with(&mut spec, "with_max_rounds", d.max_rounds, |n| {
            let n = Literal::u32_suffixed(n);
            quote!(#n)
        });
        with(
            &mut spec,
            "with_consensus_threshold",
            d.consensus_threshold,
            |t| {
                let t = Literal::f64_suffixed(t);
                quote!(#t)
            },
        );
        with(&mut spec, "with_strategy", d.strategy, strategy);
        with(&mut spec, "with_round_timeout", d.round_timeout_ms, millis);
        with(
            &mut spec,
            "with_can_initiate",
            d.can_initiate.as_ref(),
            flag,
        );
        with(&mut spec, "with_can_vote", d.can_vote.as_ref(), flag);
        with(&mut spec, "with_broker", d.broker.as_ref(), text);
        with(&mut spec, "with_transport", d.transport, transport);
        chain.extend(quote!(.with_debate(#spec)));
    }
    chain
}

/// The `impl Agent` for the struct or enum. The action table, the invocation, the callback
/// and the model come from `Self::__tnsai_*`: inherent functions when an `#[actions]`
/// block defines them, otherwise the blanket defaults of `__private::NoActions`.
pub(crate) fn agent_impl(target: &Target, model: &AgentModel) -> TokenStream {
    let ident = &target.ident;
    let generics = with_agent_bounds(&target.generics);
    let (impl_generics, type_generics, where_clause) = generics.split_for_impl();
    let specs = specs(model);
    let guard = bounds::is_generic_without_extra_bounds(&target.generics).then(|| {
        let (impl_generics, type_generics, where_clause) = target.generics.split_for_impl();
        quote_spanned! {located(ident.span())=>
            #[automatically_derived]
            impl #impl_generics ::tnsai_core::__private::ActionsBoundsMustBeDeclaredOnTheStruct
                for #ident #type_generics #where_clause {}
        }
    });
    quote! {
        const _: () = {
            #guard

            #[automatically_derived]
            impl #impl_generics ::tnsai_core::Agent for #ident #type_generics #where_clause {
                fn protocol_specs(&self) -> ::tnsai_core::ProtocolSpecs {
                    #specs
                }

                fn actions(&self) -> &'static [::tnsai_core::ActionInfo] {
                    #[allow(unused_imports)]
                    use ::tnsai_core::__private::NoActions as _;
                    Self::__tnsai_actions()
                }

                fn invoke_action(
                    self: ::tnsai_core::__private::Arc<Self>,
                    name: &str,
                    params: ::tnsai_core::Params,
                ) -> ::core::option::Option<::tnsai_core::ActionFuture> {
                    #[allow(unused_imports)]
                    use ::tnsai_core::__private::NoActions as _;
                    Self::__tnsai_invoke_action(self, name, params)
                }

                fn on_message_received(
                    self: ::tnsai_core::__private::Arc<Self>,
                    message: ::tnsai_core::Message,
                ) -> ::core::option::Option<::tnsai_core::CallbackFuture> {
                    #[allow(unused_imports)]
                    use ::tnsai_core::__private::NoActions as _;
                    Self::__tnsai_on_message_received(self, message)
                }

                fn language_model(
                    &self,
                ) -> ::core::option::Option<::tnsai_core::__private::Arc<dyn ::tnsai_core::LanguageModel>> {
                    #[allow(unused_imports)]
                    use ::tnsai_core::__private::NoActions as _;
                    Self::__tnsai_language_model(self)
                }
            }
        };
    }
}

/// A span that resolves like the macro's own tokens but is reported at `at` (a user token),
/// so type errors in generated code point at the user's signature.
fn located(at: Span) -> Span {
    Span::call_site().located_at(at)
}

/// The hidden inherent impl for an `#[actions]` block: `__tnsai_actions` and
/// `__tnsai_invoke_action` always, `__tnsai_on_message_received` and
/// `__tnsai_language_model` only when their markers exist (so the defaults answer
/// otherwise).
pub(crate) fn actions_impl(block: &ItemImpl, model: &ActionsModel) -> TokenStream {
    let self_ty = &block.self_ty;
    let generics = with_agent_bounds(&block.generics);
    let (impl_generics, _, where_clause) = generics.split_for_impl();

    let infos = model.actions.iter().map(|action| {
        let name = &action.name;
        let description = &action.description;
        let role = match &action.role {
            Some(role) => quote!(::core::option::Option::Some(#role)),
            None => quote!(::core::option::Option::None),
        };
        quote!(::tnsai_core::ActionInfo::new(#name, #role, #description))
    });

    let arms = model.actions.iter().map(|action| {
        let name = &action.name;
        let method = &action.method;
        let at_method = located(method.span());
        let at_return = located(action.return_ty.span());
        let params = quote_spanned!(located(action.param_ty.span())=> params);
        let run = quote_spanned! {at_return=>
            let __tnsai_result: ::tnsai_core::ActionResult = Self::#method(&*self, #params).await;
            __tnsai_result
        };
        let boxed = quote_spanned! {at_method=>
            ::tnsai_core::__private::box_action(async move { #run })
        };
        quote!(#name => ::core::option::Option::Some(#boxed),)
    });
    let invoke_body = if model.actions.is_empty() {
        quote! {
            let _ = (self, name, params);
            ::core::option::Option::None
        }
    } else {
        quote! {
            match name {
                #(#arms)*
                _ => ::core::option::Option::None,
            }
        }
    };

    let callback = model.callback.as_ref().map(|callback| {
        let method = &callback.method;
        let message = quote_spanned!(located(callback.message_ty.span())=> message);
        let call = quote_spanned! {located(method.span())=>
            ::tnsai_core::__private::box_callback(async move {
                Self::#method(&*self, #message).await;
            })
        };
        quote! {
            #[doc(hidden)]
            #[allow(dead_code)]
            pub(crate) fn __tnsai_on_message_received(
                self: ::tnsai_core::__private::Arc<Self>,
                message: ::tnsai_core::Message,
            ) -> ::core::option::Option<::tnsai_core::CallbackFuture> {
                ::core::option::Option::Some(#call)
            }
        }
    });

    let language_model = model.model.as_ref().map(|model| {
        let method = &model.method;
        let get = quote_spanned! {located(model.return_ty.span())=>
            let __tnsai_model: ::tnsai_core::__private::Arc<dyn ::tnsai_core::LanguageModel> =
                Self::#method(self);
        };
        quote! {
            #[doc(hidden)]
            #[allow(dead_code)]
            pub(crate) fn __tnsai_language_model(
                &self,
            ) -> ::core::option::Option<::tnsai_core::__private::Arc<dyn ::tnsai_core::LanguageModel>> {
                #get
                ::core::option::Option::Some(__tnsai_model)
            }
        }
    });

    let guard = model.extra_bound.map(|span| {
        let (impl_generics, _, where_clause) = block.generics.split_for_impl();
        quote_spanned! {located(span)=>
            #[automatically_derived]
            impl #impl_generics ::tnsai_core::__private::ActionsBoundsMustBeDeclaredOnTheStruct
                for #self_ty #where_clause {}
        }
    });

    quote! {
        const _: () = {
            #guard

            #[automatically_derived]
            #[doc(hidden)]
            impl #impl_generics #self_ty #where_clause {
                #[doc(hidden)]
                #[allow(dead_code)]
                pub(crate) fn __tnsai_actions() -> &'static [::tnsai_core::ActionInfo] {
                    const ACTIONS: &[::tnsai_core::ActionInfo] = &[#(#infos),*];
                    ACTIONS
                }

                #[doc(hidden)]
                #[allow(dead_code)]
                pub(crate) fn __tnsai_invoke_action(
                    self: ::tnsai_core::__private::Arc<Self>,
                    name: &str,
                    params: ::tnsai_core::Params,
                ) -> ::core::option::Option<::tnsai_core::ActionFuture> {
                    #invoke_body
                }

                #callback
                #language_model
            }
        };
    }
}
