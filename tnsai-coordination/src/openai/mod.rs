//! An OpenAI-compatible chat-completions client (crate feature `openai`, on by default).
//!
//! [`OpenAiClient`] implements [`LanguageModel`](tnsai_core::LanguageModel), so it can
//! answer an agent's `send_message` text (return it from `#[language_model]`) or drive
//! BSPL enactments through [`LlmDecisionMaker`](crate::bspl::llm::LlmDecisionMaker).
//! It speaks `POST {base_url}/chat/completions`, which OpenAI, vLLM, llama.cpp's
//! `llama-server` and Ollama (under `/v1`) all serve:
//!
//! | server | base URL | model |
//! |---|---|---|
//! | OpenAI | `https://api.openai.com/v1` (with `OPENAI_API_KEY`) | `gpt-4o-mini` |
//! | vLLM | `http://127.0.0.1:8000/v1` (`vllm serve <model>`) | the served model's name |
//! | llama.cpp | `http://127.0.0.1:8080/v1` (`llama-server -m model.gguf`) | any name |
//! | Ollama | `http://127.0.0.1:11434/v1` | `llama3.1`, or any pulled model |
//!
//! ```
//! use std::time::Duration;
//! use tnsai_coordination::openai::{OpenAiClient, OpenAiConfig};
//!
//! let client = OpenAiClient::new(
//!     OpenAiConfig::new("http://127.0.0.1:8080/v1", "local").with_timeout(Duration::from_secs(30)),
//! )?;
//! assert_eq!(client.endpoint(), "http://127.0.0.1:8080/v1/chat/completions");
//! # Ok::<(), tnsai_core::ModelError>(())
//! ```
//!
//! Requests that want JSON ([`CompletionRequest::json`](tnsai_core::CompletionRequest::json))
//! ask for `response_format: {"type": "json_object"}`; see [`ResponseFormat`] for
//! servers that do not know the field.

mod client;
mod config;
mod wire;

pub use client::OpenAiClient;
pub use config::{
    ApiKey, DEFAULT_BASE_URL, DEFAULT_MODEL, OpenAiConfig, ResponseFormat, RetryPolicy,
};
