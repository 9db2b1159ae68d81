//! The exercise catalog (compiled in, parsed once on first use) and the resolver from free text
//! to an exercise. The resolver tolerates case, punctuation, plurals, word order, common
//! abbreviations and the "Name (Equipment)" form tracking apps export, and says when it is unsure.

use std::collections::HashMap;
use std::sync::LazyLock;

use serde::{Deserialize, Serialize};

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

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Equipment {
    Barbell,
    EzBar,
    TrapBar,
    Dumbbell,
    Cable,
    Machine,
    Smith,
    Kettlebell,
    Band,
    Bodyweight,
    Plate,
    MedicineBall,
    Sled,
}

impl Equipment {
    pub const ALL: [Equipment; 13] = [
        Equipment::Barbell,
        Equipment::EzBar,
        Equipment::TrapBar,
        Equipment::Dumbbell,
        Equipment::Cable,
        Equipment::Machine,
        Equipment::Smith,
        Equipment::Kettlebell,
        Equipment::Band,
        Equipment::Bodyweight,
        Equipment::Plate,
        Equipment::MedicineBall,
        Equipment::Sled,
    ];

    pub fn id(self) -> &'static str {
        match self {
            Equipment::Barbell => "barbell",
            Equipment::EzBar => "ez_bar",
            Equipment::TrapBar => "trap_bar",
            Equipment::Dumbbell => "dumbbell",
            Equipment::Cable => "cable",
            Equipment::Machine => "machine",
            Equipment::Smith => "smith",
            Equipment::Kettlebell => "kettlebell",
            Equipment::Band => "band",
            Equipment::Bodyweight => "bodyweight",
            Equipment::Plate => "plate",
            Equipment::MedicineBall => "medicine_ball",
            Equipment::Sled => "sled",
        }
    }

    /// The label tracking apps put in brackets: "Bench Press (Barbell)".
    pub fn label(self) -> &'static str {
        match self {
            Equipment::Barbell => "Barbell",
            Equipment::EzBar => "EZ Bar",
            Equipment::TrapBar => "Trap Bar",
            Equipment::Dumbbell => "Dumbbell",
            Equipment::Cable => "Cable",
            Equipment::Machine => "Machine",
            Equipment::Smith => "Smith Machine",
            Equipment::Kettlebell => "Kettlebell",
            Equipment::Band => "Band",
            Equipment::Bodyweight => "Bodyweight",
            Equipment::Plate => "Weighted",
            Equipment::MedicineBall => "Medicine Ball",
            Equipment::Sled => "Sled",
        }
    }

    pub fn parse(s: &str) -> Option<Equipment> {
        Equipment::ALL.into_iter().find(|e| e.id() == s)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Muscle {
    Chest,
    UpperChest,
    Lats,
    UpperBack,
    Traps,
    LowerBack,
    FrontDelts,
    SideDelts,
    RearDelts,
    Biceps,
    Brachialis,
    Triceps,
    Forearms,
    Quads,
    Hamstrings,
    Glutes,
    Adductors,
    Abductors,
    Calves,
    Abs,
    Obliques,
    HipFlexors,
}

impl Muscle {
    pub const ALL: [Muscle; 22] = [
        Muscle::Chest,
        Muscle::UpperChest,
        Muscle::Lats,
        Muscle::UpperBack,
        Muscle::Traps,
        Muscle::LowerBack,
        Muscle::FrontDelts,
        Muscle::SideDelts,
        Muscle::RearDelts,
        Muscle::Biceps,
        Muscle::Brachialis,
        Muscle::Triceps,
        Muscle::Forearms,
        Muscle::Quads,
        Muscle::Hamstrings,
        Muscle::Glutes,
        Muscle::Adductors,
        Muscle::Abductors,
        Muscle::Calves,
        Muscle::Abs,
        Muscle::Obliques,
        Muscle::HipFlexors,
    ];

    pub fn id(self) -> &'static str {
        match self {
            Muscle::Chest => "chest",
            Muscle::UpperChest => "upper_chest",
            Muscle::Lats => "lats",
            Muscle::UpperBack => "upper_back",
            Muscle::Traps => "traps",
            Muscle::LowerBack => "lower_back",
            Muscle::FrontDelts => "front_delts",
            Muscle::SideDelts => "side_delts",
            Muscle::RearDelts => "rear_delts",
            Muscle::Biceps => "biceps",
            Muscle::Brachialis => "brachialis",
            Muscle::Triceps => "triceps",
            Muscle::Forearms => "forearms",
            Muscle::Quads => "quads",
            Muscle::Hamstrings => "hamstrings",
            Muscle::Glutes => "glutes",
            Muscle::Adductors => "adductors",
            Muscle::Abductors => "abductors",
            Muscle::Calves => "calves",
            Muscle::Abs => "abs",
            Muscle::Obliques => "obliques",
            Muscle::HipFlexors => "hip_flexors",
        }
    }

    pub fn parse(s: &str) -> Option<Muscle> {
        Muscle::ALL.into_iter().find(|m| m.id() == s)
    }

    pub fn group(self) -> MuscleGroup {
        use Muscle::*;
        match self {
            Chest | UpperChest => MuscleGroup::Chest,
            Lats | UpperBack | Traps | LowerBack => MuscleGroup::Back,
            FrontDelts | SideDelts | RearDelts => MuscleGroup::Shoulders,
            Biceps | Brachialis | Triceps | Forearms => MuscleGroup::Arms,
            Quads | Hamstrings | Glutes | Adductors | Abductors | Calves | HipFlexors => {
                MuscleGroup::Legs
            }
            Abs | Obliques => MuscleGroup::Core,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MuscleGroup {
    Chest,
    Back,
    Shoulders,
    Arms,
    Legs,
    Core,
    FullBody,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MovementPattern {
    HorizontalPush,
    VerticalPush,
    Dip,
    ChestFly,
    HorizontalPull,
    VerticalPull,
    ShoulderExtension,
    Shrug,
    HorizontalAbduction,
    ShoulderAbduction,
    ShoulderFlexion,
    ShoulderRotation,
    ElbowFlexion,
    ElbowExtension,
    WristFlexion,
    Grip,
    Carry,
    Squat,
    Lunge,
    Hinge,
    HipExtension,
    KneeExtension,
    KneeFlexion,
    HipAbduction,
    HipAdduction,
    CalfRaise,
    CoreFlexion,
    CoreRotation,
    CoreStability,
    CoreLateralFlexion,
    Olympic,
    FullBody,
    Jump,
}

impl MovementPattern {
    pub fn parse(s: &str) -> Option<MovementPattern> {
        // serde's snake_case names are the catalog's spelling.
        serde_json::from_value(serde_json::Value::String(s.to_string())).ok()
    }
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

/// How the weight logged for an exercise relates to the load moved. Bodyweight work moves a
/// share of the lifter's bodyweight: a weighted pull-up logs only the belt's plates, an
/// assisted one logs the machine's help, which is taken off (less help is progress).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Loading {
    /// The logged weight is the load (barbells, dumbbells, machines, cables), or the exercise
    /// is counted in reps and time only (planks, crunches, air squats).
    External,
    /// `share` of the bodyweight plus any logged weight.
    Bodyweight { share: f64 },
    /// `share` of the bodyweight minus the logged assistance.
    Assisted { share: f64 },
}

impl Loading {
    /// The share of bodyweight a pattern moves, for the patterns whose bodyweight versions are
    /// strength work measured in load: hanging and dipping lift all of it; a push-up about
    /// two thirds (Ebben et al. 2011, J Strength Cond Res 25(10): 64 % of body mass in the
    /// standard push-up). Other bodyweight work is counted in reps and time.
    fn share(pattern: MovementPattern) -> Option<f64> {
        match pattern {
            MovementPattern::VerticalPull | MovementPattern::Dip => Some(1.0),
            MovementPattern::HorizontalPush => Some(0.64),
            _ => None,
        }
    }

    /// From the catalog line: bodyweight equipment, a "weighted-" plate variant or an
    /// "assisted" variant of a pattern with a share.
    fn of(id: &str, equipment: Equipment, pattern: MovementPattern) -> Loading {
        let Some(share) = Loading::share(pattern) else {
            return Loading::External;
        };
        if id.contains("assisted") {
            Loading::Assisted { share }
        } else if equipment == Equipment::Bodyweight
            || (equipment == Equipment::Plate && id.starts_with("weighted-"))
        {
            Loading::Bodyweight { share }
        } else {
            Loading::External
        }
    }

    pub fn uses_bodyweight(self) -> bool {
        !matches!(self, Loading::External)
    }
}

/// An exercise the catalog does not know, stored as the user's own (`EXERCISE#<id>`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OwnExercise {
    pub id: String,
    pub name: String,
    /// The catalog exercise it is probably the same as, for the app to offer a merge.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub similar_to: Option<String>,
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
                    Resolution::Unsure {
                        candidates: scored
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
        if tokens.is_empty() {
            return Vec::new();
        }
        self.scored(&tokens, SUGGESTION_SCORE)
            .into_iter()
            .take(n)
            .map(|(_, i)| &self.exercises[i])
            .collect()
    }
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

/// Lower-cases, splits on anything that is not a letter, digit or '&', expands abbreviations
/// and singularises each word.
fn normalise_tokens(text: &str) -> Vec<String> {
    let lower = text.to_lowercase().replace(['\'', '’'], "");
    let mut out = Vec::new();
    for raw in lower
        .split(|c: char| !(c.is_alphanumeric() || c == '&'))
        .filter(|w| !w.is_empty())
    {
        let expanded: &[&str] = match raw {
            "db" | "dbs" => &["dumbbell"],
            "bb" => &["barbell"],
            "kb" | "kbs" => &["kettlebell"],
            "ez" => &["ez"],
            "ohp" => &["overhead", "press"],
            "bw" => &["bodyweight"],
            "tricep" => &["triceps"],
            "bicep" => &["biceps"],
            "pullup" | "pullups" => &["pull", "up"],
            "pushup" | "pushups" => &["push", "up"],
            "chinup" | "chinups" => &["chin", "up"],
            "situp" | "situps" => &["sit", "up"],
            "flye" | "flyes" | "flies" => &["fly"],
            _ => &[],
        };
        if expanded.is_empty() {
            out.push(singular(raw));
        } else {
            out.extend(expanded.iter().map(|s| s.to_string()));
        }
    }
    out
}

fn singular(word: &str) -> String {
    const KEEP: [&str; 8] = [
        "press",
        "biceps",
        "triceps",
        "abs",
        "glutes",
        "quads",
        "calves",
        "hamstrings",
    ];
    if KEEP.contains(&word) || word.len() <= 3 || word.ends_with("ss") || word.ends_with("us") {
        return word.to_string();
    }
    if let Some(stem) = word.strip_suffix("ies") {
        return format!("{stem}y");
    }
    if let Some(stem) = word
        .strip_suffix("ches")
        .or_else(|| word.strip_suffix("shes"))
    {
        return format!("{stem}{}", &word[stem.len()..stem.len() + 2]);
    }
    word.strip_suffix('s').unwrap_or(word).to_string()
}

/// The lookup keys of a token list: spaced, compact (no spaces) and sorted-token forms.
fn keys_for(tokens: &[String]) -> Vec<String> {
    if tokens.is_empty() {
        return Vec::new();
    }
    let spaced = tokens.join(" ");
    let compact = tokens.concat();
    let mut sorted = tokens.to_vec();
    sorted.sort();
    let sorted = format!("~{}", sorted.join(" "));
    vec![spaced, compact, sorted]
}

/// Token overlap (Dice) blended with a character-level similarity of the compact forms, so that
/// both word-order changes and typos score well.
fn similarity(query: &[String], candidate: &[String]) -> f64 {
    let matched = query
        .iter()
        .filter(|q| {
            candidate
                .iter()
                .any(|c| c == *q || (q.len() >= 4 && edit_distance(q, c) <= 1 + q.len() / 7))
        })
        .count() as f64;
    let dice = 2.0 * matched / (query.len() + candidate.len()) as f64;
    let a = query.concat();
    let b = candidate.concat();
    let longest = a.chars().count().max(b.chars().count()).max(1) as f64;
    let chars = 1.0 - edit_distance(&a, &b) as f64 / longest;
    0.6 * dice + 0.4 * chars
}

/// Optimal-string-alignment distance: Levenshtein plus adjacent transpositions ("romanain").
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let w = b.len() + 1;
    let mut d = vec![0usize; (a.len() + 1) * w];
    for (i, row) in d.chunks_mut(w).enumerate() {
        row[0] = i;
    }
    for (j, cell) in d.iter_mut().take(w).enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[(i - 1) * w + j - 1] + cost)
                .min(d[(i - 1) * w + j] + 1)
                .min(d[i * w + j - 1] + 1);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[(i - 2) * w + j - 2] + 1);
            }
            d[i * w + j] = v;
        }
    }
    d[a.len() * w + b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn id_of(text: &str) -> Option<String> {
        catalog().resolve(text).exercise().map(|e| e.id.clone())
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
