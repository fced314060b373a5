//! End-to-end runs of the real `tnsai` binary: a hub process and one config directory
//! per developer machine, as in the two-developer scenario.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;

const PATIENCE: Duration = Duration::from_secs(30);

/// A child process killed (and reaped) when dropped, with its output lines on channels.
struct Proc {
    child: Child,
    stdout: mpsc::Receiver<String>,
    stderr: mpsc::Receiver<String>,
    seen: Vec<String>,
}

fn pipe_lines(pipe: impl std::io::Read + Send + 'static) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(pipe).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

impl Proc {
    fn spawn(mut command: Command) -> Self {
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = pipe_lines(child.stdout.take().unwrap());
        let stderr = pipe_lines(child.stderr.take().unwrap());
        Self {
            child,
            stdout,
            stderr,
            seen: Vec::new(),
        }
    }

    fn wait_line(&mut self, stdout: bool, what: &str, matches: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let pipe = if stdout { &self.stdout } else { &self.stderr };
            match pipe.recv_timeout(left) {
                Ok(line) => {
                    self.seen.push(line.clone());
                    if matches(&line) {
                        return line;
                    }
                }
                Err(_) => panic!("no line {what}; saw {:#?}", self.seen),
            }
        }
    }

    fn stdout_line(&mut self, what: &str, matches: impl Fn(&str) -> bool) -> String {
        self.wait_line(true, what, matches)
    }

    fn stderr_line(&mut self, what: &str, matches: impl Fn(&str) -> bool) -> String {
        self.wait_line(false, what, matches)
    }

    fn exit_code(&mut self) -> Option<i32> {
        let deadline = Instant::now() + PATIENCE;
        while Instant::now() < deadline {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.code();
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("process did not exit; saw {:#?}", self.seen);
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One developer machine: its own HOME and config directory.
struct Machine {
    home: PathBuf,
}

impl Machine {
    fn new(root: &Path, name: &str) -> Self {
        let home = root.join(name);
        std::fs::create_dir_all(&home).unwrap();
        Self { home }
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_tnsai"));
        command
            .args(args)
            .env("HOME", &self.home)
            .env("XDG_CONFIG_HOME", self.home.join(".config"))
            .env("XDG_DATA_HOME", self.home.join(".local/share"))
            .env_remove("RUST_LOG");
        command
    }

    fn run(&self, args: &[&str]) -> Output {
        self.command(args).stdin(Stdio::null()).output().unwrap()
    }

    fn spawn(&self, args: &[&str]) -> Proc {
        Proc::spawn(self.command(args))
    }

    fn config_dir(&self) -> PathBuf {
        self.home.join(".config").join("tnsai")
    }
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn ok(output: Output) -> String {
    assert!(
        output.status.success(),
        "failed: {}\n{}",
        stdout(&output),
        stderr(&output)
    );
    stdout(&output)
}

fn refused(output: Output, code: &str) {
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(
        stderr(&output).contains(code),
        "expected {code}: {}",
        stderr(&output)
    );
}

struct HubProc {
    proc: Proc,
    url: String,
}

fn serve(admin: &Machine, data: &Path, listen: &str) -> HubProc {
    let data = data.to_str().unwrap();
    let mut proc = admin.spawn(&["hub", "serve", "--listen", listen, "--data", data]);
    let line = proc.stdout_line("with the hub's address", |l| l.contains("listening on"));
    let url = line
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .unwrap()
        .to_owned();
    HubProc { proc, url }
}

fn invite(admin: &Machine, data: &Path, ttl: &str) -> String {
    let out = ok(admin.run(&[
        "hub",
        "invite",
        "--data",
        data.to_str().unwrap(),
        "--ttl",
        ttl,
    ]));
    let code = out.trim().to_owned();
    assert_eq!(out, format!("{code}\n"), "only the code on stdout");
    assert_eq!(code.len(), 18, "{code}");
    code
}

fn connected(proc: &mut Proc) {
    proc.stderr_line("saying it connected", |l| l.contains("connected to"));
}

#[test]
fn two_developers_pair_connect_send_list_read_replace_and_revoke() {
    let root = tempfile::tempdir().unwrap();
    let data = root.path().join("hub-data");
    let admin = Machine::new(root.path(), "admin");
    let alice = Machine::new(root.path(), "alice");
    let bob = Machine::new(root.path(), "bob");
    let mut hub = serve(&admin, &data, "127.0.0.1:0");
    let url = hub.url.clone();

    // Pairing: a code works once, an expired one never.
    let code = invite(&admin, &data, "1h");
    let paired = ok(alice.run(&["pair", &url, &code, "--name", "alice"]));
    assert!(paired.contains("paired with"), "{paired}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let config = alice.config_dir().join("config.json");
        let mode = std::fs::metadata(&config).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    refused(
        bob.run(&["pair", &url, &code, "--name", "bob"]),
        "invite_used",
    );
    let short = invite(&admin, &data, "1ms");
    std::thread::sleep(Duration::from_millis(50));
    refused(
        bob.run(&["pair", &url, &short, "--name", "bob"]),
        "invite_expired",
    );
    let code = invite(&admin, &data, "1h");
    ok(bob.run(&["pair", &url, &code, "--name", "bob"]));

    // A device with no agent cannot send.
    refused(
        alice.run(&["send", "--to", "bob/backend-agent", "--content", "hi"]),
        "no_agent",
    );

    let mut backend = bob.spawn(&[
        "connect",
        "--name",
        "backend-agent",
        "--project",
        "backend",
        "--description",
        "Owns the REST backend",
    ]);
    connected(&mut backend);
    let mut sdk = alice.spawn(&["connect", "--name", "sdk-agent", "--project", "sdk"]);
    connected(&mut sdk);
    backend.stderr_line("announcing alice's agent", |l| {
        l.contains("online: alice/sdk-agent [sdk]")
    });

    // Live delivery: the receipt says live; bob's connect prints the message and
    // appends it to inbox.jsonl.
    let receipt = ok(alice.run(&[
        "send",
        "--to",
        "bob/backend-agent",
        "--content",
        "Client::fetch is now Client::get; fetch stays as an alias",
        "--context",
        r#"{"commit": "abc123", "breaking": false}"#,
    ]));
    let receipt: Value = serde_json::from_str(receipt.trim()).unwrap();
    assert_eq!(receipt["status"], "live");
    assert_eq!(receipt["sender"], "alice/sdk-agent");
    let id = receipt["id"].as_str().unwrap().to_owned();
    let printed = backend.stdout_line("with the message", |l| l.contains(&id));
    let message: Value = serde_json::from_str(&printed).unwrap();
    assert_eq!(message["kind"], "text");
    assert_eq!(message["sender"], "alice/sdk-agent");
    assert_eq!(message["receiver"], "bob/backend-agent");
    assert_eq!(message["context"]["commit"], "abc123");
    let inbox = std::fs::read_to_string(bob.config_dir().join("inbox.jsonl")).unwrap();
    assert_eq!(inbox.lines().filter(|l| l.contains(&id)).count(), 1);

    // The local inbox: --unread shows it once.
    let unread = ok(bob.run(&["inbox", "--unread"]));
    assert_eq!(unread.lines().count(), 1);
    assert!(unread.contains(&id));
    assert_eq!(ok(bob.run(&["inbox", "--unread"])), "");
    assert_eq!(ok(bob.run(&["inbox"])).lines().count(), 1);

    // Listing.
    let table = ok(alice.run(&["list", "--project", "backend"]));
    assert!(
        table.lines().any(|l| l.starts_with("bob")
            && l.contains("backend-agent")
            && l.contains("Owns the REST backend")),
        "{table}"
    );
    assert!(!table.contains("sdk-agent"), "{table}");
    let all: Value = serde_json::from_str(&ok(alice.run(&["list", "--json"]))).unwrap();
    assert_eq!(all.as_array().unwrap().len(), 2);

    // The --from rules and bad input.
    refused(
        alice.run(&[
            "send",
            "--to",
            "bob/backend-agent",
            "--content",
            "x",
            "--from",
            "backend-agent",
        ]),
        "not_your_agent",
    );
    let bad = alice.run(&[
        "send",
        "--to",
        "bob/backend-agent",
        "--content",
        "x",
        "--context",
        "[1]",
    ]);
    assert_eq!(bad.status.code(), Some(2), "{}", stderr(&bad));
    let mut docs = alice.spawn(&["connect", "--name", "docs-agent"]);
    connected(&mut docs);
    refused(
        alice.run(&["send", "--to", "bob/backend-agent", "--content", "x"]),
        "from_required",
    );
    let from_docs = ok(alice.run(&[
        "send",
        "--to",
        "bob/backend-agent",
        "--content",
        "from docs",
        "--from",
        "docs-agent",
    ]));
    assert!(
        from_docs.contains("\"sender\":\"alice/docs-agent\""),
        "{from_docs}"
    );
    backend.stdout_line("with the docs message", |l| l.contains("from docs"));

    // Same-name replacement: the first connect exits (code 3), the second receives.
    let mut backend2 = bob.spawn(&["connect", "--name", "backend-agent", "--project", "backend"]);
    connected(&mut backend2);
    assert_eq!(backend.exit_code(), Some(3));
    let replaced = ok(alice.run(&[
        "send",
        "--to",
        "bob/backend-agent",
        "--content",
        "after replacement",
        "--from",
        "sdk-agent",
    ]));
    assert!(replaced.contains("\"status\":\"live\""), "{replaced}");
    backend2.stdout_line("with the message after replacement", |l| {
        l.contains("after replacement")
    });

    // Revocation mid-connection: bob's connect ends and his token stops working.
    let revoked = ok(admin.run(&["hub", "revoke", "--data", data.to_str().unwrap(), "bob"]));
    assert!(revoked.starts_with("revoked device bob"), "{revoked}");
    assert_eq!(backend2.exit_code(), Some(1));
    backend2.stderr_line("saying why", |l| l.contains("revoked"));
    refused(
        bob.run(&["send", "--to", "alice/sdk-agent", "--content", "x"]),
        "device_revoked",
    );
    refused(
        admin.run(&["hub", "revoke", "--data", data.to_str().unwrap(), "bob"]),
        "no active device",
    );
    let devices = ok(admin.run(&["hub", "devices", "--data", data.to_str().unwrap()]));
    assert!(
        devices
            .lines()
            .any(|l| l.starts_with("bob") && l.contains("revoked")),
        "{devices}"
    );
    drop(docs);
    drop(sdk);
    // Every refusal above left the hub running.
    assert!(
        hub.proc.child.try_wait().unwrap().is_none(),
        "the hub is still up"
    );
}

#[test]
fn queued_messages_survive_a_hub_crash_and_clients_reconnect() {
    let root = tempfile::tempdir().unwrap();
    let data = root.path().join("hub-data");
    let admin = Machine::new(root.path(), "admin");
    let alice = Machine::new(root.path(), "alice");
    let bob = Machine::new(root.path(), "bob");
    let hub = serve(&admin, &data, "127.0.0.1:0");
    let url = hub.url.clone();
    for (machine, name) in [(&alice, "alice"), (&bob, "bob")] {
        let code = invite(&admin, &data, "1h");
        ok(machine.run(&["pair", &url, &code, "--name", name]));
    }
    // Bob's agent registers once, then its machine goes offline.
    let mut backend = bob.spawn(&["connect", "--name", "backend-agent"]);
    connected(&mut backend);
    drop(backend);
    let mut sdk = alice.spawn(&["connect", "--name", "sdk-agent"]);
    connected(&mut sdk);
    let receipt = ok(alice.run(&[
        "send",
        "--to",
        "bob/backend-agent",
        "--content",
        "while you were away",
    ]));
    assert!(receipt.contains("\"status\":\"queued\""), "{receipt}");

    // The hub crashes (SIGKILL) and comes back on the same port and data.
    let addr = url.trim_start_matches("http://").to_owned();
    drop(hub);
    let _hub = serve(&admin, &data, &addr);

    // Alice's connect notices and reconnects by itself.
    sdk.stderr_line("saying it lost the hub", |l| l.contains("disconnected"));
    connected(&mut sdk);
    let mut follow = bob.spawn(&["inbox", "--unread", "--follow"]);
    let mut backend = bob.spawn(&["connect", "--name", "backend-agent"]);
    let hello = backend.stderr_line("saying it connected", |l| l.contains("connected to"));
    assert!(hello.contains("1 queued message(s)"), "{hello}");
    let printed = backend.stdout_line("with the queued message", |l| {
        l.contains("while you were away")
    });
    let message: Value = serde_json::from_str(&printed).unwrap();
    assert_eq!(message["sender"], "alice/sdk-agent");
    // `inbox --follow` shows it from the file, without asking the hub.
    let followed = follow.stdout_line("following the inbox", |l| l.contains("while you were away"));
    assert_eq!(followed, printed);
}
