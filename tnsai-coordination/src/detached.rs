//! Running a call's action in the caller's task, without ever cancelling it.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

/// An action's task, run inline by the call that waits for its answer.
///
/// A caller that waits anyway can drive the action itself, which saves starting a
/// runtime task per call (the largest single cost of a local call). But an action must
/// run to completion whatever happens to its caller: if this future is dropped before
/// the action finished (the request timed out, the caller was cancelled, an HTTP client
/// hung up), the rest of the action is handed to the runtime as a task of its own.
pub(crate) struct Detached {
    work: Option<Pin<Box<dyn Future<Output = ()> + Send + 'static>>>,
}

impl Detached {
    pub(crate) fn new(work: impl Future<Output = ()> + Send + 'static) -> Self {
        Self {
            work: Some(Box::pin(work)),
        }
    }

    /// Gives up driving the work inline: it runs as a task of its own.
    pub(crate) fn spawn(mut self) {
        if let Some(work) = self.work.take() {
            tokio::spawn(work);
        }
    }
}

impl Future for Detached {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let Some(work) = self.work.as_mut() else {
            return Poll::Ready(());
        };
        match work.as_mut().poll(cx) {
            Poll::Ready(()) => {
                self.work = None;
                Poll::Ready(())
            }
            Poll::Pending => Poll::Pending,
        }
    }
}

impl Drop for Detached {
    fn drop(&mut self) {
        let Some(work) = self.work.take() else { return };
        // Outside a runtime (it is shutting down) nothing can run it any more.
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(work);
        }
    }
}
