//! Per exercise, the key of the newest completed workout that trained it (`LAST#<exercise>`):
//! how a suggestion finds a lift last done months ago without reading the whole history. The
//! lanes read history in a recent window; for an exercise missing from it, two small reads
//! (the pointers, then those workouts) bring its last session, however old.

use std::collections::{BTreeMap, HashMap};

use aws_sdk_dynamodb::types::AttributeValue;
use futures_util::future::join_all;

use super::{Store, StoreError, completed_sk, from_item, key, s, string};
use crate::domain::strength::is_working_result;
use crate::domain::workout::Workout;

pub(crate) const LAST_SESSION_PREFIX: &str = "LAST#";
/// BatchGetItem reads at most this many keys at once.
const BATCH_KEYS: usize = 100;
/// Pointer updates of one import in flight at once.
const UPDATES_IN_FLIGHT: usize = 8;

pub(crate) fn last_session_sk(exercise_id: &str) -> String {
    format!("{LAST_SESSION_PREFIX}{exercise_id}")
}

/// The pointer item for `exercise_id` at workout `w` (a completion's transaction puts these).
pub(crate) fn pointer_item(
    user: &str,
    exercise_id: &str,
    w: &Workout,
) -> HashMap<String, AttributeValue> {
    let mut item = key(user, last_session_sk(exercise_id));
    item.insert("workout_sk".into(), s(completed_sk(w)));
    item
}

/// The distinct exercise ids of a workout.
pub(crate) fn exercise_ids(w: &Workout) -> Vec<&str> {
    let mut ids: Vec<&str> = w.exercises.iter().map(|e| e.exercise_id.as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    ids
}

impl Store {
    /// Points each exercise of `workouts` at its newest workout among them, unless the stored
    /// pointer is newer already (an import of old history never hides a recent session).
    /// Idempotent: a retried import writes the same pointers.
    pub(crate) async fn advance_last_sessions(
        &self,
        user: &str,
        workouts: &[Workout],
    ) -> Result<(), StoreError> {
        let mut newest: BTreeMap<&str, String> = BTreeMap::new();
        for w in workouts {
            let sk = completed_sk(w);
            for id in exercise_ids(w) {
                let e = newest.entry(id).or_default();
                if sk > *e {
                    *e = sk.clone();
                }
            }
        }
        let updates: Vec<(&str, String)> = newest.into_iter().collect();
        for group in updates.chunks(UPDATES_IN_FLIGHT) {
            for r in join_all(
                group
                    .iter()
                    .map(|(id, sk)| self.advance_pointer(user, id, sk)),
            )
            .await
            {
                r?;
            }
        }
        Ok(())
    }

    async fn advance_pointer(&self, user: &str, id: &str, sk: &str) -> Result<(), StoreError> {
        let update = self
            .client
            .update_item()
            .table_name(&self.table)
            .set_key(Some(key(user, last_session_sk(id))))
            .update_expression("SET workout_sk = :sk")
            .condition_expression("attribute_not_exists(workout_sk) OR workout_sk < :sk")
            .expression_attribute_values(":sk", s(sk));
        // A newer pointer already stored is no error.
        Store::update_if(update).await.map(|_| ())
    }

    /// The newest completed workout of each of `exercise_ids` that has one, without repeats.
    pub async fn last_sessions(
        &self,
        user: &str,
        exercise_ids: &[&str],
    ) -> Result<Vec<Workout>, StoreError> {
        let mut workout_sks: Vec<String> = Vec::new();
        let pointer_sks: Vec<String> = exercise_ids.iter().map(|id| last_session_sk(id)).collect();
        for chunk in pointer_sks.chunks(BATCH_KEYS) {
            for item in self.batch_read(user, chunk).await? {
                if let Some(sk) = string(&item, "workout_sk")
                    && !workout_sks.contains(&sk)
                {
                    workout_sks.push(sk);
                }
            }
        }
        let mut out = Vec::with_capacity(workout_sks.len());
        for chunk in workout_sks.chunks(BATCH_KEYS) {
            for item in self.batch_read(user, chunk).await? {
                out.push(from_item(&item)?);
            }
        }
        Ok(out)
    }

    /// `history` (a recent window, oldest first) with the last session of each of `ids` that
    /// it does not hold, however old: a lift last done before the window still has a history.
    pub async fn with_last_sessions(
        &self,
        user: &str,
        mut history: Vec<Workout>,
        ids: &[&str],
    ) -> Result<Vec<Workout>, StoreError> {
        let mut missing: Vec<&str> = ids
            .iter()
            .copied()
            .filter(|id| {
                !history
                    .iter()
                    .flat_map(|w| w.exercises.iter())
                    .any(|e| e.exercise_id == *id && e.sets.iter().any(is_working_result))
            })
            .collect();
        missing.sort_unstable();
        missing.dedup();
        if missing.is_empty() {
            return Ok(history);
        }
        for w in self.last_sessions(user, &missing).await? {
            if !history.iter().any(|h| h.id == w.id) {
                history.push(w);
            }
        }
        history.sort_by_key(|w| w.started_at);
        Ok(history)
    }
}
