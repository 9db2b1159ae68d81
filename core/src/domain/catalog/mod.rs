//! The exercise catalog (compiled in, parsed once on first use) and the resolver from free text
//! to an exercise. The resolver tolerates case, punctuation, plurals, word order, common
//! abbreviations and the "Name (Equipment)" form tracking apps export, and says when it is unsure.

use std::collections::HashMap;
use std::sync::LazyLock;

use serde::Serialize;

mod kinds;
mod matching;

pub use kinds::*;
use matching::{dice, keys_for, normalise_tokens, search_score, similarity};

const CATALOG_TEXT: &str = include_str!("catalog.txt");

static CATALOG: LazyLock<Catalog> = LazyLock::new(|| match Catalog::parse(CATALOG_TEXT) {
    Ok(c) => c,
    Err(e) => {
        // Unreachable for the shipped data (a unit test parses it); degrade rather than panic.
        tracing::error!(error = %e, "exercise catalog failed to parse");
        Catalog::default()
    }
});

/// The compiled-in catalog.
pub fn catalog() -> &'static Catalog {
    &CATALOG
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Exercise {
    pub id: String,
    pub name: String,
    pub aliases: Vec<String>,
    pub equipment: Equipment,
    pub primary_muscles: Vec<Muscle>,
    pub secondary_muscles: Vec<Muscle>,
    pub muscle_group: MuscleGroup,
    pub movement_pattern: MovementPattern,
    pub compound: bool,
    pub unilateral: bool,
    /// How a logged weight relates to the load the lifter moves.
    pub loading: Loading,
}

/// An exercise the catalog does not know, stored as the user's own (`EXERCISE#<id>`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, serde::Deserialize)]
pub struct OwnExercise {
    pub id: String,
    pub name: String,
    /// The catalog exercise it is probably the same as, for the app to offer a merge.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub similar_to: Option<String>,
    /// The catalog exercise the lifter merged it into: its history now names that one, and an
    /// import that meets its name again files the sets there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub merged_into: Option<String>,
    /// What the lifter said it is (`POST /v1/exercises`): its sets count for the groups of its
    /// primary muscles, as a catalog exercise's do. Empty for one an import kept as it found it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub equipment: Option<Equipment>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub primary_muscles: Vec<Muscle>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub secondary_muscles: Vec<Muscle>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub movement_pattern: Option<MovementPattern>,
}

/// How a free-text name resolved.
#[derive(Debug, Clone, PartialEq)]
pub enum Resolution<'a> {
    /// The text is the exercise's name or one of its aliases, up to case, punctuation and plurals.
    Exact(&'a Exercise),
    /// A close match, clearly ahead of the rest; worth using, worth confirming.
    Likely {
        exercise: &'a Exercise,
        score: f64,
    },
    /// Several candidates are about equally close; ask the lifter.
    Unsure {
        candidates: Vec<&'a Exercise>,
    },
    NotFound,
}

impl<'a> Resolution<'a> {
    pub fn exercise(&self) -> Option<&'a Exercise> {
        match self {
            Resolution::Exact(e) | Resolution::Likely { exercise: e, .. } => Some(e),
            _ => None,
        }
    }
}

#[derive(Debug, Default)]
pub struct Catalog {
    exercises: Vec<Exercise>,
    by_id: HashMap<String, usize>,
    /// Normalised names and aliases (spaced, compact and sorted-token forms) to exercise index.
    by_key: HashMap<String, usize>,
    /// Normalised token lists per exercise (name and aliases), for fuzzy scoring.
    token_sets: Vec<Vec<Vec<String>>>,
}

/// Scores at or above this are "likely" matches when clearly ahead of the runner-up.
const LIKELY_SCORE: f64 = 0.72;
/// A likely match must beat the runner-up by this much, else the resolver is unsure.
const LIKELY_MARGIN: f64 = 0.08;
/// Below this nothing is offered at all.
const CANDIDATE_SCORE: f64 = 0.45;

impl Catalog {
    pub fn parse(text: &str) -> Result<Catalog, String> {
        let mut c = Catalog::default();
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let ex = parse_line(line).map_err(|e| format!("catalog line {}: {e}", n + 1))?;
            if c.by_id.contains_key(&ex.id) {
                return Err(format!("catalog line {}: duplicate id {}", n + 1, ex.id));
            }
            c.by_id.insert(ex.id.clone(), c.exercises.len());
            c.exercises.push(ex);
        }
        for (i, ex) in c.exercises.iter().enumerate() {
            let mut sets = Vec::new();
            for text in std::iter::once(&ex.name).chain(ex.aliases.iter()) {
                let tokens = normalise_tokens(text);
                for key in keys_for(&tokens) {
                    // The first exercise to claim a key keeps it: names come before aliases
                    // in file order only per exercise, so a name never loses to another's alias.
                    c.by_key.entry(key).or_insert(i);
                }
                sets.push(tokens);
            }
            c.token_sets.push(sets);
        }
        // Names win over aliases that collide with them.
        for (i, ex) in c.exercises.iter().enumerate() {
            for key in keys_for(&normalise_tokens(&ex.name)) {
                c.by_key.insert(key, i);
            }
        }
        Ok(c)
    }

    pub fn len(&self) -> usize {
        self.exercises.len()
    }

    pub fn is_empty(&self) -> bool {
        self.exercises.is_empty()
    }

    pub fn all(&self) -> &[Exercise] {
        &self.exercises
    }

    pub fn get(&self, id: &str) -> Option<&Exercise> {
        self.by_id.get(id).map(|&i| &self.exercises[i])
    }

    /// Resolves free text ("bench", "Bench Press (Barbell)", "DB rows") to an exercise.
    pub fn resolve(&self, text: &str) -> Resolution<'_> {
        if let Some(e) = self.get(text.trim()) {
            return Resolution::Exact(e);
        }
        let tokens = normalise_tokens(text);
        if tokens.is_empty() {
            return Resolution::NotFound;
        }
        for key in keys_for(&tokens) {
            if let Some(&i) = self.by_key.get(&key) {
                return Resolution::Exact(&self.exercises[i]);
            }
        }
        if !fuzzy_matchable(text) {
            return Resolution::NotFound;
        }
        let scored = self.scored(&tokens, CANDIDATE_SCORE);
        match scored.as_slice() {
            [] => Resolution::NotFound,
            [(best, i), rest @ ..] => {
                let runner_up = rest.first().map_or(0.0, |r| r.0);
                if *best >= LIKELY_SCORE && best - runner_up >= LIKELY_MARGIN {
                    Resolution::Likely {
                        exercise: &self.exercises[*i],
                        score: *best,
                    }
                } else {
                    // Listed by the words they share with the text, then in the catalog's
                    // order (the common variant first): for "curls", the barbell and dumbbell
                    // curls, not the short names ("EZ curl", "leg curl") the letters favour.
                    let words = |i: usize| {
                        self.token_sets[i]
                            .iter()
                            .map(|t| dice(&tokens, t))
                            .fold(0.0, f64::max)
                    };
                    let mut listed: Vec<(f64, usize)> =
                        scored.iter().map(|&(_, i)| (words(i), i)).collect();
                    listed.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
                    Resolution::Unsure {
                        candidates: listed
                            .iter()
                            .take(5)
                            .map(|&(_, i)| &self.exercises[i])
                            .collect(),
                    }
                }
            }
        }
    }
}

impl Catalog {
    /// Exercises scoring at least `floor` against the query tokens, best first.
    fn scored(&self, tokens: &[String], floor: f64) -> Vec<(f64, usize)> {
        let mut scored: Vec<(f64, usize)> = self
            .token_sets
            .iter()
            .enumerate()
            .map(|(i, sets)| {
                (
                    sets.iter()
                        .map(|s| similarity(tokens, s))
                        .fold(0.0, f64::max),
                    i,
                )
            })
            .filter(|(s, _)| *s >= floor)
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        scored
    }

    /// Up to `n` names closest to `text`, however weak the match (for "did you mean").
    pub fn closest(&self, text: &str, n: usize) -> Vec<&Exercise> {
        let tokens = normalise_tokens(text);
        if tokens.is_empty() || !fuzzy_matchable(text) {
            return Vec::new();
        }
        self.scored(&tokens, SUGGESTION_SCORE)
            .into_iter()
            .take(n)
            .map(|(_, i)| &self.exercises[i])
            .collect()
    }
}

impl Catalog {
    /// Exercises matching the search box's `text` (typos, plurals, word order, word starts and
    /// "Name (Equipment)" tolerated), best first, with their score.
    pub fn search(&self, text: &str) -> Vec<(f64, &Exercise)> {
        let tokens = normalise_tokens(text);
        if tokens.is_empty() || !fuzzy_matchable(text) {
            return Vec::new();
        }
        let mut scored: Vec<(f64, usize)> = self
            .token_sets
            .iter()
            .enumerate()
            .map(|(i, sets)| {
                let best = sets
                    .iter()
                    .map(|s| search_score(&tokens, s))
                    .fold(0.0, f64::max);
                (best, i)
            })
            .filter(|(s, _)| *s >= CANDIDATE_SCORE)
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        scored
            .into_iter()
            .map(|(s, i)| (s, &self.exercises[i]))
            .collect()
    }
}

/// How well the search box's `text` matches `name` (the same score as [`Catalog::search`]), for
/// names outside the catalog (the lifter's own exercises).
pub fn search_score_of(text: &str, name: &str) -> f64 {
    search_score(&normalise_tokens(text), &normalise_tokens(name))
}

/// The longest text matched by similarity (an exact name or alias of any length still
/// resolves). Every catalog name is far shorter; the matching's cost grows with the text's length
/// times every alias's (a 9,000-character name took 2.5 s, a 60-character one 18 ms), so a
/// longer text finds nothing rather than costing seconds.
pub const MAX_MATCHED_CHARS: usize = 64;

fn fuzzy_matchable(text: &str) -> bool {
    text.chars().count() <= MAX_MATCHED_CHARS
}

/// "Did you mean" offers names down to this score.
const SUGGESTION_SCORE: f64 = 0.3;

fn parse_line(line: &str) -> Result<Exercise, String> {
    let f: Vec<&str> = line.split('|').collect();
    if f.len() != 9 {
        return Err(format!("expected 9 fields, found {}", f.len()));
    }
    let muscles = |s: &str| -> Result<Vec<Muscle>, String> {
        s.split(',')
            .map(str::trim)
            .filter(|m| !m.is_empty())
            .map(|m| Muscle::parse(m).ok_or_else(|| format!("unknown muscle {m}")))
            .collect()
    };
    let equipment = Equipment::parse(f[2]).ok_or_else(|| format!("unknown equipment {}", f[2]))?;
    let primary = muscles(f[3])?;
    let first = *primary.first().ok_or("no primary muscle")?;
    let movement_pattern =
        MovementPattern::parse(f[5]).ok_or_else(|| format!("unknown pattern {}", f[5]))?;
    let muscle_group = match movement_pattern {
        MovementPattern::Olympic | MovementPattern::FullBody => MuscleGroup::FullBody,
        _ => first.group(),
    };
    let compound = match f[6] {
        "c" => true,
        "i" => false,
        other => return Err(format!("kind must be c or i, found {other}")),
    };
    let unilateral = match f[7] {
        "u" => true,
        "b" => false,
        other => return Err(format!("laterality must be u or b, found {other}")),
    };
    let name = f[1].to_string();
    let mut aliases: Vec<String> = f[8]
        .split(';')
        .map(str::trim)
        .filter(|a| !a.is_empty())
        .map(String::from)
        .collect();
    aliases.push(tracking_app_name(&name, equipment));
    Ok(Exercise {
        loading: Loading::of(f[0], equipment, movement_pattern),
        id: f[0].to_string(),
        name,
        aliases,
        equipment,
        primary_muscles: primary,
        secondary_muscles: muscles(f[4])?,
        muscle_group,
        movement_pattern,
        compound,
        unilateral,
    })
}

/// "Dumbbell Bench Press" + dumbbell -> "Bench Press (Dumbbell)", the form tracking apps export.
fn tracking_app_name(name: &str, equipment: Equipment) -> String {
    let label = equipment.label();
    let base = name
        .strip_prefix(label)
        .or_else(|| {
            if equipment == Equipment::Smith {
                name.strip_prefix("Smith Machine")
            } else {
                None
            }
        })
        .map(str::trim)
        .filter(|b| !b.is_empty())
        .unwrap_or(name);
    format!("{base} ({label})")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn id_of(text: &str) -> Option<String> {
        catalog().resolve(text).exercise().map(|e| e.id.clone())
    }

    #[test]
    fn a_text_longer_than_any_name_is_matched_exactly_or_not_at_all() {
        // Within the limit a typo is forgiven; past it the same words find nothing (the
        // matching's cost grows with the text: 9,000 characters took 2.5 s).
        let typo = "Romanain Deadlift";
        assert_eq!(id_of(typo).as_deref(), Some("romanian-deadlift"));
        let padded = format!("{typo} {}", "x".repeat(MAX_MATCHED_CHARS));
        assert!(matches!(catalog().resolve(&padded), Resolution::NotFound));
        assert!(catalog().closest(&padded, 3).is_empty());
        assert!(catalog().search(&padded).is_empty());
        // An exact name is found whatever the limit (every catalog name is within it).
        assert!(
            catalog()
                .all()
                .iter()
                .all(|e| e.name.chars().count() <= MAX_MATCHED_CHARS)
        );
    }

    #[test]
    fn bodyweight_work_knows_how_its_weight_is_logged() {
        let loading = |id: &str| catalog().get(id).map(|e| e.loading);
        assert_eq!(loading("pull-up"), Some(Loading::Bodyweight { share: 1.0 }));
        assert_eq!(
            loading("weighted-pull-up"),
            Some(Loading::Bodyweight { share: 1.0 })
        );
        assert_eq!(
            loading("weighted-dip"),
            Some(Loading::Bodyweight { share: 1.0 })
        );
        assert_eq!(
            loading("push-up"),
            Some(Loading::Bodyweight { share: 0.64 })
        );
        assert_eq!(
            loading("assisted-pull-up"),
            Some(Loading::Assisted { share: 1.0 })
        );
        for external in ["plank", "crunch", "lat-pulldown", "barbell-bench-press"] {
            assert_eq!(loading(external), Some(Loading::External), "{external}");
        }
        // The names Strong exports for them (a real export logs "Chin Up (Assisted)" at 49 kg).
        assert_eq!(
            id_of("Chin Up (Assisted)").as_deref(),
            Some("assisted-chin-up")
        );
        assert_eq!(id_of("Pull Up").as_deref(), Some("pull-up"));
    }

    #[test]
    fn shipped_catalog_parses_with_at_least_250_exercises() {
        let c = Catalog::parse(CATALOG_TEXT).expect("catalog parses");
        assert!(c.len() >= 250, "only {} exercises", c.len());
        assert_eq!(catalog().len(), c.len());
    }

    #[test]
    fn every_exercise_is_complete_and_resolves_to_itself() {
        for ex in catalog().all() {
            assert!(
                !ex.name.is_empty() && !ex.primary_muscles.is_empty(),
                "{}",
                ex.id
            );
            assert_eq!(
                id_of(&ex.name).as_deref(),
                Some(ex.id.as_str()),
                "name of {}",
                ex.id
            );
            let tracking = tracking_app_name(&ex.name, ex.equipment);
            assert!(ex.aliases.contains(&tracking));
        }
    }

    #[test]
    fn no_alias_is_silently_shared_by_two_exercises() {
        // An alias that normalises to another exercise's name would be shadowed; list them.
        let mut seen: HashMap<String, &str> = HashMap::new();
        let mut clashes = Vec::new();
        for ex in catalog().all() {
            let mut own = HashSet::new();
            for text in std::iter::once(&ex.name).chain(&ex.aliases) {
                let key = normalise_tokens(text).join(" ");
                if !own.insert(key.clone()) {
                    continue;
                }
                if let Some(other) = seen.insert(key.clone(), &ex.id)
                    && other != ex.id
                {
                    clashes.push(format!("{key}: {other} / {}", ex.id));
                }
            }
        }
        assert!(clashes.is_empty(), "ambiguous aliases: {clashes:?}");
    }

    #[test]
    fn tracking_app_names_resolve() {
        assert_eq!(
            id_of("Bench Press (Barbell)").as_deref(),
            Some("barbell-bench-press")
        );
        assert_eq!(
            id_of("Lat Pulldown (Cable)").as_deref(),
            Some("lat-pulldown")
        );
        assert_eq!(
            id_of("Bench Press (Dumbbell)").as_deref(),
            Some("dumbbell-bench-press")
        );
        assert_eq!(
            id_of("Bicep Curl (Barbell)").as_deref(),
            Some("barbell-curl")
        );
        assert_eq!(id_of("Squat (Barbell)").as_deref(), Some("back-squat"));
        assert_eq!(
            id_of("Deadlift (Trap Bar)").as_deref(),
            Some("trap-bar-deadlift")
        );
        assert_eq!(
            id_of("Squat (Smith Machine)").as_deref(),
            Some("smith-squat")
        );
    }

    #[test]
    fn tolerates_case_punctuation_plurals_and_abbreviations() {
        assert_eq!(id_of("BENCH").as_deref(), Some("barbell-bench-press"));
        assert_eq!(id_of("pull-ups").as_deref(), Some("pull-up"));
        assert_eq!(id_of("Pullups").as_deref(), Some("pull-up"));
        assert_eq!(id_of("db rows").as_deref(), Some("dumbbell-row"));
        assert_eq!(id_of("RDLs").as_deref(), Some("romanian-deadlift"));
        assert_eq!(id_of("lateral raises").as_deref(), Some("lateral-raise"));
        assert_eq!(id_of("skull crushers").as_deref(), Some("skull-crusher"));
        assert_eq!(id_of("Farmers Walk").as_deref(), Some("farmers-walk"));
        assert_eq!(id_of("press bench").as_deref(), Some("barbell-bench-press"));
        assert_eq!(id_of("OHP").as_deref(), Some("overhead-press"));
    }

    #[test]
    fn typos_are_likely_matches() {
        match catalog().resolve("romanain deadlift") {
            Resolution::Likely { exercise, .. } => assert_eq!(exercise.id, "romanian-deadlift"),
            other => panic!("expected a likely match, got {other:?}"),
        }
    }

    #[test]
    fn says_when_unsure_or_unknown() {
        match catalog().resolve("curl") {
            Resolution::Unsure { candidates } => assert!(candidates.len() > 1),
            Resolution::Exact(e) | Resolution::Likely { exercise: e, .. } => {
                panic!("'curl' is ambiguous but resolved to {}", e.id)
            }
            Resolution::NotFound => panic!("'curl' should offer candidates"),
        }
        assert_eq!(
            catalog().resolve("underwater basket weaving"),
            Resolution::NotFound
        );
        assert_eq!(catalog().resolve("  "), Resolution::NotFound);
    }

    #[test]
    fn exercises_carry_their_attributes() {
        let bench = catalog().get("barbell-bench-press").unwrap();
        assert_eq!(bench.equipment, Equipment::Barbell);
        assert_eq!(bench.muscle_group, MuscleGroup::Chest);
        assert_eq!(bench.movement_pattern, MovementPattern::HorizontalPush);
        assert!(bench.compound && !bench.unilateral);
        let row = catalog().get("dumbbell-row").unwrap();
        assert!(row.unilateral);
        assert_eq!(
            catalog().get("power-clean").unwrap().muscle_group,
            MuscleGroup::FullBody
        );
    }

    #[test]
    fn covers_home_and_commercial_equipment() {
        for eq in Equipment::ALL {
            let n = catalog().all().iter().filter(|e| e.equipment == eq).count();
            assert!(n >= 2, "only {n} exercises for {eq:?}");
        }
    }
}
