//! Live delivery: which agents are connected now, how a connection learns that a
//! message arrived, presence notices, and closing connections that were replaced or
//! revoked.
//!
//! Every message is stored first (see [`crate::store`]); a connection then pulls its
//! recipient's queue in sequence order whenever it is woken. Backlog and live messages
//! therefore take one path, in one order, and a message reaches a connection at most
//! once (it comes again only on a new connection, if it was never acknowledged).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use tokio::sync::{Notify, mpsc, oneshot};

use crate::wire::{AgentInfo, PresenceEvent, ServerFrame};

/// How many presence notices may wait for a slow connection; beyond that they are
/// skipped (presence is advisory; `tnsai list` always tells the truth).
const PRESENCE_BUFFER: usize = 256;

/// Why the hub closes a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CloseReason {
    /// A newer connection registered the same `owner/name`.
    Replaced,
    /// The device was revoked.
    Revoked,
}

struct Conn {
    conn_id: u64,
    device_id: String,
    info: AgentInfo,
    wake: Arc<Notify>,
    presence: mpsc::Sender<ServerFrame>,
    close: Option<oneshot::Sender<CloseReason>>,
}

impl Conn {
    fn close(&mut self, reason: CloseReason) {
        if let Some(close) = self.close.take() {
            // The connection may already be gone; then there is nothing to close.
            let _ = close.send(reason);
        }
    }
}

/// What a connection task holds after attaching.
pub(crate) struct Attached {
    pub(crate) conn_id: u64,
    pub(crate) wake: Arc<Notify>,
    pub(crate) presence: mpsc::Receiver<ServerFrame>,
    pub(crate) close: oneshot::Receiver<CloseReason>,
}

/// The connected agents, by identity (`owner/name`).
#[derive(Default)]
pub(crate) struct Live {
    conns: Mutex<HashMap<String, Conn>>,
    next_id: AtomicU64,
}

impl Live {
    fn lock(&self) -> MutexGuard<'_, HashMap<String, Conn>> {
        // Nothing here can panic half-way through an update; a poisoned map is intact.
        self.conns.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Makes `info` the live connection of its identity, closing the one it replaces,
    /// and tells every other agent it is online.
    pub(crate) fn attach(&self, device_id: &str, info: AgentInfo) -> Attached {
        let conn_id = self.next_id.fetch_add(1, Ordering::Relaxed) + 1;
        let wake = Arc::new(Notify::new());
        let (presence_tx, presence) = mpsc::channel(PRESENCE_BUFFER);
        let (close_tx, close) = oneshot::channel();
        let identity = info.agent.clone();
        let mut conns = self.lock();
        broadcast(&conns, &identity, PresenceEvent::Online, &info);
        let old = conns.insert(
            identity,
            Conn {
                conn_id,
                device_id: device_id.to_owned(),
                info,
                wake: Arc::clone(&wake),
                presence: presence_tx,
                close: Some(close_tx),
            },
        );
        drop(conns);
        if let Some(mut old) = old {
            old.close(CloseReason::Replaced);
        }
        Attached {
            conn_id,
            wake,
            presence,
            close,
        }
    }

    /// Removes the connection `conn_id` of `identity`, unless a newer one replaced it
    /// (then the newer registration stays and nobody is told the agent went offline).
    pub(crate) fn detach(&self, identity: &str, conn_id: u64) -> bool {
        let mut conns = self.lock();
        if conns.get(identity).is_none_or(|c| c.conn_id != conn_id) {
            return false;
        }
        if let Some(gone) = conns.remove(identity) {
            broadcast(&conns, identity, PresenceEvent::Offline, &gone.info);
        }
        true
    }

    /// Wakes the recipient's connection; `false` when it is offline.
    pub(crate) fn wake(&self, identity: &str) -> bool {
        match self.lock().get(identity) {
            Some(conn) => {
                conn.wake.notify_one();
                true
            }
            None => false,
        }
    }

    /// The online agents, optionally of one project (case-insensitive), sorted.
    pub(crate) fn online(&self, project: Option<&str>) -> Vec<AgentInfo> {
        let mut agents: Vec<AgentInfo> = self
            .lock()
            .values()
            .filter(|c| {
                project.is_none_or(|p| {
                    c.info
                        .project
                        .as_deref()
                        .is_some_and(|q| q.eq_ignore_ascii_case(p))
                })
            })
            .map(|c| c.info.clone())
            .collect();
        agents.sort_by(|a, b| a.agent.cmp(&b.agent));
        agents
    }

    /// Closes every connection of the given devices.
    pub(crate) fn close_devices(&self, is_gone: impl Fn(&str) -> bool) -> usize {
        let mut closed = 0;
        for conn in self.lock().values_mut() {
            if is_gone(&conn.device_id) && conn.close.is_some() {
                conn.close(CloseReason::Revoked);
                closed += 1;
            }
        }
        closed
    }
}

fn broadcast(conns: &HashMap<String, Conn>, about: &str, event: PresenceEvent, info: &AgentInfo) {
    for (identity, conn) in conns {
        if identity != about {
            let frame = ServerFrame::Presence {
                event,
                agent: info.clone(),
            };
            if conn.presence.try_send(frame).is_err() {
                tracing::debug!(to = %identity, about, "skipped a presence notice");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Utc;

    fn info(agent: &str) -> AgentInfo {
        let (owner, name) = agent.split_once('/').unwrap();
        AgentInfo {
            agent: agent.into(),
            owner: owner.into(),
            name: name.into(),
            project: Some("sdk".into()),
            description: None,
            device: "d".into(),
            connected_at: Utc::now(),
        }
    }

    #[test]
    fn replacement_closes_the_old_and_its_exit_keeps_the_new() {
        let live = Live::default();
        let mut first = live.attach("dev", info("a/x"));
        let mut watcher = live.attach("dev2", info("b/y"));
        let second = live.attach("dev", info("a/x"));
        assert_eq!(first.close.try_recv(), Ok(CloseReason::Replaced));
        assert!(!live.detach("a/x", first.conn_id));
        assert_eq!(live.online(None).len(), 2);
        assert!(live.wake("a/x"));
        // b/y saw a/x come online (when b/y attached a/x was there, so only the
        // replacement's notice); no offline notice for the replaced connection.
        let frame = watcher.presence.try_recv().unwrap();
        assert!(matches!(
            frame,
            ServerFrame::Presence {
                event: PresenceEvent::Online,
                ..
            }
        ));
        assert!(watcher.presence.try_recv().is_err());
        assert!(live.detach("a/x", second.conn_id));
        let frame = watcher.presence.try_recv().unwrap();
        assert!(matches!(
            frame,
            ServerFrame::Presence {
                event: PresenceEvent::Offline,
                ..
            }
        ));
        assert!(!live.wake("a/x"));
    }

    #[test]
    fn revocation_closes_only_that_device() {
        let live = Live::default();
        let mut a = live.attach("dev-a", info("a/x"));
        let mut b = live.attach("dev-b", info("b/y"));
        assert_eq!(live.close_devices(|d| d == "dev-a"), 1);
        assert_eq!(a.close.try_recv(), Ok(CloseReason::Revoked));
        assert!(b.close.try_recv().is_err());
        assert_eq!(live.online(Some("SDK")).len(), 2);
        assert!(live.online(Some("backend")).is_empty());
    }
}
