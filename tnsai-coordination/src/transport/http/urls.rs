//! Where things live on a platform: the paths of agents and protocol documents.

use percent_encoding::{AsciiSet, CONTROLS, utf8_percent_encode};

/// What must be escaped inside one path segment: everything a URL parser would read as
/// a delimiter (`/`, `?`, `#`), `%` itself, and what is not allowed in paths. Ids like
/// `billing-agent` stay readable.
const SEGMENT: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b'/')
    .add(b'<')
    .add(b'>')
    .add(b'?')
    .add(b'[')
    .add(b'\\')
    .add(b']')
    .add(b'^')
    .add(b'`')
    .add(b'{')
    .add(b'|')
    .add(b'}');

/// `/agents/<id>`, the id escaped as one path segment.
pub(crate) fn agent_path(id: &str) -> String {
    format!("/agents/{}", utf8_percent_encode(id, SEGMENT))
}

/// `/protocols/<hash>`, the hash (base64, which may hold `/`) escaped as one segment.
pub(crate) fn protocol_path(hash: &str) -> String {
    format!("/protocols/{}", utf8_percent_encode(hash, SEGMENT))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_escape_only_what_they_must() {
        assert_eq!(agent_path("billing-agent"), "/agents/billing-agent");
        assert_eq!(agent_path("a/b c?"), "/agents/a%2Fb%20c%3F");
        assert_eq!(
            protocol_path("KoFqLPY87PN2D6K6SSgUViaA/W4="),
            "/protocols/KoFqLPY87PN2D6K6SSgUViaA%2FW4="
        );
    }
}
