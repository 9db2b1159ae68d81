//! Rows into workouts: exercise names resolved through the catalog (or kept as the lifter's
//! own), rows grouped into workouts by their start time and name, sets numbered, and the
//! weeks they fall in collected for the reviews.

use super::*;

/// How an exercise name resolved.
#[derive(Clone)]
pub(super) struct Resolved {
    pub(super) id: String,
    pub(super) name: String,
    pub(super) own: Option<OwnExercise>,
}

pub(super) fn resolve(name: &str) -> Resolved {
    match catalog().resolve(name) {
        Resolution::Exact(e) => Resolved {
            id: e.id.clone(),
            name: e.name.clone(),
            own: None,
        },
        // A close match is not good enough to file years of history under: the exercise
        // becomes the lifter's own, with the likely match named for the app to offer.
        other => Resolved {
            id: own_id(name),
            name: name.to_string(),
            own: Some(OwnExercise {
                id: own_id(name),
                name: name.to_string(),
                similar_to: other.exercise().map(|e| e.id.clone()),
                ..Default::default()
            }),
        },
    }
}

/// A stable id for a user's own exercise: a slug of the name, with a short hash where the
/// slug alone could collide (names beyond ASCII letters and digits).
pub fn own_id(name: &str) -> String {
    let lower = name.trim().to_lowercase();
    let mut slug = String::new();
    for c in lower.chars() {
        if c.is_ascii_alphanumeric() {
            slug.push(c);
        } else if !slug.ends_with('-') {
            slug.push('-');
        }
    }
    let slug: String = slug.trim_matches('-').chars().take(60).collect();
    let plain = lower
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c.is_ascii_punctuation() || c == ' ');
    if plain && !slug.is_empty() {
        return format!("own-{slug}");
    }
    let digest = Sha256::digest(lower.as_bytes());
    let hex: String = digest[..4].iter().map(|b| format!("{b:02x}")).collect();
    if slug.is_empty() {
        format!("own-{hex}")
    } else {
        format!("own-{slug}-{hex}")
    }
}

/// The workout's id depends only on when it started and its name, so a re-import rewrites
/// the same items.
pub(super) fn workout_id(started_at: DateTime<Utc>, name: &str) -> String {
    let mut h = Sha256::new();
    h.update(started_at.to_rfc3339().as_bytes());
    h.update([0]);
    h.update(name.as_bytes());
    let hex: String = h.finalize()[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("strong-{hex}")
}

/// Groups rows into workouts (by start time and name) and exercises (by name), enforcing the
/// per-workout limits.
pub(super) fn assemble(
    rows: Vec<Row>,
    opts: Options,
    own: &HashSet<String>,
    mut s: Summary,
) -> Parsed {
    let mut g = Grouping::default();
    for row in rows {
        let line = row.line;
        if let Err(reason) = g.add(row) {
            reject(&mut s, line, reason);
        }
    }
    g.finish(opts, own, s)
}

/// Different exercise names one import resolves: each costs a match against the whole catalog
/// (up to about 20 ms), so 60,000 made-up names would outlast the request. The committed real
/// exports name at most 132.
pub const MAX_DISTINCT_EXERCISES: usize = 300;

/// The workouts being built, row by row, and the exercises they use.
#[derive(Default)]
struct Grouping {
    /// Each workout with the lines of its rows, and where it is by start and name.
    workouts: Vec<(Workout, Vec<usize>)>,
    index: HashMap<(DateTime<Utc>, String), usize>,
    /// Exercise names as resolved (lower case), and the ids used.
    names: HashMap<String, Resolved>,
    catalog_ids: BTreeSet<String>,
    own_used: Vec<OwnExercise>,
}

impl Grouping {
    /// Files the row's set under its workout and exercise, or says which limit it would break
    /// (the workout and exercise are kept for the rows that fit).
    fn add(&mut self, row: Row) -> Result<(), String> {
        let lower = row.exercise.to_lowercase();
        if self.names.len() >= MAX_DISTINCT_EXERCISES && !self.names.contains_key(&lower) {
            return Err(format!(
                "the file names more than {MAX_DISTINCT_EXERCISES} different exercises; import it in parts (by date range)"
            ));
        }
        let wi = self.workout_for(&row);
        let r = self
            .names
            .entry(lower)
            .or_insert_with(|| resolve(&row.exercise))
            .clone();
        let (w, lines) = &mut self.workouts[wi];
        let ei = instance_for(w, &r)?;
        let n: usize = w.exercises.iter().map(|e| e.sets.len()).sum();
        if n >= MAX_SETS_PER_WORKOUT {
            return Err(format!(
                "the workout already has {MAX_SETS_PER_WORKOUT} sets"
            ));
        }
        let e = &mut w.exercises[ei];
        if e.notes.is_none() {
            e.notes = row.exercise_notes.clone();
        }
        if e.sets.len() >= MAX_SETS_PER_EXERCISE {
            return Err(format!(
                "{} already has {MAX_SETS_PER_EXERCISE} sets in this workout",
                r.name
            ));
        }
        e.sets.push(WorkoutSet {
            id: format!("s{}", n + 1),
            set_type: row.set_type,
            status: SetStatus::Done,
            target: SetTarget::default(),
            actual: Some(row.result),
            completed_at: None,
        });
        match &r.own {
            Some(o) if !self.own_used.iter().any(|x| x.id == o.id) => {
                self.own_used.push(o.clone());
            }
            Some(_) => {}
            None => {
                self.catalog_ids.insert(r.id.clone());
            }
        }
        if w.completed_at.is_none()
            && let Some(d) = row.duration.filter(|d| *d > Duration::zero())
        {
            w.completed_at = w.started_at.checked_add_signed(d);
        }
        if w.notes.is_none() {
            w.notes = row.workout_notes;
        }
        lines.push(row.line);
        Ok(())
    }

    /// The row's workout, started when it is the first row of it.
    fn workout_for(&mut self, row: &Row) -> usize {
        let key = (row.started_at, row.workout_name.clone());
        let workouts = &mut self.workouts;
        *self.index.entry(key).or_insert_with(|| {
            let workout = Workout {
                current_exercise: None,
                id: workout_id(row.started_at, &row.workout_name),
                name: row.workout_name.clone(),
                status: WorkoutStatus::Completed,
                started_at: row.started_at,
                completed_at: None,
                template_id: None,
                routine_id: None,
                exercises: Vec::new(),
                changes: Vec::new(),
                notes: None,
                // Set by the importer from the profile: exports do not carry it.
                bodyweight_kg: None,
            };
            workouts.push((workout, Vec::new()));
            workouts.len() - 1
        })
    }

    /// The workouts that pass the whole-workout checks (the rows of one that does not are
    /// rejected), oldest first, counted into the summary.
    fn finish(self, opts: Options, own: &HashSet<String>, mut s: Summary) -> Parsed {
        let mut kept = Vec::with_capacity(self.workouts.len());
        for (w, lines) in self.workouts {
            // Within the limits, the stored document fits its item (`MAX_WORKOUT_DOC_BYTES`).
            match w.validate().err().map(|e| e.to_string()) {
                Some(p) => lines.iter().for_each(|l| reject(&mut s, *l, p.clone())),
                None if w.exercises.is_empty() => {}
                None => kept.push(w),
            }
        }
        kept.sort_by(|a, b| a.started_at.cmp(&b.started_at).then(a.id.cmp(&b.id)));
        count_sets(&kept, &mut s);
        s.workouts = kept.len();
        s.exercises_resolved = self.catalog_ids.len();
        s.exercises_own = self.own_used.iter().filter(|o| own.contains(&o.id)).count();
        s.exercises_created = self
            .own_used
            .iter()
            .filter(|o| !own.contains(&o.id))
            .cloned()
            .collect();
        let weeks: BTreeSet<NaiveDate> = kept
            .iter()
            .map(|w| week_ending(w.started_at, opts.tz))
            .collect();
        Parsed {
            workouts: kept,
            own_exercises: self.own_used,
            weeks: weeks.into_iter().collect(),
            summary: s,
        }
    }
}

/// The exercise's place in the workout, added when new and the workout has room.
fn instance_for(w: &mut Workout, r: &Resolved) -> Result<usize, String> {
    if let Some(i) = w.exercises.iter().position(|e| e.exercise_id == r.id) {
        return Ok(i);
    }
    if w.exercises.len() >= MAX_EXERCISES_PER_WORKOUT {
        return Err(format!(
            "the workout already has {MAX_EXERCISES_PER_WORKOUT} exercises"
        ));
    }
    w.exercises.push(ExerciseInstance {
        group: None,
        rest: None,
        instance_id: format!("e{}", w.exercises.len() + 1),
        exercise_id: r.id.clone(),
        name: r.name.clone(),
        sets: Vec::new(),
        notes: None,
        rep_range: None,
        primary_muscles: Vec::new(),
    });
    Ok(w.exercises.len() - 1)
}

/// The kept sets by kind, into the summary.
fn count_sets(kept: &[Workout], s: &mut Summary) {
    for set in kept.iter().flat_map(|w| &w.exercises).flat_map(|e| &e.sets) {
        s.sets += 1;
        match set.set_type {
            SetType::Warmup => s.warmup_sets += 1,
            SetType::Dropset => s.drop_sets += 1,
            SetType::Working => {}
        }
        if let Some(r) = &set.actual {
            s.failure_sets += usize::from(r.failure);
            s.timed_sets += usize::from(r.is_timed());
        }
    }
}
