//! How prompts write lists and bindings, so every part of a prompt reads the same way.

use tnsai_bspl::Bindings;

/// `a`, `a and b`, `a, b and c` (with `or` instead of `and` when asked).
pub(crate) fn join<S: AsRef<str>>(items: &[S], word: &str) -> String {
    match items {
        [] => String::new(),
        [one] => one.as_ref().to_owned(),
        [init @ .., last] => {
            let init: Vec<&str> = init.iter().map(AsRef::as_ref).collect();
            format!("{} {word} {}", init.join(", "), last.as_ref())
        }
    }
}

/// `ID=1, item=kite`, in the order given by `order` (parameters without a value are
/// skipped), then any others in name order.
pub(crate) fn bindings<'a>(values: &Bindings, order: impl IntoIterator<Item = &'a str>) -> String {
    let mut written: Vec<String> = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    for name in order {
        if let Some(value) = values.get(name) {
            written.push(format!("{name}={}", value_text(value)));
            seen.push(name);
        }
    }
    for (name, value) in values {
        if !seen.contains(&name.as_str()) {
            written.push(format!("{name}={}", value_text(value)));
        }
    }
    written.join(", ")
}

/// A binding value as prompts show it: bare when it is a plain word or number, else
/// JSON-quoted, so spaces and commas cannot blur where a value ends.
pub(crate) fn value_text(value: &str) -> String {
    let plain = !value.is_empty()
        && value
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | ':' | '/' | '@'));
    if plain {
        value.to_owned()
    } else {
        serde_json::Value::String(value.to_owned()).to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_and_values() {
        assert_eq!(join::<&str>(&[], "and"), "");
        assert_eq!(join(&["a"], "and"), "a");
        assert_eq!(join(&["a", "b", "c"], "or"), "a, b or c");
        let values: Bindings = [("item", "kite"), ("ID", "1"), ("address", "1 Main St")]
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect();
        assert_eq!(
            bindings(&values, ["ID", "item"]),
            r#"ID=1, item=kite, address="1 Main St""#
        );
    }
}
