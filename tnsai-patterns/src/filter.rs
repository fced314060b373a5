//! Payload filters: a small predicate language over a JSON payload.
//!
//! Grammar (whitespace between tokens is ignored):
//!
//! ```text
//! filter     := or
//! or         := and ( "||" and )*
//! and        := unary ( "&&" unary )*
//! unary      := "!" unary | "(" or ")" | comparison
//! comparison := path ( op literal )?
//! op         := "==" | "!=" | "<" | "<=" | ">" | ">="
//! path       := field ( "." field )*        field := [A-Za-z_][A-Za-z0-9_-]*
//! literal    := "string" | 'string' | number | true | false | null
//! ```
//!
//! Semantics: a path looks up nested object fields of the payload. A comparison whose
//! field is missing is false, except `!=`, which is true. `==`/`!=` compare JSON values
//! (numbers by value, so `1 == 1.0`); `<`, `<=`, `>`, `>=` compare two numbers or two
//! strings and are false for any other pair. A bare path is true when the field exists and
//! is not `null`, `false`, `0` or `""`.

use std::fmt;

use serde_json::Value;

/// Why a payload filter did not parse: the byte offset and what was expected there.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid filter at byte {offset}: expected {expected}")]
#[non_exhaustive]
pub struct FilterError {
    /// Byte offset in the filter text where parsing stopped.
    pub offset: usize,
    /// What the parser expected at that offset.
    pub expected: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Op {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

#[derive(Debug, Clone, PartialEq)]
enum Expr {
    Or(Vec<Expr>),
    And(Vec<Expr>),
    Not(Box<Expr>),
    Truthy(Vec<String>),
    Compare(Vec<String>, Op, Value),
}

/// A predicate on a message payload, written as text in `#[pub_sub(filter = "...")]`.
///
/// See the [module documentation](self) for the grammar and exact semantics.
///
/// ```
/// use serde_json::json;
/// use tnsai_patterns::PayloadFilter;
///
/// let filter = PayloadFilter::parse("level >= 3 || tags.urgent").unwrap();
/// assert!(filter.matches(&json!({"level": 4})));
/// assert!(filter.matches(&json!({"level": 1, "tags": {"urgent": true}})));
/// assert!(!filter.matches(&json!({"level": 1})));
/// assert!(PayloadFilter::parse("level >=").is_err());
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct PayloadFilter {
    source: String,
    expr: Expr,
}

impl PayloadFilter {
    /// Parses a filter.
    ///
    /// # Errors
    ///
    /// A [`FilterError`] with the byte offset and what was expected there.
    pub fn parse(text: &str) -> Result<Self, FilterError> {
        let mut parser = Parser { text, pos: 0 };
        parser.skip_ws();
        if parser.at_end() {
            return Err(parser.error("a field name, `!` or `(`"));
        }
        let expr = parser.or()?;
        parser.skip_ws();
        if !parser.at_end() {
            return Err(parser.error("`&&`, `||` or the end of the filter"));
        }
        Ok(Self {
            source: text.to_owned(),
            expr,
        })
    }

    /// The filter as it was written.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// Whether `payload` satisfies the filter.
    pub fn matches(&self, payload: &Value) -> bool {
        eval(&self.expr, payload)
    }
}

impl fmt::Display for PayloadFilter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}

fn lookup<'v>(payload: &'v Value, path: &[String]) -> Option<&'v Value> {
    path.iter()
        .try_fold(payload, |value, field| value.as_object()?.get(field))
}

fn truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64() != Some(0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(_) | Value::Object(_) => true,
    }
}

fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        _ => a == b,
    }
}

fn eval(expr: &Expr, payload: &Value) -> bool {
    match expr {
        Expr::Or(items) => items.iter().any(|e| eval(e, payload)),
        Expr::And(items) => items.iter().all(|e| eval(e, payload)),
        Expr::Not(inner) => !eval(inner, payload),
        Expr::Truthy(path) => lookup(payload, path).is_some_and(truthy),
        Expr::Compare(path, op, literal) => {
            let Some(value) = lookup(payload, path) else {
                return *op == Op::Ne;
            };
            let ordering = match (value, literal) {
                (Value::Number(x), Value::Number(y)) => x.as_f64().partial_cmp(&y.as_f64()),
                (Value::String(x), Value::String(y)) => Some(x.cmp(y)),
                _ => None,
            };
            match op {
                Op::Eq => json_eq(value, literal),
                Op::Ne => !json_eq(value, literal),
                Op::Lt => ordering.is_some_and(|o| o.is_lt()),
                Op::Le => ordering.is_some_and(|o| o.is_le()),
                Op::Gt => ordering.is_some_and(|o| o.is_gt()),
                Op::Ge => ordering.is_some_and(|o| o.is_ge()),
            }
        }
    }
}

struct Parser<'t> {
    text: &'t str,
    pos: usize,
}

impl Parser<'_> {
    fn error(&self, expected: &str) -> FilterError {
        FilterError {
            offset: self.pos,
            expected: expected.to_owned(),
        }
    }

    fn rest(&self) -> &str {
        &self.text[self.pos..]
    }

    fn at_end(&self) -> bool {
        self.pos >= self.text.len()
    }

    fn skip_ws(&mut self) {
        let rest = self.rest();
        self.pos += rest.len() - rest.trim_start().len();
    }

    fn eat(&mut self, token: &str) -> bool {
        self.skip_ws();
        if self.rest().starts_with(token) {
            self.pos += token.len();
            true
        } else {
            false
        }
    }

    fn or(&mut self) -> Result<Expr, FilterError> {
        let mut items = vec![self.and()?];
        while self.eat("||") {
            items.push(self.and()?);
        }
        Ok(if items.len() == 1 {
            items.remove(0)
        } else {
            Expr::Or(items)
        })
    }

    fn and(&mut self) -> Result<Expr, FilterError> {
        let mut items = vec![self.unary()?];
        while self.eat("&&") {
            items.push(self.unary()?);
        }
        Ok(if items.len() == 1 {
            items.remove(0)
        } else {
            Expr::And(items)
        })
    }

    fn unary(&mut self) -> Result<Expr, FilterError> {
        self.skip_ws();
        if self.rest().starts_with("!=") {
            return Err(self.error("a field name, `!` or `(`"));
        }
        if self.eat("!") {
            return Ok(Expr::Not(Box::new(self.unary()?)));
        }
        if self.eat("(") {
            let inner = self.or()?;
            if !self.eat(")") {
                return Err(self.error("`)`"));
            }
            return Ok(inner);
        }
        self.comparison()
    }

    fn comparison(&mut self) -> Result<Expr, FilterError> {
        let path = self.path()?;
        self.skip_ws();
        let op = [
            ("==", Op::Eq),
            ("!=", Op::Ne),
            ("<=", Op::Le),
            (">=", Op::Ge),
            ("<", Op::Lt),
            (">", Op::Gt),
        ]
        .into_iter()
        .find(|(token, _)| self.rest().starts_with(token));
        let Some((token, op)) = op else {
            return Ok(Expr::Truthy(path));
        };
        self.pos += token.len();
        let literal = self.literal()?;
        Ok(Expr::Compare(path, op, literal))
    }

    fn path(&mut self) -> Result<Vec<String>, FilterError> {
        let mut path = vec![self.field()?];
        while self.rest().starts_with('.') {
            self.pos += 1;
            path.push(self.field()?);
        }
        Ok(path)
    }

    fn field(&mut self) -> Result<String, FilterError> {
        self.skip_ws();
        let rest = self.rest();
        let mut chars = rest.char_indices();
        match chars.next() {
            Some((_, c)) if c.is_ascii_alphabetic() || c == '_' => {}
            _ => return Err(self.error("a field name")),
        }
        let end = chars
            .find(|(_, c)| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '-'))
            .map_or(rest.len(), |(i, _)| i);
        let field = rest[..end].to_owned();
        self.pos += end;
        Ok(field)
    }

    fn literal(&mut self) -> Result<Value, FilterError> {
        self.skip_ws();
        let rest = self.rest();
        let expected = "a string, number, `true`, `false` or `null`";
        let Some(first) = rest.chars().next() else {
            return Err(self.error(expected));
        };
        if first == '"' || first == '\'' {
            return self.string(first);
        }
        for (word, value) in [
            ("true", Value::Bool(true)),
            ("false", Value::Bool(false)),
            ("null", Value::Null),
        ] {
            if rest.starts_with(word)
                && !rest[word.len()..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
            {
                self.pos += word.len();
                return Ok(value);
            }
        }
        let end = rest
            .find(|c: char| !(c.is_ascii_digit() || matches!(c, '-' | '+' | '.' | 'e' | 'E')))
            .unwrap_or(rest.len());
        if end == 0 {
            return Err(self.error(expected));
        }
        match serde_json::from_str::<serde_json::Number>(&rest[..end]) {
            Ok(number) => {
                self.pos += end;
                Ok(Value::Number(number))
            }
            Err(_) => Err(self.error("a number")),
        }
    }

    fn string(&mut self, quote: char) -> Result<Value, FilterError> {
        let start = self.pos;
        self.pos += quote.len_utf8();
        let mut out = String::new();
        let mut chars = self.rest().char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '\\' => match chars.next() {
                    Some((_, escaped)) => out.push(escaped),
                    None => break,
                },
                c if c == quote => {
                    self.pos += i + c.len_utf8();
                    return Ok(Value::String(out));
                }
                c => out.push(c),
            }
        }
        self.pos = start;
        Err(self.error(&format!("a closing {quote} for the string starting here")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(filter: &str, payload: Value) -> bool {
        PayloadFilter::parse(filter).unwrap().matches(&payload)
    }

    #[test]
    fn equality_on_top_level_fields() {
        assert!(check(r#"severity == "high""#, json!({"severity": "high"})));
        assert!(check("severity == 'high'", json!({"severity": "high"})));
        assert!(!check(r#"severity == "high""#, json!({"severity": "low"})));
        assert!(check("count == 3", json!({"count": 3.0})));
        assert!(check("ok == true", json!({"ok": true})));
        assert!(check("gone == null", json!({"gone": null})));
    }

    #[test]
    fn missing_fields_fail_every_comparison_but_not_equal() {
        assert!(!check("a == 1", json!({})));
        assert!(!check("a < 1", json!({})));
        assert!(check("a != 1", json!({})));
        assert!(!check("a == 1", json!("not an object")));
    }

    #[test]
    fn ordering_needs_two_numbers_or_two_strings() {
        assert!(check("n > 2", json!({"n": 3})));
        assert!(check("n <= 3", json!({"n": 3})));
        assert!(!check("n > 2", json!({"n": "3"})));
        assert!(check("name < 'm'", json!({"name": "alice"})));
    }

    #[test]
    fn boolean_structure_and_nesting() {
        let f = "(a == 1 || b == 2) && !c && d.e == 'x'";
        assert!(check(f, json!({"a": 1, "d": {"e": "x"}})));
        assert!(!check(f, json!({"a": 1, "c": true, "d": {"e": "x"}})));
        assert!(!check(f, json!({"b": 3, "d": {"e": "x"}})));
    }

    #[test]
    fn errors_name_the_offset_and_expectation() {
        let e = PayloadFilter::parse("a ==").unwrap_err();
        assert_eq!(e.offset, 4);
        assert!(e.expected.contains("string"));
        let e = PayloadFilter::parse("a == 'x").unwrap_err();
        assert_eq!(e.offset, 5);
        let e = PayloadFilter::parse("(a == 1").unwrap_err();
        assert_eq!(e.expected, "`)`");
        let e = PayloadFilter::parse("a == 1 b").unwrap_err();
        assert_eq!(e.offset, 7);
        assert!(PayloadFilter::parse("").is_err());
        assert!(PayloadFilter::parse("== 1").is_err());
        assert!(PayloadFilter::parse("a == 1.2.3").is_err());
    }

    #[test]
    fn strings_keep_escaped_quotes() {
        assert!(check(r#"q == "say \"hi\"""#, json!({"q": "say \"hi\""})));
    }

    proptest::proptest! {
        #[test]
        fn parsing_never_panics(text in ".{0,40}") {
            let _ = PayloadFilter::parse(&text);
        }
    }
}
