//! Where protocol documents are read from: `data:` URIs and `http(s)://` URLs.

use std::time::Duration;

use base64::Engine;
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, percent_decode_str, utf8_percent_encode};

use super::document::{ProtocolDocument, protocol_hash};

/// The characters Python's `urllib.parse.quote` leaves alone (letters, digits, `_.-~`
/// and `/`), so that our `data:` URIs are byte for byte what the Python library makes.
const PYTHON_QUOTE: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'_')
    .remove(b'.')
    .remove(b'-')
    .remove(b'~')
    .remove(b'/');

/// A `data:` URI holding `text` percent-encoded, as the Python library's
/// `encode_as_data_uri` makes it: `data:text/plain;charset=utf-8,<percent-encoded>`.
pub fn encode_data_uri(text: &str) -> String {
    format!(
        "data:text/plain;charset=utf-8,{}",
        utf8_percent_encode(text, PYTHON_QUOTE)
    )
}

/// A `data:` URI holding `text` in base64: `data:text/plain;charset=utf-8;base64,<base64>`.
///
/// ```
/// use tnsai_coordination::transport::http::agora::{decode_data_uri, encode_data_uri_base64};
///
/// let uri = encode_data_uri_base64("hello\n");
/// assert_eq!(uri, "data:text/plain;charset=utf-8;base64,aGVsbG8K");
/// assert_eq!(decode_data_uri(&uri).unwrap(), "hello\n");
/// ```
pub fn encode_data_uri_base64(text: &str) -> String {
    format!(
        "data:text/plain;charset=utf-8;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(text)
    )
}

/// The text a `data:` URI holds (RFC 2397): a text media type (or none), an optional
/// `utf-8`/`us-ascii` charset, and percent-encoded or `;base64` data.
///
/// # Errors
///
/// [`SourceErrorKind::UnsupportedSource`] for anything that is not a `data:` URI of
/// text, [`SourceErrorKind::Decode`] when the data is not valid base64 or UTF-8.
pub fn decode_data_uri(uri: &str) -> Result<String, SourceError> {
    let rest = uri
        .get(..5)
        .filter(|scheme| scheme.eq_ignore_ascii_case("data:"))
        .map(|_| &uri[5..])
        .ok_or_else(|| SourceError::new(SourceErrorKind::UnsupportedSource, "not a data: URI"))?;
    let (header, data) = rest.split_once(',').ok_or_else(|| {
        SourceError::new(
            SourceErrorKind::Decode,
            "a data: URI needs a comma before its data",
        )
    })?;
    let mut parts = header.split(';').map(str::trim);
    let media_type = parts.next().unwrap_or_default().to_ascii_lowercase();
    if !(media_type.is_empty() || media_type.starts_with("text/")) {
        return Err(SourceError::new(
            SourceErrorKind::UnsupportedSource,
            format!("a protocol document must be text, not `{media_type}`"),
        ));
    }
    let mut base64 = false;
    for parameter in parts {
        let lower = parameter.to_ascii_lowercase();
        if lower == "base64" {
            base64 = true;
        } else if let Some(charset) = lower.strip_prefix("charset=")
            && !matches!(charset.trim_matches('"'), "utf-8" | "utf8" | "us-ascii")
        {
            return Err(SourceError::new(
                SourceErrorKind::UnsupportedSource,
                format!("unsupported charset `{charset}`"),
            ));
        }
    }
    let bytes = if base64 {
        let compact: String = percent_decode_str(data)
            .decode_utf8_lossy()
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        base64::engine::general_purpose::STANDARD
            .decode(compact.as_bytes())
            .map_err(|e| SourceError::new(SourceErrorKind::Decode, format!("bad base64: {e}")))?
    } else {
        percent_decode_str(data).collect()
    };
    String::from_utf8(bytes)
        .map_err(|_| SourceError::new(SourceErrorKind::Decode, "the data is not UTF-8 text"))
}

/// What kind of failure a [`SourceError`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SourceErrorKind {
    /// Not a `data:` URI of text nor an `http(s)://` URL (or HTTP sources are disabled).
    UnsupportedSource,
    /// The data could not be decoded as text.
    Decode,
    /// The document is larger than the limit.
    TooLarge,
    /// The source did not deliver the document within the timeout.
    Timeout,
    /// The source answered with an error status, or could not be reached.
    Unavailable,
    /// The document read does not have the announced hash.
    HashMismatch,
    /// The document's front matter could not be read.
    InvalidDocument,
    /// No source was given.
    NoSource,
}

/// A protocol document could not be read from its source.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct SourceError {
    kind: SourceErrorKind,
    message: String,
}

impl SourceError {
    pub(crate) fn new(kind: SourceErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
        }
    }
    /// What kind of failure this is.
    pub fn kind(&self) -> SourceErrorKind {
        self.kind
    }
}

/// Reads protocol documents from their sources: `data:` URIs in place, `http(s)://`
/// URLs with a size limit and a timeout (a source that is too large, or too slow even
/// while it sends, is refused).
///
/// ```
/// use std::time::Duration;
/// use tnsai_coordination::transport::http::agora::{encode_data_uri, protocol_hash, SourceFetcher};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let fetcher = SourceFetcher::new(64 * 1024, Duration::from_secs(5));
/// let text = "---\nname: ping\n---\nSay ping.\n";
/// let document = fetcher
///     .fetch_verified(&protocol_hash(text), &[encode_data_uri(text)])
///     .await
///     .unwrap();
/// assert_eq!(document.name(), "ping");
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct SourceFetcher {
    client: reqwest::Client,
    max_bytes: usize,
    timeout: Duration,
    allow_http: bool,
}

impl SourceFetcher {
    /// A fetcher that refuses documents over `max_bytes` and sources slower than
    /// `timeout` (for the whole fetch, body included).
    pub fn new(max_bytes: usize, timeout: Duration) -> Self {
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::limited(3))
            .build()
            .unwrap_or_default();
        Self::with_client(client, max_bytes, timeout)
    }

    /// The same with a client of your own (its connection pool is shared).
    pub fn with_client(client: reqwest::Client, max_bytes: usize, timeout: Duration) -> Self {
        Self {
            client,
            max_bytes,
            timeout,
            allow_http: true,
        }
    }

    /// Whether `http(s)://` sources are fetched (by default they are); without, only
    /// `data:` URIs are read.
    pub fn allow_http(mut self, allow: bool) -> Self {
        self.allow_http = allow;
        self
    }

    /// The text at `source`.
    ///
    /// # Errors
    ///
    /// A [`SourceError`] saying why: unsupported source, too large, too slow,
    /// unavailable, or not text.
    pub async fn fetch(&self, source: &str) -> Result<String, SourceError> {
        let scheme = source
            .split(':')
            .next()
            .unwrap_or_default()
            .to_ascii_lowercase();
        let text = match scheme.as_str() {
            "data" => decode_data_uri(source)?,
            "http" | "https" if self.allow_http => {
                tokio::time::timeout(self.timeout, self.download(source))
                    .await
                    .map_err(|_| {
                        SourceError::new(
                            SourceErrorKind::Timeout,
                            format!("{source} did not deliver within {:?}", self.timeout),
                        )
                    })??
            }
            _ => {
                return Err(SourceError::new(
                    SourceErrorKind::UnsupportedSource,
                    format!("unsupported protocol source `{}`", shorten(source)),
                ));
            }
        };
        if text.len() > self.max_bytes {
            return Err(too_large(source, self.max_bytes));
        }
        Ok(text)
    }

    async fn download(&self, source: &str) -> Result<String, SourceError> {
        let unavailable = |e: reqwest::Error| {
            SourceError::new(SourceErrorKind::Unavailable, format!("{source}: {e}"))
        };
        let mut response = self.client.get(source).send().await.map_err(unavailable)?;
        if !response.status().is_success() {
            return Err(SourceError::new(
                SourceErrorKind::Unavailable,
                format!("{source} answered {}", response.status()),
            ));
        }
        if response
            .content_length()
            .is_some_and(|length| length > self.max_bytes as u64)
        {
            return Err(too_large(source, self.max_bytes));
        }
        // Read chunk by chunk so that a source without a length cannot exceed the limit.
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(unavailable)? {
            if body.len() + chunk.len() > self.max_bytes {
                return Err(too_large(source, self.max_bytes));
            }
            body.extend_from_slice(&chunk);
        }
        String::from_utf8(body).map_err(|_| {
            SourceError::new(
                SourceErrorKind::Decode,
                format!("{source} is not UTF-8 text"),
            )
        })
    }

    /// The document with hash `hash` from the first of `sources` that delivers it.
    ///
    /// # Errors
    ///
    /// [`SourceErrorKind::NoSource`] without sources; otherwise the last source's error
    /// ([`SourceErrorKind::HashMismatch`] when a source delivered another document).
    pub async fn fetch_verified(
        &self,
        hash: &str,
        sources: &[String],
    ) -> Result<ProtocolDocument, SourceError> {
        let mut last = SourceError::new(
            SourceErrorKind::NoSource,
            format!("no source was given for protocol {hash}"),
        );
        for source in sources {
            match self.fetch(source).await {
                Ok(text) if protocol_hash(&text) == hash => {
                    return ProtocolDocument::parse(text).map_err(|e| {
                        SourceError::new(SourceErrorKind::InvalidDocument, e.to_string())
                    });
                }
                Ok(_) => {
                    last = SourceError::new(
                        SourceErrorKind::HashMismatch,
                        format!("{} does not hold protocol {hash}", shorten(source)),
                    );
                }
                Err(error) => last = error,
            }
        }
        Err(last)
    }
}

fn too_large(source: &str, max: usize) -> SourceError {
    SourceError::new(
        SourceErrorKind::TooLarge,
        format!("{} is larger than {max} bytes", shorten(source)),
    )
}

/// A source as error texts show it: `data:` URIs can be long.
fn shorten(source: &str) -> String {
    match source.char_indices().nth(80) {
        Some((at, _)) => format!("{}...", &source[..at]),
        None => source.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_python_quote() {
        // urllib.parse.quote("a b/c?d=é~_.-") == 'a%20b/c%3Fd%3D%C3%A9~_.-'
        assert_eq!(
            encode_data_uri("a b/c?d=é~_.-"),
            "data:text/plain;charset=utf-8,a%20b/c%3Fd%3D%C3%A9~_.-"
        );
    }

    #[test]
    fn data_uri_forms() {
        assert_eq!(decode_data_uri("data:,plain%20text").unwrap(), "plain text");
        assert_eq!(
            decode_data_uri("DATA:text/markdown;charset=UTF-8;base64,aGk=").unwrap(),
            "hi"
        );
        let unsupported = decode_data_uri("data:image/png;base64,AAAA").unwrap_err();
        assert_eq!(unsupported.kind(), SourceErrorKind::UnsupportedSource);
        let bad = decode_data_uri("data:text/plain;base64,!!!").unwrap_err();
        assert_eq!(bad.kind(), SourceErrorKind::Decode);
        let not_utf8 = decode_data_uri("data:text/plain,%FF%FE").unwrap_err();
        assert_eq!(not_utf8.kind(), SourceErrorKind::Decode);
        let no_comma = decode_data_uri("data:text/plain").unwrap_err();
        assert_eq!(no_comma.kind(), SourceErrorKind::Decode);
        assert_eq!(
            decode_data_uri("ftp://x").unwrap_err().kind(),
            SourceErrorKind::UnsupportedSource
        );
    }

    #[tokio::test]
    async fn fetch_checks_scheme_size_and_hash() {
        let fetcher = SourceFetcher::new(16, Duration::from_secs(1));
        let big = encode_data_uri(&"x".repeat(17));
        assert_eq!(
            fetcher.fetch(&big).await.unwrap_err().kind(),
            SourceErrorKind::TooLarge
        );
        assert_eq!(
            fetcher
                .fetch("file:///etc/passwd")
                .await
                .unwrap_err()
                .kind(),
            SourceErrorKind::UnsupportedSource
        );
        let text = "---\n---\n";
        let wrong = fetcher
            .fetch_verified("nope", &[encode_data_uri(text)])
            .await
            .unwrap_err();
        assert_eq!(wrong.kind(), SourceErrorKind::HashMismatch);
        let none = fetcher.fetch_verified("h", &[]).await.unwrap_err();
        assert_eq!(none.kind(), SourceErrorKind::NoSource);
        let http_off = SourceFetcher::new(16, Duration::from_secs(1)).allow_http(false);
        assert_eq!(
            http_off
                .fetch("http://127.0.0.1:9/x")
                .await
                .unwrap_err()
                .kind(),
            SourceErrorKind::UnsupportedSource
        );
    }
}
