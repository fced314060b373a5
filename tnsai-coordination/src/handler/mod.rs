//! One handler per paradigm: each turns a manager call into messages, knowing its
//! attribute's settings but never the transport.

pub(crate) mod broadcast;
pub(crate) mod contract_net;
pub(crate) mod direct;
pub(crate) mod pub_sub;
pub(crate) mod request_reply;

use serde::Serialize;

use crate::ProtocolError;

/// Turns a call's payload into JSON before anything is sent.
pub(crate) fn to_payload<P: Serialize + ?Sized>(
    payload: &P,
) -> Result<serde_json::Value, ProtocolError> {
    serde_json::to_value(payload).map_err(|e| ProtocolError::InvalidPayload(e.to_string()))
}
