//! Collecting every error of an expansion so that all of them are reported at once.

use std::fmt::Display;

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;

/// The errors found so far, combined into one `syn::Error` (which holds many).
#[derive(Default)]
pub(crate) struct Errors {
    combined: Option<syn::Error>,
}

impl Errors {
    /// Records an error.
    pub(crate) fn push(&mut self, error: syn::Error) {
        match &mut self.combined {
            Some(combined) => combined.combine(error),
            None => self.combined = Some(error),
        }
    }

    /// Records an error at `span`.
    pub(crate) fn at(&mut self, span: Span, message: impl Display) {
        self.push(syn::Error::new(span, message));
    }

    /// Records an error spanning `tokens` (all of them, where the compiler can join spans).
    pub(crate) fn spanned(&mut self, tokens: impl ToTokens, message: impl Display) {
        self.push(syn::Error::new_spanned(tokens, message));
    }

    /// Records the error of `result`, if any, and returns its value.
    pub(crate) fn check<T>(&mut self, result: syn::Result<T>) -> Option<T> {
        match result {
            Ok(value) => Some(value),
            Err(error) => {
                self.push(error);
                None
            }
        }
    }

    /// Whether nothing was recorded.
    pub(crate) fn is_empty(&self) -> bool {
        self.combined.is_none()
    }

    /// `Ok(())` when nothing was recorded, otherwise all the errors as one.
    pub(crate) fn finish(self) -> syn::Result<()> {
        match self.combined {
            None => Ok(()),
            Some(error) => Err(error),
        }
    }

    /// One `compile_error!` per recorded error (nothing when there are none).
    pub(crate) fn into_compile_errors(self) -> TokenStream {
        self.combined
            .map(|error| error.to_compile_error())
            .unwrap_or_default()
    }
}
