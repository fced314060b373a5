//! Local Rust functions the model may ask to run before it decides (look up a price,
//! check stock, read the calendar), and the registry that runs them.

use std::collections::BTreeMap;
use std::fmt;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use futures_util::FutureExt;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tnsai_core::BoxFuture;

/// What kind of failure a [`ToolError`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ToolErrorKind {
    /// No tool has that name.
    UnknownTool,
    /// The arguments do not suit the tool.
    InvalidArguments,
    /// The tool ran and failed (or panicked).
    Failed,
}

/// Why a tool gave no result. Its text goes back to the model, which may correct its
/// request.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ToolError {
    /// No tool has that name.
    #[error("there is no tool named {0:?}")]
    UnknownTool(String),
    /// The arguments do not suit the tool.
    #[error("invalid arguments: {0}")]
    InvalidArguments(String),
    /// The tool ran and failed.
    #[error("the tool failed: {0}")]
    Failed(String),
}

impl ToolError {
    /// What kind of failure this is.
    pub fn kind(&self) -> ToolErrorKind {
        match self {
            Self::UnknownTool(_) => ToolErrorKind::UnknownTool,
            Self::InvalidArguments(_) => ToolErrorKind::InvalidArguments,
            Self::Failed(_) => ToolErrorKind::Failed,
        }
    }
}

type Run = dyn Fn(Value) -> BoxFuture<'static, Result<Value, ToolError>> + Send + Sync;

/// One tool: a name the model uses, a description and an argument hint the prompt
/// shows, and the function that runs it.
#[derive(Clone)]
pub struct Tool {
    name: String,
    description: String,
    arguments: String,
    run: Arc<Run>,
}

impl fmt::Debug for Tool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tool")
            .field("name", &self.name)
            .field("description", &self.description)
            .field("arguments", &self.arguments)
            .finish_non_exhaustive()
    }
}

impl Tool {
    /// A tool that runs `function` on the model's `args` object. `arguments` tells the
    /// model what to pass, e.g. `{"item": "string"}`.
    ///
    /// ```
    /// use serde_json::json;
    /// use tnsai_coordination::bspl::llm::{Tool, ToolError};
    ///
    /// let stock = Tool::new("stock", "Units in stock of an item", r#"{"item": "string"}"#, |args| {
    ///     let item = args["item"].as_str().ok_or_else(|| ToolError::InvalidArguments("item is missing".into()))?;
    ///     Ok(json!({ "item": item, "units": 3 }))
    /// });
    /// assert_eq!(stock.name(), "stock");
    /// ```
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        arguments: impl Into<String>,
        function: impl Fn(Value) -> Result<Value, ToolError> + Send + Sync + 'static,
    ) -> Self {
        let function = Arc::new(function);
        Self::new_async(name, description, arguments, move |args| {
            let function = Arc::clone(&function);
            Box::pin(async move { function(args) })
        })
    }

    /// A tool whose function needs to wait (a database, a web service).
    pub fn new_async(
        name: impl Into<String>,
        description: impl Into<String>,
        arguments: impl Into<String>,
        function: impl Fn(Value) -> BoxFuture<'static, Result<Value, ToolError>> + Send + Sync + 'static,
    ) -> Self {
        Self {
            name: name.into(),
            description: description.into(),
            arguments: arguments.into(),
            run: Arc::new(function),
        }
    }

    /// The name the model calls it by.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// What it does.
    pub fn description(&self) -> &str {
        &self.description
    }

    /// What arguments it takes.
    pub fn arguments(&self) -> &str {
        &self.arguments
    }
}

/// A request for a tool, as the model writes it: `{"tool": "stock", "args": {...}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolRequest {
    /// The tool's name.
    pub tool: String,
    /// Its arguments (an object; `{}` when the model gave none).
    #[serde(default)]
    pub args: Value,
}

/// The tools a decision maker offers, by name.
///
/// ```
/// use serde_json::json;
/// use tnsai_coordination::bspl::llm::{Tool, ToolRegistry, ToolRequest};
///
/// let tools = ToolRegistry::new()
///     .with(Tool::new("price", "Our price for an item", r#"{"item": "string"}"#, |_| Ok(json!(12))));
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let request = ToolRequest { tool: "price".into(), args: json!({"item": "kite"}) };
/// assert_eq!(tools.call(&request).await, Ok(json!(12)));
/// # });
/// ```
#[derive(Debug, Clone, Default)]
pub struct ToolRegistry {
    tools: BTreeMap<String, Tool>,
}

impl ToolRegistry {
    /// No tools.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `tool`, replacing one of the same name.
    pub fn with(mut self, tool: Tool) -> Self {
        self.register(tool);
        self
    }

    /// [`with`](Self::with), in place.
    pub fn register(&mut self, tool: Tool) {
        self.tools.insert(tool.name.clone(), tool);
    }

    /// The tools, by name.
    pub fn tools(&self) -> impl Iterator<Item = &Tool> {
        self.tools.values()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// Runs the tool `request` names. A tool that panics gives [`ToolError::Failed`];
    /// the decision maker carries on.
    ///
    /// # Errors
    ///
    /// [`ToolError::UnknownTool`], [`ToolError::InvalidArguments`] when `args` is not an
    /// object, or what the tool returns.
    pub async fn call(&self, request: &ToolRequest) -> Result<Value, ToolError> {
        let tool = self
            .tools
            .get(&request.tool)
            .ok_or_else(|| ToolError::UnknownTool(request.tool.clone()))?;
        let args = match &request.args {
            Value::Null => Value::Object(serde_json::Map::new()),
            Value::Object(_) => request.args.clone(),
            other => {
                return Err(ToolError::InvalidArguments(format!(
                    "args must be a JSON object, not {other}"
                )));
            }
        };
        let run = Arc::clone(&tool.run);
        let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| run(args)));
        match outcome {
            Ok(future) => AssertUnwindSafe(future)
                .catch_unwind()
                .await
                .unwrap_or_else(|_| Err(ToolError::Failed("the tool panicked".to_owned()))),
            Err(_) => Err(ToolError::Failed("the tool panicked".to_owned())),
        }
    }
}
