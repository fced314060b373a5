//! Connecting a platform: the client, the buckets and the stream, and the background
//! tasks (answers, discovery watches, heartbeat, deadlines, connection events).

use std::sync::Arc;
use std::time::{Duration, Instant};

use async_nats::jetstream::{self, kv, stream};
use async_nats::{ConnectErrorKind, ConnectOptions, Event};
use futures_util::StreamExt;
use tokio::sync::mpsc;

use super::config::{NatsAuth, NatsConfig};
use super::discovery::RemoteDirectory;
use super::error::{NatsConnectError, NatsConnectErrorKind};
use super::subject;
use super::transport::{Inner, NatsTransport, Parts};
use crate::Platform;

impl Platform {
    /// Connects this platform to a NATS server and adds the [`NatsTransport`] to it: the
    /// platform's agents are announced (and every agent spawned later), agents of other
    /// platforms are discovered, and messages to them travel through NATS.
    ///
    /// ```no_run
    /// use tnsai_coordination::Platform;
    /// use tnsai_coordination::transport::nats::NatsConfig;
    ///
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// let platform = Platform::new();
    /// let nats = platform.connect_nats(NatsConfig::new("nats://127.0.0.1:4222")).await?;
    /// println!("platform {} on NATS", nats.platform_id());
    /// platform.shutdown().await; // withdraws the announcements and closes the connection
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// [`NatsConnectError`]: see its [kinds](NatsConnectErrorKind).
    pub async fn connect_nats(
        &self,
        config: NatsConfig,
    ) -> Result<NatsTransport, NatsConnectError> {
        NatsTransport::connect(self, config).await
    }
}

impl NatsTransport {
    /// Connects `platform` to NATS and adds the transport to it; the same as
    /// [`Platform::connect_nats`].
    ///
    /// # Errors
    ///
    /// [`NatsConnectError`]: see its [kinds](NatsConnectErrorKind).
    pub async fn connect(
        platform: &Platform,
        config: NatsConfig,
    ) -> Result<NatsTransport, NatsConnectError> {
        validate(&config)?;
        if platform.is_shut_down() {
            return Err(NatsConnectError::new(
                NatsConnectErrorKind::PlatformShutDown,
                "the platform has been shut down",
            ));
        }
        let (events, event_rx) = mpsc::unbounded_channel();
        let options = options(&config, events).await?;
        let client = options
            .connect(config.servers.clone())
            .await
            .map_err(|error| {
                let kind = match error.kind() {
                    ConnectErrorKind::AuthorizationViolation | ConnectErrorKind::Authentication => {
                        NatsConnectErrorKind::Authorization
                    }
                    _ => NatsConnectErrorKind::Connection,
                };
                NatsConnectError::new(
                    kind,
                    scrub(
                        &config,
                        &format!("could not connect to {}: {error}", servers(&config)),
                    ),
                )
            })?;
        let jetstream = jetstream::new(client.clone());
        let discovery = open_bucket(
            &jetstream,
            &config.discovery_bucket,
            config.discovery_ttl,
            "live announcements of tnsai agents",
        )
        .await?;
        let registry = open_bucket(
            &jetstream,
            &config.durable_bucket,
            Duration::ZERO,
            "durable inboxes of tnsai agents",
        )
        .await?;
        let stream = super::durable::open_stream(&jetstream, &config)
            .await
            .map_err(|message| NatsConnectError::new(NatsConnectErrorKind::JetStream, message))?;
        let platform_id = uuid::Uuid::now_v7().simple().to_string();
        let replies = client
            .subscribe(super::subject::Subjects::new(&config.prefix).replies(&platform_id))
            .await
            .map_err(|error| {
                NatsConnectError::new(
                    NatsConnectErrorKind::Subscription,
                    format!("could not subscribe to the platform's reply subject: {error}"),
                )
            })?;
        let transport = NatsTransport::from_parts(Parts {
            platform_id,
            config,
            client,
            jetstream,
            discovery,
            registry,
            stream,
            platform: platform.clone(),
        });
        let inner = Arc::clone(&transport.inner);
        load(&inner.discovery, &inner.directory, Bucket::Announcements).await?;
        load(&inner.registry, &inner.directory, Bucket::Registrations).await?;
        transport.add_background(tokio::spawn(super::inbound::serve_replies(
            Arc::clone(&inner),
            replies,
        )));
        transport.add_background(tokio::spawn(watch(
            Arc::clone(&inner),
            Bucket::Announcements,
        )));
        transport.add_background(tokio::spawn(watch(
            Arc::clone(&inner),
            Bucket::Registrations,
        )));
        transport.add_background(tokio::spawn(heartbeat(Arc::clone(&inner))));
        transport.add_background(tokio::spawn(sweep(Arc::clone(&inner))));
        transport.add_background(tokio::spawn(follow_events(Arc::clone(&inner), event_rx)));
        if let Err(error) = inner.client.flush().await {
            return Err(NatsConnectError::new(
                NatsConnectErrorKind::Connection,
                format!("the connection failed while subscribing: {error}"),
            ));
        }
        platform.add_transport(Arc::new(transport.clone()));
        // Agents spawned before the connection; those spawned from now on are announced
        // by the platform (a join is idempotent, so a race between the two is harmless).
        for description in platform.descriptions() {
            inner.join(description).await;
        }
        tracing::info!(platform_id = %inner.platform_id, servers = %servers(&inner.config), "platform connected to NATS");
        Ok(transport)
    }
}

fn validate(config: &NatsConfig) -> Result<(), NatsConnectError> {
    let invalid = |message: String| {
        Err(NatsConnectError::new(
            NatsConnectErrorKind::InvalidConfig,
            message,
        ))
    };
    if config.servers.is_empty() {
        return invalid("no NATS server URL was given".to_owned());
    }
    if !subject::is_valid_prefix(&config.prefix) {
        return invalid(format!(
            "subject prefix `{}` must be dot-separated tokens of [A-Za-z0-9_-]",
            config.prefix
        ));
    }
    for (what, name) in [
        ("discovery bucket", &config.discovery_bucket),
        ("durable bucket", &config.durable_bucket),
        ("durable stream", &config.durable_stream),
    ] {
        if !subject::is_valid_name(name) {
            return invalid(format!(
                "{what} name `{name}` must be made of [A-Za-z0-9_-]"
            ));
        }
    }
    if config.heartbeat.is_zero() {
        return invalid("the heartbeat must be longer than zero".to_owned());
    }
    if config.discovery_ttl <= config.heartbeat {
        return invalid(format!(
            "the discovery TTL ({:?}) must exceed the heartbeat ({:?}), or announcements expire between renewals",
            config.discovery_ttl, config.heartbeat
        ));
    }
    Ok(())
}

fn servers(config: &NatsConfig) -> String {
    config
        .servers
        .iter()
        .map(|s| super::config::redact_url(s))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Removes every secret of `config` from a text (error texts of the client may quote
/// what they were given).
fn scrub(config: &NatsConfig, text: &str) -> String {
    let mut secrets: Vec<&str> = Vec::new();
    match &config.auth {
        NatsAuth::Token(token) => secrets.push(token),
        NatsAuth::UserPassword { password, .. } => secrets.push(password),
        NatsAuth::NKeySeed(seed) => secrets.push(seed),
        NatsAuth::None | NatsAuth::CredentialsFile(_) => {}
    }
    for server in &config.servers {
        if let Some((_, rest)) = server.split_once("://")
            && let Some((userinfo, _)) = rest.split_once('@')
        {
            secrets.push(
                userinfo
                    .split_once(':')
                    .map_or(userinfo, |(_, password)| password),
            );
        }
    }
    let mut text = text.to_owned();
    for secret in secrets.into_iter().filter(|s| !s.is_empty()) {
        text = text.replace(secret, "<redacted>");
    }
    text
}

async fn options(
    config: &NatsConfig,
    events: mpsc::UnboundedSender<Event>,
) -> Result<ConnectOptions, NatsConnectError> {
    let mut options = match &config.auth {
        NatsAuth::None => ConnectOptions::new(),
        NatsAuth::Token(token) => ConnectOptions::with_token(token.clone()),
        NatsAuth::UserPassword { user, password } => {
            ConnectOptions::with_user_and_password(user.clone(), password.clone())
        }
        NatsAuth::NKeySeed(seed) => ConnectOptions::with_nkey(seed.clone()),
        NatsAuth::CredentialsFile(path) => ConnectOptions::with_credentials_file(path)
            .await
            .map_err(|error| {
                NatsConnectError::new(
                    NatsConnectErrorKind::InvalidConfig,
                    format!(
                        "could not read the credentials file {}: {error}",
                        path.display()
                    ),
                )
            })?,
    };
    options = options
        .connection_timeout(config.connection_timeout)
        // Request inboxes under the deployment's prefix, so one permission covers them.
        .custom_inbox_prefix(format!("{}.inbox", config.prefix))
        .event_callback(move |event| {
            let events = events.clone();
            async move {
                // The transport may be gone; then nobody needs the event.
                let _ = events.send(event);
            }
        });
    if let Some(name) = &config.client_name {
        options = options.name(name);
    }
    let tls = &config.tls;
    if tls.required {
        options = options.require_tls(true);
    }
    if tls.first {
        options = options.tls_first();
    }
    for root in &tls.root_certificates {
        options = options.add_root_certificates(root.clone());
    }
    if let Some((certificate, key)) = &tls.client_certificate {
        options = options.add_client_certificate(certificate.clone(), key.clone());
    }
    Ok(options)
}

/// Opens a KV bucket, creating it when it does not exist (another platform may create
/// it at the same moment: then the second open finds it). `max_age` zero keeps entries.
///
/// The bucket's stream is created here with the settings async-nats's
/// `create_key_value` uses, because that call first reads the account's JetStream
/// limits in a shape the server from Debian 12 (nats-server 2.9) does not send.
async fn open_bucket(
    jetstream: &jetstream::Context,
    bucket: &str,
    max_age: Duration,
    description: &str,
) -> Result<kv::Store, NatsConnectError> {
    if let Ok(store) = jetstream.get_key_value(bucket).await {
        return Ok(store);
    }
    let created = jetstream
        .create_stream(stream::Config {
            name: format!("KV_{bucket}"),
            description: Some(description.to_owned()),
            subjects: vec![format!("$KV.{bucket}.>")],
            max_messages_per_subject: 1,
            max_age,
            storage: stream::StorageType::File,
            allow_rollup: true,
            deny_delete: true,
            allow_direct: true,
            discard: stream::DiscardPolicy::New,
            num_replicas: 1,
            ..Default::default()
        })
        .await;
    match created {
        Ok(_) => {}
        Err(error) if jetstream.get_key_value(bucket).await.is_err() => {
            return Err(NatsConnectError::new(
                NatsConnectErrorKind::JetStream,
                format!(
                    "could not create the KV bucket `{bucket}` (is JetStream enabled? start the server with `nats-server -js`): {error}"
                ),
            ));
        }
        Err(_) => {}
    }
    jetstream.get_key_value(bucket).await.map_err(|error| {
        NatsConnectError::new(
            NatsConnectErrorKind::JetStream,
            format!("could not open the KV bucket `{bucket}`: {error}"),
        )
    })
}

#[derive(Clone, Copy)]
enum Bucket {
    Announcements,
    Registrations,
}

fn apply(directory: &RemoteDirectory, bucket: Bucket, key: &str, op: kv::Operation, value: &[u8]) {
    match bucket {
        Bucket::Announcements => directory.apply_announcement(key, op, value),
        Bucket::Registrations => directory.apply_registration(key, op, value),
    }
}

/// Reads a bucket's current entries, so that discovery is complete when `connect`
/// returns.
async fn load(
    store: &kv::Store,
    directory: &RemoteDirectory,
    bucket: Bucket,
) -> Result<(), NatsConnectError> {
    let failed = |error: String| {
        NatsConnectError::new(
            NatsConnectErrorKind::JetStream,
            format!("could not read the KV bucket `{}`: {error}", store.name),
        )
    };
    let mut keys = store.keys().await.map_err(|e| failed(e.to_string()))?;
    let mut names = Vec::new();
    while let Some(key) = keys.next().await {
        names.push(key.map_err(|e| failed(e.to_string()))?);
    }
    for key in names {
        // A key deleted in between is simply gone.
        if let Ok(Some(entry)) = store.entry(key.clone()).await {
            apply(directory, bucket, &key, entry.operation, &entry.value);
        }
    }
    Ok(())
}

/// Follows a bucket's changes; a watch that ends (the server restarted, say) is opened
/// again, replaying the current entries.
async fn watch(inner: Arc<Inner>, bucket: Bucket) {
    let store = match bucket {
        Bucket::Announcements => inner.discovery.clone(),
        Bucket::Registrations => inner.registry.clone(),
    };
    loop {
        match store.watch_with_history(">").await {
            Ok(mut entries) => {
                while let Some(entry) = entries.next().await {
                    match entry {
                        Ok(entry) => apply(
                            &inner.directory,
                            bucket,
                            &entry.key,
                            entry.operation,
                            &entry.value,
                        ),
                        Err(error) => {
                            tracing::warn!(bucket = %store.name, %error, "discovery watch failed; reopening it");
                            break;
                        }
                    }
                }
            }
            Err(error) => {
                tracing::warn!(bucket = %store.name, %error, "could not watch the discovery bucket; retrying");
            }
        }
        if !inner.is_started() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// Renews this platform's announcements and forgets remote agents that were not renewed
/// within the TTL, once per heartbeat (and at once after a reconnect).
async fn heartbeat(inner: Arc<Inner>) {
    let mut ticks = tokio::time::interval(inner.config.heartbeat);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = ticks.tick() => {}
            () = inner.renew_now.notified() => {}
        }
        inner.renew().await;
        inner.directory.prune(Instant::now());
    }
}

/// Ends calls whose answer is overdue and forgets routes nobody will use.
async fn sweep(inner: Arc<Inner>) {
    let period = inner.config.heartbeat.min(Duration::from_millis(250));
    let mut ticks = tokio::time::interval(period);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        let now = Instant::now();
        for answer in inner.calls.expire(now) {
            inner.deliver_answer(answer).await;
        }
        for route in inner.routes.expire(inner.config.route_retention, now) {
            if let Some(ack) = route.ack {
                // Delivered long ago and never answered (a message that needs no answer):
                // it is done.
                inner.routes.done(route.request.id());
                if let Err(error) = ack.ack().await {
                    tracing::debug!(%error, "could not ack an unanswered durable message");
                }
            }
        }
        let keep_seen = inner
            .config
            .route_retention
            .max(inner.config.duplicate_window);
        inner.routes.forget_seen(keep_seen, now);
    }
}

/// Reacts to the connection's events: a lost connection ends the calls it carried; a
/// new one renews the announcements at once.
async fn follow_events(inner: Arc<Inner>, mut events: mpsc::UnboundedReceiver<Event>) {
    while let Some(event) = events.recv().await {
        match event {
            Event::Disconnected => {
                tracing::warn!(platform_id = %inner.platform_id, "lost the connection to the NATS server; reconnecting");
                inner.disconnects.send_modify(|count| *count += 1);
                for answer in inner.calls.disconnected() {
                    inner.deliver_answer(answer).await;
                }
            }
            Event::Connected => {
                tracing::info!(platform_id = %inner.platform_id, "connected to the NATS server");
                inner.renew_now.notify_one();
            }
            Event::SlowConsumer(sid) => {
                tracing::warn!(
                    sid,
                    "a NATS subscription is too slow; the server may drop its messages"
                );
            }
            other => tracing::debug!(event = %other, "NATS connection event"),
        }
    }
}
