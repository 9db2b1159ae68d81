//! The post-workout insight card: what the session achieved (highlights), what needs attention
//! (flags) and what to do next (recommendations), all computed; the summary is deterministic
//! text built from the same facts (a model-written summary is not implemented).

use chrono::{DateTime, Duration, NaiveDate, Utc};
use chrono_tz::Tz;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::fatigue::{LoadAdvice, Readiness};
use super::load::LoadCompared;
use super::progression::{self, Candidate};
use super::series::StallAction;
use super::session::{self, PrKind};
use crate::domain::profile::Profile;
use crate::domain::strength::{Lift, effective_rir, round1};
use crate::domain::units::{Unit, count, format_estimate, format_weight};
use crate::domain::workout::{SetType, Workout};

/// Cards stay relevant for a week.
pub(crate) const CARD_TTL_DAYS: i64 = 7;
/// A session this much above the average of the last four weeks' sessions is "volume up".
pub(crate) const VOLUME_UP: f64 = 0.10;
/// Weeks in a row with at least one session that make a consistency highlight.
pub(crate) const STREAK_WEEKS: usize = 4;
/// The share of sets (with effort recorded) within 2 reps of failure that make an intensity
/// highlight, and the fewest such sets it needs.
pub(crate) const INTENSE_SHARE: f64 = 0.75;
pub(crate) const INTENSE_MIN_SETS: usize = 6;
/// This week's hard sets below this share of the 4-week weekly average is a volume drop.
pub(crate) const VOLUME_DROP: f64 = 0.7;
/// Failure sets in one session that make a fatigue flag, or an average reserve below
/// [`FATIGUE_RIR`] over at least [`INTENSE_MIN_SETS`] sets.
pub(crate) const FATIGUE_FAILURE_SETS: usize = 3;
pub(crate) const FATIGUE_RIR: f64 = 1.0;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Highlight {
    #[serde(rename = "type")]
    pub kind: String,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exercise_id: Option<String>,
    pub data: Value,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Flag {
    #[serde(rename = "type")]
    pub kind: String,
    /// info | warning | action
    pub severity: String,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exercise_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub muscle_group: Option<String>,
    pub data: Value,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Recommendation {
    #[serde(rename = "type")]
    pub kind: String,
    /// An exercise id, a muscle group, or "program".
    pub target: String,
    pub action: String,
    pub reasoning: String,
    pub confidence: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suggested_weight_kg: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_reps: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InsightCard {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub workout_id: String,
    pub workout_date: NaiveDate,
    pub summary: String,
    /// Who wrote the summary: "rules" (deterministic), or "model" (`WORKER_MODEL`, checked
    /// against these facts).
    #[serde(default = "rules")]
    pub summary_source: String,
    pub highlights: Vec<Highlight>,
    pub flags: Vec<Flag>,
    pub recommendations: Vec<Recommendation>,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
}

fn rules() -> String {
    "rules".into()
}

/// The card's id depends only on the workout, so a re-run rewrites the same card.
pub fn card_id(workout_id: &str) -> String {
    let digest = Sha256::digest(workout_id.as_bytes());
    let hex: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    format!("ins-{hex}")
}

/// The figures behind a deload or ramp-back advice.
fn readiness_reasoning(r: &Readiness, history: &[Workout]) -> String {
    let mut parts: Vec<String> = r
        .training_load
        .iter()
        .map(|a| {
            format!(
                "about {} hard sets a week lately against a usual {}",
                a.acute, a.chronic
            )
        })
        .collect();
    if let Some(back) = &r.returning {
        parts.push(format!(
            "a week of {} hard sets against your usual {}",
            back.light_week_hard_sets, back.usual_hard_sets
        ));
    }
    parts.extend(r.signals.iter().map(|s| s.describe(history)));
    parts.join("; ")
}

/// The card for `w`, judged against `history` (completed workouts; `w` itself may be among
/// them, later ones are ignored).
pub fn post_workout_card(
    w: &Workout,
    history: &[Workout],
    profile: &Profile,
    tz: Tz,
    created_at: DateTime<Utc>,
) -> InsightCard {
    // The card sees the world as of the workout's end (a workout without one ends a minute
    // after it started), so the workout itself is inside every "last 7 days" window.
    let end = w
        .completed_at
        .filter(|c| *c > w.started_at)
        .unwrap_or(w.started_at + Duration::minutes(1));
    let upto: Vec<Workout> = history
        .iter()
        .filter(|h| h.id != w.id && h.started_at < w.started_at)
        .cloned()
        .chain(std::iter::once(w.clone()))
        .collect();
    let prior = &upto[..upto.len() - 1];
    let unit = profile.unit;
    let s = session::summarise(w, tz);
    let effort = Effort::of(w);

    let mut highlights = record_highlights(w, prior, unit);
    highlights.extend(volume_highlight(w, &s, prior, tz, unit));
    let streak = week_streak(&upto, w.started_at, tz);
    if streak >= STREAK_WEEKS {
        highlights.push(Highlight {
            kind: "consistency".into(),
            message: format!("{streak} weeks in a row with training"),
            exercise_id: None,
            data: json!({"weeks": streak}),
        });
    }
    highlights.extend(effort.highlight());

    // Stalls, ACWR and group volume as of the workout's end, computed once.
    let active = super::flags(&upto, end, tz);
    let here: Vec<&str> = session::exercise_ids(w);
    let (mut flags, mut recs) = stalls(&active, &here, unit);
    flags.extend(readiness_flag(&active.readiness));
    recs.extend(readiness_recommendation(&active.readiness, &upto));
    flags.extend(effort.flag());
    for id in &here {
        if let Some(c) = progression::candidate(&upto, id, profile, end) {
            recs.push(progression_rec(&c, unit));
        }
    }
    recs.extend(volume_recommendations(&active, &s));

    let summary = summary(w, &s, &highlights, &flags, unit);
    InsightCard {
        id: card_id(&w.id),
        kind: "post_workout".into(),
        workout_id: w.id.clone(),
        workout_date: s.date,
        summary,
        summary_source: rules(),
        highlights,
        flags,
        recommendations: recs,
        created_at,
        expires_at: created_at + Duration::days(CARD_TTL_DAYS),
    }
}

/// The records `w` set against `prior`: e1RM first, then rep maxes and volume, at most one line
/// per exercise and kind.
/// Says of each record on `card` that it is the best of the lifter's last `read` workouts, not
/// of all time: for a card computed from a bounded read of a longer history (an older record
/// may be better), in its highlights and in the summary that repeats the first.
pub fn records_of_the_last(card: &mut InsightCard, read: usize) {
    for h in card.highlights.iter_mut().filter(|h| h.kind == "pr") {
        let qualified =
            h.message
                .replacen(" on ", &format!(" in your last {read} workouts on "), 1);
        card.summary = card.summary.replace(&h.message, &qualified);
        h.message = qualified;
    }
}

fn record_highlights(w: &Workout, prior: &[Workout], unit: Unit) -> Vec<Highlight> {
    let estimate = |x: f64| format_estimate(x, unit);
    let load = |x: f64| format_weight(x, unit);
    let reps = |x: f64| count(x as u64, "rep");
    let mut prs = session::personal_records(w, prior);
    prs.sort_by_key(|p| match p.kind {
        PrKind::E1rm => 0,
        PrKind::Heaviest => 1,
        PrKind::RepMax { .. } => 2,
        PrKind::SetVolume => 3,
        PrKind::MostReps => 4,
        PrKind::LeastAssistance => 5,
    });
    prs.iter()
        .map(|p| {
            // Loads the lifter lifted are shown as loaded; estimates and volume to one decimal.
            // Bodyweight work's load records are the weight added on the belt.
            let added = if Lift::of(&p.exercise_id, None).loading.uses_bodyweight() {
                " (added weight)"
            } else {
                ""
            };
            let (what, shown): (String, &dyn Fn(f64) -> String) = match p.kind {
                PrKind::E1rm => ("estimated 1RM".into(), &estimate),
                PrKind::Heaviest => (format!("heaviest set{added}"), &load),
                PrKind::RepMax { reps } => (format!("{reps}-rep best{added}"), &load),
                PrKind::LeastAssistance => ("least assistance".into(), &load),
                PrKind::SetVolume => ("best set volume".into(), &estimate),
                PrKind::MostReps => ("most reps in a set".into(), &reps),
            };
            Highlight {
                kind: "pr".into(),
                message: format!(
                    "New {what} on {}: {} (was {})",
                    p.name,
                    shown(p.value),
                    shown(p.previous)
                ),
                exercise_id: Some(p.exercise_id.clone()),
                data: json!(p),
            }
        })
        .collect()
}

/// More volume than the average session of the last 4 weeks, by [`VOLUME_UP`].
fn volume_highlight(
    w: &Workout,
    s: &session::SessionSummary,
    prior: &[Workout],
    tz: Tz,
    unit: Unit,
) -> Option<Highlight> {
    let recent: Vec<&Workout> = prior
        .iter()
        .filter(|h| h.started_at >= w.started_at - Duration::weeks(4))
        .collect();
    if recent.is_empty() {
        return None;
    }
    let avg = recent
        .iter()
        .map(|h| session::summarise(h, tz).volume_kg)
        .sum::<f64>()
        / recent.len() as f64;
    if avg <= 0.0 || s.volume_kg <= avg * (1.0 + VOLUME_UP) {
        return None;
    }
    let estimate = |x: f64| format_estimate(x, unit);
    Some(Highlight {
        kind: "volume_up".into(),
        message: format!(
            "{} moved, {}% above your 4-week session average of {}",
            estimate(s.volume_kg),
            ((s.volume_kg / avg - 1.0) * 100.0).round(),
            estimate(avg)
        ),
        exercise_id: None,
        data: json!({"volume_kg": round1(s.volume_kg), "average_kg": round1(avg)}),
    })
}

/// How hard the working sets were, from their logged effort.
struct Effort {
    /// Sets with an effort logged.
    sets: usize,
    /// Within 2 reps of failure.
    hard: usize,
    /// At no reserve (RIR 0, RPE 10, or marked failure).
    failures: usize,
    avg_rir: Option<f64>,
}

impl Effort {
    fn of(w: &Workout) -> Effort {
        let efforts: Vec<u32> = w
            .exercises
            .iter()
            .flat_map(|e| e.sets.iter())
            .filter(|x| x.set_type != SetType::Warmup)
            .filter_map(|x| x.actual.as_ref().and_then(effective_rir))
            .collect();
        Effort {
            sets: efforts.len(),
            hard: efforts.iter().filter(|r| **r <= 2).count(),
            failures: efforts.iter().filter(|r| **r == 0).count(),
            avg_rir: (!efforts.is_empty())
                .then(|| f64::from(efforts.iter().sum::<u32>()) / efforts.len() as f64),
        }
    }

    /// Grinding is a fatigue flag, and then the same sets are not also praised as productive
    /// effort.
    fn grinding(&self) -> bool {
        self.failures >= FATIGUE_FAILURE_SETS
            || (self.sets >= INTENSE_MIN_SETS && self.avg_rir.is_some_and(|r| r < FATIGUE_RIR))
    }

    fn highlight(&self) -> Option<Highlight> {
        let productive = !self.grinding()
            && self.sets >= INTENSE_MIN_SETS
            && self.hard as f64 >= self.sets as f64 * INTENSE_SHARE;
        productive.then(|| Highlight {
            kind: "intensity".into(),
            message: format!(
                "{} of {} sets within 2 reps of failure: productive effort",
                self.hard, self.sets
            ),
            exercise_id: None,
            data: json!({"hard_sets": self.hard, "sets_with_effort": self.sets}),
        })
    }

    fn flag(&self) -> Option<Flag> {
        if !self.grinding() {
            return None;
        }
        let mut said = Vec::new();
        if self.failures > 0 {
            said.push(format!(
                "{} of {} sets taken to failure",
                self.failures, self.sets
            ));
        }
        if let Some(r) = self.avg_rir {
            said.push(format!("an average of {} reps in reserve", round1(r)));
        }
        Some(Flag {
            kind: "fatigue".into(),
            severity: "warning".into(),
            message: format!(
                "{}: leave a rep or two in reserve next time",
                said.join(", ")
            ),
            exercise_id: None,
            muscle_group: None,
            data: json!({"failure_sets": self.failures, "avg_rir": self.avg_rir.map(round1)}),
        })
    }
}

/// A flag and a recommendation for each stalled exercise of this workout.
fn stalls(active: &super::Flags, here: &[&str], unit: Unit) -> (Vec<Flag>, Vec<Recommendation>) {
    let mut flags = Vec::new();
    let mut recs = Vec::new();
    for st in active
        .plateaus
        .iter()
        .filter(|st| here.contains(&st.exercise_id.as_str()))
    {
        flags.push(Flag {
            kind: "stall".into(),
            severity: if st.action == StallAction::Swap {
                "action"
            } else {
                "warning"
            }
            .into(),
            message: format!(
                "{} has stalled for {} weeks (e1RM about {})",
                st.exercise_name,
                st.weeks,
                format_estimate(st.last_e1rm_kg, unit)
            ),
            exercise_id: Some(st.exercise_id.clone()),
            muscle_group: None,
            data: json!(st),
        });
        let (kind, confidence) = match st.action {
            StallAction::IncreaseLoad => ("progression", 0.7),
            StallAction::Deload => ("deload", 0.7),
            StallAction::Swap => ("swap", 0.6),
            StallAction::VaryRepRange => ("rep_progression", 0.6),
        };
        recs.push(Recommendation {
            kind: kind.into(),
            target: st.exercise_id.clone(),
            action: format!("{}: {}", st.exercise_name, st.advice),
            reasoning: format!(
                "e1RM within 2% for {} weeks{}",
                st.weeks,
                st.avg_rir
                    .map(|r| format!(" at an average of {r} reps in reserve"))
                    .unwrap_or_default()
            ),
            confidence,
            suggested_weight_kg: None,
            target_reps: None,
        });
    }
    (flags, recs)
}

/// Load well above the lifter's usual, or a volume drop, from the training load.
fn readiness_flag(readiness: &Readiness) -> Option<Flag> {
    let a = readiness.training_load.as_ref()?;
    // A spike right after a light week is the return itself.
    if a.compared == LoadCompared::HigherThanUsual && readiness.returning.is_none() {
        Some(Flag {
            kind: "load_up".into(),
            severity: if readiness.advice == LoadAdvice::Deload {
                "action"
            } else {
                "info"
            }
            .into(),
            message: format!(
                "More training than usual: about {} hard sets this week against {} a week lately",
                a.acute, a.chronic
            ),
            exercise_id: None,
            muscle_group: None,
            data: json!(a),
        })
    } else if a.acute < a.chronic * VOLUME_DROP {
        Some(Flag {
            kind: "volume_drop".into(),
            severity: "info".into(),
            message: format!(
                "{} hard sets this week, under your usual {} a week",
                a.acute, a.chronic
            ),
            exercise_id: None,
            muscle_group: None,
            data: json!(a),
        })
    } else {
        None
    }
}

/// What to do about the training load, when the readiness says something.
fn readiness_recommendation(readiness: &Readiness, upto: &[Workout]) -> Option<Recommendation> {
    let action = readiness.advice_text(upto)?;
    let (kind, confidence) = match readiness.advice {
        LoadAdvice::Deload => ("deload", 0.75),
        _ => ("volume_adjust", 0.7),
    };
    Some(Recommendation {
        kind: kind.into(),
        target: "program".into(),
        action,
        reasoning: readiness_reasoning(readiness, upto),
        confidence,
        suggested_weight_kg: None,
        target_reps: None,
    })
}

/// More hard sets for the groups this workout trained that are under their minimum effective
/// volume.
fn volume_recommendations(
    active: &super::Flags,
    s: &session::SessionSummary,
) -> Vec<Recommendation> {
    active
        .below_mev
        .iter()
        .filter(|g| {
            s.hard_sets_by_group
                .iter()
                .any(|(sg, _)| *sg == g.muscle_group)
        })
        .map(|g| Recommendation {
            kind: "volume_adjust".into(),
            target: g.muscle_group.id().into(),
            action: format!(
                "Add {} of {} a week",
                count((g.mev - g.hard_sets).ceil().max(1.0) as u64, "hard set"),
                g.muscle_group.id()
            ),
            reasoning: format!(
                "{} hard sets in the last 7 days, under the {} that reliably drive growth",
                g.hard_sets, g.mev
            ),
            confidence: 0.6,
            suggested_weight_kg: None,
            target_reps: None,
        })
        .collect()
}

fn progression_rec(c: &Candidate, unit: Unit) -> Recommendation {
    Recommendation {
        kind: "progression".into(),
        target: c.exercise_id.clone(),
        action: format!(
            "{}: {} for {} reps next time",
            c.exercise_name,
            Lift::of(&c.exercise_id, None).describe(c.suggested_kg, unit),
            c.target_reps
        ),
        reasoning: c.reason.clone(),
        confidence: c.confidence,
        suggested_weight_kg: Some(c.suggested_kg),
        target_reps: Some(c.target_reps),
    }
}

/// Weeks in a row, ending with the week of `at`, with at least one session.
fn week_streak(history: &[Workout], at: DateTime<Utc>, tz: Tz) -> usize {
    use super::facts::{local_date, week_start};
    let weeks: std::collections::BTreeSet<NaiveDate> = history
        .iter()
        .filter(|h| h.started_at <= at)
        .map(|h| week_start(local_date(h.started_at, tz)))
        .collect();
    let mut week = week_start(local_date(at, tz));
    let mut n = 0;
    while weeks.contains(&week) {
        n += 1;
        week = week - chrono::Days::new(7);
    }
    n
}

fn summary(
    w: &Workout,
    s: &session::SessionSummary,
    highlights: &[Highlight],
    flags: &[Flag],
    unit: Unit,
) -> String {
    let mut text = format!(
        "{}: {} working sets, {} moved{}.",
        w.name,
        s.sets,
        format_estimate(s.volume_kg, unit),
        s.duration_min
            .map(|m| format!(" in {m} minutes"))
            .unwrap_or_default()
    );
    let prs: Vec<&Highlight> = highlights.iter().filter(|h| h.kind == "pr").collect();
    if let Some(first) = prs.first() {
        text.push_str(&format!(" {}.", first.message));
        if prs.len() > 1 {
            text.push_str(&format!(" {} more records.", prs.len() - 1));
        }
    }
    if let Some(f) = flags.first() {
        text.push_str(&format!(" {}.", f.message));
    }
    text
}

#[cfg(test)]
mod tests {

    #[test]
    fn records_of_a_bounded_read_say_so_everywhere() {
        let mut card = InsightCard {
            summary: "Push: 3 working sets, 1425 kg moved. New heaviest set on Bench Press: 100 kg (was 95 kg).".into(),
            highlights: vec![Highlight {
                kind: "pr".into(),
                message: "New heaviest set on Bench Press: 100 kg (was 95 kg)".into(),
                exercise_id: Some("barbell-bench-press".into()),
                data: Value::Null,
            }],
            id: "c".into(),
            kind: "post_workout".into(),
            workout_id: "w".into(),
            workout_date: NaiveDate::from_ymd_opt(2026, 11, 28).unwrap(),
            summary_source: rules(),
            flags: Vec::new(),
            recommendations: Vec::new(),
            created_at: DateTime::<Utc>::default(),
            expires_at: DateTime::<Utc>::default(),
        };
        records_of_the_last(&mut card, 2000);
        let said = "New heaviest set in your last 2000 workouts on Bench Press: 100 kg (was 95 kg)";
        assert_eq!(card.highlights[0].message, said);
        assert!(card.summary.contains(said), "{}", card.summary);
    }
    use super::*;
    use crate::analysis::testkit::{at_day, session, working};

    #[test]
    fn a_record_session_after_steady_weeks() {
        // Four weeks of bench 3 × 8 × 80 at RIR 2 on Mondays, then 3 × 8 × 85 at RIR 2.
        let mut h: Vec<Workout> = (0..4)
            .map(|k| {
                session(
                    7 * k,
                    "barbell-bench-press",
                    &vec![working(80.0, 8, Some(8), Some(2)); 3],
                )
            })
            .collect();
        let mut today = session(
            28,
            "barbell-bench-press",
            &vec![working(85.0, 8, Some(8), Some(2)); 3],
        );
        today.completed_at = Some(today.started_at + Duration::minutes(40));
        h.push(today.clone());
        let card = post_workout_card(&today, &h, &Profile::default(), chrono_tz::UTC, at_day(28));
        assert_eq!(card.id, card_id(&today.id));
        assert_eq!(card.workout_date.to_string(), "2026-02-02");
        let kinds: Vec<&str> = card.highlights.iter().map(|x| x.kind.as_str()).collect();
        // e1RM 85 × (1 + 10/30) = 113.3 over 106.7; the 8-rep best 85 over 80; volume 2040
        // over 1920 (+6 %: a volume record, but not 10 % above the average: no volume_up);
        // five Mondays in a row; 3 sets is too few for an intensity highlight.
        assert_eq!(kinds, ["pr", "pr", "pr", "consistency"]);
        assert_eq!(
            card.highlights[0].message,
            "New estimated 1RM on Bench Press: 113.3 kg (was 106.7 kg)"
        );
        assert_eq!(card.highlights[3].data["weeks"], 5);
        // 85 × 8 of 8 planned at RIR 2: the top of the target, so 87.5 next time (the same
        // number the next planned workout gives). Chest got 3 hard sets in the last 7 days,
        // under its MEV of 10: add 7.
        let volume: Vec<&Recommendation> = card
            .recommendations
            .iter()
            .filter(|r| r.kind == "volume_adjust")
            .collect();
        assert_eq!(volume[0].target, "chest");
        assert_eq!(volume[0].action, "Add 7 hard sets of chest a week");
        let progression: Vec<&str> = card
            .recommendations
            .iter()
            .filter(|r| r.kind == "progression")
            .map(|r| r.action.as_str())
            .collect();
        assert_eq!(progression, ["Bench Press: 87.5 kg for 8 reps next time"]);
        assert!(card.summary.starts_with(
            "Session: 3 working sets, 2040 kg moved in 40 minutes. New estimated 1RM on Bench Press"
        ));
        // The same inputs give the same card (only created_at may differ).
        let again = post_workout_card(&today, &h, &Profile::default(), chrono_tz::UTC, at_day(28));
        assert_eq!(again, card);
    }

    #[test]
    fn grinding_to_failure_is_flagged_and_a_stall_gets_an_action() {
        let mut h = Vec::new();
        for k in 0..4 {
            // 6 sets of squat at 100 × 5, RIR 0, flat for four weeks.
            h.push(session(
                7 * k,
                "back-squat",
                &vec![working(100.0, 5, Some(5), Some(0)); 6],
            ));
        }
        let today = h[3].clone();
        let card = post_workout_card(&today, &h, &Profile::default(), chrono_tz::UTC, at_day(22));
        let flags: Vec<&str> = card.flags.iter().map(|f| f.kind.as_str()).collect();
        // Stall 4 weeks at RIR 0: deload; avg RIR 0 over 6 sets: fatigue.
        assert_eq!(flags, ["stall", "fatigue"]);
        assert_eq!(
            card.flags[1].message,
            "6 of 6 sets taken to failure, an average of 0 reps in reserve: leave a rep or two in reserve next time"
        );
        assert!(
            card.recommendations
                .iter()
                .any(|r| r.kind == "deload" && r.target == "back-squat")
        );
        // Grinding is not also praised as productive effort.
        assert!(!card.highlights.iter().any(|x| x.kind == "intensity"));
    }

    #[test]
    fn two_sessions_with_reserve_recommend_the_next_load() {
        let h: Vec<Workout> = [0, 3]
            .iter()
            .map(|d| {
                session(
                    *d,
                    "barbell-row",
                    &vec![working(60.0, 8, Some(8), Some(3)); 3],
                )
            })
            .collect();
        let card = post_workout_card(&h[1], &h, &Profile::default(), chrono_tz::UTC, at_day(3));
        let p = card
            .recommendations
            .iter()
            .find(|r| r.kind == "progression")
            .expect("a progression");
        // 60 kg: 2.5 % is 1.5 → one 2.5 kg step.
        assert_eq!(
            (p.suggested_weight_kg, p.target_reps),
            (Some(62.5), Some(8))
        );
        assert_eq!(p.action, "Barbell Row: 62.5 kg for 8 reps next time");
    }

    /// Every text of the card, the weekly review and the coach's flags, for a pound and a
    /// kilogram lifter, over histories that fire every template: records, volume up, streaks,
    /// intensity, progression, volume advice, stalls, grinding, a deload, and a return.
    #[test]
    #[expect(
        clippy::too_many_lines,
        reason = "one history that fires every template, checked in one pass"
    )]
    fn every_text_is_in_the_lifters_unit() {
        use crate::analysis::review::weekly_review;
        let bench = |d: i64, kg: f64, rir: u32, n: usize| {
            session(
                d,
                "barbell-bench-press",
                &vec![working(kg, 8, Some(8), Some(rir)); n],
            )
        };
        let squat = |d: i64, kg: f64, rir: u32, n: usize| {
            session(
                d,
                "back-squat",
                &vec![working(kg, 5, Some(5), Some(rir)); n],
            )
        };
        // Climbing: bench up 2.5 kg a week, squat steady, then a record day with more sets.
        let mut climbing: Vec<Workout> = (0..6)
            .flat_map(|k| {
                [
                    bench(7 * k, 80.0 + 2.5 * k as f64, 2, 3),
                    squat(7 * k + 2, 100.0, 2, 3),
                ]
            })
            .collect();
        climbing.push(bench(42, 97.5, 2, 6));
        // Grinding: flat at RIR 0 for five weeks, then a heavier week (a deload).
        let mut grinding: Vec<Workout> = (0..5)
            .flat_map(|k| [bench(7 * k, 80.0, 2, 3), squat(7 * k + 2, 100.0, 2, 3)])
            .collect();
        grinding.extend([
            bench(35, 80.0, 0, 5),
            squat(37, 100.0, 0, 5),
            bench(39, 80.0, 0, 5),
        ]);
        // Back after three weeks away.
        let mut back: Vec<Workout> = (0..5)
            .flat_map(|k| [bench(7 * k, 80.0, 2, 3), squat(7 * k + 2, 100.0, 2, 3)])
            .collect();
        back.extend([bench(56, 72.5, 2, 3), squat(58, 90.0, 2, 3)]);
        let mut fired: std::collections::BTreeSet<String> = Default::default();
        for unit in [Unit::Lb, Unit::Kg] {
            let profile = Profile {
                unit,
                ..Profile::default()
            };
            let other = match unit {
                Unit::Lb => "kg",
                Unit::Kg => "lb",
            };
            for h in [&climbing, &grinding, &back] {
                let mut texts = Vec::new();
                let last = h.iter().max_by_key(|w| w.started_at).cloned();
                let Some(w) = last else { continue };
                let card = post_workout_card(&w, h, &profile, chrono_tz::UTC, w.started_at);
                texts.push(card.summary.clone());
                for x in &card.highlights {
                    fired.insert(format!("highlight {}", x.kind));
                    texts.push(x.message.clone());
                }
                for x in &card.flags {
                    fired.insert(format!("flag {}", x.kind));
                    texts.push(x.message.clone());
                }
                for x in &card.recommendations {
                    fired.insert(format!("rec {}", x.kind));
                    texts.push(x.action.clone());
                    texts.push(x.reasoning.clone());
                }
                let day = crate::analysis::facts::local_date(w.started_at, chrono_tz::UTC);
                let review = weekly_review(h, day, &profile, chrono_tz::UTC, w.started_at);
                texts.push(review.summary.clone());
                let end = w.started_at + Duration::hours(2);
                texts.extend(crate::analysis::flags(h, end, chrono_tz::UTC).lines(h, unit));
                for t in &texts {
                    let words: Vec<&str> = t
                        .split(|c: char| !c.is_alphanumeric() && c != '.')
                        .collect();
                    assert!(!words.contains(&other), "{other} in a {unit:?} text: {t}");
                    assert!(!t.contains("NaN") && !t.contains("inf "), "{t}");
                    assert!(
                        !t.contains(" 1 sessions") && !t.contains(" 1 hard sets"),
                        "{t}"
                    );
                    // A weight is shown with at most one decimal in pounds, two in kilograms.
                    for pair in words.windows(2) {
                        if pair[1] == unit.label()
                            && let Some((_, decimals)) = pair[0].split_once('.')
                        {
                            let most = if unit == Unit::Lb { 1 } else { 2 };
                            assert!(decimals.len() <= most, "{t}");
                        }
                    }
                }
                // Loads to put on the bar are on the lifter's plates.
                for r in card
                    .recommendations
                    .iter()
                    .filter(|r| r.kind == "progression")
                {
                    let kg = r.suggested_weight_kg.unwrap_or_default();
                    let shown = unit.from_kg(kg);
                    let step = if unit == Unit::Lb { 5.0 } else { 2.5 };
                    assert!(
                        ((shown / step).round() * step - shown).abs() < 1e-6,
                        "{} is not on a {step} {} step",
                        r.action,
                        unit.label()
                    );
                }
            }
        }
        for want in [
            "highlight pr",
            "highlight consistency",
            "flag fatigue",
            "rec progression",
            "rec deload",
            "rec volume_adjust",
        ] {
            assert!(fired.contains(want), "{want} never fired: {fired:?}");
        }
    }
}
