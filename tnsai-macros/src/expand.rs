//! The macros' entry points: parse, check, generate, and on error emit the item without
//! the tnsai attributes next to every `compile_error!`, so editors keep working.

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};
use syn::Item;

use crate::actions_attr::{self, Marker};
use crate::agent_attr::{self, Kind};
use crate::codegen;
use crate::errors::Errors;

/// A struct attribute (`invoked`) with its arguments on `input`.
pub(crate) fn agent(invoked: Kind, args: TokenStream, input: TokenStream) -> TokenStream {
    let item: Item = match syn::parse2(input.clone()) {
        Ok(item) => item,
        Err(error) => {
            let error = error.to_compile_error();
            return quote!(#input #error);
        }
    };
    let analysis = agent_attr::analyze(invoked, args, item);
    let item = analysis.item;
    // The impl is emitted even next to errors (from the valid arguments), so that the
    // only errors a user sees are the attribute's, not "`X` is not a tnsai agent".
    let agent_impl = analysis
        .target
        .as_ref()
        .map(|target| codegen::agent_impl(target, &analysis.model));
    let errors = analysis.errors.into_compile_errors();
    quote! {
        #item
        #agent_impl
        #errors
    }
}

/// `#[actions]` with its arguments on `input`.
pub(crate) fn actions(args: TokenStream, input: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    if !args.is_empty() {
        errors.spanned(
            &args,
            "#[actions] takes no arguments: name and restrict each action with #[action(name = \"...\", role = \"...\")]",
        );
    }
    let item: Item = match syn::parse2(input.clone()) {
        Ok(item) => item,
        Err(error) => {
            errors.push(error);
            let errors = errors.into_compile_errors();
            return quote!(#input #errors);
        }
    };
    let Item::Impl(mut block) = item else {
        errors.push(not_an_impl(&item));
        let errors = errors.into_compile_errors();
        return quote!(#item #errors);
    };
    let model = actions_attr::analyze(&mut block, &mut errors);
    if errors.is_empty() {
        let support = codegen::actions_impl(&block, &model);
        quote!(#block #support)
    } else {
        // Without the support impl the agent falls back to "no actions", which adds no
        // errors of its own.
        let errors = errors.into_compile_errors();
        quote!(#block #errors)
    }
}

fn not_an_impl(item: &Item) -> syn::Error {
    let message =
        "#[actions] goes on the agent's inherent impl block: `#[actions] impl MyAgent { ... }`";
    let span = match item {
        Item::Struct(s) => {
            return syn::Error::new(
                s.struct_token.span,
                format!(
                    "{message}; on the struct itself use a protocol attribute such as #[direct_message], or #[agent]"
                ),
            );
        }
        Item::Enum(e) => e.enum_token.span,
        Item::Fn(f) => f.sig.fn_token.span,
        Item::Trait(t) => t.trait_token.span,
        Item::Mod(m) => m.mod_token.span,
        other => return syn::Error::new_spanned(other, message),
    };
    syn::Error::new(span, message)
}

/// A method marker that expanded on its own: it is outside an `#[actions]` block.
pub(crate) fn misplaced_marker(marker: Marker, input: TokenStream) -> TokenStream {
    let name = marker.name();
    let error = syn::Error::new(
        proc_macro2::Span::call_site(),
        format!("`#[{name}]` can only be used on a method inside an `#[actions]` impl block"),
    )
    .to_compile_error();
    let mut output = input;
    error.to_tokens(&mut output);
    output
}
