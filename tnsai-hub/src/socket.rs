//! One agent's WebSocket on the hub (`GET /v1/connect`).
//!
//! The client authenticates on the upgrade request (`Authorization: Bearer`), then:
//!
//! 1. client → `{"type": "register", "name", "owner"?, "project"?, "description"?}`
//!    (within the registration timeout);
//! 2. hub → `{"type": "registered", "agent", "online", "pending"}`;
//! 3. hub → `{"type": "message", "message": {...}}` for every queued message, oldest
//!    first, then for each new one as it arrives; `{"type": "presence", "event":
//!    "online"|"offline", "agent"}` when others come and go;
//! 4. client → `{"type": "ack", "ids": [...]}` once a message is safely stored; the hub
//!    deletes acknowledged messages. An unacknowledged message is sent again on the
//!    agent's next connection.
//!
//! Before closing a connection on purpose the hub sends `{"type": "error", "error":
//! {"code", "message"}}`, then a close frame: 4001 replaced, 4003 revoked, 4009
//! registration refused, 1008 malformed frame, 1001 hub shutting down. A malformed frame
//! (not JSON, unknown type, binary, over the size limit) closes that connection only.

use std::time::Duration;

use axum::extract::ws::{CloseFrame, Message as WsMessage, WebSocket};

use crate::delivery::CloseReason;
use crate::hub::{Device, Hub};
use crate::identity::Identity;
use crate::wire::{
    CLOSE_GOING_AWAY, CLOSE_PROTOCOL, CLOSE_REFUSED, CLOSE_REPLACED, CLOSE_REVOKED, ClientFrame,
    Refusal, RefusalCode, Registration, ServerFrame,
};

/// Messages read from the store per round trip while draining a queue.
const BATCH: usize = 100;

enum Ended {
    /// The client closed or the socket failed; nothing to send.
    Gone,
    /// Close with this frame and code.
    Close(Option<Refusal>, u16),
}

pub(crate) async fn run(hub: Hub, device: Device, mut socket: WebSocket) {
    let timeout = hub.limits().register_timeout;
    let registration = match tokio::time::timeout(timeout, read_registration(&mut socket)).await {
        Ok(Ok(registration)) => registration,
        Ok(Err(Ended::Gone)) => return,
        Ok(Err(Ended::Close(refusal, code))) => return close(socket, refusal, code).await,
        Err(_) => {
            let refusal =
                Refusal::new(RefusalCode::InvalidRequest, "no registration frame in time");
            return close(socket, Some(refusal), CLOSE_PROTOCOL).await;
        }
    };
    let (identity, mut attached, registered) = match hub.register(&device, registration).await {
        Ok(ok) => ok,
        Err(error) => {
            let code = if error.code() == RefusalCode::InvalidRequest {
                CLOSE_PROTOCOL
            } else {
                CLOSE_REFUSED
            };
            return close(socket, Some(error.into_refusal()), code).await;
        }
    };
    let ended = if send_frame(&mut socket, &registered).await {
        serve(&hub, &identity, &mut attached, &mut socket).await
    } else {
        Ended::Gone
    };
    hub.live().detach(&identity.to_string(), attached.conn_id);
    tracing::info!(agent = %identity, "agent disconnected");
    if let Ended::Close(refusal, code) = ended {
        close(socket, refusal, code).await;
    }
}

async fn serve(
    hub: &Hub,
    identity: &Identity,
    attached: &mut crate::delivery::Attached,
    socket: &mut WebSocket,
) -> Ended {
    let mut shutdown = hub.shutdown_signal();
    // Pings keep idle connections alive through proxies; a client that answers none
    // for three intervals is gone (its network vanished without closing the
    // connection), and dropping it lets its agent show offline.
    let ping_every = hub.limits().ping_interval;
    let silence_limit = ping_every * 3;
    let mut ping = tokio::time::interval(ping_every);
    ping.reset();
    let mut last_sent = 0_i64;
    let mut last_heard = tokio::time::Instant::now();
    // Deliver the backlog right after the registration answer.
    attached.wake.notify_one();
    loop {
        tokio::select! {
            reason = &mut attached.close => {
                return match reason {
                    Ok(CloseReason::Replaced) => Ended::Close(
                        Some(Refusal::new(RefusalCode::Replaced,
                            "a newer connection registered this agent")),
                        CLOSE_REPLACED,
                    ),
                    Ok(CloseReason::Revoked) => Ended::Close(
                        Some(Refusal::new(RefusalCode::DeviceRevoked, "this device was revoked")),
                        CLOSE_REVOKED,
                    ),
                    Err(_) => Ended::Close(None, CLOSE_GOING_AWAY),
                };
            }
            () = stopped(&mut shutdown) => {
                return Ended::Close(None, CLOSE_GOING_AWAY);
            }
            incoming = socket.recv() => {
                last_heard = tokio::time::Instant::now();
                let text = match incoming {
                    None | Some(Err(_)) | Some(Ok(WsMessage::Close(_))) => return Ended::Gone,
                    Some(Ok(WsMessage::Ping(_) | WsMessage::Pong(_))) => continue,
                    Some(Ok(WsMessage::Binary(_))) => {
                        return protocol_error("binary frames are not accepted");
                    }
                    Some(Ok(WsMessage::Text(text))) => text,
                };
                match serde_json::from_str::<ClientFrame>(text.as_str()) {
                    Ok(ClientFrame::Ack { ids }) => {
                        if let Err(error) = hub.ack(identity, ids).await {
                            tracing::error!(%error, agent = %identity, "acknowledgement failed");
                            return internal_error();
                        }
                    }
                    Ok(ClientFrame::Register(_)) => {
                        return protocol_error("this connection is already registered");
                    }
                    Err(error) => return protocol_error(&format!("malformed frame: {error}")),
                }
            }
            () = attached.wake.notified() => {
                loop {
                    let batch = match hub.pending(identity, last_sent, BATCH).await {
                        Ok(batch) => batch,
                        Err(error) => {
                            tracing::error!(%error, agent = %identity, "reading the queue failed");
                            return internal_error();
                        }
                    };
                    let full = batch.len() == BATCH;
                    for (seq, message) in batch {
                        if !send_frame(socket, &ServerFrame::Message { message }).await {
                            return Ended::Gone;
                        }
                        last_sent = seq;
                    }
                    if !full {
                        break;
                    }
                }
            }
            Some(frame) = attached.presence.recv() => {
                if !send_frame(socket, &frame).await {
                    return Ended::Gone;
                }
            }
            _ = ping.tick() => {
                if last_heard.elapsed() > silence_limit {
                    tracing::info!(agent = %identity, "no answer to pings; dropping the connection");
                    return Ended::Gone;
                }
                if socket.send(WsMessage::Ping(Default::default())).await.is_err() {
                    return Ended::Gone;
                }
            }
        }
    }
}

/// Completes when the hub shuts down (or is gone).
async fn stopped(shutdown: &mut tokio::sync::watch::Receiver<bool>) {
    // The guard `wait_for` returns must not live across an await in a Send future.
    let _ = shutdown.wait_for(|stopped| *stopped).await;
}

fn protocol_error(message: &str) -> Ended {
    Ended::Close(
        Some(Refusal::new(RefusalCode::InvalidRequest, message)),
        CLOSE_PROTOCOL,
    )
}

fn internal_error() -> Ended {
    Ended::Close(
        Some(Refusal::new(
            RefusalCode::Internal,
            "the hub failed; reconnect to receive unacknowledged messages",
        )),
        1011,
    )
}

async fn read_registration(socket: &mut WebSocket) -> Result<Registration, Ended> {
    loop {
        let text = match socket.recv().await {
            None | Some(Err(_)) | Some(Ok(WsMessage::Close(_))) => return Err(Ended::Gone),
            Some(Ok(WsMessage::Ping(_) | WsMessage::Pong(_))) => continue,
            Some(Ok(WsMessage::Binary(_))) => {
                return Err(protocol_error("binary frames are not accepted"));
            }
            Some(Ok(WsMessage::Text(text))) => text,
        };
        return match serde_json::from_str::<ClientFrame>(text.as_str()) {
            Ok(ClientFrame::Register(registration)) => Ok(registration),
            Ok(_) => Err(protocol_error("the first frame must be a registration")),
            Err(error) => Err(protocol_error(&format!("malformed frame: {error}"))),
        };
    }
}

async fn send_frame(socket: &mut WebSocket, frame: &ServerFrame) -> bool {
    match serde_json::to_string(frame) {
        Ok(text) => socket.send(WsMessage::Text(text.into())).await.is_ok(),
        Err(error) => {
            tracing::error!(%error, "a frame could not be encoded");
            false
        }
    }
}

async fn close(mut socket: WebSocket, refusal: Option<Refusal>, code: u16) {
    let reason = refusal
        .as_ref()
        .map(|r| r.code.as_str())
        .unwrap_or_default();
    if let Some(refusal) = refusal.clone() {
        let _ = send_frame(&mut socket, &ServerFrame::Error { error: refusal }).await;
    }
    let _ = socket
        .send(WsMessage::Close(Some(CloseFrame {
            code,
            reason: reason.into(),
        })))
        .await;
    // Give the client a moment to answer the close handshake; then drop the socket.
    let _ = tokio::time::timeout(Duration::from_secs(2), async {
        while let Some(Ok(_)) = socket.recv().await {}
    })
    .await;
}
