//! Parsing of `key = value` attribute arguments, shared by every attribute.
//!
//! Arguments are first parsed loosely (a key, optionally `=` and any expression) so that
//! one malformed value does not hide the others; the typed readers in this module then
//! check each value and report a spanned error naming the key and what was expected.

use std::fmt::Display;
use std::str::FromStr;

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use syn::ext::IdentExt;
use syn::parse::{ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::{Expr, ExprLit, ExprUnary, Ident, Lit, LitStr, Meta, Token, UnOp};

use crate::errors::Errors;

/// One `key = value` argument (`value` is `None` for a bare `key`).
pub(crate) struct Arg {
    pub(crate) key: Ident,
    pub(crate) value: Option<Expr>,
}

fn parse_arg(input: ParseStream<'_>) -> syn::Result<Arg> {
    let key = Ident::parse_any(input)?;
    let value = if input.peek(Token![=]) {
        input.parse::<Token![=]>()?;
        Some(input.parse::<Expr>()?)
    } else {
        None
    };
    Ok(Arg { key, value })
}

/// Parses the tokens between an attribute's parentheses.
pub(crate) fn parse_args(tokens: TokenStream) -> syn::Result<Vec<Arg>> {
    let parser = |input: ParseStream<'_>| {
        Punctuated::<Arg, Token![,]>::parse_terminated_with(input, parse_arg)
    };
    parser.parse2(tokens).map(|args| args.into_iter().collect())
}

/// The arguments of an attribute found on an item: none for `#[name]` and `#[name()]`.
pub(crate) fn attribute_args(meta: &Meta, name: &str) -> syn::Result<Vec<Arg>> {
    match meta {
        Meta::Path(_) => Ok(Vec::new()),
        Meta::List(list) => parse_args(list.tokens.clone()),
        Meta::NameValue(name_value) => Err(syn::Error::new(
            name_value.eq_token.span,
            format!("expected `#[{name}]` or `#[{name}(key = value, ...)]`"),
        )),
    }
}

/// The error for a key the attribute does not know; it lists the valid keys.
pub(crate) fn unknown_key(arg: &Arg, attribute: &str, valid: &[&str]) -> syn::Error {
    syn::Error::new(
        arg.key.span(),
        format!(
            "unknown argument `{}` for #[{attribute}]; expected one of: {}",
            arg.key.unraw(),
            valid.join(", ")
        ),
    )
}

/// An argument's value, set at most once.
pub(crate) struct Slot<T> {
    seen: bool,
    value: Option<T>,
}

impl<T> Default for Slot<T> {
    fn default() -> Self {
        Self {
            seen: false,
            value: None,
        }
    }
}

impl<T> Slot<T> {
    /// Reads `arg` with `read` into the slot; a second occurrence of the key is an error on
    /// that key (even when the first value was itself invalid).
    pub(crate) fn set_once(
        &mut self,
        arg: &Arg,
        read: impl FnOnce(&Arg) -> syn::Result<T>,
        errors: &mut Errors,
    ) {
        if self.seen {
            errors.at(
                arg.key.span(),
                format!("duplicate argument `{}`", arg.key.unraw()),
            );
            return;
        }
        self.seen = true;
        self.value = errors.check(read(arg));
    }

    /// Whether the key was given (validly or not).
    pub(crate) fn is_seen(&self) -> bool {
        self.seen
    }

    /// The value, when given and valid.
    pub(crate) fn get(&self) -> Option<&T> {
        self.value.as_ref()
    }

    /// The value, when given and valid.
    pub(crate) fn into_inner(self) -> Option<T> {
        self.value
    }
}

/// What kind of expression a value is, for "found ..." in messages.
fn describe(expr: &Expr) -> &'static str {
    match expr {
        Expr::Lit(ExprLit { lit, .. }) => match lit {
            Lit::Str(_) => "a string",
            Lit::Bool(_) => "a boolean",
            Lit::Int(_) => "an integer",
            Lit::Float(_) => "a float",
            Lit::Char(_) => "a character",
            Lit::ByteStr(_) | Lit::CStr(_) => "a byte string",
            _ => "a literal",
        },
        Expr::Unary(ExprUnary {
            op: UnOp::Neg(_), ..
        }) => "a negative number",
        Expr::Path(_) => "an identifier",
        Expr::Array(_) => "an array",
        _ => "an expression",
    }
}

/// The expression inside the invisible groups that `macro_rules!` fragments
/// (`$value:literal`, `$value:expr`) arrive in.
fn peel(mut expr: &Expr) -> &Expr {
    while let Expr::Group(group) = expr {
        expr = &group.expr;
    }
    expr
}

fn value<'a>(arg: &'a Arg, example: &str) -> syn::Result<&'a Expr> {
    arg.value.as_ref().map(peel).ok_or_else(|| {
        syn::Error::new(
            arg.key.span(),
            format!("expected a value: `{} = {example}`", arg.key.unraw()),
        )
    })
}

fn expected(arg: &Arg, expr: &Expr, what: &str) -> syn::Error {
    syn::Error::new_spanned(
        expr,
        format!(
            "expected {what} for `{}`, found {}",
            arg.key.unraw(),
            describe(expr)
        ),
    )
}

/// A string literal: `key = "text"`.
pub(crate) fn string(arg: &Arg) -> syn::Result<LitStr> {
    let expr = value(arg, "\"...\"")?;
    match expr {
        Expr::Lit(ExprLit {
            lit: Lit::Str(lit), ..
        }) => Ok(lit.clone()),
        _ => Err(expected(arg, expr, "a string literal")),
    }
}

/// A boolean: `key = true`.
pub(crate) fn boolean(arg: &Arg) -> syn::Result<bool> {
    let expr = value(arg, "true")?;
    match expr {
        Expr::Lit(ExprLit {
            lit: Lit::Bool(lit),
            ..
        }) => Ok(lit.value),
        _ => Err(expected(arg, expr, "`true` or `false`")),
    }
}

/// A non-negative integer literal: `key = 5000`. A negative number is an error that
/// names `lower_bound` ("greater than 0", "at least 1").
pub(crate) fn integer<N>(arg: &Arg, lower_bound: &str) -> syn::Result<(N, Span)>
where
    N: FromStr,
    N::Err: Display,
{
    let expr = value(arg, "1")?;
    match expr {
        Expr::Lit(ExprLit {
            lit: Lit::Int(lit), ..
        }) => Ok((lit.base10_parse::<N>()?, lit.span())),
        Expr::Unary(ExprUnary {
            op: UnOp::Neg(_),
            expr: inner,
            ..
        }) if matches!(
            peel(inner),
            Expr::Lit(ExprLit {
                lit: Lit::Int(_),
                ..
            })
        ) =>
        {
            Err(syn::Error::new_spanned(
                expr,
                format!("`{}` must be {lower_bound}", arg.key.unraw()),
            ))
        }
        _ => Err(expected(arg, expr, "an integer literal")),
    }
}

/// A number, integer or float, possibly negative: `key = 0.75`. Returns the value and
/// the expression's tokens, to span a range error over all of `-0.5`.
pub(crate) fn float(arg: &Arg) -> syn::Result<(f64, TokenStream)> {
    fn literal(expr: &Expr) -> Option<syn::Result<f64>> {
        match expr {
            Expr::Lit(ExprLit {
                lit: Lit::Float(lit),
                ..
            }) => Some(lit.base10_parse::<f64>()),
            Expr::Lit(ExprLit {
                lit: Lit::Int(lit), ..
            }) => Some(lit.base10_parse::<f64>()),
            Expr::Unary(ExprUnary {
                op: UnOp::Neg(_),
                expr,
                ..
            }) => literal(peel(expr)).map(|value| value.map(|v| -v)),
            _ => None,
        }
    }
    let expr = value(arg, "0.75")?;
    match literal(expr) {
        Some(value) => Ok((value?, expr.to_token_stream())),
        None => Err(expected(arg, expr, "a number")),
    }
}

/// An array of string literals: `key = ["a", "b"]`, with the span of the whole array.
pub(crate) fn string_list(arg: &Arg) -> syn::Result<(Vec<LitStr>, Span)> {
    let expr = value(arg, "[\"...\"]")?;
    let Expr::Array(array) = expr else {
        return Err(expected(
            arg,
            expr,
            "an array of string literals like `[\"a\", \"b\"]`",
        ));
    };
    let mut errors = Errors::default();
    let mut items = Vec::with_capacity(array.elems.len());
    for element in &array.elems {
        match peel(element) {
            Expr::Lit(ExprLit {
                lit: Lit::Str(lit), ..
            }) => items.push(lit.clone()),
            other => errors.spanned(
                other,
                format!(
                    "expected a string literal in `{}`, found {}",
                    arg.key.unraw(),
                    describe(other)
                ),
            ),
        }
    }
    errors.finish()?;
    Ok((items, array.bracket_token.span.join()))
}

/// One of an enum's variant names, bare (`Http`) or qualified by the enum's name
/// (`TransportMode::Http`). Returns the matching entry of `variants`.
pub(crate) fn variant(
    arg: &Arg,
    what: &str,
    enum_name: &str,
    variants: &'static [&'static str],
) -> syn::Result<(&'static str, Span)> {
    let list = variants.join(", ");
    let expr = value(arg, variants[0])?;
    let path = match expr {
        Expr::Path(path) if path.qself.is_none() => &path.path,
        Expr::Lit(ExprLit {
            lit: Lit::Str(lit), ..
        }) => {
            return Err(syn::Error::new(
                lit.span(),
                format!(
                    "expected an identifier for `{}`, not a string: write `{} = {}` without quotes; {what}s are: {list}",
                    arg.key.unraw(),
                    arg.key.unraw(),
                    lit.value()
                ),
            ));
        }
        _ => {
            return Err(expected(arg, expr, &format!("a {what} (one of: {list})")));
        }
    };
    let segments: Vec<&syn::PathSegment> = path.segments.iter().collect();
    let qualified_ok = segments.len() < 2 || segments[segments.len() - 2].ident == enum_name;
    let plain = segments.iter().all(|s| s.arguments.is_none());
    let Some(last) = segments.last() else {
        return Err(expected(arg, expr, what));
    };
    if !qualified_ok || !plain {
        return Err(syn::Error::new_spanned(
            path,
            format!(
                "expected a {what} for `{}`: one of {list}, optionally written as `{enum_name}::{}`",
                arg.key.unraw(),
                variants[0]
            ),
        ));
    }
    let name = last.ident.to_string();
    match variants.iter().find(|v| **v == name) {
        Some(found) => Ok((found, last.ident.span())),
        None => Err(syn::Error::new(
            last.ident.span(),
            format!("unknown {what} `{name}`; expected one of: {list}"),
        )),
    }
}
