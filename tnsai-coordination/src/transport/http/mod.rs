//! The HTTP transport: platforms on different hosts, speaking the Agora protocol.
