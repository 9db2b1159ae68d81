//! Weight units. Weights are stored in kilograms at full precision, so a weight typed in pounds
//! comes back as the same number of pounds; the user's unit is applied only at the edges.

use serde::{Deserialize, Serialize};

/// Exact definition of the international avoirdupois pound.
pub(crate) const KG_PER_LB: f64 = 0.453_592_37;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Unit {
    #[default]
    Kg,
    Lb,
}

impl Unit {
    pub fn label(self) -> &'static str {
        match self {
            Unit::Kg => "kg",
            Unit::Lb => "lb",
        }
    }

    /// Converts a weight expressed in this unit to kilograms.
    pub fn to_kg(self, value: f64) -> f64 {
        match self {
            Unit::Kg => value,
            Unit::Lb => value * KG_PER_LB,
        }
    }

    /// Converts kilograms to this unit.
    pub fn from_kg(self, kg: f64) -> f64 {
        match self {
            Unit::Kg => kg,
            Unit::Lb => kg / KG_PER_LB,
        }
    }

    /// Parses the unit words a lifter types: kg, kgs, kilo(s), lb, lbs, pound(s).
    pub fn parse(word: &str) -> Option<Unit> {
        match word {
            "kg" | "kgs" | "kilo" | "kilos" => Some(Unit::Kg),
            "lb" | "lbs" | "pound" | "pounds" => Some(Unit::Lb),
            _ => None,
        }
    }
}

/// Formats a stored kilogram weight in the user's unit: "100 kg", "82.5 kg", "225 lb".
/// Kilograms keep two decimals (1.25 kg plates exist), pounds one (2.5 lb plates).
pub fn format_weight(kg: f64, unit: Unit) -> String {
    format!("{} {}", format_number(unit.from_kg(kg), unit), unit.label())
}

/// A derived figure (an estimated max, volume moved, an average, a body weight) in the user's
/// unit to one decimal: "117.3 kg", "258.6 lb". Loads to put on a bar use [`format_weight`].
pub fn format_estimate(kg: f64, unit: Unit) -> String {
    let v = (unit.from_kg(kg) * 10.0).round() / 10.0;
    format!("{} {}", format_number(v, unit), unit.label())
}

/// The number part of [`format_weight`], trailing zeros trimmed.
pub fn format_number(value: f64, unit: Unit) -> String {
    let decimals = match unit {
        Unit::Kg => 2,
        Unit::Lb => 1,
    };
    let mut s = format!("{value:.decimals$}");
    if s.contains('.') {
        while s.ends_with('0') {
            s.pop();
        }
        if s.ends_with('.') {
            s.pop();
        }
    }
    if s == "-0" { "0".to_string() } else { s }
}

/// "1 session", "3 sessions": a count with its noun (regular plurals only).
pub fn count(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// Rounds a weight to the nearest multiple of `step` (half away from zero).
pub fn round_to_step(value: f64, step: f64) -> f64 {
    if step <= 0.0 {
        return value;
    }
    (value / step).round() * step
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_whole_and_fractional_weights() {
        assert_eq!(format_weight(100.0, Unit::Kg), "100 kg");
        assert_eq!(format_weight(82.5, Unit::Kg), "82.5 kg");
        assert_eq!(format_weight(81.25, Unit::Kg), "81.25 kg");
        assert_eq!(format_weight(0.0, Unit::Kg), "0 kg");
        assert_eq!(format_estimate(106.666_667, Unit::Kg), "106.7 kg");
        assert_eq!(format_estimate(46.291, Unit::Lb), "102.1 lb");
        assert_eq!(format_estimate(100.0, Unit::Lb), "220.5 lb");
    }

    #[test]
    fn pounds_round_trip_through_kilograms() {
        for lb in [5.0, 45.0, 135.0, 225.0, 227.5, 315.0, 405.0, 1000.0] {
            let kg = Unit::Lb.to_kg(lb);
            assert_eq!(
                format_weight(kg, Unit::Lb),
                format!("{} lb", format_number(lb, Unit::Lb))
            );
            assert!((Unit::Lb.from_kg(kg) - lb).abs() < 1e-9);
        }
        assert_eq!(format_weight(Unit::Lb.to_kg(225.0), Unit::Lb), "225 lb");
    }

    #[test]
    fn kilograms_display_in_pounds() {
        assert_eq!(format_weight(100.0, Unit::Lb), "220.5 lb");
        assert_eq!(format_weight(20.0, Unit::Lb), "44.1 lb");
    }

    #[test]
    fn parses_unit_words() {
        assert_eq!(Unit::parse("kgs"), Some(Unit::Kg));
        assert_eq!(Unit::parse("pounds"), Some(Unit::Lb));
        assert_eq!(Unit::parse("stone"), None);
    }

    #[test]
    fn rounds_to_plate_steps() {
        assert_eq!(round_to_step(81.0, 2.5), 80.0);
        assert_eq!(round_to_step(81.25, 2.5), 82.5);
        assert_eq!(round_to_step(13.0, 2.0), 14.0);
    }
}
