//! The NATS transport: agents on many machines through a broker.
