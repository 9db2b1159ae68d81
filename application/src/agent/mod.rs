//! The coach: a model with tools, answering one message of the lifter's conversation. The
//! SLOW lane streams what it emits as server-sent events; nothing here knows HTTP or SSE.
//!
//! - `briefing`: what the coach is told (profile, recent training, the conversation so far);
//! - `instruction`: the system instruction;
//! - `model_loop`: the loop of model turns and tool calls, under a token and time budget;
//! - `tools`: what the coach can read, propose and (in a workout) change, through the same use
//!   cases the app's routes call (`app`);
//! - `critic`: every number and claim in an answer checked against the facts before it goes out;
//! - `gate`: destructive requests are asked about first; a "yes" applies the proposal shown;
//! - `budget`: what the coach says when the day's tokens are spent (`app::meter` counts them);
//! - `emit`: the events a turn produces, in order (the adapter frames them).

pub(crate) mod briefing;
pub mod budget;
pub mod critic;
pub(crate) mod emit;
pub(crate) mod gate;
pub mod holdback;
pub mod instruction;
pub(crate) mod lifts;
pub(crate) mod markup;
pub mod model_loop;
pub mod refs;
pub mod tools;

use chrono::Utc;

pub use emit::{Emitter, StreamEvent};

use crate::app::App;
use crate::app::error::AppError;
use crate::app::meter::Meter;
use crate::context::SessionContext;
use crate::domain::artifact::{Artifact, ArtifactStatus, Proposal};
use crate::llm::Model;
use crate::router::Intent;
use crate::store::conversation::Exchange;
use crate::store::{Store, StoreError};

/// The coach and its ports: one per process, shared by every request.
pub struct Coach {
    /// The use cases the coach's tools share with the app's routes.
    app: App,
    /// The coach's model; without one the coach answers that it is not configured.
    model: Option<Model>,
    /// What pays for the model's calls.
    meter: Meter,
}

impl Coach {
    pub fn new(app: App, model: Option<Model>, meter: Meter) -> Coach {
        Coach { app, model, meter }
    }
}

/// A retry of a request that was answered (its `corr` stored with the exchange): the same
/// answer, nothing run or written again.
async fn replay(
    ctx: &SessionContext,
    loaded: &briefing::Loaded,
    emit: &Emitter,
) -> Option<model_loop::Outcome> {
    let corr = ctx.corr.as_deref()?;
    let prev = loaded
        .exchanges
        .iter()
        .find(|e| e.corr.as_deref() == Some(corr))?;
    emit.send(StreamEvent::message(prev.answer.clone())).await;
    Some(model_loop::Outcome {
        answer: prev.answer.clone(),
        replayed: true,
        ..model_loop::Outcome::default()
    })
}

/// A destructive request: asked about first, kept as the exchange's pending request for the
/// lifter's yes.
async fn ask_first(
    verb: &str,
    text: &str,
    exchange: &mut Exchange,
    emit: &Emitter,
) -> model_loop::Outcome {
    let (question, options) = gate::clarification(verb, text);
    exchange.kind = "clarification".into();
    exchange.pending_request = Some(text.to_string());
    emit.send(StreamEvent::Clarification {
        id: format!("clarify-{}", exchange.seq),
        question: question.clone(),
        options,
    })
    .await;
    model_loop::Outcome {
        answer: question,
        ..model_loop::Outcome::default()
    }
}

impl Coach {
    /// A coach message: replay a retried request, apply a confirmed proposal, ask before
    /// anything destructive, or run the agent; then store the exchange once.
    pub async fn answer(
        &self,
        ctx: &SessionContext,
        text: &str,
        intent: Option<Intent>,
        emit: &Emitter,
        deadline: tokio::time::Instant,
    ) -> model_loop::Outcome {
        let now = Utc::now();
        let loaded = match briefing::load(&self.app.store, ctx, now).await {
            Ok(l) => l,
            Err(e) => return fail(emit, &e).await,
        };
        if let Some(replayed) = replay(ctx, &loaded, emit).await {
            return replayed;
        }
        let mut exchange = Exchange {
            seq: loaded.next_seq,
            corr: ctx.corr.clone(),
            message: text.to_string(),
            answer: String::new(),
            kind: "coach".into(),
            pending_request: None,
            artifacts: Vec::new(),
            proposed: Vec::new(),
            at: now,
        };
        let previous = loaded.exchanges.first();
        // A yes to the destructive request the previous turn asked about.
        let confirmed_request = previous
            .filter(|p| p.kind == "clarification" && now - p.at < CLARIFICATION_WINDOW)
            .and_then(|p| p.pending_request.clone())
            .filter(|_| gate::confirms_destructive(text));
        // A yes to the one proposal the previous turn made, as it was shown; anything else is
        // ordinary text for the coach.
        let offered = match previous {
            Some(p) if confirmed_request.is_none() && gate::is_confirmation(text) => {
                match offered_proposal(&self.app.store, ctx, p, now).await {
                    Ok(a) => a,
                    Err(e) => return fail(emit, &e).await,
                }
            }
            _ => None,
        };
        let mut outcome = if let Some(request) = confirmed_request {
            // The lifter said yes to a destructive request: the coach handles it, told so.
            let confirmed = format!("{request}\n\n(I confirm this explicitly: \"{text}\")");
            self.agent(ctx, &confirmed, intent, &loaded, emit, deadline)
                .await
        } else if let Some((a, shown_hash)) = &offered {
            exchange.kind = "confirm".into();
            exchange.artifacts.push(a.id.clone());
            apply_from_chat(&self.app.store, ctx, a, shown_hash, emit, now).await
        } else if let Some(verb) = gate::destructive_verb(text) {
            ask_first(verb, text, &mut exchange, emit).await
        } else {
            self.agent(ctx, text, intent, &loaded, emit, deadline).await
        };
        if outcome.error.is_none() && !emit.client_gone() {
            exchange.answer = outcome.answer.clone();
            exchange
                .artifacts
                .extend(outcome.proposed.iter().map(|p| p.id.clone()));
            exchange.proposed = std::mem::take(&mut outcome.proposed);
            if let Err(e) = self.remember(ctx, exchange).await {
                tracing::error!(error = %e, "could not store the conversation turn");
                outcome.error = Some("STORE_UNAVAILABLE");
            }
        }
        outcome
    }

    async fn agent(
        &self,
        ctx: &SessionContext,
        text: &str,
        intent: Option<Intent>,
        loaded: &briefing::Loaded,
        emit: &Emitter,
        deadline: tokio::time::Instant,
    ) -> model_loop::Outcome {
        let Some(model) = &self.model else {
            emit.send(StreamEvent::error(
                "MODEL_NOT_CONFIGURED",
                "No coach model is configured on this server. Set SLOW_MODEL (and MODEL_PROVIDER with GEMINI_API_KEY, OPENAI_BASE_URL, or bedrock and AWS credentials) to enable the coach; workout commands and buttons work without it.",
            ))
            .await;
            return model_loop::Outcome {
                error: Some("MODEL_NOT_CONFIGURED"),
                ..model_loop::Outcome::default()
            };
        };
        // Spent already: refused before anything is read or reserved.
        if self.meter.left(loaded.tokens_today) == Some(0) {
            emit.send(budget::exceeded(Utc::now(), false)).await;
            return model_loop::Outcome {
                error: Some("QUOTA_EXCEEDED"),
                ..model_loop::Outcome::default()
            };
        }
        let (history, fold) = loaded.history();
        let summary = fold.as_ref().or(loaded.summary.as_ref());
        let env = tools::Env {
            store: &self.app.store,
            ctx,
            app: &self.app,
            unit: loaded.profile.unit,
            said: text,
            asked: loaded
                .exchanges
                .first()
                .filter(|p| Utc::now() - p.at < CLARIFICATION_WINDOW)
                .map_or("", |p| p.answer.as_str()),
            calls_made: Default::default(),
        };
        let briefing = model_loop::Briefing {
            history,
            context: loaded.context(ctx, summary),
        };
        // The fold is stored alongside the answer, not before the first model call (the summary
        // is already in this request's context).
        let store_fold = async {
            if let Some(summary) = &fold
                && let Err(e) = self
                    .app
                    .store
                    .put_summary(
                        &ctx.user_id,
                        briefing::conversation_id(ctx),
                        summary,
                        loaded.now,
                    )
                    .await
            {
                tracing::warn!(error = %e, "could not store the conversation summary");
            }
        };
        let (outcome, ()) = tokio::join!(
            model_loop::run(
                model_loop::Caller {
                    model,
                    meter: &self.meter,
                    user: &ctx.user_id,
                },
                &env,
                text,
                intent,
                briefing,
                emit,
                deadline
            ),
            store_fold
        );
        outcome
    }

    /// Stores the exchange once: at the next free sequence number, never twice for one corr.
    async fn remember(&self, ctx: &SessionContext, mut e: Exchange) -> Result<(), StoreError> {
        let conv = briefing::conversation_id(ctx);
        for _ in 0..3 {
            if self
                .app
                .store
                .append_exchange(&ctx.user_id, conv, &e)
                .await?
            {
                return Ok(());
            }
            // A concurrent turn took the number: continue after the newest.
            let latest = self
                .app
                .store
                .conversation(&ctx.user_id, conv, 1, Utc::now())
                .await?;
            match latest.exchanges.first() {
                // Ours: the same corr, or this very exchange (a write whose answer was lost and
                // that the SDK retried into its own condition).
                Some(l) if (e.corr.is_some() && l.corr == e.corr) || *l == e => return Ok(()),
                _ => e.seq = latest.next_seq.max(e.seq + 1),
            }
        }
        Err(StoreError::Backend(
            "the conversation kept changing while this turn was stored".into(),
        ))
    }
}

/// How long a destructive request waits for its explicit yes.
const CLARIFICATION_WINDOW: chrono::Duration = chrono::Duration::minutes(10);

async fn fail(emit: &Emitter, e: &StoreError) -> model_loop::Outcome {
    tracing::error!(error = %e, "store call failed before the coach could answer");
    let err = AppError::store_unavailable();
    emit.send(StreamEvent::error(err.code.as_str(), err.message))
        .await;
    model_loop::Outcome {
        error: Some(err.code.as_str()),
        ..model_loop::Outcome::default()
    }
}

/// The proposal a chat "yes" applies, with the hash the lifter was shown: the one proposal the
/// coach's previous turn (`previous`) made, if it is still pending. `None`: the "yes" is text.
async fn offered_proposal(
    store: &Store,
    ctx: &SessionContext,
    previous: &Exchange,
    now: chrono::DateTime<Utc>,
) -> Result<Option<(Artifact, String)>, StoreError> {
    let [shown] = previous.proposed.as_slice() else {
        // None, or several: a bare "yes" does not say which.
        return Ok(None);
    };
    if previous.kind != "coach" || !gate::yes_means_the_proposal(&previous.answer) {
        return Ok(None);
    }
    let a = store.get_artifact(&ctx.user_id, &shown.id).await?;
    Ok(
        a.filter(|a| a.status == ArtifactStatus::Proposed && !a.is_expired(now))
            .map(|a| (a, shown.content_hash.clone())),
    )
}

/// "Yes, save it" right after a proposal: apply exactly what the lifter was shown (`shown_hash`;
/// a proposal changed since is refused as stale), no model call.
async fn apply_from_chat(
    store: &Store,
    ctx: &SessionContext,
    a: &Artifact,
    shown_hash: &str,
    emit: &Emitter,
    now: chrono::DateTime<Utc>,
) -> model_loop::Outcome {
    match crate::app::proposals::confirm(store, &ctx.user_id, &a.id, Some(shown_hash), now).await {
        Ok(done) => {
            emit.send(StreamEvent::Artifact(StreamEvent::fields(
                done["artifact"].clone(),
            )))
            .await;
            let text = applied_text(a);
            emit.send(StreamEvent::message(text.clone())).await;
            model_loop::Outcome {
                answer: text,
                writes: vec!["confirm".into()],
                ..model_loop::Outcome::default()
            }
        }
        Err(e) => {
            emit.send(StreamEvent::error(e.code.as_str(), e.message))
                .await;
            model_loop::Outcome {
                error: Some(e.code.as_str()),
                ..model_loop::Outcome::default()
            }
        }
    }
}

/// What the lifter reads after a proposal is applied from chat.
fn applied_text(a: &Artifact) -> String {
    match &a.proposal {
        Proposal::Routine { routine, .. } => format!(
            "Saved \"{}\" ({} days) as your active routine. Next up: {}.",
            routine.name,
            routine.days.len(),
            routine.days.first().map_or("day 1", |d| d.label.as_str())
        ),
        Proposal::RoutineUpdate { routine, .. } => {
            format!("Updated \"{}\": {} days.", routine.name, routine.days.len())
        }
        Proposal::TemplateUpdate { template } => {
            format!("Updated the template \"{}\".", template.name)
        }
        Proposal::Workout { workout } => format!(
            "Started \"{}\". First up: {}.",
            workout.name,
            workout
                .exercises
                .first()
                .map_or("your first exercise", |e| e.name.as_str())
        ),
        Proposal::MemoryRetirement { memory } => {
            format!("Done: I no longer keep \"{}\".", memory.text)
        }
    }
}
