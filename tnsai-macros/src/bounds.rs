//! Which bounds of a generic agent the generated `impl Agent` can rely on.
//!
//! The `impl Agent` carries the struct's own bounds plus `Send + Sync + 'static`. An
//! `#[actions]` block that requires anything else of a type parameter is invisible to it
//! (path resolution falls back to "no actions"), so the two macros each implement
//! `__private::ActionsBoundsMustBeDeclaredOnTheStruct` when they can tell: the struct
//! attribute for a generic struct without such bounds, `#[actions]` for a block with them.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Generics, TraitBoundModifier, TypeParamBound, WherePredicate};

/// A bound that `Send + Sync + 'static` does not already give: any trait bound other than
/// `Send`, `Sync` and `?Sized`. Lifetime bounds are implied by `'static`.
fn is_extra(bound: &TypeParamBound) -> bool {
    match bound {
        TypeParamBound::Trait(trait_bound) => {
            let relaxed = matches!(trait_bound.modifier, TraitBoundModifier::Maybe(_));
            let auto = trait_bound
                .path
                .segments
                .last()
                .is_some_and(|s| s.ident == "Send" || s.ident == "Sync");
            !relaxed && !auto
        }
        _ => false,
    }
}

/// The first bound in `generics` (on a parameter or in the where clause) that
/// `Send + Sync + 'static` does not imply.
pub(crate) fn first_extra_bound(generics: &Generics) -> Option<Span> {
    let on_params = generics
        .type_params()
        .flat_map(|param| param.bounds.iter())
        .find(|bound| is_extra(bound));
    if let Some(bound) = on_params {
        return Some(bound.span());
    }
    generics
        .where_clause
        .iter()
        .flat_map(|clause| clause.predicates.iter())
        .find_map(|predicate| match predicate {
            WherePredicate::Type(typed) => typed
                .bounds
                .iter()
                .find(|bound| is_extra(bound))
                .map(Spanned::span),
            _ => None,
        })
}

/// Whether a struct's `impl Agent` knows nothing of its type parameters beyond
/// `Send + Sync + 'static`: it has type parameters and no bound that adds to those.
pub(crate) fn is_generic_without_extra_bounds(generics: &Generics) -> bool {
    generics.type_params().next().is_some() && first_extra_bound(generics).is_none()
}
