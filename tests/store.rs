//! Store tests on a dynoxide started for each test on a free loopback port.

use blackbox::{Dynoxide, sample_workout, unique_user};
use chrono::Utc;
use coach::domain::profile::Profile;
use coach::domain::units::Unit;
use coach::domain::workout::SetStatus;
use coach::store::{CommitOutcome, IdempotencyRecord};

fn record(corr: &str, fingerprint: &str, expires_at: i64) -> IdempotencyRecord {
    IdempotencyRecord {
        corr: corr.into(),
        fingerprint: fingerprint.into(),
        status: 200,
        body: "{\"ok\":1}".into(),
        expires_at,
    }
}

#[tokio::test]
async fn copilot_state_reads_workout_profile_and_replay_in_one_batch() {
    let db = Dynoxide::start();
    let store = db.store().await;
    let user = unique_user("state");
    let empty = store
        .copilot_state(&user, Some("c1"), Utc::now())
        .await
        .unwrap();
    assert!(empty.workout.is_none() && empty.profile.is_none() && empty.replay.is_none());

    store
        .put_profile(
            &user,
            &Profile {
                unit: Unit::Lb,
                ..Profile::default()
            },
        )
        .await
        .unwrap();
    store
        .replace_active_workout(&user, &sample_workout("w1", 3))
        .await
        .unwrap();
    let now = Utc::now();
    let mut w = sample_workout("w1", 3);
    w.exercises[0].sets[1].status = SetStatus::Done;
    let outcome = store
        .commit_workout(
            &user,
            &w,
            1,
            Some(&record("c1", "fp", now.timestamp() + 60)),
            now,
        )
        .await
        .unwrap();
    assert_eq!(outcome, CommitOutcome::Committed);

    let state = store
        .copilot_state(&user, Some("c1"), Utc::now())
        .await
        .unwrap();
    let wv = state.workout.unwrap();
    assert_eq!(wv.version, 2);
    assert_eq!(wv.value.exercises[0].sets[1].status, SetStatus::Done);
    assert_eq!(state.profile.unwrap().unit, Unit::Lb);
    let replay = state.replay.unwrap();
    assert_eq!(
        (replay.fingerprint.as_str(), replay.body.as_str()),
        ("fp", "{\"ok\":1}")
    );
}

#[tokio::test]
async fn a_stale_version_is_a_conflict_and_writes_nothing() {
    let db = Dynoxide::start();
    let store = db.store().await;
    let user = unique_user("version");
    store
        .replace_active_workout(&user, &sample_workout("w1", 3))
        .await
        .unwrap();
    let mut w = sample_workout("w1", 3);
    w.name = "first".into();
    assert_eq!(
        store
            .commit_workout(&user, &w, 1, None, Utc::now())
            .await
            .unwrap(),
        CommitOutcome::Committed
    );
    w.name = "stale".into();
    let rec = record("c2", "fp", Utc::now().timestamp() + 60);
    assert_eq!(
        store
            .commit_workout(&user, &w, 1, Some(&rec), Utc::now())
            .await
            .unwrap(),
        CommitOutcome::VersionConflict
    );
    let stored = store.get_active_workout(&user).await.unwrap().unwrap();
    assert_eq!((stored.value.name.as_str(), stored.version), ("first", 2));
    // The transaction wrote neither item: the idempotency record is absent too.
    assert!(
        store
            .copilot_state(&user, Some("c2"), Utc::now())
            .await
            .unwrap()
            .replay
            .is_none()
    );
}

#[tokio::test]
async fn a_second_commit_with_the_same_corr_is_a_duplicate() {
    let db = Dynoxide::start();
    let store = db.store().await;
    let user = unique_user("dup");
    store
        .replace_active_workout(&user, &sample_workout("w1", 3))
        .await
        .unwrap();
    let now = Utc::now();
    let rec = record("same", "fp", now.timestamp() + 60);
    let w = sample_workout("w1", 3);
    assert_eq!(
        store
            .commit_workout(&user, &w, 1, Some(&rec), now)
            .await
            .unwrap(),
        CommitOutcome::Committed
    );
    assert_eq!(
        store
            .commit_workout(&user, &w, 2, Some(&rec), now)
            .await
            .unwrap(),
        CommitOutcome::DuplicateRequest
    );
    assert_eq!(
        store
            .get_active_workout(&user)
            .await
            .unwrap()
            .unwrap()
            .version,
        2
    );
}

#[tokio::test]
async fn expired_idempotency_records_are_ignored_and_may_be_replaced() {
    let db = Dynoxide::start();
    let store = db.store().await;
    let user = unique_user("ttl");
    store
        .replace_active_workout(&user, &sample_workout("w1", 3))
        .await
        .unwrap();
    let now = Utc::now();
    let old = record("c", "old", now.timestamp() - 1);
    let w = sample_workout("w1", 3);
    assert_eq!(
        store
            .commit_workout(&user, &w, 1, Some(&old), now)
            .await
            .unwrap(),
        CommitOutcome::Committed
    );
    assert!(
        store
            .copilot_state(&user, Some("c"), now)
            .await
            .unwrap()
            .replay
            .is_none()
    );
    let fresh = record("c", "new", now.timestamp() + 60);
    assert_eq!(
        store
            .commit_workout(&user, &w, 2, Some(&fresh), now)
            .await
            .unwrap(),
        CommitOutcome::Committed
    );
    assert_eq!(
        store
            .copilot_state(&user, Some("c"), now)
            .await
            .unwrap()
            .replay
            .unwrap()
            .fingerprint,
        "new"
    );
}

#[tokio::test]
async fn completed_workouts_page_in_order_and_exclude_the_active_one() {
    let db = Dynoxide::start();
    let store = db.store().await;
    let user = unique_user("history");
    store
        .replace_active_workout(&user, &sample_workout("active", 2))
        .await
        .unwrap();
    for i in 0..30 {
        let mut w = sample_workout(&format!("h{i:02}"), 2);
        w.started_at = Utc::now() - chrono::Duration::days(60 - i);
        store.put_completed_workout(&user, &w).await.unwrap();
    }
    let all = store.completed_workouts(&user).await.unwrap();
    assert_eq!(all.len(), 30);
    assert!(all.windows(2).all(|p| p[0].started_at < p[1].started_at));
    assert_eq!(store.count_items(&user, "WORKOUT#").await.unwrap(), 31);
    assert_eq!(store.delete_completed_workouts(&user).await.unwrap(), 30);
    assert_eq!(store.count_items(&user, "WORKOUT#").await.unwrap(), 1);
}

#[tokio::test]
async fn ensure_table_is_idempotent() {
    let db = Dynoxide::start();
    let store = db.store().await;
    assert!(
        !store.ensure_table().await.unwrap(),
        "second call finds the table"
    );
}

#[tokio::test]
async fn start_and_complete_are_conditional_and_the_version_keeps_counting() {
    let db = Dynoxide::start();
    let store = db.store().await;
    let user = unique_user("lifecycle");
    let first = sample_workout("w-a", 2);
    assert!(store.start_workout(&user, &first).await.unwrap());
    assert!(
        !store
            .start_workout(&user, &sample_workout("w-b", 2))
            .await
            .unwrap(),
        "a second start while one is active writes nothing"
    );
    let active = store.get_active_workout(&user).await.unwrap().unwrap();
    assert_eq!(active.value.id, "w-a");
    let done = coach::skills::workouts::completed(&active.value, Utc::now());
    assert!(
        !store
            .complete_workout(&user, &done, active.version + 1, None)
            .await
            .unwrap(),
        "a stale version completes nothing"
    );
    assert!(
        store
            .complete_workout(&user, &done, active.version, None)
            .await
            .unwrap()
    );
    assert!(store.get_active_workout(&user).await.unwrap().is_none());
    let state = store.copilot_state(&user, None, Utc::now()).await.unwrap();
    assert!(state.workout.is_none());
    assert_eq!(state.active_version, active.version + 1);
    // A command read before the completion cannot write the old workout back.
    let stale = store
        .commit_workout(&user, &active.value, active.version, None, Utc::now())
        .await
        .unwrap();
    assert_eq!(stale, CommitOutcome::VersionConflict);
    assert!(
        store
            .start_workout(&user, &sample_workout("w-c", 2))
            .await
            .unwrap()
    );
    let next = store.get_active_workout(&user).await.unwrap().unwrap();
    assert_eq!(
        (next.value.id.as_str(), next.version),
        ("w-c", active.version + 2)
    );
    let found = store.find_completed_workout(&user, "w-a").await.unwrap();
    assert_eq!(found.map(|w| w.id), Some("w-a".to_string()));
}

#[tokio::test]
async fn claims_and_the_notification_lock_hold_once() {
    use coach::skills::notify::{Notification, Priority};
    use coach::store::activity::{EventOutcome, EventRecord};
    let db = Dynoxide::start();
    let store = db.store().await;
    let user = unique_user("claims");
    let now = Utc::now();
    let later = now.timestamp() + 3600;
    assert!(
        store
            .claim(&user, "MONITOR#w#pr#x", later, now)
            .await
            .unwrap()
    );
    assert!(
        !store
            .claim(&user, "MONITOR#w#pr#x", later, now)
            .await
            .unwrap()
    );
    let note = |id: &str, at| Notification {
        id: id.into(),
        message: "check in?".into(),
        priority: Priority::Normal,
        source: "checkin_prompt".into(),
        channel: "in_app".into(),
        created_at: at,
    };
    let event = |id: &str| EventRecord {
        id: id.into(),
        at: now,
        kind: "app_opened".into(),
        payload: serde_json::json!({"type": "app_opened"}),
        reply: serde_json::json!({}),
    };
    let sent = store
        .record_event(&user, &event("e1"), None, Some(&note("n1", now)), None, now)
        .await
        .unwrap();
    assert_eq!(sent, EventOutcome::Committed);
    let soon = now + chrono::Duration::hours(1);
    let second = store
        .record_event(
            &user,
            &event("e2"),
            None,
            Some(&note("n2", soon)),
            None,
            soon,
        )
        .await
        .unwrap();
    assert_eq!(second, EventOutcome::RateLimited, "one per four hours");
    assert_eq!(
        store.count_items(&user, "EVENT#").await.unwrap(),
        1,
        "the refused transaction logged nothing"
    );
    let page = store.page(&user, "NOTIFY#", 10, None, now).await.unwrap();
    assert_eq!(page.items.len(), 1);
}

/// A job racing its lifter's account deletion: claimed before the deletion's marker, it
/// completes only if it was sent after the deletion; refused, it writes nothing. The marker
/// itself is outside the partition the deletion sweeps.
#[tokio::test]
async fn a_job_racing_an_account_deletion_writes_nothing() {
    use coach::store::jobs::{Claim, Output, claim_sk};
    let db = Dynoxide::start();
    let store = db.store().await;
    let user = unique_user("deleted");
    let now = Utc::now();
    let sent = now - chrono::Duration::seconds(5);
    let sk = claim_sk("weekly_review", "2026-W47");
    let lease = now + chrono::Duration::seconds(30);
    let Claim::Claimed { run } = store
        .claim_job(&user, &sk, lease, false, now)
        .await
        .unwrap()
    else {
        panic!("the claim is free");
    };
    assert_eq!(store.deleted_at(&user).await.unwrap(), None);
    store.mark_deleted(&user, now).await.unwrap();
    assert_eq!(
        store
            .deleted_at(&user)
            .await
            .unwrap()
            .map(|t| t.timestamp_millis()),
        Some(now.timestamp_millis())
    );
    let review = serde_json::json!({"id": "2026-W47"});
    let outputs = [Output::Review {
        id: "2026-W47",
        review: &review,
    }];
    assert!(
        !store
            .finish_job(&user, &sk, &run, &outputs, sent, now)
            .await
            .unwrap(),
        "sent before the deletion: refused"
    );
    assert_eq!(store.count_items(&user, "REVIEW#").await.unwrap(), 0);
    // The same job sent after the deletion (the lifter kept using the app) completes.
    let after = now + chrono::Duration::milliseconds(1);
    assert!(
        store
            .finish_job(&user, &sk, &run, &outputs, after, now)
            .await
            .unwrap()
    );
    assert_eq!(store.count_items(&user, "REVIEW#").await.unwrap(), 1);
    // The whole partition, as the export reads it: the claim and the review.
    assert_eq!(store.user_items(&user).await.unwrap().len(), 2);
    // Deleting the account sweeps the partition, never the marker.
    assert!(store.delete_user(&user, usize::MAX).await.unwrap().finished);
    assert!(store.user_items(&user).await.unwrap().is_empty());
    assert!(store.deleted_at(&user).await.unwrap().is_some());
}

/// The store times itself for the request's log line: each DynamoDB call is counted and the
/// time waited on it recorded, with no code above the store doing so.
#[tokio::test]
async fn store_calls_are_counted_on_the_request_log() {
    use coach::telemetry::{RequestLog, scope};
    let db = Dynoxide::start();
    let store = db.store().await;
    let user = unique_user("timed");
    let (read, log) = scope(RequestLog::new("fast", None), async {
        let a = store.copilot_state(&user, Some("c1"), Utc::now()).await;
        let b = store.get_active_workout(&user).await;
        (a.is_ok(), b.is_ok())
    })
    .await;
    assert_eq!(read, (true, true));
    assert_eq!(log.store_calls, 2);
    assert!(log.store_us > 0);
    // Outside a request's scope the store still works and nothing is recorded.
    assert!(store.get_active_workout(&user).await.is_ok());
}

/// A conversation quiet for more than 30 days: its exchanges have expired but stay in the table
/// until the TTL sweep (days later). The next turn numbers after them, not from 1 again (the
/// write used to hit a taken number and the lifter got STORE_UNAVAILABLE), and the summary of
/// the old turns expires with them.
#[tokio::test]
async fn a_conversation_resumes_after_its_turns_expired_unswept() {
    use coach::store::conversation::{Exchange, Summary};
    let db = Dynoxide::start();
    let store = db.store().await;
    let user = unique_user("quiet");
    let now = Utc::now();
    let then = now - chrono::Duration::days(31);
    let turn = |seq: u64, at| Exchange {
        seq,
        corr: Some(format!("c{seq}")),
        message: format!("question {seq}"),
        answer: format!("answer {seq}"),
        kind: "coach".into(),
        pending_request: None,
        artifacts: Vec::new(),
        proposed: Vec::new(),
        at,
    };
    for seq in 1..=3 {
        assert!(
            store
                .append_exchange(&user, "c-1", &turn(seq, then))
                .await
                .unwrap()
        );
    }
    let summary = Summary {
        upto_seq: 2,
        text: "bench talk".into(),
    };
    store
        .put_summary(&user, "c-1", &summary, then)
        .await
        .unwrap();
    let c = store.conversation(&user, "c-1", 10, now).await.unwrap();
    assert!(c.exchanges.is_empty(), "expired turns are not read");
    assert_eq!(c.summary, None, "the summary expired with them");
    assert_eq!(c.next_seq, 4, "numbered after the unswept turns");
    assert!(
        store
            .append_exchange(&user, "c-1", &turn(c.next_seq, now))
            .await
            .unwrap()
    );
    let c = store.conversation(&user, "c-1", 10, now).await.unwrap();
    assert_eq!(c.exchanges.iter().map(|e| e.seq).collect::<Vec<_>>(), [4]);
    assert_eq!(c.next_seq, 5);
}

/// A revision (an exercise merged or defined) is written only on the version it read: a
/// workout fixed meanwhile (a PATCH) is not overwritten, and is named for the caller to read
/// again. The write used to be unconditional.
#[tokio::test]
async fn a_revision_does_not_overwrite_a_workout_changed_since_it_was_read() {
    use coach::domain::workout::WorkoutStatus;
    let db = Dynoxide::start();
    let store = db.store().await;
    let user = unique_user("revise");
    let mut w = sample_workout("w-rev", 2);
    w.status = WorkoutStatus::Completed;
    store.put_history(&user, &[w], &[]).await.unwrap();
    let read = store.find_completed(&user, "w-rev").await.unwrap().unwrap();
    assert_eq!(read.version, 0, "an imported workout has no version yet");
    // A PATCH meanwhile: version 1.
    let mut fixed = read.clone();
    fixed.value.name = "Fixed by hand".into();
    assert!(store.put_revised(&user, &[fixed]).await.unwrap().is_empty());
    // The revision read before the PATCH: refused, the fix kept.
    let mut stale = read.clone();
    stale.value.name = "Renamed by a merge".into();
    assert_eq!(
        store.put_revised(&user, &[stale]).await.unwrap(),
        ["w-rev".to_string()]
    );
    let now = store.find_completed(&user, "w-rev").await.unwrap().unwrap();
    assert_eq!((now.value.name.as_str(), now.version), ("Fixed by hand", 1));
}

/// The coaching context is written on the version it was read at, by the coach's tool and by
/// an app event: a change made meanwhile (a rating, goals agreed in chat) is not overwritten.
/// Both writes used to be unconditional.
#[tokio::test]
async fn a_coaching_context_change_does_not_overwrite_one_made_meanwhile() {
    use coach::domain::coaching::CoachingContext;
    use coach::store::Parts;
    use coach::store::activity::{EventOutcome, EventRecord};
    let db = Dynoxide::start();
    let store = db.store().await;
    let user = unique_user("coaching");
    let now = Utc::now();
    let parts = Parts {
        coaching: true,
        ..Parts::default()
    };
    let mut seeded = CoachingContext::default();
    seeded.goals.objectives = vec!["bench 100 kg".into()];
    store.put_coaching(&user, &seeded).await.unwrap();
    let read = store.user_state(&user, parts, None, now).await.unwrap();
    assert_eq!(read.coaching_version, 0);
    // The coach's change, on what it read: written, version 1.
    let mut mine = read.coaching.clone().unwrap_or_default();
    mine.goals.objectives.push("squat 140 kg".into());
    assert!(store.put_coaching_if(&user, &mine, 0).await.unwrap());
    // An app event read before it: a conflict, nothing of it written.
    let mut theirs = read.coaching.clone().unwrap_or_default();
    theirs.goals.objectives = vec!["lose 5 kg".into()];
    let event = EventRecord {
        id: "e1".into(),
        at: now,
        kind: "rating_submitted".into(),
        payload: serde_json::json!({}),
        reply: serde_json::json!({}),
    };
    let out = store
        .record_event(&user, &event, Some((&theirs, 0)), None, None, now)
        .await
        .unwrap();
    assert_eq!(out, EventOutcome::Conflict);
    assert!(!store.put_coaching_if(&user, &theirs, 0).await.unwrap());
    let after = store.user_state(&user, parts, None, now).await.unwrap();
    assert_eq!(after.coaching_version, 1);
    assert_eq!(
        after.coaching.unwrap_or_default().goals.objectives,
        ["bench 100 kg", "squat 140 kg"]
    );
}

/// Eight model calls reserve their estimate at once against an allowance one token short: the
/// reservation is a conditional update of each counter, so exactly one is granted and the count passes
/// the allowance by that one estimate. The stage's ceiling holds the same way on its shard,
/// and settling replaces the estimate with what the call cost.
#[tokio::test]
async fn racing_reservations_pass_the_allowance_by_one_estimate_at_most() {
    use coach::llm::{CachePrice, Usage};
    use coach::store::{Caps, Grant};
    let db = Dynoxide::start();
    let store = db.store().await;
    let user = unique_user("reserve");
    let now = Utc::now();
    let cap = 10_000;
    let spent = Usage::new(cap - 1, 0, 0, 0, CachePrice::WHOLE);
    store.add_tokens(&user, now, spent).await.unwrap();
    let caps = Caps {
        lifter: Some(cap),
        stage: None,
    };
    let mut racing = tokio::task::JoinSet::new();
    for _ in 0..8 {
        let (store, user) = (store.clone(), user.clone());
        racing.spawn(async move { store.reserve_tokens(&user, now, 4_500, caps).await });
    }
    let grants = racing.join_all().await;
    let granted = grants
        .iter()
        .filter(|g| matches!(g, Ok(Grant::Granted)))
        .count();
    let refused = grants
        .iter()
        .filter(|g| matches!(g, Ok(Grant::LifterSpent)))
        .count();
    assert_eq!((granted, refused), (1, 7), "{grants:?}");
    let tokens = |store: coach::store::Store, user: String| async move {
        blackbox::tokens_today(&store, &user).await.unwrap()
    };
    assert_eq!(tokens(store.clone(), user.clone()).await, cap - 1 + 4_500);
    let used = Usage::new(100, 32, 0, 0, CachePrice::WHOLE);
    store
        .settle_tokens(&user, now, 4_500, used, false)
        .await
        .unwrap();
    assert_eq!(tokens(store.clone(), user.clone()).await, cap - 1 + 132);

    // The stage's ceiling: its shard's part of it, whoever asks.
    let stage = Caps {
        lifter: None,
        stage: Some(8 * 1_000),
    };
    let other = unique_user("reserve-stage");
    let first = store
        .reserve_tokens(&other, now, 1_500, stage)
        .await
        .unwrap();
    let second = store.reserve_tokens(&other, now, 10, stage).await.unwrap();
    assert_eq!((first, second), (Grant::Granted, Grant::StageSpent));
    assert!(store.stage_tokens(now).await.unwrap() >= 1_500);
    // Refused as a whole: the lifter's own count did not take the refused estimate.
    assert_eq!(tokens(store.clone(), other.clone()).await, 1_500);
}
