//! Protocol documents: their front matter and their hash.

use base64::Engine;
use sha1::{Digest, Sha1};

/// The hash of a protocol document: the standard, padded base64 of the SHA-1 of its UTF-8
/// bytes, exactly as the Agora Python library's `compute_hash` makes it (not hex).
///
/// ```
/// use tnsai_coordination::transport::http::agora::protocol_hash;
///
/// assert_eq!(protocol_hash("hello\n"), "9XLTlvrpIGYocU+yzgD3LpTyJY8=");
/// assert_eq!(protocol_hash(""), "2jmj7l5rSw0yVb/vlWAYkK/YBwk=");
/// ```
pub fn protocol_hash(document: &str) -> String {
    let digest = Sha1::digest(document.as_bytes());
    base64::engine::general_purpose::STANDARD.encode(digest)
}

/// What kind of failure a [`DocumentError`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DocumentErrorKind {
    /// The text has no `---` ... `---` front matter.
    MissingFrontMatter,
    /// The front matter is there but a value in it cannot be read.
    InvalidFrontMatter,
}

/// A protocol document could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid protocol document: {message}")]
pub struct DocumentError {
    kind: DocumentErrorKind,
    message: String,
}

impl DocumentError {
    fn new(kind: DocumentErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
        }
    }
    /// What kind of failure this is.
    pub fn kind(&self) -> DocumentErrorKind {
        self.kind
    }
}

/// A protocol document: its text, its hash and what its front matter says.
///
/// The front matter is read like the Python library reads it: the text between the
/// first `---` and the next one is YAML whose top-level `name`, `description` and
/// `multiround` keys matter (defaults: `Unnamed protocol`, `No description provided`,
/// `false`). This reader understands the YAML that protocol documents use: top-level
/// `key: value` lines with plain, single- or double-quoted scalars, `|` and `>` block
/// scalars and indented continuation lines; other keys are ignored.
///
/// ```
/// use tnsai_coordination::transport::http::agora::ProtocolDocument;
///
/// let text = "---\nname: weather\ndescription: \"Gives the weather: sunny or not\"\nmultiround: true\n---\nBody: a city name.\n";
/// let document = ProtocolDocument::parse(text).unwrap();
/// assert_eq!(document.name(), "weather");
/// assert_eq!(document.description(), "Gives the weather: sunny or not");
/// assert!(document.multiround());
/// assert_eq!(document.hash(), tnsai_coordination::transport::http::agora::protocol_hash(text));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProtocolDocument {
    text: String,
    hash: String,
    name: String,
    description: String,
    multiround: bool,
}

impl ProtocolDocument {
    /// Reads a document's front matter and computes its hash.
    ///
    /// # Errors
    ///
    /// [`DocumentErrorKind::MissingFrontMatter`] without `---` delimiters,
    /// [`DocumentErrorKind::InvalidFrontMatter`] when `multiround` is not a boolean or a
    /// quoted value is not closed.
    pub fn parse(text: impl Into<String>) -> Result<Self, DocumentError> {
        let text = text.into();
        let front = front_matter(&text).ok_or_else(|| {
            DocumentError::new(
                DocumentErrorKind::MissingFrontMatter,
                "the text has no `---` front matter",
            )
        })?;
        let mut name = None;
        let mut description = None;
        let mut multiround = None;
        for (key, value) in top_level_entries(front)? {
            match key.as_str() {
                "name" => name = Some(value),
                "description" => description = Some(value),
                "multiround" => {
                    multiround = Some(parse_bool(&value).ok_or_else(|| {
                        DocumentError::new(
                            DocumentErrorKind::InvalidFrontMatter,
                            format!("multiround must be true or false, not `{value}`"),
                        )
                    })?)
                }
                _ => {}
            }
        }
        let hash = protocol_hash(&text);
        Ok(Self {
            text,
            hash,
            name: name.unwrap_or_else(|| "Unnamed protocol".to_owned()),
            description: description.unwrap_or_else(|| "No description provided".to_owned()),
            multiround: multiround.unwrap_or(false),
        })
    }

    /// The full text.
    pub fn text(&self) -> &str {
        &self.text
    }
    /// The hash ([`protocol_hash`] of the text).
    pub fn hash(&self) -> &str {
        &self.hash
    }
    /// The front matter's `name`.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// The front matter's `description`.
    pub fn description(&self) -> &str {
        &self.description
    }
    /// Whether conversations under this protocol take several rounds.
    pub fn multiround(&self) -> bool {
        self.multiround
    }
}

/// The text between the first `---` and the next, as the Python library takes it.
fn front_matter(text: &str) -> Option<&str> {
    let start = text.find("---")? + 3;
    let end = text[start..].find("---")? + start;
    Some(&text[start..end])
}

fn parse_bool(value: &str) -> Option<bool> {
    // YAML 1.1 booleans, as PyYAML reads them.
    match value.trim().to_ascii_lowercase().as_str() {
        "true" | "yes" | "on" | "y" => Some(true),
        "false" | "no" | "off" | "n" | "" => Some(false),
        _ => None,
    }
}

fn invalid(message: impl Into<String>) -> DocumentError {
    DocumentError::new(DocumentErrorKind::InvalidFrontMatter, message)
}

/// The top-level `key: value` pairs of a YAML mapping, values read as scalars.
fn top_level_entries(front: &str) -> Result<Vec<(String, String)>, DocumentError> {
    let lines: Vec<&str> = front.lines().collect();
    let mut entries = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        i += 1;
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') || line.starts_with([' ', '\t']) {
            continue;
        }
        let Some((key, rest)) = line.split_once(':') else {
            continue;
        };
        let key = key.trim().trim_matches(['"', '\'']).to_owned();
        let rest = rest.trim();
        // Indented lines after the key belong to its value.
        let start = i;
        while i < lines.len() && (lines[i].trim().is_empty() || lines[i].starts_with([' ', '\t'])) {
            i += 1;
        }
        let continuation = &lines[start..i];
        entries.push((key, scalar(rest, continuation)?));
    }
    Ok(entries)
}

fn scalar(first: &str, continuation: &[&str]) -> Result<String, DocumentError> {
    let more = || {
        continuation
            .iter()
            .map(|l| l.trim())
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
    };
    if first.starts_with('|') {
        let indent = continuation
            .iter()
            .filter(|l| !l.trim().is_empty())
            .map(|l| l.len() - l.trim_start().len())
            .min()
            .unwrap_or(0);
        let mut text: Vec<&str> = continuation
            .iter()
            .map(|l| l.get(indent..).unwrap_or("").trim_end())
            .collect();
        while text.last().is_some_and(|l| l.is_empty()) {
            text.pop();
        }
        return Ok(text.join("\n"));
    }
    if first.starts_with('>') {
        return Ok(more().join(" "));
    }
    let joined = if continuation.is_empty() {
        first.to_owned()
    } else {
        std::iter::once(first)
            .chain(more())
            .collect::<Vec<_>>()
            .join(" ")
    };
    if let Some(inner) = joined.strip_prefix('"') {
        let end = closing_double_quote(inner)
            .ok_or_else(|| invalid("a double-quoted value is not closed"))?;
        let quoted = &joined[..end + 2];
        // YAML double-quoted escapes are a superset of JSON's; JSON covers what
        // documents use, and anything else is kept as written.
        return Ok(serde_json::from_str::<String>(quoted).unwrap_or_else(|_| inner[..end].into()));
    }
    if let Some(inner) = joined.strip_prefix('\'') {
        let mut out = String::new();
        let mut chars = inner.chars().peekable();
        while let Some(c) = chars.next() {
            if c == '\'' {
                if chars.peek() == Some(&'\'') {
                    chars.next();
                    out.push('\'');
                    continue;
                }
                return Ok(out);
            }
            out.push(c);
        }
        return Err(invalid("a single-quoted value is not closed"));
    }
    // A plain scalar ends at a comment.
    let plain = match joined.find(" #") {
        Some(at) => &joined[..at],
        None => joined.as_str(),
    };
    Ok(plain.trim().to_owned())
}

/// The byte index (in `inner`) of the quote that closes a double-quoted scalar.
fn closing_double_quote(inner: &str) -> Option<usize> {
    let mut escaped = false;
    for (at, c) in inner.char_indices() {
        match c {
            '\\' if !escaped => escaped = true,
            '"' if !escaped => return Some(at),
            _ => escaped = false,
        }
    }
    None
}

/// A YAML double-quoted scalar holding `text` on one line (JSON string syntax, which
/// YAML reads the same), with `---` broken up so that the Python library's search for
/// the closing delimiter cannot stop inside it.
pub(crate) fn yaml_quoted(text: &str) -> String {
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    // One pass is not enough: five dashes become `- - ---`, which would still end the
    // front matter. Each pass shortens every run, so this stops.
    let mut safe = one_line;
    while safe.contains("---") {
        safe = safe.replace("---", "- - -");
    }
    serde_json::to_string(&safe).unwrap_or_else(|_| "\"\"".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_hashes() {
        assert_eq!(protocol_hash("hello\n"), "9XLTlvrpIGYocU+yzgD3LpTyJY8=");
        assert_eq!(protocol_hash("abc"), "qZk+NkcGgWq6PiVxeFDCbJzQ2J0=");
    }

    #[test]
    fn defaults_and_styles() {
        let d = ProtocolDocument::parse("---\n---\nbody").unwrap();
        assert_eq!(d.name(), "Unnamed protocol");
        assert_eq!(d.description(), "No description provided");
        assert!(!d.multiround());

        let d = ProtocolDocument::parse(
            "intro\n---\nname: 'it''s'\ndescription: |\n  line one\n  line two\nmultiround: yes # comment\nextra: [1, 2]\n---\n",
        )
        .unwrap();
        assert_eq!(d.name(), "it's");
        assert_eq!(d.description(), "line one\nline two");
        assert!(d.multiround());

        let d = ProtocolDocument::parse("---\ndescription: >\n  folded\n  text\n---\n").unwrap();
        assert_eq!(d.description(), "folded text");
        let d = ProtocolDocument::parse("---\ndescription: plain\n  continued # c\n---\n").unwrap();
        assert_eq!(d.description(), "plain continued");
    }

    #[test]
    fn bad_front_matter() {
        let missing = ProtocolDocument::parse("no front matter").unwrap_err();
        assert_eq!(missing.kind(), DocumentErrorKind::MissingFrontMatter);
        let bad = ProtocolDocument::parse("---\nmultiround: maybe\n---\n").unwrap_err();
        assert_eq!(bad.kind(), DocumentErrorKind::InvalidFrontMatter);
        let open = ProtocolDocument::parse("---\nname: \"open\n---\n").unwrap_err();
        assert_eq!(open.kind(), DocumentErrorKind::InvalidFrontMatter);
    }

    #[test]
    fn quoting_round_trips() {
        let tricky = "Says \"hi\": and --- then\nmore \\ text";
        let text = format!("---\nname: x\ndescription: {}\n---\n", yaml_quoted(tricky));
        let d = ProtocolDocument::parse(text).unwrap();
        assert_eq!(d.description(), "Says \"hi\": and - - - then more \\ text");
    }
}
