//! `POST /v1/workouts/{id}/sync`: the commands an offline queue held, applied in order to the
//! active workout, each with its own `corr` and time. Every command is read and checked before
//! anything is written, and the whole batch is one transaction (the workout and one idempotency
//! record per command that changed it); a command whose `corr` was applied before (in an earlier
//! batch, an overlapping one, or on `/v1/copilot`) answers as it did then and changes nothing.

use std::collections::HashSet;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::active::{Edit, EditFailed, EditRead, EditRequest, edit_active, replay_record};
use super::command::{self, Reply, Step};
use super::params::read;
use super::{App, checked_id, invalid};
use crate::app::error::{AppError, ErrorCode};
use crate::context::{SessionContext, is_valid_id};
use crate::domain::limits::MAX_MESSAGE_CHARS;
use crate::domain::workout::Workout;
use crate::router::{self, Command, Intent};
use crate::skills::{copilot, workouts};

/// Most commands in one batch (a transaction holds the workout and one record per command).
pub(crate) const MAX_SYNC_COMMANDS: usize = 50;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SyncBody {
    commands: Vec<ItemBody>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ItemBody {
    corr: String,
    message: String,
    at: Option<String>,
    workout_id: Option<String>,
}

/// One queued command, read and checked.
#[derive(Debug, Clone)]
pub struct SyncCommand {
    pub corr: String,
    pub at: Option<DateTime<Utc>>,
    pub text: String,
    pub command: Command,
}

/// Reads a batch for workout `workout_id`: each item's field named in its error.
pub fn read_batch(body: &Value, workout_id: &str) -> Result<Vec<SyncCommand>, AppError> {
    let b: SyncBody = read(body)?;
    if b.commands.is_empty() {
        return Err(invalid("the batch has no commands", "commands"));
    }
    if b.commands.len() > MAX_SYNC_COMMANDS {
        return Err(AppError::new(
            ErrorCode::PayloadTooLarge,
            format!(
                "a batch holds at most {MAX_SYNC_COMMANDS} commands, got {}; send the rest in another batch",
                b.commands.len()
            ),
        )
        .field("commands"));
    }
    let mut seen = HashSet::new();
    b.commands
        .into_iter()
        .enumerate()
        .map(|(i, item)| read_item(i, item, workout_id, &mut seen))
        .collect()
}

/// Batch item `i`: its corr (unique in the batch), its workout (the batch's), its time, and its
/// message as a FAST command.
fn read_item(
    i: usize,
    item: ItemBody,
    workout_id: &str,
    seen: &mut HashSet<String>,
) -> Result<SyncCommand, AppError> {
    let at_field = |f: &str| format!("commands[{i}].{f}");
    if !is_valid_id(&item.corr) {
        return Err(invalid(
            "corr is 1 to 128 letters, digits and - _ . : @ |",
            at_field("corr"),
        ));
    }
    if !seen.insert(item.corr.clone()) {
        return Err(invalid(
            &format!("corr '{}' appears twice in the batch", item.corr),
            at_field("corr"),
        ));
    }
    if let Some(w) = &item.workout_id
        && w != workout_id
    {
        return Err(invalid(
            &format!("a batch applies to one workout ({workout_id}); this command is for {w}"),
            at_field("workout_id"),
        ));
    }
    let at = match &item.at {
        None => None,
        Some(t) => Some(
            DateTime::parse_from_rfc3339(t)
                .map_err(|_| {
                    invalid(
                        "at is a time with its offset, like 2026-03-01T10:15:00+01:00",
                        at_field("at"),
                    )
                })?
                .with_timezone(&Utc),
        ),
    };
    if let Err(e) = copilot::set_time(at, Utc::now(), None) {
        return Err(invalid(&e.message, at_field("at")));
    }
    let text = item.message.trim();
    if text.is_empty() || text.chars().count() > MAX_MESSAGE_CHARS {
        return Err(invalid(
            "message is a workout command like 'done' or '8 @ 100'",
            at_field("message"),
        ));
    }
    if text.starts_with("(context:") {
        return Err(invalid(
            "give corr and at as the item's fields, not as a context prefix",
            at_field("message"),
        ));
    }
    let route = router::route(text)
        .map_err(|e| invalid(&format!("not a workout command: {e}"), at_field("message")))?;
    let cmd = command::command_of(route)
        .and_then(|c| command::pre_validate(&c).map(|()| c))
        .map_err(|e| {
            let msg = format!("command {i} ('{text}'): {}", e.message);
            AppError { message: msg, ..e }.field(at_field("message"))
        })?;
    Ok(SyncCommand {
        corr: item.corr,
        at,
        text: text.to_string(),
        command: cmd,
    })
}

/// The first answer to command `i` when its corr was applied before (by a batch, or by
/// `/v1/copilot` without the workout's id); refused when that corr was used for another command.
fn replayed(
    read: &EditRead,
    c: &SyncCommand,
    i: usize,
    workout_id: &str,
) -> Result<Option<SyncResult>, AppError> {
    let Some(rec) = read.replay(Some(&c.corr)) else {
        return Ok(None);
    };
    let intent = Intent::of_command(&c.command);
    let fingerprint = command::fingerprint(intent, &c.text, Some(workout_id));
    let bare = command::fingerprint(intent, &c.text, None);
    if rec.fingerprint != fingerprint && rec.fingerprint != bare {
        return Err(AppError::new(
            ErrorCode::IdempotencyKeyReused,
            format!("corr '{}' was already used for a different command", c.corr),
        )
        .field(format!("commands[{i}].corr")));
    }
    Ok(Some(SyncResult {
        corr: c.corr.clone(),
        status: "replayed",
        answer: Reply::from_record(&c.corr, &rec.body)?,
    }))
}

/// Command `i` applied to the workout as the batch has left it: its answer and the changed
/// workout, checked whole. A refusal names the command it came from, and the whole-workout
/// limits are checked after each command so that the one that breaks them is named too.
fn applied(
    step: &Step<'_>,
    c: &SyncCommand,
    i: usize,
    workout: &Workout,
) -> Result<(String, copilot::CommandData, Option<Workout>), AppError> {
    let refused = |e: AppError| {
        let msg = format!(
            "command {i} ('{}'): {}; nothing in the batch was applied",
            c.text, e.message
        );
        AppError { message: msg, ..e }.field(format!("commands[{i}].message"))
    };
    let (text, data, changed) = command::apply_one(step, Some(workout)).map_err(refused)?;
    if let Some(w) = &changed {
        workouts::validate(w).map_err(|l| refused(AppError::from(l)))?;
    }
    Ok((text, data, changed))
}

/// What became of one command.
#[derive(Debug, Clone, Serialize)]
pub struct SyncResult {
    pub corr: String,
    /// `applied` (it changed the workout), `unchanged` (it only showed something, or asked),
    /// or `replayed` (its corr was applied before: the answer is the first one).
    pub status: &'static str,
    /// The command's answer, as `/v1/copilot` gives it.
    pub answer: Reply,
}

/// The batch's answer: each command's result in order, and the workout's version after it.
#[derive(Debug, Clone, Serialize)]
pub struct Synced {
    pub workout_id: String,
    pub version: u64,
    pub results: Vec<SyncResult>,
}

impl App {
    /// Applies `commands` to the lifter's active workout `workout_id`, in order.
    pub async fn sync_workout(
        &self,
        ctx: &SessionContext,
        workout_id: &str,
        commands: &[SyncCommand],
    ) -> Result<Synced, AppError> {
        checked_id(workout_id, "id")?;
        let corrs: Vec<&str> = commands.iter().map(|c| c.corr.as_str()).collect();
        let req = EditRequest {
            user: &ctx.user_id,
            workout_id: Some(workout_id),
            needs_active: true,
            keys: &corrs,
            recent_history: false,
        };
        // Raced (another command, or this batch sent twice at once): `edit_active` re-reads and
        // this replays what the other request applied.
        let synced = edit_active(&self.store, req, move |read: EditRead| async move {
            self.apply_batch(ctx, &read, workout_id, commands).await
        })
        .await;
        match synced {
            Ok(s) => Ok(s),
            Err(Refused::Api(e)) => Err(e),
            Err(Refused::NotActive) => Err(self.not_active(ctx, workout_id).await),
        }
    }

    /// The batch applied in order to the workout as read: each command's result, and the
    /// workout with a record per command that changed it (nothing to write when none did).
    async fn apply_batch(
        &self,
        ctx: &SessionContext,
        read: &EditRead,
        workout_id: &str,
        commands: &[SyncCommand],
    ) -> Result<Edit<Synced>, Refused> {
        // The batch is for this workout, so it needs it (`needs_active`): none, or
        // another, is `NotActive` through `From<EditFailed>`.
        let Some(active) = read.workout()? else {
            return Err(Refused::NotActive);
        };
        let mut workout: Workout = active.value.clone();
        let mut history: Option<Vec<Workout>> = None;
        let mut records = Vec::new();
        let mut results = Vec::with_capacity(commands.len());
        for (i, c) in commands.iter().enumerate() {
            if let Some(first) = replayed(read, c, i, workout_id)? {
                results.push(first);
                continue;
            }
            let cmd_ctx = SessionContext {
                corr: Some(c.corr.clone()),
                workout_id: Some(workout_id.to_string()),
                workout_mode: true,
                client_time: c.at,
                ..ctx.clone()
            };
            if history.is_none() {
                let h =
                    command::history_for(&self.store, &cmd_ctx, &c.command, Some(&workout)).await?;
                if !h.is_empty() {
                    history = Some(h);
                }
            }
            let step = Step {
                ctx: &cmd_ctx,
                cmd: &c.command,
                profile: &read.profile,
                history: history.as_deref().unwrap_or_default(),
                client_time: c.at,
                now: read.now,
            };
            let (text, data, changed) = applied(&step, c, i, &workout)?;
            let intent = Intent::of_command(&c.command);
            let reply = Reply::of(intent, &text, &data);
            let status = match changed {
                Some(w) => {
                    workout = w;
                    let fingerprint = command::fingerprint(intent, &c.text, Some(workout_id));
                    let body = reply.to_json();
                    records.push(replay_record(&c.corr, &fingerprint, body, read.now));
                    "applied"
                }
                None => "unchanged",
            };
            results.push(SyncResult {
                corr: c.corr.clone(),
                status,
                answer: reply.owned(),
            });
        }
        let answer = |version| Synced {
            workout_id: workout_id.to_string(),
            version,
            results,
        };
        Ok(match records.is_empty() {
            true => Edit::Answer(answer(active.version)),
            false => Edit::Write {
                workout,
                records,
                answer: answer(active.version + 1),
            },
        })
    }

    /// Why `workout_id` takes no commands: completed (409), or not the lifter's (404).
    async fn not_active(&self, ctx: &SessionContext, workout_id: &str) -> AppError {
        match self
            .store
            .find_completed_workout(&ctx.user_id, workout_id)
            .await
        {
            Ok(Some(_)) => AppError::new(
                ErrorCode::WorkoutMismatch,
                format!(
                    "workout '{workout_id}' is completed; edit its sets with PATCH /v1/workouts/{workout_id}"
                ),
            ),
            Ok(None) => AppError::new(
                ErrorCode::WorkoutNotFound,
                format!("you have no active workout '{workout_id}'"),
            ),
            Err(e) => AppError::from(e),
        }
    }
}

/// Why a batch changed nothing: its workout is not the active one (the answer says whether it
/// was completed), or any other refusal.
enum Refused {
    NotActive,
    Api(AppError),
}

impl From<EditFailed> for Refused {
    fn from(e: EditFailed) -> Refused {
        match e {
            EditFailed::NoActiveWorkout | EditFailed::WorkoutMismatch { .. } => Refused::NotActive,
            e => Refused::Api(e.into()),
        }
    }
}

impl From<AppError> for Refused {
    fn from(e: AppError) -> Refused {
        Refused::Api(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn field(body: Value) -> String {
        read_batch(&body, "w1")
            .unwrap_err()
            .field
            .unwrap_or_default()
            .to_string()
    }

    #[test]
    fn a_batch_is_checked_whole_before_anything_is_applied() {
        let when = (Utc::now() - chrono::Duration::minutes(10))
            .with_timezone(&chrono::FixedOffset::east_opt(3600).expect("an offset"));
        let ok = read_batch(
            &json!({"commands": [
                {"corr": "c1", "message": "bench 100x5", "at": when.to_rfc3339()},
                {"corr": "c2", "message": "done", "workout_id": "w1"}
            ]}),
            "w1",
        )
        .unwrap();
        assert_eq!(ok.len(), 2);
        assert_eq!(ok[0].at, Some(when.with_timezone(&Utc)));
        assert_eq!(field(json!({"commands": []})), "commands");
        let many: Vec<Value> = (0..51)
            .map(|i| json!({"corr": format!("c{i}"), "message": "done"}))
            .collect();
        assert_eq!(field(json!({ "commands": many })), "commands");
        assert_eq!(
            field(
                json!({"commands": [{"corr": "c1", "message": "done"}, {"corr": "c1", "message": "next"}]})
            ),
            "commands[1].corr"
        );
        assert_eq!(
            field(json!({"commands": [{"corr": "c1", "message": "done", "workout_id": "w2"}]})),
            "commands[0].workout_id"
        );
        assert_eq!(
            field(json!({"commands": [{"corr": "c1", "message": "done", "at": "soon"}]})),
            "commands[0].at"
        );
        assert_eq!(
            field(json!({"commands": [{"corr": "c1", "message": "how's my bench?"}]})),
            "commands[0].message"
        );
        assert_eq!(
            field(json!({"commands": [{"corr": "c1", "message": "3x"}]})),
            "commands[0].message"
        );
        assert_eq!(
            field(json!({"commands": [{"corr": "c1", "message": "done", "extra": 1}]})),
            "commands[0].extra"
        );
    }
}
