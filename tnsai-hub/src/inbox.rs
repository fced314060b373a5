//! The local inbox: `inbox.jsonl`, one tnsai-core [`Message`] as JSON per line, append
//! only, plus a sidecar `inbox.jsonl.read` holding the byte offset up to which
//! `tnsai inbox` has shown messages.
//!
//! Appends take an exclusive file lock, skip a message whose id is already in the file
//! (so a message delivered twice is written once, even by two processes), and `fsync`
//! before returning: only then does the client acknowledge the message to the hub.
//! A line torn by a crash is closed off by the next append and skipped by readers.

use std::collections::HashSet;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use serde::Deserialize;
use tnsai_core::{Message, MessageId};

/// Reading or writing the inbox failed.
#[derive(Debug, thiserror::Error)]
#[error("inbox {path}: {source}")]
#[non_exhaustive]
pub struct InboxError {
    /// The file.
    pub path: PathBuf,
    /// The failure.
    pub source: io::Error,
}

/// Whether [`Inbox::append`] wrote the message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Appended {
    /// Written and synced.
    Written,
    /// Its id was already in the inbox; nothing was written.
    Duplicate,
}

/// Messages read from the inbox.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct InboxBatch {
    /// The messages, in file order.
    pub messages: Vec<Message>,
    /// Lines that were not messages (torn by a crash, or edited by hand).
    pub skipped: usize,
    /// The offset just past the last complete line read.
    pub end: u64,
}

/// The inbox file of one device (or of one `--inbox` path).
#[derive(Debug)]
pub struct Inbox {
    path: PathBuf,
    seen: HashSet<MessageId>,
    scanned: u64,
}

#[derive(Deserialize)]
struct IdOnly {
    id: MessageId,
}

impl Inbox {
    /// An inbox at `path`; the file and its directory are created on first append.
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self {
            path: path.into(),
            seen: HashSet::new(),
            scanned: 0,
        }
    }

    /// The inbox file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The read-mark sidecar file.
    pub fn mark_path(&self) -> PathBuf {
        let mut name = self.path.as_os_str().to_owned();
        name.push(".read");
        PathBuf::from(name)
    }

    fn err(&self, source: io::Error) -> InboxError {
        InboxError {
            path: self.path.clone(),
            source,
        }
    }

    /// Appends `message` unless its id is already in the inbox; syncs before returning.
    pub fn append(&mut self, message: &Message) -> Result<Appended, InboxError> {
        if let Some(dir) = self.path.parent().filter(|d| !d.as_os_str().is_empty()) {
            fs::create_dir_all(dir).map_err(|e| self.err(e))?;
        }
        let mut options = OpenOptions::new();
        options.read(true).append(true).create(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        let mut file = options.open(&self.path).map_err(|e| self.err(e))?;
        file.lock().map_err(|e| self.err(e))?;
        let result = self.append_locked(&mut file, message);
        // Closing the file releases the lock too; unlocking first just says so.
        let _ = file.unlock();
        result.map_err(|e| self.err(e))
    }

    fn append_locked(&mut self, file: &mut File, message: &Message) -> io::Result<Appended> {
        let len = file.metadata()?.len();
        if len < self.scanned {
            // The file was truncated or replaced: forget what we knew about it.
            self.seen.clear();
            self.scanned = 0;
        }
        // Learn the ids other writers appended since we last looked.
        let mut tail = Vec::new();
        file.seek(SeekFrom::Start(self.scanned))?;
        file.take(len - self.scanned).read_to_end(&mut tail)?;
        let complete = tail.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        for line in tail[..complete].split(|&b| b == b'\n') {
            if let Ok(IdOnly { id }) = serde_json::from_slice(line) {
                self.seen.insert(id);
            }
        }
        self.scanned += complete as u64;
        if self.seen.contains(&message.id()) {
            return Ok(Appended::Duplicate);
        }
        let mut line = Vec::new();
        if complete < tail.len() {
            // A torn line from a crash: end it, so our line starts clean.
            line.push(b'\n');
        }
        serde_json::to_writer(&mut line, message).map_err(io::Error::other)?;
        line.push(b'\n');
        file.write_all(&line)?;
        file.sync_data()?;
        self.scanned = len + line.len() as u64;
        self.seen.insert(message.id());
        Ok(Appended::Written)
    }

    /// Reads the complete lines from byte `offset` on (from the start when `offset` is
    /// past the end, as after the file was replaced).
    pub fn read_from(&self, offset: u64) -> Result<InboxBatch, InboxError> {
        let mut file = match File::open(&self.path) {
            Ok(file) => file,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(InboxBatch::default()),
            Err(e) => return Err(self.err(e)),
        };
        file.lock_shared().map_err(|e| self.err(e))?;
        let len = file.metadata().map_err(|e| self.err(e))?.len();
        let start = if offset > len { 0 } else { offset };
        let mut bytes = Vec::new();
        file.seek(SeekFrom::Start(start))
            .and_then(|_| file.read_to_end(&mut bytes))
            .map_err(|e| self.err(e))?;
        let _ = file.unlock();
        let complete = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let mut batch = InboxBatch {
            end: start + complete as u64,
            ..InboxBatch::default()
        };
        for line in bytes[..complete].split(|&b| b == b'\n') {
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            match serde_json::from_slice::<Message>(line) {
                Ok(message) => batch.messages.push(message),
                Err(_) => batch.skipped += 1,
            }
        }
        Ok(batch)
    }

    /// The read mark: the offset up to which messages were shown (0 when none).
    pub fn read_mark(&self) -> Result<u64, InboxError> {
        match fs::read_to_string(self.mark_path()) {
            Ok(text) => Ok(text.trim().parse().unwrap_or(0)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(0),
            Err(e) => Err(self.err(e)),
        }
    }

    /// Moves the read mark; written beside and renamed, so it is never half written.
    pub fn set_read_mark(&self, offset: u64) -> Result<(), InboxError> {
        let mark = self.mark_path();
        let mut tmp = mark.clone().into_os_string();
        tmp.push(".tmp");
        let tmp = PathBuf::from(tmp);
        fs::write(&tmp, format!("{offset}\n"))
            .and_then(|()| fs::rename(&tmp, &mark))
            .map_err(|e| self.err(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tnsai_core::MessageKind;

    fn msg(text: &str) -> Message {
        Message::builder(MessageKind::Text, "a/x")
            .receiver("b/y")
            .content(text)
            .build()
    }

    #[test]
    fn appends_once_per_id_even_across_writers() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub").join("inbox.jsonl");
        let mut one = Inbox::new(&path);
        let mut two = Inbox::new(&path);
        let m = msg("hello");
        assert_eq!(one.append(&m).unwrap(), Appended::Written);
        assert_eq!(one.append(&m).unwrap(), Appended::Duplicate);
        assert_eq!(two.append(&m).unwrap(), Appended::Duplicate);
        assert_eq!(two.append(&msg("second")).unwrap(), Appended::Written);
        let batch = one.read_from(0).unwrap();
        assert_eq!(batch.messages.len(), 2);
        assert_eq!(batch.messages[0], m);
        assert_eq!(batch.end, fs::metadata(&path).unwrap().len());
    }

    #[test]
    fn torn_lines_are_closed_and_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("inbox.jsonl");
        let mut inbox = Inbox::new(&path);
        inbox.append(&msg("one")).unwrap();
        let mut file = OpenOptions::new().append(true).open(&path).unwrap();
        file.write_all(b"{\"id\": \"0190").unwrap();
        drop(file);
        let partial = inbox.read_from(0).unwrap();
        assert_eq!((partial.messages.len(), partial.skipped), (1, 0));
        inbox.append(&msg("two")).unwrap();
        let batch = inbox.read_from(0).unwrap();
        let texts: Vec<_> = batch
            .messages
            .iter()
            .map(|m| m.content().unwrap())
            .collect();
        assert_eq!(texts, ["one", "two"]);
        assert_eq!(batch.skipped, 1);
    }

    #[test]
    fn read_marks_persist_and_reset_after_replacement() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("inbox.jsonl");
        let mut inbox = Inbox::new(&path);
        assert_eq!(inbox.read_mark().unwrap(), 0);
        assert!(inbox.read_from(0).unwrap().messages.is_empty());
        inbox.append(&msg("one")).unwrap();
        let first = inbox.read_from(inbox.read_mark().unwrap()).unwrap();
        inbox.set_read_mark(first.end).unwrap();
        inbox.append(&msg("two")).unwrap();
        let unread = inbox.read_from(inbox.read_mark().unwrap()).unwrap();
        assert_eq!(unread.messages.len(), 1);
        assert_eq!(unread.messages[0].content(), Some("two"));
        fs::write(&path, "").unwrap();
        assert!(
            inbox
                .read_from(inbox.read_mark().unwrap())
                .unwrap()
                .messages
                .is_empty()
        );
        // After the file was replaced, the writer forgets old ids and writes again.
        assert_eq!(inbox.append(&first.messages[0]).unwrap(), Appended::Written);
    }
}
