//! Health samples the app reads from HealthKit or Health Connect (`POST /v1/health/samples`),
//! and each metric's baseline: the lifter's own usual value, against which a new reading is
//! judged (`skills::health::assess`).
//!
//! A sample is one reading with its own id (the platform's UUID), its source, unit and time.
//! Units are converted on the way in, so that the store and the worker hold one unit per
//! metric. Several samples a day become one value per day (`daily`), and the baseline is the
//! median of the daily values of the [`BASELINE_DAYS`] days before the reading's day: one bad
//! night or a strap read badly moves a median by one place, not by its size.

use std::collections::BTreeMap;

use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};

/// The days a baseline looks back over.
pub const BASELINE_DAYS: i64 = 28;
/// Days with a value a baseline needs; fewer, and there is no baseline yet.
pub const MIN_BASELINE_DAYS: usize = 7;
/// Samples in one request.
pub const MAX_SAMPLES: usize = 500;

/// The metrics the app sends, each held in one unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    /// Heart-rate variability (SDNN or RMSSD as the platform reports it), ms.
    Hrv,
    /// Resting heart rate, beats per minute.
    RestingHeartRate,
    /// A night's sleep, hours.
    Sleep,
    /// Body weight, kg.
    BodyWeight,
    /// A day's steps.
    Steps,
}

/// How a day's samples become one value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Daily {
    /// The middle one (readings taken through the day).
    Median,
    /// The largest (a night's total, a day's count: two sources report the same night twice,
    /// and a sum would double it).
    Largest,
    /// The last one (a weigh-in).
    Last,
}

impl Metric {
    pub const ALL: [Metric; 5] = [
        Metric::Hrv,
        Metric::RestingHeartRate,
        Metric::Sleep,
        Metric::BodyWeight,
        Metric::Steps,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Metric::Hrv => "hrv",
            Metric::RestingHeartRate => "resting_heart_rate",
            Metric::Sleep => "sleep",
            Metric::BodyWeight => "body_weight",
            Metric::Steps => "steps",
        }
    }

    pub fn parse(s: &str) -> Option<Metric> {
        Metric::ALL.into_iter().find(|m| m.as_str() == s)
    }

    /// The name the worker's `health_metric_changed` job and its assessment use.
    pub fn job_name(self) -> &'static str {
        match self {
            Metric::Hrv => "hrv",
            Metric::RestingHeartRate => "resting_heart_rate",
            Metric::Sleep => "sleep_hours",
            Metric::BodyWeight => "body_weight_kg",
            Metric::Steps => "steps",
        }
    }

    /// The unit it is held in.
    pub fn unit(self) -> &'static str {
        match self {
            Metric::Hrv => "ms",
            Metric::RestingHeartRate => "bpm",
            Metric::Sleep => "h",
            Metric::BodyWeight => "kg",
            Metric::Steps => "count",
        }
    }

    /// The units it is accepted in, each with its factor to the held unit.
    fn units(self) -> &'static [(&'static str, f64)] {
        match self {
            Metric::Hrv => &[("ms", 1.0)],
            Metric::RestingHeartRate => &[("bpm", 1.0), ("count/min", 1.0)],
            Metric::Sleep => &[("h", 1.0), ("min", 1.0 / 60.0), ("s", 1.0 / 3600.0)],
            Metric::BodyWeight => &[("kg", 1.0), ("lb", crate::domain::units::KG_PER_LB)],
            Metric::Steps => &[("count", 1.0)],
        }
    }

    /// The values a person can have, in the held unit (a reading outside is a broken sensor
    /// or a wrong unit, refused).
    fn range(self) -> (f64, f64) {
        match self {
            Metric::Hrv => (1.0, 500.0),
            Metric::RestingHeartRate => (20.0, 250.0),
            Metric::Sleep => (0.0, 24.0),
            Metric::BodyWeight => (20.0, 400.0),
            Metric::Steps => (0.0, 200_000.0),
        }
    }

    pub fn daily(self) -> Daily {
        match self {
            Metric::Hrv | Metric::RestingHeartRate => Daily::Median,
            Metric::Sleep | Metric::Steps => Daily::Largest,
            Metric::BodyWeight => Daily::Last,
        }
    }

    /// A value in `unit` as the held unit, or why not.
    pub fn convert(self, value: f64, unit: &str) -> Result<f64, String> {
        let Some((_, factor)) = self.units().iter().find(|(u, _)| *u == unit) else {
            let names: Vec<&str> = self.units().iter().map(|(u, _)| *u).collect();
            return Err(format!(
                "{} is given in {}, not '{unit}'",
                self.as_str(),
                names.join(", ")
            ));
        };
        let held = value * factor;
        let (lo, hi) = self.range();
        if !held.is_finite() || held < lo || held > hi {
            return Err(format!(
                "{} of {value} {unit} is not a reading a person has ({lo} to {hi} {})",
                self.as_str(),
                self.unit()
            ));
        }
        Ok((held * 1000.0).round() / 1000.0)
    }
}

/// One reading, in its metric's held unit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    /// The platform's own id (a HealthKit or Health Connect UUID): a sample sent twice is one.
    pub id: String,
    pub metric: Metric,
    pub value: f64,
    pub observed_at: DateTime<Utc>,
    /// Where it came from ("apple_watch", "oura", ...), as the app names it.
    pub source: String,
}

/// `samples` (at any times) as one value per day of `day_of`, oldest first.
pub fn daily(
    metric: Metric,
    samples: &[&Sample],
    day_of: impl Fn(DateTime<Utc>) -> NaiveDate,
) -> BTreeMap<NaiveDate, f64> {
    let mut by_day: BTreeMap<NaiveDate, Vec<&Sample>> = BTreeMap::new();
    for s in samples.iter().filter(|s| s.metric == metric) {
        by_day.entry(day_of(s.observed_at)).or_default().push(s);
    }
    by_day
        .into_iter()
        .map(|(day, mut v)| {
            v.sort_by(|a, b| a.observed_at.cmp(&b.observed_at).then(a.id.cmp(&b.id)));
            let values: Vec<f64> = v.iter().map(|s| s.value).collect();
            let value = match metric.daily() {
                Daily::Median => median(&values),
                Daily::Largest => values.iter().copied().fold(f64::MIN, f64::max),
                Daily::Last => values.last().copied().unwrap_or_default(),
            };
            (day, value)
        })
        .collect()
}

/// The baseline on `day`: the median of the daily values of the [`BASELINE_DAYS`] before it,
/// with the number of days it stands on; `None` with fewer than [`MIN_BASELINE_DAYS`].
pub fn baseline(days: &BTreeMap<NaiveDate, f64>, day: NaiveDate) -> Option<(f64, usize)> {
    let from = day - chrono::Days::new(BASELINE_DAYS as u64);
    let values: Vec<f64> = days.range(from..day).map(|(_, v)| *v).collect();
    (values.len() >= MIN_BASELINE_DAYS)
        .then(|| ((median(&values) * 100.0).round() / 100.0, values.len()))
}

/// The middle of `values` (the mean of the two middle ones for an even count; 0 for none).
pub fn median(values: &[f64]) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => 0.0,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(metric: Metric, value: f64, at: &str) -> Sample {
        Sample {
            id: at.into(),
            metric,
            value,
            observed_at: at.parse().unwrap_or_default(),
            source: "test".into(),
        }
    }

    #[test]
    fn units_convert_and_impossible_readings_are_refused() {
        assert_eq!(Metric::BodyWeight.convert(180.0, "lb"), Ok(81.647));
        assert_eq!(Metric::Sleep.convert(450.0, "min"), Ok(7.5));
        assert!(Metric::Hrv.convert(45.0, "bpm").is_err());
        assert!(Metric::RestingHeartRate.convert(0.0, "bpm").is_err());
        assert!(Metric::BodyWeight.convert(f64::NAN, "kg").is_err());
    }

    #[test]
    fn a_baseline_is_the_median_of_the_days_before_and_shrugs_off_an_outlier() {
        // Twenty days of HRV 50 (two readings a day, 48 and 52), one day of 5 (a bad strap),
        // then today's 35.
        let mut all = Vec::new();
        for d in 1..=21 {
            let day = format!("2026-10-{d:02}");
            if d == 10 {
                all.push(sample(Metric::Hrv, 5.0, &format!("{day}T07:00:00Z")));
            } else {
                all.push(sample(Metric::Hrv, 48.0, &format!("{day}T07:00:00Z")));
                all.push(sample(Metric::Hrv, 52.0, &format!("{day}T19:00:00Z")));
            }
        }
        all.push(sample(Metric::Hrv, 35.0, "2026-10-22T07:00:00Z"));
        let refs: Vec<&Sample> = all.iter().collect();
        let days = daily(Metric::Hrv, &refs, |t| t.date_naive());
        let today = "2026-10-22".parse().unwrap_or_default();
        assert_eq!(days.get(&today), Some(&35.0));
        // The median of 21 days, one of them 5: still 50.
        assert_eq!(baseline(&days, today), Some((50.0, 21)));
        // Six days are not a baseline.
        let six: BTreeMap<NaiveDate, f64> = days.iter().take(6).map(|(d, v)| (*d, *v)).collect();
        assert_eq!(baseline(&six, today), None);
    }

    #[test]
    fn a_night_reported_by_two_sources_is_counted_once() {
        let a = sample(Metric::Sleep, 7.0, "2026-10-01T06:30:00Z");
        let b = sample(Metric::Sleep, 7.2, "2026-10-01T06:40:00Z");
        let days = daily(Metric::Sleep, &[&a, &b], |t| t.date_naive());
        assert_eq!(days.values().copied().collect::<Vec<_>>(), vec![7.2]);
    }
}
