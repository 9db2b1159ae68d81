//! The analysis artifacts (seed 003's Analysis agent): what a progress question's answer shows
//! beside its words, for the app to render: a chart of an exercise's weekly series (the same
//! series as `GET /v1/progress/exercises/{id}`, `analysis::series::weekly_series`), and a table
//! of muscle groups' weekly hard sets against their landmarks (the same as `GET
//! /v1/progress/muscles`, `analysis::load::weekly_group_series`). Shown, not stored: they have
//! no actions, and the data they hold stays in the history.

use serde_json::{Value, json};

use crate::analysis::series::{ExerciseTrend, WeekPoint};
use crate::domain::strength::round1;
use crate::domain::units::Unit;

/// The `artifact` event's fields of an exercise's progress chart, its loads in the lifter's
/// unit: one point a week with training (best estimated 1RM, heaviest load, sets), and the
/// trend line's slope.
pub(crate) fn progress_chart(
    exercise_id: &str,
    name: &str,
    weeks: i64,
    points: &[WeekPoint],
    trend: &ExerciseTrend,
    unit: Unit,
) -> Value {
    let in_unit = |kg: Option<f64>| kg.map(|kg| round1(unit.from_kg(kg)));
    let content = json!({
        "kind": "progress_chart",
        "exercise_id": exercise_id,
        "title": format!("{name}: estimated 1RM by week"),
        "unit": unit.label(),
        "weeks": weeks,
        "x": "week_start",
        "y": "e1rm",
        "points": points.iter().map(|p| json!({
            "week_start": p.week_start,
            "e1rm": in_unit(p.e1rm_max_kg),
            "top_load": in_unit(p.load_max_kg),
            "sets": p.sets,
        })).collect::<Vec<_>>(),
        "trend": {
            "direction": trend.trend,
            "per_week": trend.e1rm_slope_kg_per_week.map(|s| round1(unit.from_kg(s))),
        },
    });
    let hash = crate::app::fingerprint(&[&content.to_string()]);
    json!({
        "artifact_id": format!("chart-{hash}"),
        "artifact_type": "progress_chart",
        "artifact_content": content,
        "actions": [],
        "status": "shown",
        "content_hash": hash,
    })
}

/// The `artifact` event's fields of a muscle-group table: a row a week with training, a column
/// a group (its hard sets and where they stand against MEV and MRV), the landmarks beside.
pub(crate) fn volume_table(groups: &[Value], landmarks: &[Value], weekly: &[Value]) -> Value {
    let content = json!({
        "kind": "progress_table",
        "title": "Hard sets a week by muscle group",
        "columns": std::iter::once(json!("week_start")).chain(groups.iter().cloned()).collect::<Vec<_>>(),
        "rows": weekly,
        "landmarks": landmarks,
    });
    let hash = crate::app::fingerprint(&[&content.to_string()]);
    json!({
        "artifact_id": format!("table-{hash}"),
        "artifact_type": "progress_table",
        "artifact_content": content,
        "actions": [],
        "status": "shown",
        "content_hash": hash,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::series::{Trend, weekly_series};
    use crate::analysis::testkit::{session, working};

    #[test]
    fn the_chart_draws_the_progress_routes_series_in_the_lifters_unit() {
        let history = [
            session(
                0,
                "barbell-bench-press",
                &[working(100.0, 5, None, Some(2))],
            ),
            session(
                7,
                "barbell-bench-press",
                &[working(102.5, 5, None, Some(2))],
            ),
        ];
        let points = weekly_series(&history, chrono_tz::UTC)
            .remove("barbell-bench-press")
            .unwrap_or_default();
        let trend = ExerciseTrend {
            trend: Trend::InsufficientData,
            e1rm_slope_kg_per_week: None,
            weeks_analyzed: 2,
        };
        let v = progress_chart(
            "barbell-bench-press",
            "Bench Press",
            12,
            &points,
            &trend,
            Unit::Lb,
        );
        assert_eq!(v["artifact_type"], "progress_chart");
        assert_eq!(v["actions"], json!([]));
        let pts = v["artifact_content"]["points"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        assert_eq!(pts.len(), 2);
        // 102.5 kg is 226 lb (rounded to a tenth).
        assert_eq!(pts[1]["top_load"].as_f64(), Some(226.0));
        assert_eq!(v["artifact_content"]["unit"], "lb");
    }
}
