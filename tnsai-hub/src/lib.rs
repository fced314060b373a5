//! The tnsai agent hub.
