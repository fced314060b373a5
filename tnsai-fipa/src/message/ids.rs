//! Identifiers for messages and conversations.

use std::fmt;

use serde::{Deserialize, Serialize};
use uuid::Uuid;

macro_rules! text_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(String);

        impl $name {
            /// A fresh random (UUID v4) identifier.
            pub fn random() -> Self {
                Self(Uuid::new_v4().to_string())
            }

            /// The identifier's text.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl From<String> for $name {
            fn from(text: String) -> Self {
                Self(text)
            }
        }

        impl From<&str> for $name {
            fn from(text: &str) -> Self {
                Self(text.to_owned())
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }

        impl PartialEq<str> for $name {
            fn eq(&self, other: &str) -> bool {
                self.0 == other
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                self.0 == *other
            }
        }
    };
}

text_id!(
    /// Identifies one message. Not a FIPA ACL parameter: the string encoding
    /// carries it as the user-defined parameter `:X-tnsai-id`.
    ///
    /// It is free text so that identifiers made by other platforms survive a
    /// round trip; messages built here get a random UUID.
    MessageId
);

text_id!(
    /// Identifies a conversation (FIPA `:conversation-id`): every message of one
    /// protocol run shares it. Free text, as FIPA allows any expression;
    /// new conversations get a random UUID.
    ConversationId
);
