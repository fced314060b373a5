//! Bearer tokens: issued and revoked by the platform, stored only as hashes.

use std::fmt;

use base64::Engine;
use dashmap::DashMap;
use rand::RngCore;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// The public half of a token: names it in logs, rate limits and
/// [`revoke_token`](super::HttpTransport::revoke_token). Not a secret.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TokenId(String);

impl TokenId {
    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for TokenId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A token as issued: its id and the secret bearer string, shown once. The platform
/// keeps only a SHA-256 hash of the secret.
///
/// The bearer string is `<id>.<secret>`; clients send it as `Authorization: Bearer
/// <token>`.
#[derive(Clone)]
pub struct IssuedToken {
    id: TokenId,
    bearer: String,
}

impl IssuedToken {
    /// The token's id.
    pub fn id(&self) -> &TokenId {
        &self.id
    }
    /// The string to send as `Authorization: Bearer <it>`.
    pub fn bearer(&self) -> &str {
        &self.bearer
    }
}

impl fmt::Debug for IssuedToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The secret never appears in logs.
        f.debug_struct("IssuedToken")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

/// The tokens a platform issued, by id, as SHA-256 hashes of their secrets.
#[derive(Default)]
pub(crate) struct TokenStore {
    hashes: DashMap<String, [u8; 32]>,
}

impl TokenStore {
    pub(crate) fn issue(&self) -> IssuedToken {
        let mut rng = rand::rng();
        let mut id = [0u8; 8];
        let mut secret = [0u8; 32];
        rng.fill_bytes(&mut id);
        rng.fill_bytes(&mut secret);
        let encode = |bytes: &[u8]| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes);
        let id = encode(&id);
        let secret = encode(&secret);
        self.hashes.insert(id.clone(), digest(&secret));
        IssuedToken {
            bearer: format!("{id}.{secret}"),
            id: TokenId(id),
        }
    }

    pub(crate) fn revoke(&self, id: &TokenId) -> bool {
        self.hashes.remove(id.as_str()).is_some()
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.hashes.len()
    }

    /// The token's id when `bearer` is a live token. The secret's hash is compared in
    /// constant time; looking the id up first leaks only whether an id exists, and ids
    /// are not secret.
    pub(crate) fn verify(&self, bearer: &str) -> Option<TokenId> {
        let (id, secret) = bearer.split_once('.')?;
        let stored = *self.hashes.get(id)?;
        let presented = digest(secret);
        bool::from(stored.ct_eq(&presented)).then(|| TokenId(id.to_owned()))
    }
}

fn digest(secret: &str) -> [u8; 32] {
    Sha256::digest(secret.as_bytes()).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn issue_verify_revoke() {
        let store = TokenStore::default();
        let token = store.issue();
        assert_eq!(store.verify(token.bearer()), Some(token.id().clone()));
        let (id, secret) = token.bearer().split_once('.').unwrap();
        assert_eq!(store.verify(&format!("{id}.{secret}x")), None);
        assert_eq!(store.verify(secret), None);
        assert_eq!(store.verify(""), None);
        assert!(!format!("{token:?}").contains(secret));
        assert!(store.revoke(token.id()));
        assert!(!store.revoke(token.id()));
        assert_eq!(store.verify(token.bearer()), None);
        assert_eq!(store.len(), 0);
    }
}
