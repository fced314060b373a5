//! How an agent serves its mailbox: actions concurrently, callbacks in order.

use std::any::Any;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use futures_util::FutureExt;
use tnsai_core::{CallbackFuture, CompletionRequest, Message, MessageKind};
use tokio::sync::mpsc;
use tokio::sync::mpsc::error::TrySendError;
use tracing::Instrument;

use crate::ProtocolError;
use crate::answer::{error_answer, paradigm_of};
use crate::detached::Detached;
use crate::hosted::HostedAgent;
use crate::platform::PlatformCore;

/// Starts the task that serves `hosted`'s mailbox until the agent is terminated.
pub(crate) fn spawn_dispatch(
    hosted: Arc<HostedAgent>,
    inbox: mpsc::Receiver<Option<Message>>,
    core: Arc<PlatformCore>,
) {
    tokio::spawn(serve(hosted, inbox, core));
}

async fn serve(
    hosted: Arc<HostedAgent>,
    mut inbox: mpsc::Receiver<Option<Message>>,
    core: Arc<PlatformCore>,
) {
    // Created on the first callback, so agents that never receive broadcasts cost nothing.
    let mut callbacks: Option<mpsc::Sender<CallbackFuture>> = None;
    loop {
        // A plain receive: waiting on a `Notify` as well would take its lock on every
        // wake-up of every agent. Termination pushes a wake-up (`None`) instead.
        if hosted.is_terminated() {
            break;
        }
        let message = match inbox.recv().await {
            Some(Some(message)) => message,
            Some(None) => continue,
            None => break,
        };
        match message.kind() {
            MessageKind::Broadcast | MessageKind::Publish => {
                let Some(callback) = Arc::clone(&hosted.agent).on_message_received(message) else {
                    tracing::trace!(agent_id = %hosted.id, "no #[on_message_received] callback; message not consumed");
                    continue;
                };
                let queue = callbacks.get_or_insert_with(|| {
                    spawn_callback_worker(Arc::clone(&hosted), core.config.mailbox_capacity())
                });
                let queued = match queue.try_send(callback) {
                    Ok(()) => Ok(()),
                    // Boxed: waiting for room is rare, and its future would otherwise
                    // enlarge every agent's idle task.
                    Err(TrySendError::Full(callback)) => {
                        Box::pin(queue.send(callback)).await.map_err(|_| ())
                    }
                    Err(TrySendError::Closed(_)) => Err(()),
                };
                if queued.is_err() {
                    tracing::error!(agent_id = %hosted.id, "callback worker ended; callback dropped");
                }
            }
            kind if kind.is_answer() => {
                if let Some(id) = message.in_reply_to() {
                    hosted.pending.complete(id, message);
                }
            }
            _ => {
                let acquired = tokio::select! {
                    biased;
                    () = hosted.shutdown.notified() => {
                        Box::pin(refuse(&core, &hosted, &message)).await;
                        break;
                    }
                    permit = hosted.action_slots.acquire() => permit,
                };
                match acquired {
                    // The slot travels with the task and is returned when it ends.
                    Ok(permit) => permit.forget(),
                    Err(_) => break,
                }
                let slot = ActionSlot(Arc::clone(&hosted));
                tokio::spawn(handle(slot, Arc::clone(&core), message));
            }
        }
    }
    // Nothing queued is lost silently: every call still in the mailbox gets an error answer.
    inbox.close();
    while let Ok(next) = inbox.try_recv() {
        let Some(message) = next else { continue };
        Box::pin(refuse(&core, &hosted, &message)).await;
    }
}

/// Claims a call for handling at once, when nothing waits in the mailbox and an action
/// slot is free: the same work the dispatch loop would start as a task, without the trip
/// through the mailbox and the loop. The message comes back when it has to queue (a
/// broadcast or an answer, a stopped agent, a busy agent).
pub(crate) fn claim_now(
    hosted: &Arc<HostedAgent>,
    core: &Arc<PlatformCore>,
    message: Message,
) -> Result<Detached, Message> {
    let kind = message.kind();
    let callback = matches!(kind, MessageKind::Broadcast | MessageKind::Publish);
    if kind.is_answer() || callback || !hosted.is_started() || !hosted.mailbox_is_empty() {
        return Err(message);
    }
    match hosted.action_slots.try_acquire() {
        // The slot travels with the work and is returned when it ends.
        Ok(permit) => permit.forget(),
        Err(_) => return Err(message),
    }
    let slot = ActionSlot(Arc::clone(hosted));
    Ok(Detached::new(handle(slot, Arc::clone(core), message)))
}

/// One of the agent's action slots, held by a running action task; returned on drop, so
/// a panicking or cancelled task gives its slot back too.
struct ActionSlot(Arc<HostedAgent>);

impl Drop for ActionSlot {
    fn drop(&mut self) {
        self.0.action_slots.add_permits(1);
    }
}

async fn refuse(core: &PlatformCore, hosted: &HostedAgent, message: &Message) {
    if message.kind().is_answer() || message.receiver().is_none() {
        return;
    }
    let error = ProtocolError::ReceiverUnavailable(format!(
        "Receiver {} was terminated before it handled the message",
        hosted.id
    ));
    let answer = error_answer(message, &hosted.id, &error);
    if let Err(error) = core
        .router
        .send(answer, tnsai_core::TransportMode::Auto)
        .await
    {
        tracing::debug!(agent_id = %hosted.id, %error, "could not refuse a queued message");
    }
}

fn spawn_callback_worker(
    hosted: Arc<HostedAgent>,
    capacity: usize,
) -> mpsc::Sender<CallbackFuture> {
    let (tx, mut rx) = mpsc::channel::<CallbackFuture>(capacity);
    tokio::spawn(async move {
        while let Some(callback) = rx.recv().await {
            if let Err(panic) = AssertUnwindSafe(callback).catch_unwind().await {
                tracing::error!(
                    agent_id = %hosted.id,
                    panic = panic_text(panic.as_ref()),
                    "#[on_message_received] callback panicked; the agent keeps running"
                );
            }
        }
    });
    tx
}

async fn handle(slot: ActionSlot, core: Arc<PlatformCore>, message: Message) {
    let hosted = Arc::clone(&slot.0);
    let span = tracing::info_span!(
        "tnsai.receive",
        agent_id = %hosted.id,
        paradigm = paradigm_of(message.kind()),
        message_id = %message.id(),
    );
    async move {
        let answer = match message.kind() {
            MessageKind::Action | MessageKind::Request => Some(run_action(&hosted, message).await),
            // Boxed: only actions are hot, and every spawned task is as large as its
            // largest branch.
            MessageKind::Text => Some(Box::pin(answer_text(&hosted, &message)).await),
            MessageKind::Acl if hosted.service(MessageKind::Acl).is_none() => {
                Box::pin(crate::acl::answer(&hosted, &message)).await
            }
            kind => match hosted.service(kind) {
                Some(service) => service.handle(message).await,
                None => Some(error_answer(
                    &message,
                    &hosted.id,
                    &ProtocolError::Remote {
                        code: "unsupported".to_owned(),
                        message: format!("Agent {} does not handle {kind} messages", hosted.id),
                    },
                )),
            },
        };
        drop(slot);
        if let Some(answer) = answer
            && let Err(error) = core
                .router
                .send(answer, tnsai_core::TransportMode::Auto)
                .await
        {
            tracing::debug!(%error, "could not deliver an answer (the caller may have gone)");
        }
    }
    .instrument(span)
    .await;
}

async fn run_action(hosted: &HostedAgent, message: Message) -> Message {
    match invoke(hosted, &message).await {
        Ok(result) => message
            .reply_builder(MessageKind::Reply, hosted.id.clone())
            .payload(result)
            .build(),
        Err(error) => error_answer(&message, &hosted.id, &error),
    }
}

async fn invoke(
    hosted: &HostedAgent,
    message: &Message,
) -> Result<serde_json::Value, ProtocolError> {
    let name = message
        .action()
        .ok_or_else(|| ProtocolError::InvalidArgument("the message names no action".into()))?;
    invoke_named(hosted, name, message.role(), message.params().clone()).await
}

/// Runs the agent's action `name` (checked against its role), catching panics.
pub(crate) async fn invoke_named(
    hosted: &HostedAgent,
    name: &str,
    role: Option<&str>,
    params: tnsai_core::Params,
) -> Result<serde_json::Value, ProtocolError> {
    let id = &hosted.id;
    let info = hosted
        .agent
        .actions()
        .iter()
        .find(|info| info.name() == name)
        .ok_or_else(|| {
            ProtocolError::UnknownAction(format!("Agent {id} has no action `{name}`"))
        })?;
    match (info.role(), role) {
        (None, None) => {}
        (Some(required), Some(asked)) if required == asked => {}
        (Some(required), None) => {
            return Err(ProtocolError::RoleMismatch(format!(
                "Action `{name}` of {id} is reserved for role `{required}`; call it with execute_role_action"
            )));
        }
        (Some(required), Some(asked)) => {
            return Err(ProtocolError::RoleMismatch(format!(
                "Action `{name}` of {id} is reserved for role `{required}`, not `{asked}`"
            )));
        }
        (None, Some(asked)) => {
            return Err(ProtocolError::RoleMismatch(format!(
                "Action `{name}` of {id} is not reserved for role `{asked}`; call it with execute_action"
            )));
        }
    }
    let agent = Arc::clone(&hosted.agent);
    let panicked = |panic: Box<dyn Any + Send>| {
        ProtocolError::ActionPanicked(format!(
            "Action `{name}` of {id} panicked: {}",
            panic_text(panic.as_ref())
        ))
    };
    let future = std::panic::catch_unwind(AssertUnwindSafe(|| agent.invoke_action(name, params)))
        .map_err(panicked)?
        .ok_or_else(|| {
            ProtocolError::UnknownAction(format!("Agent {id} has no action `{name}`"))
        })?;
    match AssertUnwindSafe(future).catch_unwind().await {
        Ok(Ok(result)) => Ok(result),
        Ok(Err(error)) => Err(ProtocolError::ActionFailed(error.message().to_owned())),
        Err(panic) => Err(panicked(panic)),
    }
}

async fn answer_text(hosted: &HostedAgent, message: &Message) -> Message {
    let Some(model) = hosted.agent.language_model() else {
        let error = ProtocolError::NoLanguageModel(format!(
            "Agent {} has no language model to answer text",
            hosted.id
        ));
        return error_answer(message, &hosted.id, &error);
    };
    let request = CompletionRequest::from_user(message.content().unwrap_or_default());
    let answer = AssertUnwindSafe(model.complete(&request))
        .catch_unwind()
        .await;
    match answer {
        Ok(Ok(text)) => message
            .reply_builder(MessageKind::Reply, hosted.id.clone())
            .content(text)
            .build(),
        Ok(Err(error)) => error_answer(
            message,
            &hosted.id,
            &ProtocolError::LanguageModel(error.to_string()),
        ),
        Err(panic) => error_answer(
            message,
            &hosted.id,
            &ProtocolError::LanguageModel(format!(
                "the language model of {} panicked: {}",
                hosted.id,
                panic_text(panic.as_ref())
            )),
        ),
    }
}

fn panic_text(panic: &(dyn Any + Send)) -> String {
    if let Some(text) = panic.downcast_ref::<&str>() {
        (*text).to_owned()
    } else if let Some(text) = panic.downcast_ref::<String>() {
        text.clone()
    } else {
        "a non-text panic payload".to_owned()
    }
}
