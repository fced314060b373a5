//! Named action parameters.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::ActionError;

/// The named parameters of an action call: a JSON object.
///
/// Build them with [`params!`](crate::params!) and read them inside an action with the
/// `require_*` helpers, which turn a missing or mistyped parameter into an
/// [`ActionError`] the caller can read:
///
/// ```
/// use tnsai_core::{params, ActionResult, Params};
///
/// fn process_order(params: Params) -> ActionResult {
///     let order = params.require_str("orderId")?;
///     let quantity = params.get_i64("quantity").unwrap_or(1);
///     Ok(serde_json::json!({ "order": order, "quantity": quantity }))
/// }
///
/// assert!(process_order(params! { "orderId" => "12345" }).is_ok());
/// let missing = process_order(Params::new()).unwrap_err();
/// assert_eq!(missing.to_string(), "missing parameter `orderId`");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Params(Map<String, Value>);

impl Params {
    /// No parameters.
    pub fn new() -> Self {
        Self(Map::new())
    }

    /// Sets a parameter, returning the previous value under that name.
    pub fn insert(&mut self, name: impl Into<String>, value: impl Into<Value>) -> Option<Value> {
        self.0.insert(name.into(), value.into())
    }

    /// Sets a parameter and returns the parameters, for chaining.
    pub fn with(mut self, name: impl Into<String>, value: impl Into<Value>) -> Self {
        self.insert(name, value);
        self
    }

    /// Removes a parameter and returns its value.
    pub fn remove(&mut self, name: &str) -> Option<Value> {
        self.0.remove(name)
    }

    /// The value of a parameter.
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.0.get(name)
    }

    /// Whether a parameter is present.
    pub fn contains(&self, name: &str) -> bool {
        self.0.contains_key(name)
    }

    /// A string parameter, or `None` when missing or not a string.
    pub fn get_str(&self, name: &str) -> Option<&str> {
        self.get(name)?.as_str()
    }

    /// An integer parameter, or `None` when missing or not an integer.
    pub fn get_i64(&self, name: &str) -> Option<i64> {
        self.get(name)?.as_i64()
    }

    /// A number parameter, or `None` when missing or not a number.
    pub fn get_f64(&self, name: &str) -> Option<f64> {
        self.get(name)?.as_f64()
    }

    /// A boolean parameter, or `None` when missing or not a boolean.
    pub fn get_bool(&self, name: &str) -> Option<bool> {
        self.get(name)?.as_bool()
    }

    /// A string parameter that must be present.
    ///
    /// # Errors
    ///
    /// An [`ActionError`] naming the parameter when it is missing or not a string.
    pub fn require_str(&self, name: &str) -> Result<&str, ActionError> {
        match self.get(name) {
            None => Err(missing(name)),
            Some(Value::String(s)) => Ok(s),
            Some(other) => Err(wrong_type(name, "a string", other)),
        }
    }

    /// An integer parameter that must be present.
    ///
    /// # Errors
    ///
    /// An [`ActionError`] naming the parameter when it is missing or not an integer.
    pub fn require_i64(&self, name: &str) -> Result<i64, ActionError> {
        match self.get(name) {
            None => Err(missing(name)),
            Some(value) => value
                .as_i64()
                .ok_or_else(|| wrong_type(name, "an integer", value)),
        }
    }

    /// A parameter deserialised into any type.
    ///
    /// # Errors
    ///
    /// An [`ActionError`] naming the parameter when it is missing or does not fit `T`.
    pub fn require<T: DeserializeOwned>(&self, name: &str) -> Result<T, ActionError> {
        let value = self.get(name).ok_or_else(|| missing(name))?;
        T::deserialize(value)
            .map_err(|e| ActionError::new(format!("parameter `{name}` is invalid: {e}")))
    }

    /// Number of parameters.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are no parameters.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The parameters in name order.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &Value)> {
        self.0.iter()
    }

    /// The parameters as a JSON object.
    pub fn as_map(&self) -> &Map<String, Value> {
        &self.0
    }

    /// The parameters as a JSON object value.
    pub fn into_value(self) -> Value {
        Value::Object(self.0)
    }
}

fn missing(name: &str) -> ActionError {
    ActionError::new(format!("missing parameter `{name}`"))
}

fn wrong_type(name: &str, expected: &str, found: &Value) -> ActionError {
    let found = match found {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    };
    ActionError::new(format!(
        "parameter `{name}` must be {expected}, found {found}"
    ))
}

impl From<Map<String, Value>> for Params {
    fn from(map: Map<String, Value>) -> Self {
        Self(map)
    }
}

impl From<Params> for Value {
    fn from(params: Params) -> Self {
        Value::Object(params.0)
    }
}

impl TryFrom<Value> for Params {
    type Error = ActionError;

    fn try_from(value: Value) -> Result<Self, Self::Error> {
        match value {
            Value::Object(map) => Ok(Self(map)),
            Value::Null => Ok(Self::new()),
            other => Err(wrong_type("params", "an object", &other)),
        }
    }
}

impl<K: Into<String>, V: Into<Value>> FromIterator<(K, V)> for Params {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        Self(
            iter.into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect(),
        )
    }
}

impl IntoIterator for Params {
    type Item = (String, Value);
    type IntoIter = serde_json::map::IntoIter;

    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl<'a> IntoIterator for &'a Params {
    type Item = (&'a String, &'a Value);
    type IntoIter = serde_json::map::Iter<'a>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

/// Builds [`Params`] from `name => value` pairs; values are anything that converts into a
/// `serde_json::Value` (text, numbers, booleans, vectors, `json!` values).
///
/// ```
/// use tnsai_core::params;
///
/// let p = params! { "orderId" => "12345", "quantity" => 3, "express" => true };
/// assert_eq!(p.get_str("orderId"), Some("12345"));
/// assert_eq!(p.get_i64("quantity"), Some(3));
/// assert!(params! {}.is_empty());
/// ```
#[macro_export]
macro_rules! params {
    () => { $crate::Params::new() };
    ($($name:expr => $value:expr),+ $(,)?) => {{
        let mut params = $crate::Params::new();
        $( params.insert($name, $value); )+
        params
    }};
}
