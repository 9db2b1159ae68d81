//! What the coach knows before the first model call, read in one concurrent round of store
//! calls: the profile, goals and memories, the last 7 days (sessions and app events), a strength
//! summary and the active training flags (from the last 12 weeks, by the same analysis the worker
//! runs), the active routine and its next day, the workout brief in workout mode, and the
//! conversation within its history budget (older exchanges folded into a stored summary).
//!
//! The context is compact and allowlisted: only the fields named here reach the model.

use chrono::{DateTime, Duration, Utc};
use serde_json::Value;

use crate::analysis::{self, series::WeekPoint};
use crate::context::SessionContext;
use crate::domain::coaching::{CoachingContext, Memory};
use crate::domain::plan::Routine;
use crate::domain::profile::Profile;
use crate::domain::strength::round1;
use crate::domain::units::format_estimate;
use crate::domain::workout::Workout;
use crate::llm::Turn;
use crate::store::activity::Feed;
use crate::store::conversation::{Exchange, Proposed, Summary};
use crate::store::{Parts, Store, StoreError};

/// Exchanges read per request; anything older has been folded into the summary.
pub(crate) const LOADED_EXCHANGES: i32 = 20;
/// Exchanges replayed to the model at most, newest first, within the character budget.
pub(crate) const KEPT_EXCHANGES: usize = 12;
/// About 2,000 tokens of history.
pub(crate) const HISTORY_BUDGET_CHARS: usize = 8_000;
/// The folded summary keeps its newest lines within this.
pub(crate) const SUMMARY_MAX_CHARS: usize = 2_000;
/// The window of "recent" activity in the context.
pub const RECENT_DAYS: i64 = 7;
/// The per-request context at most (about 1,500 tokens), so that memories, a long workout and
/// the folded conversation cannot crowd out the answer's budget: the fixed lines (profile,
/// goals, routine, the week, strengths, flags) first, then the workout brief (in a workout; at
/// most half of what is left when there are memories), then the memories (injuries first, then
/// the newest), then the folded conversation. What does not fit is cut with a note that says
/// where the model can read it.
pub(crate) const CONTEXT_BUDGET_CHARS: usize = 6_000;

/// The conversation id used when the prefix names none.
pub(crate) const DEFAULT_CONVERSATION: &str = "default";

pub(crate) struct Loaded {
    pub profile: Profile,
    pub coaching: Option<CoachingContext>,
    pub workout: Option<Workout>,
    pub memories: Vec<Memory>,
    /// Completed workouts of the last [`analysis::ANALYSIS_WEEKS`] weeks, oldest first.
    pub workouts: Vec<Workout>,
    pub recent_events: Vec<Value>,
    pub routine: Option<Routine>,
    /// Newest first.
    pub exchanges: Vec<Exchange>,
    pub summary: Option<Summary>,
    /// The sequence number this turn's exchange takes (`Conversation::next_seq`).
    pub next_seq: u64,
    /// Model tokens the lifter's coach answers spent today (UTC).
    pub tokens_today: u64,
    /// In a workout: the health decisions of the last [`READINESS_HOURS`] (newest first).
    pub health: Vec<Value>,
    pub now: DateTime<Utc>,
}

/// A health reading this recent is about today's session.
pub(crate) const READINESS_HOURS: i64 = 36;
/// Sessions of each exercise the workout brief recalls.
pub(crate) const BRIEF_SESSIONS: usize = 2;

/// The context line of the memories, and the head of the folded conversation.
const MEMORIES_HEAD: &str = "Memories: ";
const EARLIER_HEAD: &str = "Earlier in this conversation:";

/// Exercises named in the strength summary, most trained first.
pub(crate) const STRENGTH_SUMMARY_EXERCISES: usize = 5;

/// `line` whole when it fits in `left`, else cut at a character boundary with `note` at its end;
/// `left` shrinks by what is used.
fn within(line: String, left: &mut usize, note: &str) -> String {
    if line.len() < *left {
        *left -= line.len() + 1;
        return line;
    }
    let mut end = left.saturating_sub(note.len() + 1);
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    *left = 0;
    format!("{}{note}", &line[..end])
}

pub fn conversation_id(ctx: &SessionContext) -> &str {
    ctx.conversation_id
        .as_deref()
        .unwrap_or(DEFAULT_CONVERSATION)
}

pub async fn load(
    store: &Store,
    ctx: &SessionContext,
    now: DateTime<Utc>,
) -> Result<Loaded, StoreError> {
    let user = ctx.user_id.as_str();
    let parts = Parts {
        profile: true,
        coaching: true,
        workout: true,
        token_usage: true,
        ..Parts::default()
    };
    let since = now - Duration::days(RECENT_DAYS);
    let (state, memories, recent, events, routines, conversation) = tokio::join!(
        store.user_state(user, parts, None, now),
        store.memories(user),
        store.completed_workouts_since(user, now - Duration::weeks(analysis::ANALYSIS_WEEKS)),
        store.feed(user, Feed::Events, 20, None, now),
        store.routines(user),
        store.conversation(user, conversation_id(ctx), LOADED_EXCHANGES, now),
    );
    let state = state?;
    let profile = state.profile.unwrap_or_default();
    let mut routines = routines?;
    let routine = match &profile.active_routine_id {
        Some(id) => routines.iter().position(|r| &r.id == id),
        None if routines.len() == 1 => Some(0),
        None => None,
    }
    .map(|i| routines.swap_remove(i));
    let conversation = conversation?;
    // Today's readiness, for a workout's brief: the worker's recent health decisions.
    let health = if ctx.workout_mode {
        store
            .page(user, "HEALTH#", 4, None, now)
            .await?
            .items
            .into_iter()
            .filter(|d| {
                d["observed_at"]
                    .as_str()
                    .and_then(|t| DateTime::parse_from_rfc3339(t).ok())
                    .is_some_and(|t| {
                        now - t.with_timezone(&Utc) <= Duration::hours(READINESS_HOURS)
                    })
            })
            .collect()
    } else {
        Vec::new()
    };
    Ok(Loaded {
        profile,
        coaching: state.coaching,
        workout: state.workout.map(|v| v.value),
        memories: memories?
            .into_iter()
            .filter(|m| m.retired_at.is_none())
            .collect(),
        workouts: recent?,
        recent_events: events?
            .items
            .into_iter()
            .filter(|e| {
                e["at"]
                    .as_str()
                    .and_then(|t| DateTime::parse_from_rfc3339(t).ok())
                    .is_some_and(|t| t >= since)
            })
            .collect(),
        routine,
        exchanges: conversation.exchanges,
        summary: conversation.summary,
        next_seq: conversation.next_seq,
        tokens_today: state.tokens_today,
        health,
        now,
    })
}

impl Loaded {
    /// The per-request context for the instruction: compact lines, allowlisted fields.
    pub fn context(&self, ctx: &SessionContext, summary: Option<&Summary>) -> String {
        let mut lines = vec![self.profile_line()];
        lines.extend(self.goals_line());
        lines.extend(self.coaching_line(ctx));
        lines.extend(self.routine_line());
        lines.push(self.recent_line());
        if let Some(line) = self.strength_summary(ctx) {
            lines.push(line);
        }
        let flags = analysis::flags(&self.workouts, self.now, ctx.tz)
            .lines(&self.workouts, self.profile.unit);
        if !flags.is_empty() {
            lines.push(format!("Training flags: {}.", flags.join("; ")));
        }
        // The rest shares what the fixed lines leave of the budget, in order of need.
        let mut left = CONTEXT_BUDGET_CHARS.saturating_sub(lines.iter().map(|l| l.len() + 1).sum());
        // However long the workout, half the room stays for the memories (injuries first).
        let memory_room = if self.memories.is_empty() {
            0
        } else {
            left / 2
        };
        if ctx.workout_mode
            && let Some(w) = &self.workout
        {
            // How ready the lifter is today and each exercise's last sessions and e1RM trend
            // first (short, and what a coach reads before the session), then the sets with the
            // ids the workout tools take, cut first when the room runs out.
            let mut brief: Vec<String> = self.readiness_line(ctx).into_iter().collect();
            brief.extend(self.exercise_lines(w, ctx));
            brief.push(format!(
                "Workout brief (ids for the workout tools): {}",
                super::tools::in_unit(super::tools::workout_brief(w), self.profile.unit)
            ));
            let brief = brief.join("\n");
            let mut room = left.saturating_sub(memory_room);
            let note = " … (cut; workout_state has the whole workout)";
            lines.push(within(brief, &mut room, note));
            left = room + left.min(memory_room);
        }
        if let Some(line) = self.memories_line(&mut left) {
            lines.push(line);
        }
        if let Some(s) = summary.filter(|s| !s.text.is_empty()) {
            let earlier = format!("{EARLIER_HEAD}\n{}", s.text);
            // A few lines of it at least, or none.
            if left >= 200 {
                lines.push(within(earlier, &mut left, " … (cut)"));
            }
        }
        lines.join("\n")
    }

    /// "Profile: name Ana, unit kg, experience Intermediate, equipment full gym, bodyweight 70
    /// kg, goals: …."
    fn profile_line(&self) -> String {
        let p = &self.profile;
        let equipment = if p.equipment.is_empty() {
            "full gym".to_string()
        } else {
            p.equipment
                .iter()
                .map(|e| e.label())
                .collect::<Vec<_>>()
                .join(", ")
        };
        format!(
            "Profile: {}unit {}, experience {:?}, equipment {equipment}{}{}.",
            p.display_name
                .as_ref()
                .map(|n| format!("name {n}, "))
                .unwrap_or_default(),
            p.unit.label(),
            p.experience,
            p.bodyweight_kg
                .map(|b| format!(", bodyweight {}", format_estimate(b, p.unit)))
                .unwrap_or_default(),
            if p.goals.is_empty() {
                String::new()
            } else {
                format!(", goals: {}", p.goals.join("; "))
            },
        )
    }

    /// The coaching goals, when any is set.
    /// Where the lifter is in the coaching journey (intake → goals → check-ins), the latest
    /// check-in's ratings with their scales, and the last GROW conversation's goal and way
    /// forward; only for a lifter the coaching has started with.
    fn coaching_line(&self, ctx: &SessionContext) -> Option<String> {
        use crate::domain::coaching::Phase;
        let c = self.coaching.as_ref()?;
        let phase = match c.phase {
            Phase::Intake => "intake",
            Phase::Goals => "goals",
            Phase::Checkins => "check-ins",
        };
        let mut parts = vec![format!("phase {phase}")];
        // Ratings are today's or not at all: an old soreness must not lighten today's session.
        if let Some(at) = c
            .checkin
            .last_checkin_at
            .filter(|at| self.now - *at > Duration::hours(24))
        {
            parts.push(format!(
                "last check-in {} (no ratings today)",
                at.with_timezone(&ctx.tz).format("%Y-%m-%d")
            ));
        } else if let Some(at) = c.checkin.last_checkin_at {
            let ratings: Vec<String> = c
                .checkin
                .latest
                .iter()
                .map(|(key, v)| {
                    let name = key.trim_end_matches("_checkin");
                    match crate::skills::events::scale_of(key) {
                        Some((lo, hi)) => format!("{name} {v} ({lo} to {hi})"),
                        None => format!("{name} {v}"),
                    }
                })
                .collect();
            parts.push(format!(
                "last check-in {}{}",
                at.with_timezone(&ctx.tz).format("%Y-%m-%d"),
                if ratings.is_empty() {
                    String::new()
                } else {
                    format!(": {}", ratings.join(", "))
                }
            ));
        }
        if let Some(g) = &c.checkin.grow_goal {
            parts.push(format!("last GROW goal: {g}"));
        }
        if let Some(w) = &c.checkin.way_forward {
            parts.push(format!("way forward agreed: {w}"));
        }
        Some(format!("Coaching: {}.", parts.join("; ")))
    }

    fn goals_line(&self) -> Option<String> {
        let g = &self.coaching.as_ref()?.goals;
        let mut parts = Vec::new();
        if !g.objectives.is_empty() {
            parts.push(format!("objectives: {}", g.objectives.join("; ")));
        }
        if let Some(t) = &g.timeline {
            parts.push(format!("timeline: {t}"));
        }
        if let Some(t) = &g.current_cycle {
            parts.push(format!("current cycle: {t}"));
        }
        if let Some(t) = &g.active_focus {
            parts.push(format!("current focus: {t}"));
        }
        (!parts.is_empty()).then(|| format!("Goals: {}.", parts.join(", ")))
    }

    /// The active routine, its days and the next one.
    fn routine_line(&self) -> Option<String> {
        let r = self.routine.as_ref()?;
        Some(format!(
            "Active routine: {} ({}), next day: {}.",
            r.name,
            r.days
                .iter()
                .map(|d| d.label.as_str())
                .collect::<Vec<_>>()
                .join(" / "),
            r.days
                .get(r.next_day)
                .map_or("unknown", |d| d.label.as_str())
        ))
    }

    /// The sessions of the last [`RECENT_DAYS`] and the app's recent events.
    fn recent_line(&self) -> String {
        let since = self.now - Duration::days(RECENT_DAYS);
        let sessions: Vec<String> = self
            .workouts
            .iter()
            .filter(|w| w.started_at >= since)
            .map(|w| format!("{} {}", w.started_at.date_naive(), w.name))
            .collect();
        format!(
            "Last {RECENT_DAYS} days: {} sessions{}{}.",
            sessions.len(),
            if sessions.is_empty() {
                String::new()
            } else {
                format!(" ({})", sessions.join(", "))
            },
            if self.recent_events.is_empty() {
                String::new()
            } else {
                format!(
                    "; app events: {}",
                    self.recent_events
                        .iter()
                        .filter_map(|e| e["type"].as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            }
        )
    }

    /// The memories that fit in `left`: injuries first (what the coach must train around),
    /// then the newest; a note counts those left out (list_memories reads them all).
    fn memories_line(&self, left: &mut usize) -> Option<String> {
        if self.memories.is_empty() {
            return None;
        }
        let mut order: Vec<&Memory> = self.memories.iter().collect();
        order.sort_by_key(|m| {
            (
                m.kind.as_deref() != Some("injury"),
                std::cmp::Reverse(m.created_at),
            )
        });
        const HEAD: &str = MEMORIES_HEAD;
        // Room for the head, the closing note ("(50 more: list_memories).") and the newline.
        let mut used = HEAD.len() + 30;
        let mut shown = Vec::new();
        for m in &order {
            let item = format!("[{}] {}", m.id, m.text);
            if used + item.len() + 2 > *left {
                break;
            }
            used += item.len() + 2;
            shown.push(item);
        }
        let more = order.len() - shown.len();
        if shown.is_empty() && more == 0 {
            return None;
        }
        let mut line = format!("{HEAD}{}", shown.join("; "));
        if more > 0 {
            line.push_str(&format!(" ({more} more: list_memories)"));
        }
        line.push('.');
        *left = left.saturating_sub(line.len() + 1);
        Some(line)
    }

    /// Best e1RM of the most trained exercises over the loaded weeks, with its change from the
    /// first week that had one, in the lifter's unit: "Squat 140 kg (+7.5 since 2026-09-01)".
    fn strength_summary(&self, ctx: &SessionContext) -> Option<String> {
        let unit = self.profile.unit;
        let series = analysis::series::most_trained(&self.workouts, ctx.tz);
        let parts: Vec<String> = series
            .iter()
            .filter_map(|(id, pts)| {
                let with: Vec<&WeekPoint> =
                    pts.iter().filter(|p| p.e1rm_max_kg.is_some()).collect();
                let (first, last) = (with.first()?, with.last()?);
                let (a, b) = (first.e1rm_max_kg?, last.e1rm_max_kg?);
                let change = if with.len() > 1 {
                    format!(
                        " ({:+} since week of {})",
                        round1(unit.from_kg(b) - unit.from_kg(a)),
                        first.week_start
                    )
                } else {
                    String::new()
                };
                Some(format!(
                    "{} {}{change}",
                    analysis::name_of(&self.workouts, id),
                    format_estimate(b, unit)
                ))
            })
            .take(STRENGTH_SUMMARY_EXERCISES)
            .collect();
        (!parts.is_empty()).then(|| {
            format!(
                "Strength (weekly best e1RM, last {} weeks): {}.",
                analysis::ANALYSIS_WEEKS,
                parts.join("; ")
            )
        })
    }

    /// For each exercise of the workout: its last sessions (the best set of each) and its e1RM
    /// trend over the weeks read.
    fn exercise_lines(&self, w: &Workout, ctx: &SessionContext) -> Vec<String> {
        let unit = self.profile.unit;
        let series = analysis::series::weekly_series(&self.workouts, ctx.tz);
        let mut seen = std::collections::HashSet::new();
        w.exercises
            .iter()
            .filter(|e| seen.insert(e.exercise_id.as_str()))
            .map(|e| {
                let since = self.now - Duration::weeks(analysis::ANALYSIS_WEEKS);
                let sessions: Vec<String> =
                    analysis::history::sessions_with(&self.workouts, &e.exercise_id, since)
                        .into_iter()
                        .take(BRIEF_SESSIONS)
                        .filter_map(|(s, instances)| {
                            let sets = analysis::history::working_sets(s, &instances);
                            let best = analysis::history::best_by_e1rm(&sets)?;
                            let load = best.weight_kg().filter(|kg| *kg > 0.0).map_or_else(
                                || "bodyweight".to_string(),
                                |kg| crate::domain::units::format_weight(kg, unit),
                            );
                            let rir = best.rir().map(|r| format!(" RIR {r}")).unwrap_or_default();
                            Some(format!(
                                "{} {load} × {}{rir}",
                                s.started_at.with_timezone(&ctx.tz).format("%-d %b"),
                                best.reps()
                            ))
                        })
                        .collect();
                let trend = series.get(&e.exercise_id).map(|pts| {
                    let compound = crate::domain::catalog::catalog()
                        .get(&e.exercise_id)
                        .is_none_or(|x| x.compound);
                    let t = analysis::series::trend(pts, compound);
                    let word = match t.trend {
                        analysis::series::Trend::Improving => "improving",
                        analysis::series::Trend::Plateaued => "flat",
                        analysis::series::Trend::Declining => "declining",
                        analysis::series::Trend::InsufficientData => "too few weeks to tell",
                    };
                    match t.e1rm_slope_kg_per_week {
                        Some(slope) => format!(
                            "e1RM {word} ({:+} {}/week over {} weeks)",
                            round1(unit.from_kg(slope)),
                            unit.label(),
                            t.weeks_analyzed
                        ),
                        None => format!("e1RM {word}"),
                    }
                });
                let last = if sessions.is_empty() {
                    "not done in the weeks read".to_string()
                } else {
                    format!("last {}", sessions.join(", "))
                };
                match trend {
                    Some(t) => format!("{}: {last}; {t}.", e.name),
                    None => format!("{}: {last}.", e.name),
                }
            })
            .collect()
    }

    /// Today's readiness from the lifter's health readings (what departed from their baseline).
    fn readiness_line(&self, ctx: &SessionContext) -> Option<String> {
        // A decision is dated at the start of the lifter's day it is about: only today's.
        let today = crate::analysis::review::local_midnight(
            self.now.with_timezone(&ctx.tz).date_naive(),
            ctx.tz,
        );
        let said: Vec<String> = self
            .health
            .iter()
            .filter(|d| {
                d["observed_at"]
                    .as_str()
                    .and_then(|t| DateTime::parse_from_rfc3339(t).ok())
                    .is_some_and(|t| t.with_timezone(&Utc) >= today)
            })
            .filter(|d| d["assessment"]["significant"].as_bool() == Some(true))
            .filter_map(|d| d["assessment"]["reason"].as_str().map(str::to_string))
            .collect();
        (!said.is_empty()).then(|| {
            format!(
                "Readiness today (health readings against the lifter's baseline): {}.",
                said.join("; ")
            )
        })
    }

    /// The part of a `context` (from [`Loaded::context`]) whose figures are the lifter's data:
    /// without the memories and the folded conversation, which repeat what someone said (a model
    /// wrote the memories), not what was logged, and so back no figure.
    pub fn data_part(context: &str) -> String {
        let data = context
            .split_once(EARLIER_HEAD)
            .map_or(context, |(data, _)| data);
        data.lines()
            .filter(|l| !l.starts_with(MEMORIES_HEAD))
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// `context` with `f` applied to each line of its [`Loaded::data_part`] (the memories and
    /// the folded conversation as they were): the data the model may cite by ref.
    pub fn map_data(context: &str, mut f: impl FnMut(&str) -> String) -> String {
        let (data, earlier) = match context.split_once(EARLIER_HEAD) {
            Some((data, rest)) => (data, Some(rest)),
            None => (context, None),
        };
        let mut out: String = data
            .split_inclusive('\n')
            .map(|l| {
                if l.starts_with(MEMORIES_HEAD) {
                    l.to_string()
                } else {
                    f(l)
                }
            })
            .collect();
        if let Some(rest) = earlier {
            out.push_str(EARLIER_HEAD);
            out.push_str(rest);
        }
        out
    }

    /// The exchanges replayed to the model (oldest first) and, when exchanges fell out of the
    /// budget since the last fold, the new summary to store.
    pub fn history(&self) -> (Vec<Turn>, Option<Summary>) {
        let mut used = 0;
        let mut kept = 0;
        for e in &self.exchanges {
            let n = e.message.len() + e.answer.len();
            if kept == KEPT_EXCHANGES || used + n > HISTORY_BUDGET_CHARS {
                break;
            }
            used += n;
            kept += 1;
        }
        let mut turns = Vec::with_capacity(kept * 2);
        for e in self.exchanges[..kept].iter().rev() {
            turns.push(Turn::user(e.message.clone()));
            turns.push(Turn::model(super::critic::as_replayed(&e.answer)));
        }
        let old = self.summary.clone().unwrap_or_default();
        let mut folding: Vec<&Exchange> = self.exchanges[kept..]
            .iter()
            .filter(|e| e.seq > old.upto_seq)
            .collect();
        if folding.is_empty() {
            return (turns, None);
        }
        folding.reverse();
        let mut text = old.text;
        for e in &folding {
            let first = super::critic::sentences(&e.answer)
                .first()
                .map_or(String::new(), |s| s.trim().chars().take(140).collect());
            let asked: String = e.message.chars().take(100).collect();
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(&format!("- Lifter: {asked} / Coach: {first}"));
        }
        // Keep the newest lines within the cap.
        while text.len() > SUMMARY_MAX_CHARS {
            match text.find('\n') {
                Some(i) => text.drain(..=i),
                None => text.drain(..),
            };
        }
        let upto = folding.last().map_or(old.upto_seq, |e| e.seq);
        (
            turns,
            Some(Summary {
                upto_seq: upto,
                text,
            }),
        )
    }
}

/// The proposals the stream showed (their `artifact` events), for the stored exchange.
pub fn proposed(views: &[Value]) -> Vec<Proposed> {
    views
        .iter()
        .filter_map(|v| {
            Some(Proposed {
                id: v["artifact_id"].as_str()?.to_string(),
                content_hash: v["content_hash"].as_str()?.to_string(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exchange(seq: u64, len: usize) -> Exchange {
        Exchange {
            seq,
            corr: None,
            message: format!("question {seq}"),
            answer: format!("Answer {seq}. {}", "x".repeat(len)),
            kind: "coach".into(),
            pending_request: None,
            artifacts: vec![],
            proposed: vec![],
            at: Utc::now(),
        }
    }

    fn loaded(exchanges: Vec<Exchange>, summary: Option<Summary>) -> Loaded {
        Loaded {
            profile: Profile::default(),
            coaching: None,
            workout: None,
            memories: vec![],
            workouts: vec![],
            recent_events: vec![],
            routine: None,
            next_seq: exchanges.first().map_or(1, |e| e.seq + 1),
            exchanges,
            summary,
            tokens_today: 0,
            health: vec![],
            now: Utc::now(),
        }
    }

    #[test]
    fn a_workout_brief_recalls_each_exercises_sessions_and_todays_readiness() {
        use crate::analysis::testkit::{at_day, session, working};
        let mut l = loaded(vec![], None);
        l.now = at_day(14) + Duration::hours(17);
        l.workouts = vec![
            session(0, "barbell-bench-press", &[working(95.0, 8, None, Some(2))]),
            session(
                7,
                "barbell-bench-press",
                &[working(100.0, 8, None, Some(2))],
            ),
        ];
        l.workout = Some(session(
            14,
            "barbell-bench-press",
            &[working(100.0, 8, None, Some(2))],
        ));
        l.health = vec![serde_json::json!({"observed_at": l.now, "assessment": {
            "significant": true,
            "reason": "HRV 35 vs baseline 50 (-30%, threshold -20%)"}})];
        let (p, _) = crate::context::split_prefix("(context: workout_id=w-1) hi").expect("prefix");
        let ctx = SessionContext::bind("u".into(), &p, l.now);
        let text = l.context(&ctx, None);
        let bench = text
            .lines()
            .find(|line| line.starts_with("barbell-bench-press: last"))
            .unwrap_or_default();
        // The newest first, each session's best set.
        assert!(
            bench.contains("100 kg × 8 RIR 2") && bench.contains("95 kg × 8"),
            "{text}"
        );
        assert!(
            bench.find("100 kg").unwrap_or(usize::MAX) < bench.find("95 kg").unwrap_or(0),
            "{bench}"
        );
        assert!(
            text.contains("Readiness today (health readings against the lifter's baseline): HRV 35 vs baseline 50"),
            "{text}"
        );
        // Outside a workout: none of it.
        let plain = SessionContext::bind("u".into(), &Default::default(), l.now);
        assert!(!l.context(&plain, None).contains(": last "));
    }

    #[test]
    fn memories_a_long_workout_and_the_summary_share_one_budget() {
        use crate::analysis::testkit::{session, working};
        let mut l = loaded(vec![], None);
        // The most a lifter can have: 50 memories of 500 characters, one of them an injury
        // saved first (oldest), and a workout of 400 sets.
        for i in 0..50 {
            l.memories.push(Memory {
                id: format!("m{i}"),
                text: format!("{i} {}", "y".repeat(490)),
                kind: (i == 0).then(|| "injury".to_string()),
                created_at: Utc::now() - Duration::days(100 - i),
                retired_at: None,
            });
        }
        l.workout = Some(session(
            0,
            "back-squat",
            &vec![working(100.0, 5, None, Some(2)); 400],
        ));
        let summary = Summary {
            text: "z".repeat(SUMMARY_MAX_CHARS),
            ..Summary::default()
        };
        let (p, _) = crate::context::split_prefix("(context: workout_id=w-1) hi").expect("prefix");
        let ctx = SessionContext::bind("u".into(), &p, l.now);
        let text = l.context(&ctx, Some(&summary));
        assert!(
            text.len() <= CONTEXT_BUDGET_CHARS,
            "{} {:?}",
            text.len(),
            text.lines()
                .map(|l| (l.len(), &l[..l.len().min(30)]))
                .collect::<Vec<_>>()
        );
        assert!(
            text.contains("Workout brief"),
            "the brief comes before the memories"
        );
        // Half the room stays for the memories: the injury first, the rest counted.
        let m = text
            .lines()
            .find(|l| l.starts_with("Memories: "))
            .expect("memories");
        assert!(m.starts_with("Memories: [m0] "), "{m}");
        assert!(m.contains("more: list_memories"), "{m}");
        assert!(
            text.contains("workout_state has the whole workout"),
            "the brief is cut"
        );
        // Without a workout the memories get the room: the injury and the newest ones.
        let (p, _) = crate::context::split_prefix("hi").expect("prefix");
        let text = l.context(&SessionContext::bind("u".into(), &p, l.now), None);
        assert!(text.len() <= CONTEXT_BUDGET_CHARS, "{}", text.len());
        let m = text
            .lines()
            .find(|l| l.starts_with("Memories: "))
            .expect("memories");
        assert!(
            m.starts_with("Memories: [m0] 0 ") && m.contains("[m49] 49 "),
            "{m}"
        );
        assert!(m.ends_with("more: list_memories)."), "{m}");
    }

    #[test]
    fn context_carries_the_strength_summary_and_the_flags() {
        use crate::analysis::testkit::{at_day, session, working};
        // Four weeks of bench stuck at 80 × 8 at RIR 1; squat up 5 kg a week.
        let mut l = loaded(vec![], None);
        for w in 0..4 {
            l.workouts.push(session(
                7 * w,
                "back-squat",
                &vec![working(100.0 + 5.0 * w as f64, 5, None, Some(2)); 3],
            ));
            l.workouts.push(session(
                7 * w + 2,
                "barbell-bench-press",
                &vec![working(80.0, 8, None, Some(1)); 3],
            ));
        }
        l.now = at_day(28);
        let (p, _) = crate::context::split_prefix("hi").expect("prefix");
        let ctx = SessionContext::bind("u".into(), &p, l.now);
        let text = l.context(&ctx, None);
        // Squat: 100 × (1 + 7/30) = 123.3 in week one, 115 × 7/30 → 141.8 in week four (equal
        // sets: by id). Bench: 80 × (1 + 9/30) = 104 every week.
        assert!(
            text.contains("Strength (weekly best e1RM, last 12 weeks): Squat 141.8 kg (+18.5 since week of 2026-01-05); Bench Press 104 kg (+0 since week of 2026-01-05)."),
            "{text}"
        );
        assert!(
            text.contains("Training flags: Plateau: Bench Press (4 weeks at e1RM ~104 kg"),
            "{text}"
        );
        assert!(text.contains("Last 7 days: 2 sessions"), "{text}");
    }

    #[test]
    fn history_keeps_the_newest_within_budget_and_folds_the_rest_once() {
        // 20 exchanges newest first, 1,000 characters each: 7 fit in 8,000.
        let ex: Vec<Exchange> = (1..=20).rev().map(|s| exchange(s, 1_000)).collect();
        let l = loaded(ex.clone(), None);
        let (turns, summary) = l.history();
        assert_eq!(turns.len(), 14);
        assert_eq!(turns[0].text(), "question 14", "oldest kept first");
        let s = summary.expect("folded");
        assert_eq!(s.upto_seq, 13);
        assert!(s.text.contains("question 13") && s.text.contains("Answer 13."));
        // The next request with the same exchanges folds nothing new.
        let (_, again) = loaded(ex, Some(s)).history();
        assert_eq!(again, None);
    }

    #[test]
    fn the_summary_stays_under_its_cap() {
        let ex: Vec<Exchange> = (1..=20).rev().map(|s| exchange(s, 3_000)).collect();
        let old = Summary {
            upto_seq: 0,
            text: "- old line\n".repeat(300),
        };
        let (_, s) = loaded(ex, Some(old)).history();
        let s = s.expect("folded");
        assert!(s.text.len() <= SUMMARY_MAX_CHARS);
        assert!(s.text.contains("question 18"), "newest folded line kept");
    }
}
