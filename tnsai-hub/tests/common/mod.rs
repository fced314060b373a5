//! Helpers shared by the integration tests: a hub on 127.0.0.1 port 0 in a temporary
//! directory, paired devices, and waiting with generous timeouts.
#![allow(dead_code, unreachable_pub)] // each test binary uses a different subset

use std::future::Future;
use std::path::PathBuf;
use std::time::Duration;

use tnsai_core::Message;
use tnsai_hub::client::{HubClient, Session, SessionError, SessionEvent};
use tnsai_hub::wire::{Registration, SendReceipt, SendRequest};
use tnsai_hub::{Hub, HubConfig, Limits, RunningHub};

/// Long enough for a loaded CI machine; only reached when something is wrong.
pub const PATIENCE: Duration = Duration::from_secs(20);

pub async fn within<T>(what: &str, future: impl Future<Output = T>) -> T {
    match tokio::time::timeout(PATIENCE, future).await {
        Ok(value) => value,
        Err(_) => panic!("timed out waiting for {what}"),
    }
}

/// Limits for tests: the defaults, but no rate limiting unless a test wants it.
pub fn test_limits() -> Limits {
    let mut limits = Limits::default();
    limits.rate_per_second = 1.0e6;
    limits.rate_burst = 1_000_000;
    limits.revocation_poll = Duration::from_millis(50);
    limits
}

pub struct TestHub {
    pub dir: tempfile::TempDir,
    pub running: Option<RunningHub>,
    pub limits: Limits,
}

impl TestHub {
    pub async fn start() -> Self {
        Self::with_limits(test_limits()).await
    }

    pub async fn with_limits(limits: Limits) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let running = start_on(dir.path().to_path_buf(), limits.clone(), "127.0.0.1:0").await;
        Self {
            dir,
            running: Some(running),
            limits,
        }
    }

    pub fn running(&self) -> &RunningHub {
        self.running.as_ref().expect("hub is running")
    }

    pub fn hub(&self) -> &Hub {
        self.running().hub()
    }

    pub fn url(&self) -> String {
        self.running().url()
    }

    /// Stops the hub and starts a new one on the same data directory and port.
    pub async fn restart(&mut self) {
        let old = self.running.take().expect("hub is running");
        let addr = old.local_addr().to_string();
        old.shutdown().await.unwrap();
        self.running =
            Some(start_on(self.dir.path().to_path_buf(), self.limits.clone(), &addr).await);
    }

    pub async fn device(&self, name: &str) -> HubClient {
        let code = self.hub().invite(Duration::from_secs(3600)).await.unwrap();
        let paired = HubClient::pair(&self.url(), &code.expose(), name)
            .await
            .unwrap();
        HubClient::new(&self.url(), paired.token).unwrap()
    }

    pub async fn shutdown(mut self) {
        if let Some(running) = self.running.take() {
            running.shutdown().await.unwrap();
        }
    }
}

async fn start_on(dir: PathBuf, limits: Limits, addr: &str) -> RunningHub {
    let hub = Hub::open(HubConfig::new(dir).with_limits(limits)).unwrap();
    hub.start(addr).await.unwrap()
}

pub fn registration(name: &str) -> Registration {
    Registration {
        name: name.into(),
        ..Registration::default()
    }
}

pub async fn session(client: &HubClient, name: &str) -> Session {
    within("registration", client.open_session(&registration(name)))
        .await
        .unwrap()
}

pub fn text(to: &str, content: &str) -> SendRequest {
    SendRequest {
        to: to.into(),
        content: content.into(),
        ..SendRequest::default()
    }
}

pub async fn send(client: &HubClient, to: &str, content: &str) -> SendReceipt {
    client.send(&text(to, content)).await.unwrap()
}

/// The next message on a session, skipping presence notices.
pub async fn next_message(session: &mut Session) -> Message {
    within("a message", async {
        loop {
            match session.next_event().await.unwrap() {
                SessionEvent::Message(message) => return message,
                _ => continue,
            }
        }
    })
    .await
}

/// How the session ends, skipping anything that arrives before.
pub async fn session_end(session: &mut Session) -> SessionError {
    within("the session to end", async {
        loop {
            if let Err(e) = session.next_event().await {
                return e;
            }
        }
    })
    .await
}
