//! Cell values as exports write them: numbers with a decimal point or comma, text, distances,
//! local times and durations.

use super::*;

/// A number as exports write it: "102.5", or "102,5" with a decimal comma.
pub(super) fn number(s: &str) -> Option<f64> {
    let s = s.trim();
    let parsed = if s.contains(',') && !s.contains('.') {
        s.replace(',', ".").parse::<f64>()
    } else {
        s.parse::<f64>()
    };
    parsed.ok().filter(|x| x.is_finite())
}

/// An optional number that must not be negative.
pub(super) fn non_negative(s: &str, field: &str) -> Result<Option<f64>, String> {
    if s.is_empty() {
        return Ok(None);
    }
    match number(s) {
        Some(x) if x >= 0.0 => Ok(Some(x)),
        _ => Err(format!("{field} '{s}' is not a number of 0 or more")),
    }
}

/// What starts a formula in a spreadsheet cell.
pub(super) const FORMULA_STARTS: [char; 6] = ['=', '+', '-', '@', '\t', '\r'];

/// A text cell as written before a spreadsheet could read it as a formula: the one `'` our
/// export puts before `=`, `+`, `-`, `@`, a tab, a carriage return or another `'` taken off
/// again. (A file from elsewhere whose text starts so loses that apostrophe too.)
pub(super) fn unformula(s: &str) -> &str {
    match s.strip_prefix('\'') {
        Some(rest) if rest.starts_with(FORMULA_STARTS) || rest.starts_with('\'') => rest,
        _ => s,
    }
}

pub(super) fn text_field(s: &str, field: &'static str) -> Result<Option<String>, String> {
    let s = unformula(s);
    if s.is_empty() {
        return Ok(None);
    }
    limits::check_notes(field, s).map_err(|e| e.to_string())?;
    Ok(Some(s.to_string()))
}

pub(super) fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

pub(super) fn metres_per(unit: &str, weight_unit: Unit) -> Result<f64, String> {
    Ok(match unit.to_ascii_lowercase().as_str() {
        "" if weight_unit == Unit::Lb => METRES_PER_MILE,
        "" | "km" | "kms" | "kilometers" | "kilometres" => 1000.0,
        "m" | "meters" | "metres" => 1.0,
        "mi" | "mile" | "miles" => METRES_PER_MILE,
        "ft" | "feet" => 0.3048,
        "yd" | "yds" | "yards" => 0.9144,
        _ => return Err(format!("Distance Unit '{unit}' is not km, m, mi, ft or yd")),
    })
}

/// "2024-03-05 18:30:00" (or without seconds, or a bare date; Hevy's "5 Mar 2024, 18:30") as a
/// local time in `tz`.
pub(super) fn local_time(s: &str, tz: Tz) -> Result<DateTime<Utc>, String> {
    const FORMATS: [&str; 6] = [
        "%Y-%m-%d %H:%M:%S",
        "%Y-%m-%d %H:%M",
        "%Y-%m-%dT%H:%M:%S",
        "%Y-%m-%dT%H:%M",
        "%d %b %Y, %H:%M",
        "%d %B %Y, %H:%M",
    ];
    let naive = FORMATS
        .iter()
        .find_map(|f| NaiveDateTime::parse_from_str(s, f).ok())
        .or_else(|| {
            NaiveDate::parse_from_str(s, "%Y-%m-%d")
                .ok()
                .map(|d| d.and_time(chrono::NaiveTime::MIN))
        })
        .ok_or_else(|| format!("Date '{s}' is not like 2024-03-05 18:30:00"))?;
    // A time that a DST change skips is read as the same wall time an hour later.
    tz.from_local_datetime(&naive)
        .earliest()
        .or_else(|| {
            let later = naive.checked_add_signed(Duration::hours(1))?;
            tz.from_local_datetime(&later).earliest()
        })
        .map(|t| t.with_timezone(&Utc))
        .ok_or_else(|| format!("Date '{s}' does not exist in {tz}"))
}

/// Longest workout an export may claim; a longer duration is a typo or a timer left running,
/// and the workout is kept without an end time.
pub const MAX_WORKOUT_HOURS: i64 = 24;

/// A set's time as FitNotes writes it, "0:01:30" (or "1:30"), in seconds.
pub(super) fn clock_seconds(s: &str) -> Option<f64> {
    let parts: Vec<u32> = s
        .split(':')
        .map(|p| p.trim().parse().ok())
        .collect::<Option<_>>()?;
    let (h, m, sec) = match parts[..] {
        [h, m, s] => (h, m, s),
        [m, s] => (0, m, s),
        _ => return None,
    };
    (m < 60 && sec < 60 && h <= 24).then(|| f64::from(h * 3600 + m * 60 + sec))
}

/// "1h 9m", "45m", "1h", "50s", "1h 2m 3s" (Strong in Chinese: "1小时13分钟"), or a plain number
/// of seconds; at most `MAX_WORKOUT_HOURS` (arithmetic is checked: a crafted "99999999999h" is
/// not a duration).
pub fn parse_duration(s: &str) -> Option<Duration> {
    let s = s
        .trim()
        .replace("小时", "h ")
        .replace("分钟", "m ")
        .replace('秒', "s ");
    let s = s.trim();
    let total = if let Ok(secs) = s.parse::<u32>() {
        i64::from(secs)
    } else {
        let mut total = 0i64;
        let mut any = false;
        for part in s.split_whitespace() {
            let unit = part.chars().last()?;
            let n: i64 = part[..part.len() - unit.len_utf8()].parse().ok()?;
            let per = match unit {
                'h' => 3600,
                'm' => 60,
                's' => 1,
                _ => return None,
            };
            total = total.checked_add(n.checked_mul(per)?)?;
            any = true;
        }
        if !any {
            return None;
        }
        total
    };
    (0..=MAX_WORKOUT_HOURS * 3600)
        .contains(&total)
        .then(|| Duration::seconds(total))
}
