//! Health-metric changes: is a change from the lifter's baseline worth telling them about, given
//! their goals? Deterministic thresholds, no model. What passes goes on to the notification gate.
//!
//! Thresholds (each a named constant below):
//! - resting heart rate: 10 % or more above baseline (a common sign of poor recovery or illness);
//! - heart-rate variability: 20 % or more below baseline (the same, seen from the other side);
//! - sleep: under 6 hours and at least 1 hour under baseline;
//! - body weight: a change of 2 % or more when the lifter's goals are about weight (cutting,
//!   bulking, fat loss, gaining), 3 % otherwise;
//! - any other metric is recorded as not tracked.

use serde::Serialize;

use super::notify::Priority;
use crate::domain::profile::Profile;
use crate::domain::units::format_estimate;

pub(crate) const RESTING_HR_RISE: f64 = 0.10;
pub(crate) const HRV_DROP: f64 = 0.20;
pub(crate) const SHORT_SLEEP_HOURS: f64 = 6.0;
pub(crate) const SLEEP_DEFICIT_HOURS: f64 = 1.0;
pub(crate) const WEIGHT_GOAL_CHANGE: f64 = 0.02;
pub(crate) const WEIGHT_CHANGE: f64 = 0.03;

/// Goal words that make body weight a goal metric.
/// ("gain" alone is not one: "gain strength" is no weight goal.)
const WEIGHT_GOALS: [&str; 8] = [
    "weight", "cut", "cutting", "bulk", "bulking", "fat", "lean", "lose",
];

/// The decision, stored whether or not anything is sent.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Assessment {
    pub metric: String,
    pub significant: bool,
    /// Relative change from the baseline (0.12 = 12 % up).
    pub change: Option<f64>,
    pub reason: String,
    /// The message to send when significant.
    pub message: Option<String>,
    pub priority: Priority,
}

fn pct(x: f64) -> String {
    format!("{}%", (x * 100.0).abs().round())
}

fn wants_weight_change(profile: &Profile) -> bool {
    profile.goals.iter().any(|g| {
        g.to_lowercase()
            .split(|c: char| !c.is_alphanumeric())
            .any(|w| WEIGHT_GOALS.contains(&w))
    })
}

pub fn assess(metric: &str, value: f64, baseline: f64, profile: &Profile) -> Assessment {
    let change = (baseline.abs() > f64::EPSILON).then(|| (value - baseline) / baseline);
    let mut a = Assessment {
        metric: metric.to_string(),
        significant: false,
        change: change.map(|c| (c * 1000.0).round() / 1000.0),
        reason: String::new(),
        message: None,
        priority: Priority::Normal,
    };
    let c = change.unwrap_or(0.0);
    match metric {
        "resting_heart_rate" => {
            a.significant = c >= RESTING_HR_RISE;
            a.reason = format!(
                "resting heart rate {value} vs baseline {baseline} ({}{}, threshold +{})",
                if c >= 0.0 { "+" } else { "-" },
                pct(c),
                pct(RESTING_HR_RISE)
            );
            a.message = a.significant.then(|| format!(
                "Your resting heart rate is {value} bpm, {} above your usual {baseline}. Consider an easier session today and extra sleep.",
                pct(c)
            ));
        }
        "hrv" => {
            a.significant = c <= -HRV_DROP;
            a.reason = format!(
                "HRV {value} vs baseline {baseline} ({}{}, threshold -{})",
                if c >= 0.0 { "+" } else { "-" },
                pct(c),
                pct(HRV_DROP)
            );
            a.message = a.significant.then(|| format!(
                "Your HRV is {value} ms, {} below your usual {baseline}: recovery may be lagging. Keep today's training light.",
                pct(c)
            ));
        }
        "sleep_hours" => {
            a.significant = value < SHORT_SLEEP_HOURS && baseline - value >= SLEEP_DEFICIT_HOURS;
            a.reason = format!(
                "slept {value} h vs baseline {baseline} h (threshold under {SHORT_SLEEP_HOURS} h and {SLEEP_DEFICIT_HOURS} h below)"
            );
            a.message = a.significant.then(|| format!(
                "You slept {value} hours, well under your usual {baseline}. Expect lower performance today; keep the loads you planned and skip extra sets."
            ));
        }
        "body_weight_kg" => body_weight(&mut a, value, baseline, c, profile),
        other => {
            a.reason = format!("'{other}' is not a tracked metric");
        }
    }
    a
}

/// Body weight: a change past the threshold (a smaller one for a lifter with a weight goal),
/// told at low priority.
fn body_weight(a: &mut Assessment, value: f64, baseline: f64, c: f64, profile: &Profile) {
    let goal = wants_weight_change(profile);
    let threshold = if goal {
        WEIGHT_GOAL_CHANGE
    } else {
        WEIGHT_CHANGE
    };
    a.significant = c.abs() >= threshold;
    a.priority = Priority::Low;
    a.reason = format!(
        "body weight {} vs baseline {} ({}{}, threshold {} {})",
        format_estimate(value, profile.unit),
        format_estimate(baseline, profile.unit),
        if c >= 0.0 { "+" } else { "-" },
        pct(c),
        pct(threshold),
        if goal {
            "for a weight goal"
        } else {
            "without a weight goal"
        }
    );
    a.message = a.significant.then(|| {
        format!(
            "Your body weight is {}, {} {} your baseline of {}.",
            format_estimate(value, profile.unit),
            pct(c),
            if c >= 0.0 { "above" } else { "below" },
            format_estimate(baseline, profile.unit)
        )
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_metric_has_its_threshold() {
        let p = Profile::default();
        assert!(assess("resting_heart_rate", 66.0, 60.0, &p).significant);
        assert!(!assess("resting_heart_rate", 65.0, 60.0, &p).significant);
        assert!(assess("hrv", 40.0, 50.0, &p).significant);
        assert!(!assess("hrv", 41.0, 50.0, &p).significant);
        assert!(assess("sleep_hours", 5.5, 7.0, &p).significant);
        assert!(
            !assess("sleep_hours", 6.5, 8.0, &p).significant,
            "not short"
        );
        assert!(
            !assess("sleep_hours", 5.5, 6.0, &p).significant,
            "usual for them"
        );
        let unknown = assess("steps", 1000.0, 9000.0, &p);
        assert!(!unknown.significant && unknown.reason.contains("not a tracked metric"));
    }

    #[test]
    fn weight_matters_more_with_a_weight_goal() {
        let plain = Profile::default();
        let cutting = Profile {
            goals: vec!["Cut to 80 kg by summer".into()],
            ..Profile::default()
        };
        // 82 → 80.2 kg is −2.2 %: a goal metric at 2 %, not otherwise (3 %).
        assert!(assess("body_weight_kg", 80.2, 82.0, &cutting).significant);
        assert!(!assess("body_weight_kg", 80.2, 82.0, &plain).significant);
        let a = assess("body_weight_kg", 80.2, 82.0, &cutting);
        assert_eq!(a.change, Some(-0.022));
        assert_eq!(
            a.message.as_deref(),
            Some("Your body weight is 80.2 kg, 2% below your baseline of 82 kg.")
        );
    }
}
