//! The hub's HTTP routes (axum). Handlers are plain async functions; every refusal is a
//! JSON body `{"error": {"code", "message"}}` with the status of its [`RefusalCode`].
//!
//! | route | auth | body | answer |
//! |---|---|---|---|
//! | `GET /v1/health` | none | — | 200 `{"status": "ok"}` |
//! | `POST /v1/pair` | none | [`PairRequest`] | 201 [`PairResponse`] |
//! | `POST /v1/messages` | token | [`SendRequest`] | 201 [`SendReceipt`] |
//! | `GET /v1/agents?project=P` | token | — | 200 [`AgentList`] |
//! | `GET /v1/connect` | token | WebSocket upgrade | see [`crate::socket`] |

use std::time::Duration;

use axum::extract::rejection::JsonRejection;
use axum::extract::ws::WebSocketUpgrade;
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::{DefaultBodyLimit, FromRequest, FromRequestParts, Query, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde::de::DeserializeOwned;

use crate::auth::DeviceToken;
use crate::hub::{Device, Hub};
use crate::store::StoreError;
use crate::wire::{AgentList, ErrorBody, PairRequest, Refusal, RefusalCode, SendRequest};

/// A refusal on its way to becoming an HTTP response.
#[derive(Debug, Clone)]
pub(crate) struct ApiError {
    refusal: Refusal,
    retry_after: Option<Duration>,
}

impl ApiError {
    pub(crate) fn new(code: RefusalCode, message: impl Into<String>) -> Self {
        Self {
            refusal: Refusal::new(code, message),
            retry_after: None,
        }
    }

    pub(crate) fn rate_limited(wait: Duration) -> Self {
        Self {
            refusal: Refusal::new(
                RefusalCode::RateLimited,
                format!(
                    "too many requests from this device; retry in {} ms",
                    wait.as_millis().max(1)
                ),
            ),
            retry_after: Some(wait),
        }
    }

    pub(crate) fn code(&self) -> RefusalCode {
        self.refusal.code
    }

    pub(crate) fn into_refusal(self) -> Refusal {
        self.refusal
    }
}

impl From<StoreError> for ApiError {
    fn from(error: StoreError) -> Self {
        tracing::error!(%error, "database failure");
        ApiError::new(
            RefusalCode::Internal,
            "the hub could not complete this because of a database failure; nothing was stored",
        )
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = StatusCode::from_u16(self.refusal.code.http_status())
            .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let mut response = (
            status,
            Json(ErrorBody {
                error: self.refusal,
            }),
        )
            .into_response();
        if let Some(wait) = self.retry_after {
            let secs = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(secs.max(1)));
        }
        response
    }
}

/// `axum::Json` whose rejections use the hub's error body.
pub(crate) struct ApiJson<T>(pub(crate) T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for ApiJson<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        match Json::<T>::from_request(req, state).await {
            Ok(Json(value)) => Ok(Self(value)),
            Err(rejection) => Err(json_rejection(&rejection)),
        }
    }
}

fn json_rejection(rejection: &JsonRejection) -> ApiError {
    let code = match rejection.status() {
        StatusCode::PAYLOAD_TOO_LARGE => RefusalCode::TooLarge,
        StatusCode::UNSUPPORTED_MEDIA_TYPE => RefusalCode::UnsupportedMediaType,
        _ => RefusalCode::InvalidRequest,
    };
    ApiError::new(code, rejection.body_text())
}

impl FromRequestParts<Hub> for Device {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, hub: &Hub) -> Result<Self, Self::Rejection> {
        let token = parts
            .headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .map(|t| DeviceToken::new(t.trim()))
            .ok_or_else(|| {
                ApiError::new(
                    RefusalCode::Unauthorized,
                    "missing device token: send `Authorization: Bearer <token>`",
                )
            })?;
        hub.authenticate(token).await
    }
}

/// Builds the router for `hub`.
pub(crate) fn router(hub: Hub) -> Router {
    let body_limit = hub.limits().max_body_bytes();
    Router::new()
        .route("/v1/health", get(health))
        .route("/v1/pair", post(pair))
        .route("/v1/messages", post(send))
        .route("/v1/agents", get(list))
        .route("/v1/connect", get(connect))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(DefaultBodyLimit::max(body_limit))
        .with_state(hub)
}

async fn health() -> Json<serde_json::Value> {
    Json(serde_json::json!({ "status": "ok" }))
}

async fn pair(
    State(hub): State<Hub>,
    ApiJson(request): ApiJson<PairRequest>,
) -> Result<Response, ApiError> {
    let paired = hub.pair(request).await?;
    Ok((StatusCode::CREATED, Json(paired)).into_response())
}

async fn send(
    State(hub): State<Hub>,
    device: Device,
    ApiJson(request): ApiJson<SendRequest>,
) -> Result<Response, ApiError> {
    let receipt = hub.send(&device, request).await?;
    Ok((StatusCode::CREATED, Json(receipt)).into_response())
}

#[derive(Debug, Deserialize)]
struct ListQuery {
    project: Option<String>,
}

async fn list(
    State(hub): State<Hub>,
    _device: Device,
    query: Result<Query<ListQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<AgentList>, ApiError> {
    let Query(query) =
        query.map_err(|e| ApiError::new(RefusalCode::InvalidRequest, e.body_text()))?;
    Ok(Json(AgentList {
        agents: hub.list(query.project.as_deref()),
    }))
}

async fn connect(
    State(hub): State<Hub>,
    device: Device,
    upgrade: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Result<Response, ApiError> {
    let upgrade = upgrade.map_err(|e| {
        ApiError::new(
            RefusalCode::InvalidRequest,
            format!("expected a WebSocket upgrade: {}", e.body_text()),
        )
    })?;
    let max = hub.limits().max_body_bytes();
    Ok(upgrade
        .max_message_size(max)
        .max_frame_size(max)
        .on_upgrade(move |socket| crate::socket::run(hub, device, socket)))
}

async fn not_found() -> ApiError {
    ApiError::new(RefusalCode::NotFound, "no such route")
}

async fn method_not_allowed() -> ApiError {
    ApiError::new(
        RefusalCode::MethodNotAllowed,
        "this route does not take that method",
    )
}
