//! The hub's state in an embedded SQLite database (`hub.sqlite3` in the data directory):
//! devices and their token hashes, invites, registered agents and every message not yet
//! acknowledged.
//!
//! The database runs in WAL mode with `synchronous = FULL`, so a message the hub has
//! answered for survives a crash of the process or the machine, and `tnsai hub invite`
//! and `tnsai hub revoke` can write while the hub runs. One connection serves the hub;
//! async code reaches it only through [`Store::call`], which runs the closure on tokio's
//! blocking pool, so no lock is ever held across an `.await`.
//!
//! Schema (version 1, kept in `PRAGMA user_version`):
//!
//! ```sql
//! CREATE TABLE devices (
//!     id TEXT PRIMARY KEY,            -- UUID
//!     name TEXT NOT NULL,             -- unique among active devices
//!     token_hash BLOB NOT NULL,       -- SHA-256 of the token's secret part
//!     created_at INTEGER NOT NULL,    -- Unix milliseconds
//!     revoked_at INTEGER              -- set by `tnsai hub revoke`
//! );
//! CREATE UNIQUE INDEX devices_active_name ON devices(name) WHERE revoked_at IS NULL;
//! CREATE TABLE invites (
//!     code_hash BLOB PRIMARY KEY,     -- SHA-256 of the normalized code
//!     created_at INTEGER NOT NULL,
//!     expires_at INTEGER NOT NULL,
//!     used_at INTEGER,
//!     used_by TEXT REFERENCES devices(id)
//! );
//! CREATE TABLE agents (               -- every agent ever registered, online or not
//!     owner TEXT NOT NULL,
//!     name TEXT NOT NULL,
//!     device_id TEXT NOT NULL REFERENCES devices(id),
//!     project TEXT,
//!     description TEXT,
//!     registered_at INTEGER NOT NULL,
//!     PRIMARY KEY (owner, name)
//! );
//! CREATE TABLE messages (             -- sent, not yet acknowledged
//!     seq INTEGER PRIMARY KEY AUTOINCREMENT,  -- delivery order
//!     id TEXT NOT NULL UNIQUE,        -- the message id (UUID v7)
//!     recipient TEXT NOT NULL,        -- owner/name
//!     sender TEXT NOT NULL,           -- owner/name, or `hub` for drop notices
//!     notice INTEGER NOT NULL,        -- 1 for the hub's drop notices
//!     created_at INTEGER NOT NULL,    -- for the age limit
//!     body TEXT NOT NULL              -- the tnsai-core Message as JSON
//! );
//! CREATE INDEX messages_by_recipient ON messages(recipient, notice, seq);
//! CREATE INDEX messages_by_age ON messages(created_at);
//! ```

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use chrono::{DateTime, Utc};
use rusqlite::{Connection, OptionalExtension, Transaction, params};
use serde_json::json;
use tnsai_core::{Message, MessageId, MessageKind};
use uuid::Uuid;

use crate::auth::{DeviceToken, InviteCode};
use crate::config::HumanDuration;
use crate::identity::Identity;
use crate::wire::{DropReason, DroppedMessage};

/// The sender name of the hub's own notices.
pub const HUB_SENDER: &str = "hub";
const SCHEMA_VERSION: i64 = 1;

/// A database operation failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// SQLite reported an error.
    #[error("database error: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// The data directory could not be created.
    #[error("{path}: {source}")]
    Io {
        /// The directory.
        path: PathBuf,
        /// The failure.
        source: std::io::Error,
    },
    /// A stored message does not parse (the database was edited or is damaged).
    #[error("stored message {id} is damaged: {source}")]
    CorruptMessage {
        /// The row's message id.
        id: String,
        /// The parse failure.
        source: serde_json::Error,
    },
    /// The database was written by a newer hub.
    #[error("database schema version {0} is newer than this hub understands")]
    NewerSchema(i64),
    /// The blocking task running the operation failed.
    #[error("database task failed: {0}")]
    Task(String),
}

/// Revoking a device failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RevokeError {
    /// No active device has that name or id.
    #[error("no active device named {0:?}")]
    UnknownDevice(String),
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// What kind of [`RevokeError`] happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RevokeErrorKind {
    /// No such active device.
    UnknownDevice,
    /// Database failure.
    Store,
}

impl RevokeError {
    /// What kind of failure this is.
    pub fn kind(&self) -> RevokeErrorKind {
        match self {
            RevokeError::UnknownDevice(_) => RevokeErrorKind::UnknownDevice,
            RevokeError::Store(_) => RevokeErrorKind::Store,
        }
    }
}

/// A paired device as the administrator sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct DeviceRecord {
    /// The device id.
    pub id: String,
    /// The device name.
    pub name: String,
    /// When it paired.
    pub created_at: DateTime<Utc>,
    /// When it was revoked, if it was.
    pub revoked_at: Option<DateTime<Utc>>,
}

/// The outcome of trading an invite code.
#[derive(Debug)]
pub(crate) enum Redeemed {
    Paired {
        device_id: String,
        token: DeviceToken,
    },
    Unknown,
    Expired,
    Used,
    NameTaken,
}

/// The outcome of checking a device token.
#[derive(Debug)]
pub(crate) enum Authenticated {
    Device { id: String, name: String },
    Revoked,
    Invalid,
}

/// The outcome of registering an agent identity.
#[derive(Debug)]
pub(crate) enum Claim {
    Granted,
    /// Another active device holds it.
    Taken {
        device: String,
    },
}

/// Messages dropped while storing or sweeping, and who must be told.
#[derive(Debug, Default)]
pub(crate) struct Drops {
    pub(crate) dropped: Vec<DroppedMessage>,
}

impl Drops {
    /// Senders that got a drop notice in their queue.
    pub(crate) fn notified(&self) -> impl Iterator<Item = &str> {
        self.dropped.iter().map(|d| d.sender.as_str())
    }
}

/// The hub's database; cheap to clone (all clones share one connection).
#[derive(Clone)]
pub struct Store {
    conn: Arc<Mutex<Connection>>,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Store")
    }
}

pub(crate) fn now_ms() -> i64 {
    Utc::now().timestamp_millis()
}

fn ms_to_time(ms: i64) -> DateTime<Utc> {
    DateTime::from_timestamp_millis(ms).unwrap_or_default()
}

fn duration_ms(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

impl Store {
    /// Opens (and creates or migrates) the database in `data_dir`.
    pub fn open(data_dir: &Path) -> Result<Self, StoreError> {
        std::fs::create_dir_all(data_dir).map_err(|source| StoreError::Io {
            path: data_dir.to_path_buf(),
            source,
        })?;
        let conn = Connection::open(data_dir.join("hub.sqlite3"))?;
        conn.busy_timeout(Duration::from_secs(10))?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        // FULL: a message is on disk before the hub answers `send` with its id.
        conn.pragma_update(None, "synchronous", "FULL")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        migrate(&conn)?;
        Ok(Self {
            conn: Arc::new(Mutex::new(conn)),
        })
    }

    fn lock(&self) -> MutexGuard<'_, Connection> {
        // A panic inside a closure cannot leave a transaction half-applied (rusqlite
        // rolls back on drop), so a poisoned lock still guards a consistent database.
        self.conn.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Runs `f` on the connection on this thread; for the CLI's admin commands.
    pub(crate) fn with<R>(
        &self,
        f: impl FnOnce(&mut Connection) -> Result<R, StoreError>,
    ) -> Result<R, StoreError> {
        f(&mut self.lock())
    }

    /// Runs `f` on the connection on tokio's blocking pool.
    pub(crate) async fn call<R: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Connection) -> Result<R, StoreError> + Send + 'static,
    ) -> Result<R, StoreError> {
        let store = self.clone();
        tokio::task::spawn_blocking(move || store.with(f))
            .await
            .map_err(|e| StoreError::Task(e.to_string()))?
    }

    /// Makes a one-time invite code valid for `ttl`.
    pub fn create_invite(&self, ttl: Duration) -> Result<InviteCode, StoreError> {
        let code = InviteCode::generate();
        let hash = code.hash();
        let now = now_ms();
        self.with(|c| {
            c.execute(
                "INSERT INTO invites (code_hash, created_at, expires_at) VALUES (?1, ?2, ?3)",
                params![&hash[..], now, now.saturating_add(duration_ms(ttl))],
            )?;
            Ok(())
        })?;
        Ok(code)
    }

    /// Revokes the active device with this name (or id); returns it.
    pub fn revoke_device(&self, device: &str) -> Result<DeviceRecord, RevokeError> {
        let found = self.with(|c| revoke_device(c, device, now_ms()))?;
        found.ok_or_else(|| RevokeError::UnknownDevice(device.to_owned()))
    }

    /// Every device ever paired, oldest first.
    pub fn devices(&self) -> Result<Vec<DeviceRecord>, StoreError> {
        self.with(|c| {
            let mut stmt = c.prepare(
                "SELECT id, name, created_at, revoked_at FROM devices ORDER BY created_at, id",
            )?;
            let rows = stmt.query_map([], |r| {
                Ok(DeviceRecord {
                    id: r.get(0)?,
                    name: r.get(1)?,
                    created_at: ms_to_time(r.get(2)?),
                    revoked_at: r.get::<_, Option<i64>>(3)?.map(ms_to_time),
                })
            })?;
            Ok(rows.collect::<Result<_, _>>()?)
        })
    }
}

fn migrate(conn: &Connection) -> Result<(), StoreError> {
    let version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    if version > SCHEMA_VERSION {
        return Err(StoreError::NewerSchema(version));
    }
    if version < 1 {
        conn.execute_batch(
            "BEGIN;
            CREATE TABLE devices (
                id TEXT PRIMARY KEY,
                name TEXT NOT NULL,
                token_hash BLOB NOT NULL,
                created_at INTEGER NOT NULL,
                revoked_at INTEGER
            );
            CREATE UNIQUE INDEX devices_active_name ON devices(name) WHERE revoked_at IS NULL;
            CREATE TABLE invites (
                code_hash BLOB PRIMARY KEY,
                created_at INTEGER NOT NULL,
                expires_at INTEGER NOT NULL,
                used_at INTEGER,
                used_by TEXT REFERENCES devices(id)
            );
            CREATE TABLE agents (
                owner TEXT NOT NULL,
                name TEXT NOT NULL,
                device_id TEXT NOT NULL REFERENCES devices(id),
                project TEXT,
                description TEXT,
                registered_at INTEGER NOT NULL,
                PRIMARY KEY (owner, name)
            );
            CREATE TABLE messages (
                seq INTEGER PRIMARY KEY AUTOINCREMENT,
                id TEXT NOT NULL UNIQUE,
                recipient TEXT NOT NULL,
                sender TEXT NOT NULL,
                notice INTEGER NOT NULL,
                created_at INTEGER NOT NULL,
                body TEXT NOT NULL
            );
            CREATE INDEX messages_by_recipient ON messages(recipient, notice, seq);
            CREATE INDEX messages_by_age ON messages(created_at);
            PRAGMA user_version = 1;
            COMMIT;",
        )?;
    }
    Ok(())
}

pub(crate) fn redeem_invite(
    conn: &mut Connection,
    code: &InviteCode,
    device: &str,
    now: i64,
) -> Result<Redeemed, StoreError> {
    let tx = conn.transaction()?;
    let invite: Option<(i64, Option<i64>)> = tx
        .query_row(
            "SELECT expires_at, used_at FROM invites WHERE code_hash = ?1",
            [&code.hash()[..]],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
    let outcome = match invite {
        None => Redeemed::Unknown,
        Some((_, Some(_))) => Redeemed::Used,
        Some((expires, None)) if expires <= now => Redeemed::Expired,
        Some(_) => {
            let taken: bool = tx.query_row(
                "SELECT EXISTS (SELECT 1 FROM devices WHERE name = ?1 AND revoked_at IS NULL)",
                [device],
                |r| r.get(0),
            )?;
            if taken {
                // The code stays unused, so the person can retry with another name.
                Redeemed::NameTaken
            } else {
                let id = Uuid::now_v7();
                let (token, hash) = DeviceToken::generate(id);
                let id = id.to_string();
                tx.execute(
                    "INSERT INTO devices (id, name, token_hash, created_at) VALUES (?1, ?2, ?3, ?4)",
                    params![id, device, &hash[..], now],
                )?;
                tx.execute(
                    "UPDATE invites SET used_at = ?1, used_by = ?2 WHERE code_hash = ?3",
                    params![now, id, &code.hash()[..]],
                )?;
                Redeemed::Paired {
                    device_id: id,
                    token,
                }
            }
        }
    };
    tx.commit()?;
    Ok(outcome)
}

pub(crate) fn authenticate(
    conn: &mut Connection,
    token: &DeviceToken,
) -> Result<Authenticated, StoreError> {
    let Some((device, secret)) = token.parts() else {
        return Ok(Authenticated::Invalid);
    };
    let row: Option<(String, Vec<u8>, Option<i64>)> = conn
        .query_row(
            "SELECT name, token_hash, revoked_at FROM devices WHERE id = ?1",
            [device.to_string()],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .optional()?;
    Ok(match row {
        Some((name, hash, revoked)) if DeviceToken::matches(secret, &hash) => match revoked {
            Some(_) => Authenticated::Revoked,
            None => Authenticated::Device {
                id: device.to_string(),
                name,
            },
        },
        _ => Authenticated::Invalid,
    })
}

fn revoke_device(
    conn: &mut Connection,
    device: &str,
    now: i64,
) -> Result<Option<DeviceRecord>, StoreError> {
    Ok(conn
        .query_row(
            "UPDATE devices SET revoked_at = ?2
             WHERE revoked_at IS NULL AND (name = ?1 OR id = ?1)
             RETURNING id, name, created_at, revoked_at",
            params![device, now],
            |r| {
                Ok(DeviceRecord {
                    id: r.get(0)?,
                    name: r.get(1)?,
                    created_at: ms_to_time(r.get(2)?),
                    revoked_at: r.get::<_, Option<i64>>(3)?.map(ms_to_time),
                })
            },
        )
        .optional()?)
}

/// Whether another connection changed the database since the last call on this one.
pub(crate) fn data_version(conn: &mut Connection) -> Result<i64, StoreError> {
    Ok(conn.pragma_query_value(None, "data_version", |r| r.get(0))?)
}

pub(crate) fn revoked_devices(conn: &mut Connection) -> Result<HashSet<String>, StoreError> {
    let mut stmt = conn.prepare("SELECT id FROM devices WHERE revoked_at IS NOT NULL")?;
    let ids = stmt.query_map([], |r| r.get(0))?;
    Ok(ids.collect::<Result<_, _>>()?)
}

pub(crate) fn claim_agent(
    conn: &mut Connection,
    device_id: &str,
    agent: &Identity,
    project: Option<&str>,
    description: Option<&str>,
    now: i64,
) -> Result<Claim, StoreError> {
    let tx = conn.transaction()?;
    let holder: Option<(String, String, Option<i64>)> = tx
        .query_row(
            "SELECT a.device_id, d.name, d.revoked_at FROM agents a
             JOIN devices d ON d.id = a.device_id WHERE a.owner = ?1 AND a.name = ?2",
            params![agent.owner(), agent.name()],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .optional()?;
    if let Some((holder_id, holder_name, None)) = holder
        && holder_id != device_id
    {
        return Ok(Claim::Taken {
            device: holder_name,
        });
    }
    tx.execute(
        "INSERT INTO agents (owner, name, device_id, project, description, registered_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)
         ON CONFLICT (owner, name) DO UPDATE SET device_id = ?3, project = ?4,
             description = ?5, registered_at = ?6",
        params![
            agent.owner(),
            agent.name(),
            device_id,
            project,
            description,
            now
        ],
    )?;
    tx.commit()?;
    Ok(Claim::Granted)
}

pub(crate) fn device_agents(
    conn: &mut Connection,
    device_id: &str,
) -> Result<Vec<Identity>, StoreError> {
    let mut stmt =
        conn.prepare("SELECT owner, name FROM agents WHERE device_id = ?1 ORDER BY owner, name")?;
    let rows = stmt.query_map([device_id], |r| {
        Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
    })?;
    let mut agents = Vec::new();
    for row in rows {
        let (owner, name) = row?;
        // Rows were validated on the way in; skip one that was edited into nonsense.
        if let Ok(identity) = Identity::new(owner, name) {
            agents.push(identity);
        }
    }
    Ok(agents)
}

pub(crate) fn agent_known(conn: &mut Connection, agent: &Identity) -> Result<bool, StoreError> {
    Ok(conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM agents WHERE owner = ?1 AND name = ?2)",
        params![agent.owner(), agent.name()],
        |r| r.get(0),
    )?)
}

fn insert_message(
    tx: &Transaction<'_>,
    message: &Message,
    recipient: &str,
    notice: bool,
    now: i64,
) -> Result<(), StoreError> {
    let body = serde_json::to_string(message).map_err(|source| StoreError::CorruptMessage {
        id: message.id().to_string(),
        source,
    })?;
    tx.execute(
        "INSERT INTO messages (id, recipient, sender, notice, created_at, body)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![
            message.id().to_string(),
            recipient,
            message.sender().as_str(),
            notice,
            now,
            body
        ],
    )?;
    Ok(())
}

/// Deletes the rows `(seq, id, recipient, sender, notice)` and reports the real
/// messages among them; notices about dropped notices are never made, so one drop
/// cannot set off a chain of them.
fn drop_rows(
    tx: &Transaction<'_>,
    rows: Vec<(i64, String, String, String, bool)>,
    reason: DropReason,
    limits: &QueueLimits,
    now: i64,
    drops: &mut Drops,
) -> Result<(), StoreError> {
    for (seq, id, recipient, sender, notice) in rows {
        tx.execute("DELETE FROM messages WHERE seq = ?1", [seq])?;
        if notice {
            tracing::warn!(%recipient, message = %id, ?reason, "dropped an unread drop notice");
            continue;
        }
        let Ok(message_id) = id.parse::<MessageId>() else {
            continue;
        };
        tracing::info!(%recipient, %sender, message = %id, ?reason, "dropped a queued message");
        let dropped = DroppedMessage {
            id: message_id,
            sender,
            recipient,
            reason,
        };
        insert_notice(tx, &dropped, limits, now)?;
        drops.dropped.push(dropped);
    }
    Ok(())
}

/// Queues a drop notice for the dropped message's sender. Notices are counted apart
/// from real messages, so a notice never pushes a real message out of a queue.
fn insert_notice(
    tx: &Transaction<'_>,
    dropped: &DroppedMessage,
    limits: &QueueLimits,
    now: i64,
) -> Result<(), StoreError> {
    let why = match dropped.reason {
        DropReason::Cap => format!(
            "the recipient's queue was full ({} messages) and it was the oldest",
            limits.cap
        ),
        DropReason::Age => format!(
            "it waited longer than {} for the recipient to connect",
            HumanDuration(limits.age)
        ),
    };
    let notice = Message::builder(MessageKind::Error, HUB_SENDER)
        .receiver(dropped.sender.clone())
        .in_reply_to(dropped.id)
        .timestamp(ms_to_time(now))
        .content(format!(
            "your message {} to {} was dropped unread: {why}",
            dropped.id, dropped.recipient
        ))
        .payload(json!({
            "code": "dropped",
            "reason": dropped.reason,
            "message_id": dropped.id,
            "recipient": dropped.recipient,
        }))
        .build();
    insert_message(tx, &notice, &dropped.sender, true, now)?;
    let excess = select_rows(
        tx,
        "SELECT seq, id, recipient, sender, notice FROM messages
         WHERE recipient = ?1 AND notice = 1 ORDER BY seq DESC LIMIT -1 OFFSET ?2",
        params![dropped.sender, limits.cap_i64()],
    )?;
    for (seq, id, recipient, _, _) in excess {
        tracing::warn!(%recipient, message = %id, "dropped an unread drop notice (queue full)");
        tx.execute("DELETE FROM messages WHERE seq = ?1", [seq])?;
    }
    Ok(())
}

type Row = (i64, String, String, String, bool);

fn select_rows(
    tx: &Transaction<'_>,
    sql: &str,
    args: impl rusqlite::Params,
) -> Result<Vec<Row>, StoreError> {
    let mut stmt = tx.prepare(sql)?;
    let rows = stmt.query_map(args, |r| {
        Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// A queue's cap and age.
#[derive(Debug, Clone, Copy)]
pub(crate) struct QueueLimits {
    pub(crate) cap: usize,
    pub(crate) age: Duration,
}

impl QueueLimits {
    fn cap_i64(&self) -> i64 {
        i64::try_from(self.cap).unwrap_or(i64::MAX)
    }
    fn cutoff(&self, now: i64) -> i64 {
        now.saturating_sub(duration_ms(self.age))
    }
}

/// Stores `message` for `recipient`, first dropping that recipient's expired messages
/// and then, if the queue is over its cap, its oldest ones.
pub(crate) fn enqueue(
    conn: &mut Connection,
    message: &Message,
    recipient: &str,
    limits: QueueLimits,
    now: i64,
) -> Result<Drops, StoreError> {
    let tx = conn.transaction()?;
    let mut drops = Drops::default();
    let expired = select_rows(
        &tx,
        "SELECT seq, id, recipient, sender, notice FROM messages
         WHERE recipient = ?1 AND created_at < ?2 ORDER BY seq",
        params![recipient, limits.cutoff(now)],
    )?;
    drop_rows(&tx, expired, DropReason::Age, &limits, now, &mut drops)?;
    insert_message(&tx, message, recipient, false, now)?;
    let excess = select_rows(
        &tx,
        "SELECT seq, id, recipient, sender, notice FROM messages
         WHERE recipient = ?1 AND notice = 0 ORDER BY seq DESC LIMIT -1 OFFSET ?2",
        params![recipient, limits.cap_i64()],
    )?;
    // Oldest first, so notices arrive in the order the messages were sent.
    let excess = excess.into_iter().rev().collect();
    drop_rows(&tx, excess, DropReason::Cap, &limits, now, &mut drops)?;
    tx.commit()?;
    Ok(drops)
}

/// Drops every message older than the age limit, queueing notices for their senders.
pub(crate) fn expire(
    conn: &mut Connection,
    limits: QueueLimits,
    now: i64,
) -> Result<Drops, StoreError> {
    let tx = conn.transaction()?;
    let mut drops = Drops::default();
    let expired = select_rows(
        &tx,
        "SELECT seq, id, recipient, sender, notice FROM messages
         WHERE created_at < ?1 ORDER BY seq",
        [limits.cutoff(now)],
    )?;
    drop_rows(&tx, expired, DropReason::Age, &limits, now, &mut drops)?;
    tx.commit()?;
    Ok(drops)
}

/// Unexpired messages for `recipient` after `after_seq`, in delivery order.
pub(crate) fn pending(
    conn: &mut Connection,
    recipient: &str,
    after_seq: i64,
    limits: QueueLimits,
    now: i64,
    batch: usize,
) -> Result<Vec<(i64, Message)>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT seq, id, body FROM messages
         WHERE recipient = ?1 AND seq > ?2 AND created_at >= ?3 ORDER BY seq LIMIT ?4",
    )?;
    let rows = stmt.query_map(
        params![
            recipient,
            after_seq,
            limits.cutoff(now),
            i64::try_from(batch).unwrap_or(i64::MAX)
        ],
        |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
            ))
        },
    )?;
    let mut out = Vec::new();
    for row in rows {
        let (seq, id, body) = row?;
        let message = serde_json::from_str(&body)
            .map_err(|source| StoreError::CorruptMessage { id, source })?;
        out.push((seq, message));
    }
    Ok(out)
}

/// How many unexpired messages wait for `recipient`.
pub(crate) fn pending_count(
    conn: &mut Connection,
    recipient: &str,
    limits: QueueLimits,
    now: i64,
) -> Result<u64, StoreError> {
    let n: i64 = conn.query_row(
        "SELECT COUNT(*) FROM messages WHERE recipient = ?1 AND created_at >= ?2",
        params![recipient, limits.cutoff(now)],
        |r| r.get(0),
    )?;
    Ok(u64::try_from(n).unwrap_or(0))
}

/// Deletes acknowledged messages; only the recipient's own, so one agent cannot delete
/// another's queue by guessing ids.
pub(crate) fn ack(
    conn: &mut Connection,
    recipient: &str,
    ids: &[MessageId],
) -> Result<usize, StoreError> {
    let tx = conn.transaction()?;
    let mut removed = 0;
    {
        let mut stmt =
            tx.prepare_cached("DELETE FROM messages WHERE recipient = ?1 AND id = ?2")?;
        for id in ids {
            removed += stmt.execute(params![recipient, id.to_string()])?;
        }
    }
    tx.commit()?;
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        (dir, store)
    }

    fn text(from: &str, to: &str, content: &str) -> Message {
        Message::builder(MessageKind::Text, from)
            .receiver(to)
            .content(content)
            .build()
    }

    const LIMITS: QueueLimits = QueueLimits {
        cap: 3,
        age: Duration::from_secs(60),
    };

    #[test]
    fn invites_are_one_time_and_expire() {
        let (_dir, store) = store();
        let code = store.create_invite(Duration::from_secs(60)).unwrap();
        let now = now_ms();
        let first = store
            .with(|c| redeem_invite(c, &code, "alice", now))
            .unwrap();
        let Redeemed::Paired { token, device_id } = first else {
            panic!("{first:?}");
        };
        let again = store.with(|c| redeem_invite(c, &code, "bob", now)).unwrap();
        assert!(matches!(again, Redeemed::Used), "{again:?}");
        let late = store.create_invite(Duration::from_secs(60)).unwrap();
        let later = now + 61_000;
        let expired = store
            .with(|c| redeem_invite(c, &late, "bob", later))
            .unwrap();
        assert!(matches!(expired, Redeemed::Expired), "{expired:?}");
        let unknown = InviteCode::new("NOPE");
        let r = store
            .with(|c| redeem_invite(c, &unknown, "bob", now))
            .unwrap();
        assert!(matches!(r, Redeemed::Unknown));
        let third = store.create_invite(Duration::from_secs(60)).unwrap();
        let r = store
            .with(|c| redeem_invite(c, &third, "alice", now))
            .unwrap();
        assert!(matches!(r, Redeemed::NameTaken));

        let auth = store.with(|c| authenticate(c, &token)).unwrap();
        assert!(matches!(auth, Authenticated::Device { ref id, .. } if *id == device_id));
        let forged = DeviceToken::new(format!(
            "tnsai1.{}.AAAA",
            device_id.parse::<Uuid>().unwrap().simple()
        ));
        let auth = store.with(|c| authenticate(c, &forged)).unwrap();
        assert!(matches!(auth, Authenticated::Invalid));
        store.revoke_device("alice").unwrap();
        let auth = store.with(|c| authenticate(c, &token)).unwrap();
        assert!(matches!(auth, Authenticated::Revoked));
        assert_eq!(
            store.revoke_device("alice").unwrap_err().kind(),
            RevokeErrorKind::UnknownDevice
        );
        // The name is free again once its device is revoked, and the code retries.
        let r = store
            .with(|c| redeem_invite(c, &third, "alice", now))
            .unwrap();
        assert!(matches!(r, Redeemed::Paired { .. }), "{r:?}");
    }

    #[test]
    fn cap_drops_oldest_first_and_notifies_their_senders() {
        let (_dir, store) = store();
        let now = now_ms();
        let sent: Vec<Message> = (0..5).map(|i| text("a/x", "b/y", &i.to_string())).collect();
        let mut dropped = Vec::new();
        for m in &sent {
            let drops = store.with(|c| enqueue(c, m, "b/y", LIMITS, now)).unwrap();
            dropped.extend(drops.dropped);
        }
        let ids: Vec<MessageId> = dropped.iter().map(|d| d.id).collect();
        assert_eq!(ids, [sent[0].id(), sent[1].id()]);
        assert!(dropped.iter().all(|d| d.reason == DropReason::Cap));
        let left = store
            .with(|c| pending(c, "b/y", 0, LIMITS, now, 100))
            .unwrap();
        let left: Vec<&str> = left.iter().map(|(_, m)| m.content().unwrap()).collect();
        assert_eq!(left, ["2", "3", "4"]);
        let notices = store
            .with(|c| pending(c, "a/x", 0, LIMITS, now, 100))
            .unwrap();
        assert_eq!(notices.len(), 2);
        assert_eq!(notices[0].1.in_reply_to(), Some(sent[0].id()));
        assert_eq!(notices[0].1.kind(), MessageKind::Error);
        assert_eq!(notices[0].1.payload()["reason"], "cap");
    }

    #[test]
    fn notices_never_evict_real_messages_or_chain() {
        let (_dir, store) = store();
        let now = now_ms();
        // a/x has a full queue of real messages from c/z.
        for i in 0..3 {
            let m = text("c/z", "a/x", &i.to_string());
            store.with(|c| enqueue(c, &m, "a/x", LIMITS, now)).unwrap();
        }
        // a/x floods b/y, so a/x gets drop notices beyond its cap.
        for i in 0..10 {
            let m = text("a/x", "b/y", &i.to_string());
            store.with(|c| enqueue(c, &m, "b/y", LIMITS, now)).unwrap();
        }
        let queue = store
            .with(|c| pending(c, "a/x", 0, LIMITS, now, 100))
            .unwrap();
        let real = queue
            .iter()
            .filter(|(_, m)| m.kind() == MessageKind::Text)
            .count();
        let notices = queue
            .iter()
            .filter(|(_, m)| m.kind() == MessageKind::Error)
            .count();
        assert_eq!((real, notices), (3, 3));
        let hub_queue = store
            .with(|c| pending(c, HUB_SENDER, 0, LIMITS, now, 100))
            .unwrap();
        assert!(hub_queue.is_empty());
    }

    #[test]
    fn age_limit_hides_then_sweeps_and_ack_deletes_only_own() {
        let (_dir, store) = store();
        let now = now_ms();
        let old = text("a/x", "b/y", "old");
        store
            .with(|c| enqueue(c, &old, "b/y", LIMITS, now - 61_000))
            .unwrap();
        let fresh = text("a/x", "b/y", "fresh");
        let drops = store
            .with(|c| enqueue(c, &fresh, "b/y", LIMITS, now))
            .unwrap();
        assert_eq!(drops.dropped.len(), 1);
        assert_eq!(drops.dropped[0].reason, DropReason::Age);

        let older = text("a/x", "c/z", "older");
        store
            .with(|c| enqueue(c, &older, "c/z", LIMITS, now - 61_000))
            .unwrap();
        let hidden = store
            .with(|c| pending(c, "c/z", 0, LIMITS, now, 10))
            .unwrap();
        assert!(hidden.is_empty());
        let swept = store.with(|c| expire(c, LIMITS, now)).unwrap();
        assert_eq!(swept.dropped.len(), 1);
        assert_eq!(swept.dropped[0].id, older.id());

        let removed = store.with(|c| ack(c, "c/z", &[fresh.id()])).unwrap();
        assert_eq!(removed, 0);
        let removed = store.with(|c| ack(c, "b/y", &[fresh.id()])).unwrap();
        assert_eq!(removed, 1);
        assert_eq!(
            store
                .with(|c| pending_count(c, "b/y", LIMITS, now))
                .unwrap(),
            0
        );
    }

    #[test]
    fn messages_survive_reopening() {
        let (dir, store) = store();
        let m = text("a/x", "b/y", "kept");
        let now = now_ms();
        store.with(|c| enqueue(c, &m, "b/y", LIMITS, now)).unwrap();
        drop(store);
        let store = Store::open(dir.path()).unwrap();
        let left = store
            .with(|c| pending(c, "b/y", 0, LIMITS, now, 10))
            .unwrap();
        assert_eq!(left.len(), 1);
        assert_eq!(left[0].1, m);
    }
}
