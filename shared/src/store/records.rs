//! Each exercise's all-time best e1RM (`BEST#<exercise>#rated|unrated`), so the workout monitor
//! can tell a record from a good set without reading the whole history. Only ever raised, with
//! a conditional update, so a retried job or a re-import writes nothing new.

use aws_sdk_dynamodb::types::AttributeValue;
use futures_util::future::join_all;

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
