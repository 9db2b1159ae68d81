//! Who pays for a model call. Every lane's model calls (the coach's turns, the functional
//! lane's swap picks and rephrasings, the worker's card summaries) reserve their estimate
//! against the lifter's daily allowance (`COACH_DAILY_TOKENS`) and the stage's daily ceiling
//! (`STAGE_DAILY_TOKENS`) before they are made, and settle what they cost after. The
//! reservation is a conditional update of each counter (`Store::reserve_tokens`): parallel
//! streams cannot each spend the whole allowance, and the day's count passes a cap by at most
//! one call's estimate (and what calls cost beyond their estimates). A reservation that is never
//! settled (a job cut off by its timeout) leaves its estimate counted: the safe side. A refused call is not made: the coach answers `QUOTA_EXCEEDED`, the
//! buttons and the card keep their rules' answer.

use chrono::{DateTime, Utc};

use crate::llm::{Model, Request, Usage};
use crate::store::{Caps, Grant, Store, StoreError};

/// Tokens a lifter's model calls may spend in a UTC day unless `COACH_DAILY_TOKENS` says
/// otherwise: about 20 long coach answers with tools (one is 5,000–15,000 tokens).
pub const DEFAULT_DAILY_TOKENS: u64 = 200_000;

/// A daily allowance; `None` is no cap (a setting of 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget(pub Option<u64>);

impl Budget {
    /// Tokens left today after `used`; `None` without a cap.
    pub fn left(self, used: u64) -> Option<u64> {
        self.0.map(|cap| cap.saturating_sub(used))
    }
}

/// The allowances and the store that counts against them; cheap to clone.
#[derive(Debug, Clone)]
pub struct Meter {
    store: Store,
    caps: Caps,
}

/// Why a call was not made.
#[derive(Debug)]
pub enum Refusal {
    /// The lifter's allowance is spent for today.
    LifterSpent,
    /// The stage's ceiling is reached for today.
    StageSpent,
    /// The count could not be read or written: no call is made unpaid.
    Store(StoreError),
}

/// Tokens set aside for one call, until it is settled.
#[derive(Debug)]
#[must_use = "a reservation is settled with what the call cost"]
pub struct Reservation {
    user: String,
    at: DateTime<Utc>,
    tokens: u64,
    stage: bool,
}

impl Meter {
    pub fn new(store: Store, lifter: Budget, stage: Budget) -> Meter {
        Meter {
            store,
            caps: Caps {
                lifter: lifter.0,
                stage: stage.0,
            },
        }
    }

    /// The lifter's tokens left today after `used` (`None`: no cap).
    pub fn left(&self, used: u64) -> Option<u64> {
        Budget(self.caps.lifter).left(used)
    }

    /// Sets aside what a call of `req` to `model` may cost, or refuses it.
    pub async fn reserve(
        &self,
        user: &str,
        model: &Model,
        req: &Request,
    ) -> Result<Reservation, Refusal> {
        let at = Utc::now();
        let tokens = model.estimate(req);
        match self.store.reserve_tokens(user, at, tokens, self.caps).await {
            Ok(Grant::Granted) => Ok(Reservation {
                user: user.to_string(),
                at,
                tokens,
                stage: self.caps.stage.is_some(),
            }),
            Ok(Grant::LifterSpent) => Err(Refusal::LifterSpent),
            Ok(Grant::StageSpent) => {
                tracing::error!("the stage's daily token ceiling (STAGE_DAILY_TOKENS) is reached");
                Err(Refusal::StageSpent)
            }
            Err(e) => Err(Refusal::Store(e)),
        }
    }

    /// Replaces the reservation with what the call cost (nothing, for a call never answered).
    pub async fn settle(&self, r: Reservation, used: Usage) {
        if let Err(e) = self
            .store
            .settle_tokens(&r.user, r.at, r.tokens, used, r.stage)
            .await
        {
            // The estimate stays counted: the lifter is charged at most that.
            tracing::error!(error = %e, "could not settle a model call's tokens");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_left() {
        assert_eq!(Budget(Some(1_000)).left(400), Some(600));
        assert_eq!(Budget(Some(1_000)).left(4_000), Some(0));
        assert_eq!(Budget(None).left(4_000), None);
    }
}
