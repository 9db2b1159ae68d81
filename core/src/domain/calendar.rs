//! Calendar keys: the ISO week a review and the weekly roster are filed under.

use chrono::{Datelike, NaiveDate};

/// "2026-W47" for any day of that ISO week.
pub fn iso_week_id(d: NaiveDate) -> String {
    let w = d.iso_week();
    format!("{}-W{:02}", w.year(), w.week())
}
