//! Invite codes and device tokens: how they are made, written, hashed and checked.
//!
//! The hub keeps only SHA-256 hashes of both. A device token names its device in clear
//! (`tnsai1.<device id>.<secret>`), so the hub finds the device by id and then compares
//! the hash of the presented secret with the stored one in constant time: a lookup by the
//! secret itself would let response timing leak how much of a guess matched.
//! Neither type prints its secret through `Debug`, so neither can end up in a log line.

use std::fmt;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;
use uuid::Uuid;

const TOKEN_PREFIX: &str = "tnsai1";
/// Crockford-style alphabet without I, L, O and U, so codes survive being read aloud.
const CODE_ALPHABET: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const CODE_LEN: usize = 15;

/// A SHA-256 hash, as stored in the database.
pub(crate) type Hash = [u8; 32];

pub(crate) fn sha256(bytes: &[u8]) -> Hash {
    Sha256::digest(bytes).into()
}

/// The secret a paired device presents as `Authorization: Bearer <token>`.
#[derive(Clone, PartialEq, Eq)]
pub struct DeviceToken(String);

impl DeviceToken {
    /// Makes a fresh token for `device` and returns it with the hash the hub stores.
    pub(crate) fn generate(device: Uuid) -> (Self, Hash) {
        let secret: [u8; 32] = rand::random();
        let encoded = URL_SAFE_NO_PAD.encode(secret);
        let hash = sha256(encoded.as_bytes());
        (
            Self(format!("{TOKEN_PREFIX}.{}.{encoded}", device.simple())),
            hash,
        )
    }

    /// Wraps a token read from a config file or a header.
    pub fn new(token: impl Into<String>) -> Self {
        Self(token.into())
    }

    /// The token text, for the `Authorization` header and the config file only.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// Splits the token into its device id and the secret part; `None` when malformed.
    pub(crate) fn parts(&self) -> Option<(Uuid, &str)> {
        let mut parts = self.0.splitn(3, '.');
        let (prefix, device, secret) = (parts.next()?, parts.next()?, parts.next()?);
        if prefix != TOKEN_PREFIX || secret.is_empty() {
            return None;
        }
        Some((Uuid::try_parse(device).ok()?, secret))
    }

    /// Whether this token's secret hashes to `stored`, compared in constant time.
    pub(crate) fn matches(secret: &str, stored: &[u8]) -> bool {
        sha256(secret.as_bytes()).ct_eq(stored).into()
    }
}

impl fmt::Debug for DeviceToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("DeviceToken(<redacted>)")
    }
}

impl Serialize for DeviceToken {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for DeviceToken {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(Self)
    }
}

/// A one-time invite code, such as `7K2Q-MX9D-4HPA-WZ3`.
///
/// Codes are 15 symbols from a 32-letter alphabet (75 bits). Dashes, spaces and case are
/// ignored when a code is typed back, so `7k2q mx9d 4hpa wz3` is the same code.
#[derive(Clone, PartialEq, Eq)]
pub struct InviteCode(String);

impl InviteCode {
    /// A fresh random code.
    pub(crate) fn generate() -> Self {
        let bytes: [u8; CODE_LEN] = rand::random();
        let code = bytes
            .iter()
            .map(|b| CODE_ALPHABET[usize::from(b % 32)] as char)
            .collect();
        Self(code)
    }

    /// Reads a typed code, ignoring dashes, spaces and case.
    pub fn new(typed: &str) -> Self {
        Self(
            typed
                .chars()
                .filter(|c| !matches!(c, '-' | ' '))
                .map(|c| c.to_ascii_uppercase())
                .collect(),
        )
    }

    /// The code grouped for reading, in four groups such as `767Y-SDYY-636E-A1J`; print
    /// only where the administrator asked for it.
    pub fn expose(&self) -> String {
        let chars: Vec<char> = self.0.chars().collect();
        chars
            .chunks(4)
            .map(|c| c.iter().collect::<String>())
            .collect::<Vec<_>>()
            .join("-")
    }

    pub(crate) fn hash(&self) -> Hash {
        sha256(self.0.as_bytes())
    }
}

impl fmt::Debug for InviteCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("InviteCode(<redacted>)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_round_trip_and_never_debug_print() {
        let device = Uuid::now_v7();
        let (token, hash) = DeviceToken::generate(device);
        let (id, secret) = token.parts().unwrap();
        assert_eq!(id, device);
        assert!(DeviceToken::matches(secret, &hash));
        assert!(!DeviceToken::matches("wrong", &hash));
        let shown = format!("{token:?}");
        assert!(!shown.contains(secret), "{shown}");
        assert!(!shown.contains(token.expose()));
    }

    #[test]
    fn malformed_tokens_have_no_parts() {
        for bad in ["", "tnsai1", "tnsai1.x.y", "other.0190.abc", "tnsai1.{}."] {
            assert!(DeviceToken::new(bad).parts().is_none(), "{bad}");
        }
    }

    #[test]
    fn codes_ignore_layout_when_typed_back() {
        let code = InviteCode::generate();
        let shown = code.expose();
        assert_eq!(shown.len(), 15 + 3);
        assert_eq!(InviteCode::new(&shown.to_lowercase()).hash(), code.hash());
        assert_eq!(
            InviteCode::new(&shown.replace('-', " ")).hash(),
            code.hash()
        );
        assert_ne!(InviteCode::generate().hash(), code.hash());
        assert!(!format!("{code:?}").contains(&shown));
    }
}
