//! Settings: the hub's limits, the client's saved pairing, where files live, and the
//! duration syntax (`90s`, `30m`, `1h`, `2d`, `1h30m`) the CLI accepts.

use std::fmt;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::auth::DeviceToken;

/// The hub's limits; every field has a default suited to a small team.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Limits {
    /// Most messages waiting for one recipient (default 100); the oldest are dropped.
    pub queue_cap: usize,
    /// Longest a message waits for its recipient (default 24 h).
    pub queue_age: Duration,
    /// Largest message content in bytes (default 64 KiB).
    pub max_content_bytes: usize,
    /// Largest context, as compact JSON, in bytes (default 16 KiB).
    pub max_context_bytes: usize,
    /// Requests per second a device may make on average (default 10).
    pub rate_per_second: f64,
    /// Requests a device may make in a burst (default 30).
    pub rate_burst: u32,
    /// How often expired messages are swept (default 60 s).
    pub sweep_interval: Duration,
    /// How often the hub checks its database for devices revoked by `tnsai hub revoke`
    /// (default 250 ms).
    pub revocation_poll: Duration,
    /// How long a new WebSocket may take to send its registration (default 10 s).
    pub register_timeout: Duration,
    /// How often the hub pings each WebSocket (default 30 s); a client silent for three
    /// intervals is dropped and shown offline.
    pub ping_interval: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            queue_cap: 100,
            queue_age: Duration::from_secs(24 * 3600),
            max_content_bytes: 64 * 1024,
            max_context_bytes: 16 * 1024,
            rate_per_second: 10.0,
            rate_burst: 30,
            sweep_interval: Duration::from_secs(60),
            revocation_poll: Duration::from_millis(250),
            register_timeout: Duration::from_secs(10),
            ping_interval: Duration::from_secs(30),
        }
    }
}

impl Limits {
    /// The largest request body the hub reads: content and context plus room for the
    /// envelope and JSON escaping.
    pub fn max_body_bytes(&self) -> usize {
        (self.max_content_bytes + self.max_context_bytes) * 2 + 4096
    }
}

/// Where the hub keeps its database, and its limits.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct HubConfig {
    /// The data directory; the database is `hub.sqlite3` inside it.
    pub data_dir: PathBuf,
    /// Limits.
    pub limits: Limits,
}

impl HubConfig {
    /// A config with default limits.
    pub fn new(data_dir: impl Into<PathBuf>) -> Self {
        Self {
            data_dir: data_dir.into(),
            limits: Limits::default(),
        }
    }

    /// Replaces the limits.
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// The database file.
    pub fn database_path(&self) -> PathBuf {
        self.data_dir.join("hub.sqlite3")
    }
}

/// Reading or writing the client's config, or finding where it lives, failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// Neither `$XDG_CONFIG_HOME` nor `$HOME` is set.
    #[error("cannot find a config directory: set XDG_CONFIG_HOME or HOME")]
    NoHome,
    /// The device has not been paired.
    #[error("not paired with a hub yet ({path} is missing): run `tnsai pair <hub-url> <code>`")]
    NotPaired {
        /// The missing file.
        path: PathBuf,
    },
    /// The file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The failure.
        source: std::io::Error,
    },
    /// The file is not a valid config.
    #[error("{path} is not a valid tnsai config: {source}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// The parse failure.
        source: serde_json::Error,
    },
}

/// What kind of [`ConfigError`] happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ConfigErrorKind {
    /// No home directory.
    NoHome,
    /// Not paired.
    NotPaired,
    /// I/O failure.
    Io,
    /// Invalid file.
    Invalid,
}

impl ConfigError {
    /// What kind of failure this is.
    pub fn kind(&self) -> ConfigErrorKind {
        match self {
            ConfigError::NoHome => ConfigErrorKind::NoHome,
            ConfigError::NotPaired { .. } => ConfigErrorKind::NotPaired,
            ConfigError::Io { .. } => ConfigErrorKind::Io,
            ConfigError::Invalid { .. } => ConfigErrorKind::Invalid,
        }
    }
}

fn env_dir(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
}

/// The client's config directory: `$XDG_CONFIG_HOME/tnsai`, else `~/.config/tnsai`.
pub fn config_dir() -> Result<PathBuf, ConfigError> {
    if let Some(dir) = env_dir("XDG_CONFIG_HOME") {
        return Ok(dir.join("tnsai"));
    }
    env_dir("HOME")
        .map(|home| home.join(".config").join("tnsai"))
        .ok_or(ConfigError::NoHome)
}

/// The hub's default data directory: `$XDG_DATA_HOME/tnsai/hub`, else
/// `~/.local/share/tnsai/hub`.
pub fn default_data_dir() -> Result<PathBuf, ConfigError> {
    if let Some(dir) = env_dir("XDG_DATA_HOME") {
        return Ok(dir.join("tnsai").join("hub"));
    }
    env_dir("HOME")
        .map(|home| home.join(".local").join("share").join("tnsai").join("hub"))
        .ok_or(ConfigError::NoHome)
}

/// What `tnsai pair` saves: the hub, the device and its token.
///
/// Saved as `config.json` in [`config_dir`] with mode 0600; its `Debug` hides the token.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ClientConfig {
    /// The hub's base URL, such as `http://hub.example:7700`.
    pub hub_url: String,
    /// The device's name (the default owner of its agents).
    pub device: String,
    /// The device's id on the hub.
    pub device_id: String,
    /// The device token.
    pub token: DeviceToken,
    /// Where `inbox.jsonl` lives, when not beside this file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inbox: Option<PathBuf>,
}

impl ClientConfig {
    /// A config for a freshly paired device.
    pub fn new(
        hub_url: impl Into<String>,
        device: impl Into<String>,
        device_id: impl Into<String>,
        token: DeviceToken,
    ) -> Self {
        Self {
            hub_url: hub_url.into(),
            device: device.into(),
            device_id: device_id.into(),
            token,
            inbox: None,
        }
    }

    /// The config file inside `dir`.
    pub fn file_in(dir: &Path) -> PathBuf {
        dir.join("config.json")
    }

    /// Loads `config.json` from `dir`.
    pub fn load(dir: &Path) -> Result<Self, ConfigError> {
        let path = Self::file_in(dir);
        let text = match fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(ConfigError::NotPaired { path });
            }
            Err(source) => return Err(ConfigError::Io { path, source }),
        };
        serde_json::from_str(&text).map_err(|source| ConfigError::Invalid { path, source })
    }

    /// Saves `config.json` into `dir` (created 0700), readable by its owner only (0600).
    /// The file is written beside and renamed into place, so a crash never leaves half
    /// a token behind.
    pub fn save(&self, dir: &Path) -> Result<PathBuf, ConfigError> {
        let path = Self::file_in(dir);
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| ConfigError::Io { path, source }
        };
        create_private_dir(dir).map_err(io(dir))?;
        let tmp = dir.join(".config.json.tmp");
        let text = serde_json::to_string_pretty(self).map_err(|source| ConfigError::Invalid {
            path: path.clone(),
            source,
        })?;
        let mut file = private_file(&tmp).map_err(io(&tmp))?;
        file.write_all(text.as_bytes())
            .and_then(|()| file.write_all(b"\n"))
            .and_then(|()| file.sync_all())
            .map_err(io(&tmp))?;
        fs::rename(&tmp, &path).map_err(io(&path))?;
        Ok(path)
    }

    /// The inbox path: the saved one, else `inbox.jsonl` beside the config.
    pub fn inbox_path(&self, dir: &Path) -> PathBuf {
        self.inbox
            .clone()
            .unwrap_or_else(|| dir.join("inbox.jsonl"))
    }
}

fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
    }
    #[cfg(not(unix))]
    {
        fs::create_dir_all(dir)
    }
}

fn private_file(path: &Path) -> std::io::Result<fs::File> {
    let mut options = fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let file = options.open(path)?;
    // A file left by an earlier run keeps its old mode through `open`; set it again.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        file.set_permissions(fs::Permissions::from_mode(0o600))?;
    }
    Ok(file)
}

/// A duration that does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid duration {0:?}: use a number and a unit, such as 90s, 30m, 1h, 2d or 1h30m")]
pub struct DurationError(String);

/// Parses `500ms`, `90s`, `30m`, `1h`, `2d` and sums such as `1h30m`.
///
/// ```
/// use std::time::Duration;
/// use tnsai_hub::config::parse_duration;
/// assert_eq!(parse_duration("1h30m").unwrap(), Duration::from_secs(5400));
/// assert_eq!(parse_duration("250ms").unwrap(), Duration::from_millis(250));
/// assert!(parse_duration("soon").is_err());
/// assert!(parse_duration("0s").is_err());
/// ```
pub fn parse_duration(text: &str) -> Result<Duration, DurationError> {
    let err = || DurationError(text.to_owned());
    let mut rest = text.trim();
    if rest.is_empty() {
        return Err(err());
    }
    let mut total = Duration::ZERO;
    while !rest.is_empty() {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return Err(err());
        }
        let number: u64 = rest[..digits].parse().map_err(|_| err())?;
        rest = &rest[digits..];
        let unit_len = rest.bytes().take_while(u8::is_ascii_alphabetic).count();
        let unit = match &rest[..unit_len] {
            "ms" => Duration::from_millis(1),
            "s" => Duration::from_secs(1),
            "m" => Duration::from_secs(60),
            "h" => Duration::from_secs(3600),
            "d" => Duration::from_secs(86400),
            _ => return Err(err()),
        };
        rest = &rest[unit_len..];
        let part = u32::try_from(number)
            .ok()
            .and_then(|n| unit.checked_mul(n))
            .ok_or_else(err)?;
        total = total.checked_add(part).ok_or_else(err)?;
    }
    if total.is_zero() {
        return Err(err());
    }
    Ok(total)
}

/// Shows a duration the way [`parse_duration`] reads it (`1h`, `90s`, `24h`).
pub(crate) struct HumanDuration(pub(crate) Duration);

impl fmt::Display for HumanDuration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let secs = self.0.as_secs();
        if self.0.subsec_millis() != 0 || secs == 0 {
            write!(f, "{}ms", self.0.as_millis())
        } else if secs.is_multiple_of(3600) {
            write!(f, "{}h", secs / 3600)
        } else if secs.is_multiple_of(60) {
            write!(f, "{}m", secs / 60)
        } else {
            write!(f, "{secs}s")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_parse_and_print() {
        assert_eq!(parse_duration("2d").unwrap(), Duration::from_secs(172_800));
        assert_eq!(parse_duration("90s").unwrap(), Duration::from_secs(90));
        for bad in ["", "1", "h", "1x", "-1h", "1h-", "99999999999999h"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
        assert_eq!(HumanDuration(Duration::from_secs(86400)).to_string(), "24h");
        assert_eq!(
            HumanDuration(Duration::from_millis(1500)).to_string(),
            "1500ms"
        );
    }

    #[test]
    fn config_is_private_and_round_trips() {
        let dir = tempfile::tempdir().unwrap();
        let conf_dir = dir.path().join("tnsai");
        let config = ClientConfig::new(
            "http://127.0.0.1:7700",
            "alice",
            "id",
            DeviceToken::new("tnsai1.secret"),
        );
        assert_eq!(
            ClientConfig::load(&conf_dir).unwrap_err().kind(),
            ConfigErrorKind::NotPaired
        );
        let path = config.save(&conf_dir).unwrap();
        assert_eq!(ClientConfig::load(&conf_dir).unwrap(), config);
        assert!(!format!("{config:?}").contains("tnsai1.secret"));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
            let mode = fs::metadata(&conf_dir).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o700);
        }
        assert_eq!(config.inbox_path(&conf_dir), conf_dir.join("inbox.jsonl"));
        fs::write(&path, "{not json").unwrap();
        assert_eq!(
            ClientConfig::load(&conf_dir).unwrap_err().kind(),
            ConfigErrorKind::Invalid
        );
    }
}
