//! `#[actions]`: reading an inherent impl block's marked methods and checking their
//! signatures.
//!
//! The markers (`#[action]`, `#[on_message_received]`, `#[language_model]`) are recognised
//! by the last segment of their path and removed from the block; they never expand on
//! their own inside it. Signatures are checked syntactically here; the types are left to
//! the compiler, through generated code spanned on the user's tokens.

use std::collections::HashMap;

use proc_macro2::Span;
use syn::{
    Attribute, Expr, ExprLit, FnArg, GenericArgument, GenericParam, ImplItem, ImplItemFn, ItemImpl,
    Lit, Meta, PathArguments, ReturnType, Signature, Type,
};

use crate::args::{self, Slot};
use crate::bounds;
use crate::errors::Errors;

/// A method marker inside an `#[actions]` block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Marker {
    Action,
    OnMessageReceived,
    LanguageModel,
}

impl Marker {
    const ALL: [Marker; 3] = [
        Marker::Action,
        Marker::OnMessageReceived,
        Marker::LanguageModel,
    ];

    /// The marker's name, as written.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Marker::Action => "action",
            Marker::OnMessageReceived => "on_message_received",
            Marker::LanguageModel => "language_model",
        }
    }

    fn of(attr: &Attribute) -> Option<Marker> {
        let last = attr.path().segments.last()?;
        Marker::ALL.into_iter().find(|m| last.ident == m.name())
    }

    /// The signature the marker expects, for messages.
    fn usage(self, method: &str) -> String {
        match self {
            Marker::Action => {
                format!("async fn {method}(&self, params: Params) -> ActionResult")
            }
            Marker::OnMessageReceived => format!("async fn {method}(&self, message: Message)"),
            Marker::LanguageModel => format!("fn {method}(&self) -> Arc<dyn LanguageModel>"),
        }
    }
}

/// One `#[action]` method.
pub(crate) struct Action {
    /// The name callers use.
    pub(crate) name: String,
    pub(crate) role: Option<String>,
    /// The method's doc comment: lines trimmed, joined with `\n`.
    pub(crate) description: String,
    pub(crate) method: syn::Ident,
    pub(crate) param_ty: Type,
    pub(crate) return_ty: Type,
}

/// The `#[on_message_received]` method.
pub(crate) struct Callback {
    pub(crate) method: syn::Ident,
    pub(crate) message_ty: Type,
}

/// The `#[language_model]` method.
pub(crate) struct Model {
    pub(crate) method: syn::Ident,
    pub(crate) return_ty: Type,
}

/// What an `#[actions]` block declares.
#[derive(Default)]
pub(crate) struct ActionsModel {
    pub(crate) actions: Vec<Action>,
    pub(crate) callback: Option<Callback>,
    pub(crate) model: Option<Model>,
    /// The first bound the block requires beyond `Send + Sync + 'static`, if any (see
    /// [`crate::bounds`]).
    pub(crate) extra_bound: Option<Span>,
}

/// Removes the markers from `block` and reads the marked methods.
pub(crate) fn analyze(block: &mut ItemImpl, errors: &mut Errors) -> ActionsModel {
    if let Some((_, path, _)) = &block.trait_ {
        errors.spanned(
            path,
            "#[actions] must be on an inherent impl block (`impl MyAgent { ... }`), not on a trait implementation",
        );
    }
    check_self_type(block, errors);
    let mut model = ActionsModel {
        extra_bound: bounds::first_extra_bound(&block.generics),
        ..ActionsModel::default()
    };
    let mut names: HashMap<String, syn::Ident> = HashMap::new();
    for item in &mut block.items {
        let ImplItem::Fn(method) = item else {
            strip_misplaced(item, errors);
            continue;
        };
        let markers = take_markers(&mut method.attrs);
        let Some((marker, attr)) = markers.first() else {
            continue;
        };
        for (extra, extra_attr) in &markers[1..] {
            let message = if extra == marker {
                format!("duplicate #[{}] on `{}`", extra.name(), method.sig.ident)
            } else {
                format!(
                    "`{}` is already marked #[{}]: a method can carry only one of #[action], #[on_message_received] and #[language_model]",
                    method.sig.ident,
                    marker.name()
                )
            };
            errors.spanned(extra_attr.path(), message);
        }
        match marker {
            Marker::Action => {
                if let Some((action, name_span)) = read_action(method, attr, errors) {
                    if let Some(first) = names.get(&action.name) {
                        errors.at(
                            name_span,
                            format!(
                                "duplicate action name `{}`: the #[action] on `{first}` already has this name; rename one with #[action(name = \"...\")]",
                                action.name
                            ),
                        );
                    } else {
                        names.insert(action.name.clone(), action.method.clone());
                        model.actions.push(action);
                    }
                }
            }
            Marker::OnMessageReceived => {
                no_args(attr, *marker, errors);
                let checked = check_signature(&method.sig, *marker, errors);
                if let Some(first) = &model.callback {
                    errors.spanned(
                        attr.path(),
                        format!(
                            "only one #[on_message_received] method is allowed per agent; `{}` already is one",
                            first.method
                        ),
                    );
                } else if let Some(shape) = checked {
                    model.callback = shape.param.map(|message_ty| Callback {
                        method: method.sig.ident.clone(),
                        message_ty,
                    });
                }
            }
            Marker::LanguageModel => {
                no_args(attr, *marker, errors);
                let checked = check_signature(&method.sig, *marker, errors);
                if let Some(first) = &model.model {
                    errors.spanned(
                        attr.path(),
                        format!(
                            "only one #[language_model] method is allowed per agent; `{}` already is one",
                            first.method
                        ),
                    );
                } else if let Some(shape) = checked {
                    model.model = shape.return_ty.map(|return_ty| Model {
                        method: method.sig.ident.clone(),
                        return_ty,
                    });
                }
            }
        }
    }
    model
}

/// The block must be for every instantiation of the agent (`impl<T> Wrapper<T>`), because
/// the generated `impl Agent` is generic: it would never see `impl Wrapper<u32>`.
fn check_self_type(block: &ItemImpl, errors: &mut Errors) {
    let Type::Path(path) = &*block.self_ty else {
        return;
    };
    let Some(last) = path.path.segments.last() else {
        return;
    };
    let PathArguments::AngleBracketed(arguments) = &last.arguments else {
        return;
    };
    let own: Vec<String> = block
        .generics
        .params
        .iter()
        .map(|param| match param {
            GenericParam::Type(t) => t.ident.to_string(),
            GenericParam::Lifetime(l) => l.lifetime.to_string(),
            GenericParam::Const(c) => c.ident.to_string(),
        })
        .collect();
    let mut seen: Vec<String> = Vec::new();
    for argument in &arguments.args {
        let name = match argument {
            GenericArgument::Lifetime(lifetime) if lifetime.ident == "_" => continue,
            GenericArgument::Lifetime(lifetime) => Some(lifetime.to_string()),
            GenericArgument::Type(Type::Path(ty)) if ty.qself.is_none() => {
                ty.path.get_ident().map(ToString::to_string)
            }
            _ => None,
        };
        match name {
            Some(name) if own.contains(&name) && !seen.contains(&name) => seen.push(name),
            _ => errors.spanned(
                argument,
                format!(
                    "#[actions] must cover every instantiation of `{agent}`: use the impl's own generic parameters here, as in `impl<T> {agent}<T>`; the generated `impl Agent` is generic and would never see a block for one instantiation",
                    agent = last.ident
                ),
            ),
        }
    }
}

/// Removes the markers from `attrs`, in order.
fn take_markers(attrs: &mut Vec<Attribute>) -> Vec<(Marker, Attribute)> {
    let mut markers = Vec::new();
    attrs.retain(|attr| match Marker::of(attr) {
        Some(marker) => {
            markers.push((marker, attr.clone()));
            false
        }
        None => true,
    });
    markers
}

/// Markers on impl items that are not methods: removed, and an error each.
fn strip_misplaced(item: &mut ImplItem, errors: &mut Errors) {
    let attrs = match item {
        ImplItem::Const(c) => &mut c.attrs,
        ImplItem::Type(t) => &mut t.attrs,
        ImplItem::Macro(m) => &mut m.attrs,
        _ => return,
    };
    for (marker, attr) in take_markers(attrs) {
        errors.spanned(
            attr.path(),
            format!("#[{}] can only be used on a method", marker.name()),
        );
    }
}

fn no_args(attr: &Attribute, marker: Marker, errors: &mut Errors) {
    let name = marker.name();
    match &attr.meta {
        Meta::Path(_) => {}
        Meta::List(list) if list.tokens.is_empty() => {}
        Meta::List(list) => {
            errors.spanned(&list.tokens, format!("#[{name}] takes no arguments"));
        }
        Meta::NameValue(nv) => {
            errors.spanned(&nv.value, format!("#[{name}] takes no arguments"));
        }
    }
}

/// Reads `#[action(name = "...", role = "...")]` and checks the method. Returns the action
/// and where to point a duplicate-name error.
fn read_action(
    method: &ImplItemFn,
    attr: &Attribute,
    errors: &mut Errors,
) -> Option<(Action, Span)> {
    let mut name = Slot::default();
    let mut role = Slot::default();
    let mut attr_errors = Errors::default();
    match args::attribute_args(&attr.meta, "action") {
        Ok(list) => {
            for arg in &list {
                let key = syn::ext::IdentExt::unraw(&arg.key).to_string();
                match key.as_str() {
                    "name" => name.set_once(arg, non_empty, &mut attr_errors),
                    "role" => role.set_once(arg, non_empty, &mut attr_errors),
                    _ => attr_errors.push(args::unknown_key(arg, "action", &["name", "role"])),
                }
            }
        }
        Err(error) => attr_errors.push(error),
    }
    let attr_ok = attr_errors.is_empty();
    if let Err(error) = attr_errors.finish() {
        errors.push(error);
    }
    let shape = check_signature(&method.sig, Marker::Action, errors);
    let (
        Some(Shape {
            param: Some(param_ty),
            return_ty: Some(return_ty),
        }),
        true,
    ) = (shape, attr_ok)
    else {
        return None;
    };
    let (name, span) = match name.into_inner() {
        Some(lit) => (lit.value(), lit.span()),
        None => (method.sig.ident.to_string(), method.sig.ident.span()),
    };
    let action = Action {
        name,
        role: role.into_inner().map(|lit| lit.value()),
        description: description(&method.attrs),
        method: method.sig.ident.clone(),
        param_ty,
        return_ty,
    };
    Some((action, span))
}

fn non_empty(arg: &args::Arg) -> syn::Result<syn::LitStr> {
    let lit = args::string(arg)?;
    if lit.value().trim().is_empty() {
        return Err(syn::Error::new(
            lit.span(),
            format!(
                "`{}` must not be empty",
                syn::ext::IdentExt::unraw(&arg.key)
            ),
        ));
    }
    Ok(lit)
}

/// The doc comment of a method: every `#[doc = "..."]` line trimmed, leading and trailing
/// blank lines dropped, joined with `\n`.
fn description(attrs: &[Attribute]) -> String {
    let mut lines: Vec<String> = Vec::new();
    for attr in attrs {
        let Meta::NameValue(nv) = &attr.meta else {
            continue;
        };
        if !nv.path.is_ident("doc") {
            continue;
        }
        if let Expr::Lit(ExprLit {
            lit: Lit::Str(text),
            ..
        }) = &nv.value
        {
            // `split`, not `lines`: an empty `///` line is `""`, which is a blank line.
            lines.extend(text.value().split('\n').map(|line| line.trim().to_owned()));
        }
    }
    let first = lines.iter().position(|l| !l.is_empty());
    let last = lines.iter().rposition(|l| !l.is_empty());
    match (first, last) {
        (Some(first), Some(last)) => lines[first..=last].join("\n"),
        _ => String::new(),
    }
}

/// The parts of a checked signature the generated code needs.
struct Shape {
    /// The type of the one parameter after `&self`, for markers that take one.
    param: Option<Type>,
    /// The declared return type, when there is one.
    return_ty: Option<Type>,
}

/// Checks a marked method's signature against the marker's shape; every problem is an
/// error on its token. `None` when anything is wrong.
fn check_signature(sig: &Signature, marker: Marker, errors: &mut Errors) -> Option<Shape> {
    let mut local = Errors::default();
    let name = marker.name();
    let usage = marker.usage(&sig.ident.to_string());
    let wants_async = marker != Marker::LanguageModel;
    let wants_param = marker != Marker::LanguageModel;

    match (&sig.asyncness, wants_async) {
        (None, true) => local.at(
            sig.fn_token.span,
            format!("#[{name}] methods must be `async`: expected `{usage}`"),
        ),
        (Some(token), false) => local.at(
            token.span,
            format!("#[{name}] methods must not be `async`: expected `{usage}`"),
        ),
        _ => {}
    }
    if let Some(token) = &sig.unsafety {
        local.at(
            token.span,
            format!("#[{name}] methods must not be `unsafe`"),
        );
    }
    if let Some(token) = &sig.constness {
        local.at(token.span, format!("#[{name}] methods must not be `const`"));
    }
    if !sig.generics.params.is_empty() {
        local.spanned(
            &sig.generics.params,
            format!("#[{name}] methods cannot have generic parameters: expected `{usage}`"),
        );
    }
    if let Some(where_clause) = &sig.generics.where_clause {
        local.spanned(
            where_clause,
            format!("#[{name}] methods cannot have a where clause"),
        );
    }
    if let Some(variadic) = &sig.variadic {
        local.spanned(variadic, format!("#[{name}] methods cannot be variadic"));
    }

    let mut inputs = sig.inputs.iter().peekable();
    match inputs.peek() {
        Some(FnArg::Receiver(receiver)) => {
            if receiver.colon_token.is_some() {
                local.spanned(
                    receiver,
                    format!(
                        "#[{name}] methods take `&self`, not a typed `self`: expected `{usage}`"
                    ),
                );
            } else if receiver.reference.is_none() {
                local.spanned(
                    receiver,
                    format!(
                        "#[{name}] methods take `&self`, not `self` by value: expected `{usage}`"
                    ),
                );
            } else if receiver.mutability.is_some() {
                local.spanned(
                    receiver,
                    format!(
                        "#[{name}] methods take `&self`, not `&mut self`: an agent serves calls concurrently, so keep mutable state behind a `Mutex` or atomics"
                    ),
                );
            }
            inputs.next();
        }
        Some(FnArg::Typed(first)) => local.spanned(
            first,
            format!("#[{name}] methods take `&self` first: expected `{usage}`"),
        ),
        None => local.at(
            sig.paren_token.span.join(),
            format!("#[{name}] methods take `&self` first: expected `{usage}`"),
        ),
    }
    let rest: Vec<&FnArg> = inputs.collect();
    let param = if wants_param {
        match rest.as_slice() {
            [] => {
                let what = match marker {
                    Marker::Action => "`params: Params`",
                    _ => "`message: Message`",
                };
                local.at(
                    sig.paren_token.span.join(),
                    format!("#[{name}] methods take a {what} parameter after `&self`: expected `{usage}`"),
                );
                None
            }
            [FnArg::Typed(param), extra @ ..] => {
                for arg in extra {
                    local.spanned(
                        arg,
                        format!("unexpected parameter: #[{name}] methods take exactly one parameter after `&self`: expected `{usage}`"),
                    );
                }
                Some((*param.ty).clone())
            }
            // A second receiver is rejected by the compiler itself.
            [FnArg::Receiver(_), ..] => None,
        }
    } else {
        for arg in &rest {
            local.spanned(
                arg,
                format!(
                    "unexpected parameter: #[{name}] methods take only `&self`: expected `{usage}`"
                ),
            );
        }
        None
    };

    let return_ty = match (&sig.output, marker) {
        (ReturnType::Default, Marker::OnMessageReceived) => None,
        (ReturnType::Type(_, ty), Marker::OnMessageReceived) => {
            if !matches!(&**ty, Type::Tuple(t) if t.elems.is_empty()) {
                local.spanned(
                    ty,
                    format!("#[{name}] methods return nothing: expected `{usage}`"),
                );
            }
            None
        }
        (ReturnType::Default, _) => {
            let what = match marker {
                Marker::Action => "`ActionResult`",
                _ => "`Arc<dyn LanguageModel>`",
            };
            local.at(
                sig.paren_token.span.close(),
                format!("#[{name}] methods must return {what}: expected `{usage}`"),
            );
            None
        }
        (ReturnType::Type(_, ty), _) => Some((**ty).clone()),
    };

    let ok = local.is_empty();
    if let Err(error) = local.finish() {
        errors.push(error);
    }
    ok.then_some(Shape { param, return_ty })
}
