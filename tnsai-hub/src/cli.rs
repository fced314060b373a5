//! The `tnsai` command line: argument parsing (clap) and what each command prints.
//!
//! Exit codes: 0 success, 1 failure (including every refusal by the hub), 2 bad usage
//! or bad input found before contacting the hub, 3 `connect` ended because a newer
//! connection registered the same agent.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};
use serde_json::Value;

use crate::client::{HubClient, ListenError, ListenEvent, listen};
use crate::config::{
    ClientConfig, HubConfig, Limits, config_dir, default_data_dir, parse_duration,
};
use crate::hub::Hub;
use crate::identity::validate_name;
use crate::inbox::Inbox;
use crate::store::Store;
use crate::wire::{AgentInfo, PresenceEvent, Registration, SendRequest};

/// Agents on different machines find each other and exchange context through a hub.
///
/// The hub only relays and stores messages; it never executes anything it receives.
#[derive(Debug, Parser)]
#[command(name = "tnsai", version, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run the hub and administer it (needs local access to its data directory).
    Hub {
        #[command(subcommand)]
        command: HubCommand,
    },
    /// Pair this device with a hub, trading an invite code for a device token.
    Pair(PairArgs),
    /// Register an agent and print every message it receives as one JSON line (runs
    /// in the foreground; each message is appended to inbox.jsonl first).
    Connect(ConnectArgs),
    /// Send a text message (with optional JSON context) to an agent.
    Send(SendArgs),
    /// List the agents online now.
    List(ListArgs),
    /// Show messages from the local inbox.jsonl, marking them read (no hub needed).
    Inbox(InboxArgs),
}

#[derive(Debug, Subcommand)]
enum HubCommand {
    /// Serve the hub over HTTP and WebSocket until interrupted.
    Serve(ServeArgs),
    /// Make a one-time invite code and print only the code.
    Invite(InviteArgs),
    /// Revoke a device: its token stops working and its connections close at once.
    Revoke(RevokeArgs),
    /// List paired devices.
    Devices(DataArgs),
}

#[derive(Debug, Args)]
struct DataArgs {
    /// The hub's data directory [default: $XDG_DATA_HOME/tnsai/hub or
    /// ~/.local/share/tnsai/hub].
    #[arg(long, value_name = "DIR")]
    data: Option<PathBuf>,
}

#[derive(Debug, Args)]
struct ServeArgs {
    /// The address to listen on (port 0 picks a free port).
    #[arg(long, default_value = "127.0.0.1:7700", value_name = "ADDR")]
    listen: String,
    #[command(flatten)]
    data: DataArgs,
    /// Most messages waiting for one offline agent; the oldest are dropped first.
    #[arg(long, default_value_t = 100, value_name = "N")]
    queue_cap: usize,
    /// Longest a message waits for its recipient (e.g. 24h, 30m).
    #[arg(long, default_value = "24h", value_parser = parse_duration, value_name = "DURATION")]
    queue_age: Duration,
    /// Largest message content, in bytes.
    #[arg(long, default_value_t = 64 * 1024, value_name = "BYTES")]
    max_content: usize,
    /// Largest context (as compact JSON), in bytes.
    #[arg(long, default_value_t = 16 * 1024, value_name = "BYTES")]
    max_context: usize,
    /// Requests per second each device may make on average.
    #[arg(long, default_value_t = 10.0, value_name = "N")]
    rate: f64,
    /// Requests each device may make in a burst.
    #[arg(long, default_value_t = 30, value_name = "N")]
    burst: u32,
}

#[derive(Debug, Args)]
struct InviteArgs {
    #[command(flatten)]
    data: DataArgs,
    /// How long the code stays valid (e.g. 1h, 30m, 2d).
    #[arg(long, default_value = "1h", value_parser = parse_duration, value_name = "DURATION")]
    ttl: Duration,
}

#[derive(Debug, Args)]
struct RevokeArgs {
    #[command(flatten)]
    data: DataArgs,
    /// The device's name (or id), as given at pairing.
    device: String,
}

#[derive(Debug, Args)]
struct PairArgs {
    /// The hub's URL, such as http://hub.example:7700.
    hub_url: String,
    /// The invite code from `tnsai hub invite`.
    code: String,
    /// This device's name; it becomes the default owner of its agents [default: $USER].
    #[arg(long, value_name = "NAME")]
    name: Option<String>,
    /// Keep inbox.jsonl here instead of beside the config.
    #[arg(long, value_name = "PATH")]
    inbox: Option<PathBuf>,
}

#[derive(Debug, Args)]
struct ConnectArgs {
    /// The agent's name; `owner/name` identifies it on the hub.
    #[arg(long)]
    name: String,
    /// The agent's owner [default: this device's name].
    #[arg(long)]
    owner: Option<String>,
    /// The project it works on (shown to others, filter for `tnsai list`).
    #[arg(long)]
    project: Option<String>,
    /// What it does (shown to others).
    #[arg(long)]
    description: Option<String>,
    /// Append messages to this file instead of the configured inbox.jsonl.
    #[arg(long, value_name = "PATH")]
    inbox: Option<PathBuf>,
}

#[derive(Debug, Args)]
struct SendArgs {
    /// The recipient, owner/name (e.g. bob/backend-agent).
    #[arg(long, value_name = "OWNER/NAME")]
    to: String,
    /// The text; `-` reads it from standard input.
    #[arg(long)]
    content: String,
    /// A JSON object with structured context, e.g. '{"commit": "abc123"}'.
    #[arg(long, value_name = "JSON")]
    context: Option<String>,
    /// Which of this device's agents sends it (name or owner/name); needed when the
    /// device has several.
    #[arg(long, value_name = "AGENT")]
    from: Option<String>,
}

#[derive(Debug, Args)]
struct ListArgs {
    /// Only agents of this project.
    #[arg(long)]
    project: Option<String>,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Args)]
struct InboxArgs {
    /// Only messages not shown before.
    #[arg(long)]
    unread: bool,
    /// Keep watching and print new messages as they arrive.
    #[arg(long)]
    follow: bool,
    /// Read this file instead of the configured inbox.jsonl.
    #[arg(long, value_name = "PATH")]
    inbox: Option<PathBuf>,
}

/// A command's failure: what to print and which exit code to use.
struct Failed {
    code: u8,
    message: String,
}

fn fail(message: impl std::fmt::Display) -> Failed {
    Failed {
        code: 1,
        message: message.to_string(),
    }
}

fn usage(message: impl std::fmt::Display) -> Failed {
    Failed {
        code: 2,
        message: message.to_string(),
    }
}

type Outcome = Result<(), Failed>;

/// Parses the process arguments and runs the command.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(failed) => {
            if !failed.message.is_empty() {
                eprintln!("tnsai: {}", failed.message);
            }
            ExitCode::from(failed.code)
        }
    }
}

fn run(cli: Cli) -> Outcome {
    match cli.command {
        Command::Hub { command } => match command {
            HubCommand::Serve(args) => serve(args),
            HubCommand::Invite(args) => invite(args),
            HubCommand::Revoke(args) => revoke(args),
            HubCommand::Devices(args) => devices(args),
        },
        Command::Pair(args) => pair(args),
        Command::Connect(args) => connect(args),
        Command::Send(args) => send(args),
        Command::List(args) => list(args),
        Command::Inbox(args) => inbox(args),
    }
}

fn runtime() -> Result<tokio::runtime::Runtime, Failed> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| fail(format!("cannot start the async runtime: {e}")))
}

fn data_dir(args: &DataArgs) -> Result<PathBuf, Failed> {
    match &args.data {
        Some(dir) => Ok(dir.clone()),
        None => default_data_dir().map_err(fail),
    }
}

fn open_store(args: &DataArgs) -> Result<Store, Failed> {
    let dir = data_dir(args)?;
    Store::open(&dir).map_err(|e| fail(format!("{}: {e}", dir.display())))
}

/// Writes one line to stdout; a closed pipe (`| head`) is not an error worth a message.
fn out(line: &str) -> Outcome {
    let mut stdout = io::stdout().lock();
    match writeln!(stdout, "{line}").and_then(|()| stdout.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Err(Failed {
            code: 0,
            message: String::new(),
        }),
        Err(e) => Err(fail(format!("cannot write to stdout: {e}"))),
    }
}

async fn stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}

fn serve(args: ServeArgs) -> Outcome {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("tnsai_hub=info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(io::stderr)
        .with_ansi(io::IsTerminal::is_terminal(&io::stderr()))
        .try_init();
    if args.queue_cap == 0 {
        return Err(usage("--queue-cap must be at least 1"));
    }
    if !(args.rate > 0.0 && args.rate.is_finite()) || args.burst == 0 {
        return Err(usage("--rate and --burst must be positive"));
    }
    let dir = data_dir(&args.data)?;
    let mut limits = Limits::default();
    limits.queue_cap = args.queue_cap;
    limits.queue_age = args.queue_age;
    limits.max_content_bytes = args.max_content;
    limits.max_context_bytes = args.max_context;
    limits.rate_per_second = args.rate;
    limits.rate_burst = args.burst;
    limits.sweep_interval = limits
        .sweep_interval
        .min(args.queue_age / 4)
        .max(Duration::from_millis(100));
    let config = HubConfig::new(&dir).with_limits(limits);
    let hub = Hub::open(config).map_err(|e| fail(format!("{}: {e}", dir.display())))?;
    runtime()?.block_on(async move {
        let running = hub.start(&args.listen).await.map_err(fail)?;
        out(&format!(
            "tnsai hub listening on {} (data: {})",
            running.url(),
            dir.display()
        ))?;
        stop_signal().await;
        tracing::info!("shutting down");
        running.shutdown().await.map_err(fail)
    })
}

fn invite(args: InviteArgs) -> Outcome {
    let code = open_store(&args.data)?
        .create_invite(args.ttl)
        .map_err(fail)?;
    out(&code.expose())
}

fn revoke(args: RevokeArgs) -> Outcome {
    let record = open_store(&args.data)?
        .revoke_device(&args.device)
        .map_err(fail)?;
    out(&format!("revoked device {} ({})", record.name, record.id))
}

fn devices(args: DataArgs) -> Outcome {
    let devices = open_store(&args)?.devices().map_err(fail)?;
    out(&format!(
        "{:<24} {:<10} {:<25} ID",
        "DEVICE", "STATUS", "PAIRED"
    ))?;
    for d in devices {
        let status = if d.revoked_at.is_some() {
            "revoked"
        } else {
            "active"
        };
        out(&format!(
            "{:<24} {:<10} {:<25} {}",
            d.name,
            status,
            d.created_at.format("%Y-%m-%d %H:%M:%S UTC"),
            d.id
        ))?;
    }
    Ok(())
}

fn client_dir() -> Result<PathBuf, Failed> {
    config_dir().map_err(fail)
}

fn load_client() -> Result<(PathBuf, ClientConfig, HubClient), Failed> {
    let dir = client_dir()?;
    let config = ClientConfig::load(&dir).map_err(fail)?;
    let client = HubClient::new(&config.hub_url, config.token.clone()).map_err(fail)?;
    Ok((dir, config, client))
}

fn default_device_name() -> String {
    ["USER", "LOGNAME", "USERNAME"]
        .iter()
        .filter_map(|v| std::env::var(v).ok())
        .find(|name| validate_name("device name", name).is_ok())
        .unwrap_or_else(|| "device".to_owned())
}

fn pair(args: PairArgs) -> Outcome {
    let device = args.name.unwrap_or_else(default_device_name);
    validate_name("device name", &device).map_err(usage)?;
    let dir = client_dir()?;
    let paired = runtime()?
        .block_on(HubClient::pair(&args.hub_url, &args.code, &device))
        .map_err(fail)?;
    let mut config = ClientConfig::new(
        args.hub_url.trim(),
        paired.device.clone(),
        paired.device_id,
        paired.token,
    );
    config.inbox = args.inbox.map(absolute);
    let path = config.save(&dir).map_err(fail)?;
    out(&format!(
        "paired with {} as device {:?}; config saved to {}",
        config.hub_url,
        paired.device,
        path.display()
    ))
}

fn absolute(path: PathBuf) -> PathBuf {
    std::path::absolute(&path).unwrap_or(path)
}

fn describe(agent: &AgentInfo) -> String {
    let mut text = agent.agent.clone();
    if let Some(project) = &agent.project {
        text.push_str(&format!(" [{project}]"));
    }
    if let Some(description) = &agent.description {
        text.push_str(&format!(" — {description}"));
    }
    text
}

fn connect(args: ConnectArgs) -> Outcome {
    let (dir, config, client) = load_client()?;
    let inbox_path = args
        .inbox
        .map(absolute)
        .unwrap_or_else(|| config.inbox_path(&dir));
    let registration = Registration {
        name: args.name,
        owner: args.owner,
        project: args.project,
        description: args.description,
    };
    let owner = registration.owner.clone().unwrap_or(config.device.clone());
    crate::identity::Identity::new(owner, registration.name.clone()).map_err(usage)?;
    let inbox = Inbox::new(&inbox_path);
    let mut write_failed = None;
    let result = runtime()?.block_on(listen(
        &client,
        &registration,
        inbox,
        |event| match event {
            ListenEvent::Message(message) => match serde_json::to_string(&message) {
                Ok(line) => {
                    if let Err(e) = out(&line) {
                        write_failed.get_or_insert(e.message);
                    }
                }
                Err(e) => eprintln!("tnsai: cannot print message {}: {e}", message.id()),
            },
            ListenEvent::Connected(registered) => {
                eprintln!(
                    "tnsai: connected to {} as {}; {} queued message(s); inbox {}",
                    config.hub_url,
                    registered.agent.agent,
                    registered.pending,
                    inbox_path.display()
                );
                if registered.online.is_empty() {
                    eprintln!("tnsai: no other agents online");
                }
                for agent in &registered.online {
                    eprintln!("tnsai: online: {}", describe(agent));
                }
            }
            ListenEvent::Presence { event, agent } => {
                let what = match event {
                    PresenceEvent::Online => "online",
                    PresenceEvent::Offline => "offline",
                };
                eprintln!("tnsai: {what}: {}", describe(&agent));
            }
            ListenEvent::Disconnected { reason, retry_in } => {
                eprintln!(
                    "tnsai: disconnected ({reason}); retrying in {} ms",
                    retry_in.as_millis()
                );
            }
            _ => {}
        },
        stop_signal(),
    ));
    match result {
        Ok(()) => Ok(()),
        Err(ListenError::Replaced) => Err(Failed {
            code: 3,
            message: "a newer connection registered this agent; exiting".into(),
        }),
        Err(e) => Err(fail(e)),
    }
}

fn send(args: SendArgs) -> Outcome {
    let content = if args.content == "-" {
        let mut text = String::new();
        io::Read::read_to_string(&mut io::stdin(), &mut text)
            .map_err(|e| usage(format!("cannot read the content from stdin: {e}")))?;
        text
    } else {
        args.content
    };
    let context = match args.context {
        None => None,
        Some(text) => match serde_json::from_str::<Value>(&text) {
            Ok(Value::Object(map)) => Some(map),
            Ok(_) => {
                return Err(usage(
                    "--context must be a JSON object, such as '{\"commit\": \"abc\"}'",
                ));
            }
            Err(e) => return Err(usage(format!("--context is not valid JSON: {e}"))),
        },
    };
    let (_, _, client) = load_client()?;
    let request = SendRequest {
        to: args.to,
        content,
        context,
        from: args.from,
    };
    let receipt = runtime()?.block_on(client.send(&request)).map_err(fail)?;
    for dropped in &receipt.dropped {
        eprintln!(
            "tnsai: warning: {}'s queue was full; dropped the oldest message {} from {}",
            dropped.recipient, dropped.id, dropped.sender
        );
    }
    let line = serde_json::to_string(&receipt).map_err(fail)?;
    out(&line)
}

fn list(args: ListArgs) -> Outcome {
    let (_, _, client) = load_client()?;
    let agents = runtime()?
        .block_on(client.list(args.project.as_deref()))
        .map_err(fail)?;
    if args.json {
        return out(&serde_json::to_string(&agents).map_err(fail)?);
    }
    if agents.is_empty() {
        eprintln!("tnsai: no agents online");
        return Ok(());
    }
    out(&format!(
        "{:<12} {:<20} {:<12} {:<12} DESCRIPTION",
        "OWNER", "NAME", "PROJECT", "DEVICE"
    ))?;
    for a in agents {
        out(&format!(
            "{:<12} {:<20} {:<12} {:<12} {}",
            a.owner,
            a.name,
            a.project.as_deref().unwrap_or("-"),
            a.device,
            a.description.as_deref().unwrap_or("")
        ))?;
    }
    Ok(())
}

fn inbox_path(explicit: Option<PathBuf>) -> Result<PathBuf, Failed> {
    if let Some(path) = explicit {
        return Ok(path);
    }
    let dir = client_dir()?;
    match ClientConfig::load(&dir) {
        Ok(config) => Ok(config.inbox_path(&dir)),
        // Reading needs no pairing: an unpaired device just has the default inbox.
        Err(e) if e.kind() == crate::config::ConfigErrorKind::NotPaired => {
            Ok(dir.join("inbox.jsonl"))
        }
        Err(e) => Err(fail(e)),
    }
}

fn show(inbox: &Inbox, from: u64) -> Result<u64, Failed> {
    let batch = inbox.read_from(from).map_err(fail)?;
    for message in &batch.messages {
        out(&serde_json::to_string(message).map_err(fail)?)?;
    }
    if batch.skipped > 0 {
        eprintln!(
            "tnsai: skipped {} line(s) of {} that are not messages",
            batch.skipped,
            inbox.path().display()
        );
    }
    inbox.set_read_mark(batch.end).map_err(fail)?;
    Ok(batch.end)
}

fn inbox(args: InboxArgs) -> Outcome {
    let inbox = Inbox::new(inbox_path(args.inbox)?);
    let start = if args.unread {
        inbox.read_mark().map_err(fail)?
    } else {
        0
    };
    let mut at = show(&inbox, start)?;
    if !args.follow {
        return Ok(());
    }
    loop {
        std::thread::sleep(Duration::from_millis(200));
        let len = std::fs::metadata(inbox.path()).map_or(0, |m| m.len());
        if len != at {
            at = show(&inbox, if len < at { 0 } else { at })?;
        }
    }
}

/// Every command, for the test that checks each one has `--help`.
#[cfg(test)]
pub(crate) fn command_paths() -> Vec<Vec<&'static str>> {
    vec![
        vec![],
        vec!["hub"],
        vec!["hub", "serve"],
        vec!["hub", "invite"],
        vec!["hub", "revoke"],
        vec!["hub", "devices"],
        vec!["pair"],
        vec!["connect"],
        vec!["send"],
        vec!["list"],
        vec!["inbox"],
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;
    use std::path::Path;

    #[test]
    fn every_command_has_help() {
        Cli::command().debug_assert();
        for path in command_paths() {
            let mut args = vec!["tnsai"];
            args.extend(&path);
            args.push("--help");
            let err = Cli::try_parse_from(&args).unwrap_err();
            assert_eq!(err.kind(), clap::error::ErrorKind::DisplayHelp, "{path:?}");
            assert!(err.to_string().contains("Usage"), "{path:?}");
        }
    }

    #[test]
    fn defaults_match_the_issue() {
        let cli = Cli::try_parse_from(["tnsai", "hub", "serve"]).unwrap();
        let Command::Hub {
            command: HubCommand::Serve(args),
        } = cli.command
        else {
            panic!("parsed {cli:?}");
        };
        assert_eq!(args.listen, "127.0.0.1:7700");
        assert_eq!(args.queue_cap, 100);
        assert_eq!(args.queue_age, Duration::from_secs(86400));
        let cli = Cli::try_parse_from(["tnsai", "hub", "invite"]).unwrap();
        let Command::Hub {
            command: HubCommand::Invite(args),
        } = cli.command
        else {
            panic!("parsed {cli:?}");
        };
        assert_eq!(args.ttl, Duration::from_secs(3600));
        assert!(Cli::try_parse_from(["tnsai", "send", "--to", "a/b"]).is_err());
        assert!(Cli::try_parse_from(["tnsai", "hub", "invite", "--ttl", "soon"]).is_err());
    }

    #[test]
    fn inbox_falls_back_to_an_explicit_path() {
        let path = Path::new("/tmp/x.jsonl").to_path_buf();
        assert_eq!(inbox_path(Some(path.clone())).ok(), Some(path));
    }
}
