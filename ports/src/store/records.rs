//! Each exercise's all-time best e1RM (`BEST#<exercise>#rated|unrated`), so the workout monitor
//! can tell a record from a good set without reading the whole history. Raised with a
//! conditional update, so a retried job or a re-import writes nothing new; set again from the
//! whole history when the lifter edits or deletes a workout (which can lower a best).

use aws_sdk_dynamodb::types::AttributeValue;
use futures_util::future::join_all;

use super::timing::Timed;
use super::{Store, StoreError, key, string};
use crate::domain::strength::BestE1rm;
use crate::domain::workout::Workout;

pub(crate) const BEST_PREFIX: &str = "BEST#";
/// Updates of one batch of workouts in flight at once.
const UPDATES_IN_FLIGHT: usize = 8;

fn best_sk(exercise_id: &str, rated: bool) -> String {
    let kind = if rated { "rated" } else { "unrated" };
    format!("{BEST_PREFIX}{exercise_id}#{kind}")
}

impl Store {
    /// Raises the stored bests to those of `workouts` where they are higher.
    pub async fn raise_bests(&self, user: &str, workouts: &[Workout]) -> Result<(), StoreError> {
        let updates: Vec<(String, f64)> = BestE1rm::of_workouts(workouts)
            .into_iter()
            .flat_map(|(id, b)| {
                [(false, b.unrated), (true, b.rated)]
                    .into_iter()
                    .filter_map(move |(rated, v)| Some((best_sk(&id, rated), v?)))
            })
            .collect();
        for group in updates.chunks(UPDATES_IN_FLIGHT) {
            for r in join_all(group.iter().map(|(sk, v)| self.raise_best(user, sk, *v))).await {
                r?;
            }
        }
        Ok(())
    }

    async fn raise_best(&self, user: &str, sk: &str, e1rm: f64) -> Result<(), StoreError> {
        let update = self
            .client
            .update_item()
            .table_name(&self.table)
            .set_key(Some(key(user, sk.to_string())))
            .update_expression("SET e1rm = :v")
            .condition_expression("attribute_not_exists(e1rm) OR e1rm < :v")
            .expression_attribute_values(":v", AttributeValue::N(format!("{e1rm}")));
        // A higher best already stored is no error.
        Store::update_if(update).await.map(|_| ())
    }

    /// Sets the bests and last-session pointers of `exercise_ids` to what `history` (the whole
    /// history, after an edit) says: lowered or removed too, not only raised.
    pub async fn rebuild_exercise_records(
        &self,
        user: &str,
        exercise_ids: &[&str],
        history: &[Workout],
    ) -> Result<(), StoreError> {
        let mut writes = Vec::new();
        for id in exercise_ids {
            let best = BestE1rm::of_exercise(history, id);
            for (rated, v) in [(false, best.unrated), (true, best.rated)] {
                writes.push((
                    best_sk(id, rated),
                    v.map(|v| ("e1rm", AttributeValue::N(format!("{v}")))),
                ));
            }
            let newest = history
                .iter()
                .filter(|w| w.exercises.iter().any(|e| e.exercise_id == *id))
                .max_by_key(|w| super::completed_sk(w));
            writes.push((
                super::last_session::last_session_sk(id),
                newest.map(|w| ("workout_sk", super::s(super::completed_sk(w)))),
            ));
        }
        for group in writes.chunks(UPDATES_IN_FLIGHT) {
            let calls = group.iter().map(|(sk, value)| async move {
                match value {
                    Some((name, v)) => {
                        let mut item = key(user, sk.clone());
                        item.insert((*name).to_string(), v.clone());
                        self.client
                            .put_item()
                            .table_name(&self.table)
                            .set_item(Some(item))
                            .send()
                            .timed()
                            .await
                            .map(|_| ())
                            .map_err(StoreError::from)
                    }
                    None => self
                        .client
                        .delete_item()
                        .table_name(&self.table)
                        .set_key(Some(key(user, sk.clone())))
                        .send()
                        .timed()
                        .await
                        .map(|_| ())
                        .map_err(StoreError::from),
                }
            });
            for r in join_all(calls).await {
                r?;
            }
        }
        Ok(())
    }

    /// The stored bests of `exercise_id` (none for a lifter whose history predates them).
    pub async fn bests(&self, user: &str, exercise_id: &str) -> Result<BestE1rm, StoreError> {
        let mut out = BestE1rm::default();
        for item in self
            .items_under(user, &format!("{BEST_PREFIX}{exercise_id}#"))
            .await?
        {
            let (Some(sk), Some(AttributeValue::N(v))) = (string(&item, "sk"), item.get("e1rm"))
            else {
                continue;
            };
            let Ok(v) = v.parse::<f64>() else {
                continue;
            };
            out.raise(sk.ends_with("#rated"), v);
        }
        Ok(out)
    }
}
