//! The Agora wire format, as the Agora protocol's Python library (0.2.0) speaks it.
//!
//! * A **protocol document** is text that starts with YAML front matter (`---`, `name`,
//!   `description`, `multiround`, `---`) and then describes the request and response
//!   bodies ([`ProtocolDocument`]).
//! * Its **hash** is the standard, padded base64 of the SHA-1 of its UTF-8 bytes
//!   ([`protocol_hash`]; the Python library's `compute_hash`).
//! * **Sources** say where a document can be read: `data:` URIs
//!   ([`encode_data_uri`], [`decode_data_uri`]) or `http(s)://` URLs, fetched with a size
//!   limit and a timeout ([`SourceFetcher`]).
//! * A **request** is a JSON object `{"protocolHash", "protocolSources", "body",
//!   "multiround"}` ([`AgoraRequest`]); the **answer** is `{"status", "body",
//!   "conversationId"}` ([`AgoraResponse`]).
//!
//! ```
//! use tnsai_coordination::transport::http::agora::{decode_data_uri, encode_data_uri, protocol_hash};
//!
//! assert_eq!(protocol_hash("hello\n"), "9XLTlvrpIGYocU+yzgD3LpTyJY8=");
//! let uri = encode_data_uri("a b/c");
//! assert_eq!(uri, "data:text/plain;charset=utf-8,a%20b/c");
//! assert_eq!(decode_data_uri(&uri).unwrap(), "a b/c");
//! ```

pub(crate) mod document;
mod source;
mod wire;

pub use document::{DocumentError, DocumentErrorKind, ProtocolDocument, protocol_hash};
pub use source::{
    SourceError, SourceErrorKind, SourceFetcher, decode_data_uri, encode_data_uri,
    encode_data_uri_base64,
};
pub use wire::{AgoraRequest, AgoraResponse, AgoraStatus};
