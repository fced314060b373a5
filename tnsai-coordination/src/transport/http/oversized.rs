//! Refusing a body that is declared too large before reading any of it.
//!
//! A server that reads part of an oversized body, answers 413 and closes leaves unread
//! bytes behind; the client, still writing, then sees a broken pipe or a reset instead
//! of the answer. Refusing on the `Content-Length` header answers before the body is
//! read at all. Bodies without a length (chunked) are still cut off at the limit by
//! `DefaultBodyLimit` while they are read.

use std::task::{Context, Poll};

use axum::extract::Request;
use axum::http::{StatusCode, header};
use axum::response::Response;
use futures_util::future::Either;
use tower::{Layer, Service};

use super::server::error;

/// Wraps the router's services in [`RefuseOversized`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct RefuseOversizedLayer {
    pub(crate) limit: usize,
}

impl<S> Layer<S> for RefuseOversizedLayer {
    type Service = RefuseOversized<S>;

    fn layer(&self, inner: S) -> Self::Service {
        RefuseOversized {
            inner,
            limit: self.limit,
        }
    }
}

/// Answers 413 to a request whose declared length exceeds the limit; passes the rest
/// on. Not boxed: it sits on every request's path.
#[derive(Debug, Clone)]
pub(crate) struct RefuseOversized<S> {
    inner: S,
    limit: usize,
}

impl<S> Service<Request> for RefuseOversized<S>
where
    S: Service<Request, Response = Response>,
{
    type Response = Response;
    type Error = S::Error;
    type Future = Either<std::future::Ready<Result<Response, S::Error>>, S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        let declared = request
            .headers()
            .get(header::CONTENT_LENGTH)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.trim().parse::<u64>().ok());
        match declared {
            Some(length) if length > self.limit as u64 => {
                Either::Left(std::future::ready(Ok(error(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    "too_large",
                    format!(
                        "the request body ({length} bytes) is larger than this platform accepts ({} bytes)",
                        self.limit
                    ),
                ))))
            }
            _ => Either::Right(self.inner.call(request)),
        }
    }
}
