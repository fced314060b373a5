//! The inbound side: the axum routes a platform serves.
//!
//! | route | what |
//! |---|---|
//! | `POST /agents/<id>` | an Agora request to a local agent |
//! | `POST /agents/<id>/conversations/<cid>` | a later turn of a multi-round conversation |
//! | `DELETE /agents/<id>/conversations/<cid>` | closes it |
//! | `GET /agents` | the agents this platform hosts ([`PlatformListing`]) |
//! | `GET /agents/<id>` | one of them ([`AgentEntry`]) |
//! | `GET /.wellknown`, `GET /wellknown` | `{"<protocol hash>": ["<source>", ...]}` |
//! | `GET /protocols/<hash>` | a protocol document's text |
//! | `POST /` | a broadcast or publication from another platform (tnsai protocol) |
//!
//! Errors are JSON (`{"status": "failure", "body": "<text>", "message": "<text>",
//! "error": "<code>"}`): 400 for malformed JSON or wrong field types, 401 without a
//! valid token, 404 for an unknown agent, conversation, protocol or route, 405 for a
//! wrong method, 413 for a body over the limit, 429 over the rate limit (with
//! `Retry-After`), 503 once the transport is stopped, 504 after the request timeout.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection};
use axum::extract::{
    ConnectInfo, DefaultBodyLimit, FromRequest, FromRequestParts, Path, Request, State,
};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::json;

use super::agora::{AgoraRequest, AgoraResponse};
use super::client::ORIGIN_HEADER;
use super::gateway::{Answered, TimedOut};
use super::listing::{AgentEntry, PlatformListing};
use super::protocols::{AgentProtocols, TNSAI_PROTOCOL, sources};
use super::transport::Shared;
use super::urls::agent_path;
use crate::Platform;

type Shared_ = State<Arc<Shared>>;

pub(crate) fn router(shared: Arc<Shared>) -> Router {
    let limit = shared.config.body_limit;
    let router = Router::new()
        .route("/", post(platform_request))
        .route("/.wellknown", get(wellknown))
        .route("/wellknown", get(wellknown))
        .route("/agents", get(listing))
        .route("/agents/{id}", post(agent_request).get(agent_entry))
        .route(
            "/agents/{id}/conversations/{conversation}",
            post(conversation_turn).delete(close_conversation),
        )
        .route("/protocols/{hash}", get(protocol_text))
        .fallback(unknown_route)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(DefaultBodyLimit::max(limit))
        .layer(super::oversized::RefuseOversizedLayer { limit });
    // Without tokens or a rate limit there is nothing to check per request, and the
    // layer's per-request boxing is measurable on the hot path.
    let router = if shared.config.require_tokens || shared.limiter.is_some() {
        router.layer(middleware::from_fn_with_state(Arc::clone(&shared), guard))
    } else {
        router
    };
    router.with_state(shared)
}

/// A request refused with a status and a JSON error (small, unlike a `Response`, so
/// that `Result`s carrying it stay cheap to move).
pub(crate) struct Refusal {
    status: StatusCode,
    code: &'static str,
    message: String,
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        let body = json!({
            "status": "failure",
            "body": self.message,
            "message": self.message,
            "error": self.code,
        });
        (self.status, Json(body)).into_response()
    }
}

fn refuse(status: StatusCode, code: &'static str, message: impl Into<String>) -> Refusal {
    Refusal {
        status,
        code,
        message: message.into(),
    }
}

/// A JSON error answer.
pub(crate) fn error(
    status: StatusCode,
    code: &'static str,
    message: impl Into<String>,
) -> Response {
    refuse(status, code, message).into_response()
}

/// Tokens and the rate limit, for every route.
async fn guard(State(shared): Shared_, request: Request, next: Next) -> Response {
    // Who is asking matters only for the token check and the rate limit.
    let needs_sender = shared.config.require_tokens || shared.limiter.is_some();
    let sender = if !needs_sender {
        String::new()
    } else if shared.config.require_tokens {
        let bearer = request
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| {
                v.strip_prefix("Bearer ")
                    .or_else(|| v.strip_prefix("bearer "))
            })
            .map(str::trim);
        match bearer.and_then(|b| shared.tokens.verify(b)) {
            Some(id) => format!("token:{id}"),
            None => {
                let mut response = error(
                    StatusCode::UNAUTHORIZED,
                    "unauthorized",
                    if bearer.is_some() {
                        "the bearer token is not valid"
                    } else {
                        "this platform requires `Authorization: Bearer <token>`"
                    },
                );
                response
                    .headers_mut()
                    .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
                return response;
            }
        }
    } else {
        request
            .extensions()
            .get::<ConnectInfo<SocketAddr>>()
            .map_or_else(|| "unknown".to_owned(), |c| format!("ip:{}", c.0.ip()))
    };
    if let Some(limiter) = &shared.limiter
        && let Err(wait) = limiter.check(&sender)
    {
        let mut response = error(
            StatusCode::TOO_MANY_REQUESTS,
            "rate_limited",
            format!("too many requests; try again in {} ms", wait.as_millis()),
        );
        let seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
        if let Ok(value) = HeaderValue::from_str(&seconds.max(1).to_string()) {
            response.headers_mut().insert(header::RETRY_AFTER, value);
        }
        return response;
    }
    next.run(request).await
}

fn timed_out(shared: &Shared) -> Refusal {
    refuse(
        StatusCode::GATEWAY_TIMEOUT,
        "timeout",
        format!(
            "the request was not served within {:?}",
            shared.config.request_timeout
        ),
    )
}

/// The answer as a response: 504 when it timed out. Requests are served within the
/// request timeout: reading the body (a body that trickles in counts), and each wait for
/// an agent. A timer only starts when something actually has to wait.
fn respond(shared: &Shared, answered: Answered) -> Result<Json<AgoraResponse>, Refusal> {
    answered.map(Json).map_err(|TimedOut| timed_out(shared))
}

/// A request's path parameters, `X-Tnsai-Origin` and Agora body, read inside the
/// timeout (a body that trickles in counts against it).
async fn read_parts<T>(
    shared: &Shared,
    request: Request,
) -> Result<(T, Option<String>, AgoraRequest), Refusal>
where
    T: serde::de::DeserializeOwned + Send,
{
    let timeout = shared.config.request_timeout;
    let (mut parts, body) = request.into_parts();
    let params = path(Path::<T>::from_request_parts(&mut parts, &()).await)?;
    let origin = origin(&parts.headers).map(str::to_owned);
    let body = Bytes::from_request(Request::from_parts(parts, body), &());
    // tokio polls the body first and arms the timer only if it is not all there yet.
    let body = tokio::time::timeout(timeout, body)
        .await
        .map_err(|_| timed_out(shared))?;
    Ok((params, origin, read_request(body)?))
}

fn live(shared: &Shared) -> Result<Platform, Refusal> {
    match shared.platform() {
        Some(platform) if shared.is_started() => Ok(platform),
        _ => Err(refuse(
            StatusCode::SERVICE_UNAVAILABLE,
            "not_started",
            "this platform's HTTP transport is stopped",
        )),
    }
}

fn read_request(body: Result<Bytes, BytesRejection>) -> Result<AgoraRequest, Refusal> {
    let bytes = body.map_err(|rejection| {
        if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
            refuse(
                StatusCode::PAYLOAD_TOO_LARGE,
                "too_large",
                "the request body is larger than this platform accepts",
            )
        } else {
            refuse(StatusCode::BAD_REQUEST, "bad_body", rejection.body_text())
        }
    })?;
    serde_json::from_slice(&bytes).map_err(|e| {
        let code = match e.classify() {
            serde_json::error::Category::Data => "invalid_request",
            _ => "malformed_json",
        };
        refuse(
            StatusCode::BAD_REQUEST,
            code,
            format!("not an Agora request: {e}"),
        )
    })
}

fn path<T>(path: Result<Path<T>, PathRejection>) -> Result<T, Refusal> {
    path.map(|Path(value)| value)
        .map_err(|rejection| refuse(StatusCode::BAD_REQUEST, "bad_path", rejection.body_text()))
}

fn unknown_agent(id: &str) -> Refusal {
    refuse(
        StatusCode::NOT_FOUND,
        "unknown_agent",
        format!("Unknown receiver: {id}"),
    )
}

fn origin(headers: &HeaderMap) -> Option<&str> {
    headers.get(ORIGIN_HEADER).and_then(|v| v.to_str().ok())
}

fn agent_protocols(
    shared: &Shared,
    platform: &Platform,
    id: &str,
) -> Result<Arc<AgentProtocols>, Refusal> {
    shared
        .protocols_of(platform, id)
        .ok_or_else(|| unknown_agent(id))
}

async fn agent_request(
    State(shared): Shared_,
    request: Request,
) -> Result<Json<AgoraResponse>, Refusal> {
    first_turn(&shared, request).await
}

async fn first_turn(shared: &Shared, request: Request) -> Result<Json<AgoraResponse>, Refusal> {
    let (id, origin, request) = read_parts::<String>(shared, request).await?;
    let platform = live(shared)?;
    let protocols = agent_protocols(shared, &platform, &id)?;
    let spoken = match shared.classify(&protocols, &request).await {
        Ok(spoken) => spoken,
        Err(answered) => return respond(shared, answered),
    };
    let conversation = request.multiround.then(|| {
        shared
            .conversations
            .open(protocols.description.id.clone(), spoken.clone())
    });
    let answer = shared
        .answer(
            &platform,
            &protocols,
            &spoken,
            &[],
            &request.body,
            origin.as_deref(),
            conversation.as_deref(),
        )
        .await;
    let answer = respond(shared, answer)?;
    Ok(match conversation {
        Some(conversation) => {
            shared
                .conversations
                .record(&conversation, request.body, answer.body.clone());
            Json(answer.0.with_conversation(conversation))
        }
        None => answer,
    })
}

async fn conversation_turn(
    State(shared): Shared_,
    request: Request,
) -> Result<Json<AgoraResponse>, Refusal> {
    later_turn(&shared, request).await
}

async fn later_turn(shared: &Shared, request: Request) -> Result<Json<AgoraResponse>, Refusal> {
    let ((id, conversation), origin, request) =
        read_parts::<(String, String)>(shared, request).await?;
    let platform = live(shared)?;
    let protocols = agent_protocols(shared, &platform, &id)?;
    let turn = shared
        .conversations
        .get(&id, &conversation)
        .ok_or_else(|| {
            refuse(
                StatusCode::NOT_FOUND,
                "unknown_conversation",
                format!("{id} has no open conversation {conversation}"),
            )
        })?;
    let answer = shared
        .answer(
            &platform,
            &protocols,
            &turn.spoken,
            &turn.history,
            &request.body,
            origin.as_deref(),
            Some(&conversation),
        )
        .await;
    let answer = respond(shared, answer)?;
    shared
        .conversations
        .record(&conversation, request.body, answer.body.clone());
    Ok(answer)
}

async fn close_conversation(
    State(shared): Shared_,
    ids: Result<Path<(String, String)>, PathRejection>,
) -> Result<Json<AgoraResponse>, Refusal> {
    let (id, conversation) = path(ids)?;
    live(&shared)?;
    if shared.conversations.close(&id, &conversation) {
        Ok(Json(AgoraResponse::success("")))
    } else {
        Err(refuse(
            StatusCode::NOT_FOUND,
            "unknown_conversation",
            format!("{id} has no open conversation {conversation}"),
        ))
    }
}

async fn platform_request(
    State(shared): Shared_,
    request: Request,
) -> Result<Json<AgoraResponse>, Refusal> {
    publication(&shared, request).await
}

async fn publication(shared: &Shared, request: Request) -> Result<Json<AgoraResponse>, Refusal> {
    let (parts, body) = request.into_parts();
    let origin = origin(&parts.headers).map(str::to_owned);
    let body = Bytes::from_request(Request::from_parts(parts, body), &());
    let body = tokio::time::timeout(shared.config.request_timeout, body)
        .await
        .map_err(|_| timed_out(shared))?;
    let request = read_request(body)?;
    let platform = live(shared)?;
    if request.protocol_hash.as_deref() != Some(TNSAI_PROTOCOL.hash()) {
        return Ok(Json(AgoraResponse::rejected(
            "This URL is the platform itself: it takes broadcasts and publications under the \
             tnsai message protocol. Agents are at /agents/<id>; /.wellknown lists the protocols.",
        )));
    }
    let answered = shared
        .publication(&platform, &request.body, origin.as_deref())
        .await;
    respond(shared, answered)
}

async fn wellknown(State(shared): Shared_) -> Result<Json<BTreeMap<String, Vec<String>>>, Refusal> {
    let platform = live(&shared)?;
    let base = shared.public_url();
    let mut map = BTreeMap::new();
    map.insert(
        TNSAI_PROTOCOL.hash().to_owned(),
        sources(&TNSAI_PROTOCOL, base),
    );
    for id in platform.agents() {
        if let Some(protocols) = shared.protocols_of(&platform, id.as_str()) {
            for action in &protocols.actions {
                map.entry(action.document.hash().to_owned())
                    .or_insert_with(|| sources(&action.document, base));
            }
        }
    }
    Ok(Json(map))
}

fn entry(shared: &Shared, protocols: &AgentProtocols) -> AgentEntry {
    let id = protocols.description.id.as_str();
    let url = match shared.public_url() {
        Some(base) => format!("{base}{}", agent_path(id)),
        None => agent_path(id),
    };
    AgentEntry {
        description: protocols.description.clone(),
        url,
        protocols: protocols
            .actions
            .iter()
            .map(|a| (a.name.clone(), a.document.hash().to_owned()))
            .collect(),
    }
}

async fn listing(State(shared): Shared_) -> Result<Json<PlatformListing>, Refusal> {
    let platform = live(&shared)?;
    let agents = platform
        .agents()
        .iter()
        .filter_map(|id| shared.protocols_of(&platform, id.as_str()))
        .map(|protocols| entry(&shared, &protocols))
        .collect();
    Ok(Json(PlatformListing {
        platform: shared.public_url().map(str::to_owned),
        protocol: TNSAI_PROTOCOL.hash().to_owned(),
        agents,
    }))
}

async fn agent_entry(
    State(shared): Shared_,
    id: Result<Path<String>, PathRejection>,
) -> Result<Json<AgentEntry>, Refusal> {
    let id = path(id)?;
    let platform = live(&shared)?;
    let protocols = agent_protocols(&shared, &platform, &id)?;
    Ok(Json(entry(&shared, &protocols)))
}

async fn protocol_text(
    State(shared): Shared_,
    hash: Result<Path<String>, PathRejection>,
) -> Result<Response, Refusal> {
    let hash = path(hash)?;
    let platform = live(&shared)?;
    let text = if hash == TNSAI_PROTOCOL.hash() {
        Some(TNSAI_PROTOCOL.text().to_owned())
    } else {
        platform.agents().iter().find_map(|id| {
            let protocols = shared.protocols_of(&platform, id.as_str())?;
            protocols
                .action(&hash)
                .map(|a| a.document.text().to_owned())
        })
    };
    match text {
        Some(text) => {
            Ok(([(header::CONTENT_TYPE, "text/plain; charset=utf-8")], text).into_response())
        }
        None => Err(refuse(
            StatusCode::NOT_FOUND,
            "unknown_protocol",
            format!("this platform serves no protocol {hash}"),
        )),
    }
}

async fn unknown_route(request: Request) -> Response {
    error(
        StatusCode::NOT_FOUND,
        "unknown_route",
        format!("no route for {} {}", request.method(), request.uri().path()),
    )
}

async fn method_not_allowed(request: Request) -> Response {
    error(
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        format!(
            "{} is not allowed on {}",
            request.method(),
            request.uri().path()
        ),
    )
}
