use chrono::Utc;

use super::*;
use crate::domain::workout::{
    ExerciseInstance, RestPlan, SetResult, SetTarget, SetType, WorkoutSet, WorkoutStatus,
};
use crate::router::command;
use crate::skills::workouts;

fn target(reps: u32, kg: f64, rir: u32) -> SetTarget {
    SetTarget {
        reps: Some(reps),
        weight_kg: Some(kg),
        rir: Some(rir),
    }
}

fn instance(id: &str, exercise_id: &str, name: &str, sets: Vec<WorkoutSet>) -> ExerciseInstance {
    ExerciseInstance {
        instance_id: id.into(),
        exercise_id: exercise_id.into(),
        name: name.into(),
        sets,
        notes: None,
        rep_range: None,
        primary_muscles: Vec::new(),
        group: None,
        rest: None,
    }
}

/// One start time for every copy of the test workout, half an hour ago.
static STARTED: std::sync::LazyLock<DateTime<Utc>> =
    std::sync::LazyLock::new(|| Utc::now() - Duration::minutes(30));

fn workout() -> Workout {
    Workout {
        bodyweight_kg: None,
        id: "w1".into(),
        name: "Push A".into(),
        status: WorkoutStatus::Active,
        started_at: *STARTED,
        completed_at: None,
        template_id: None,
        routine_id: None,
        exercises: vec![
            instance(
                "ex1",
                "barbell-bench-press",
                "Bench Press",
                vec![
                    WorkoutSet::planned("wu", SetType::Warmup, target(10, 50.0, 5)),
                    WorkoutSet::planned("b1", SetType::Working, target(8, 100.0, 2)),
                    WorkoutSet::planned("b2", SetType::Working, target(8, 100.0, 2)),
                ],
            ),
            instance(
                "ex2",
                "pull-up",
                "Pull-Up",
                vec![WorkoutSet::planned(
                    "p1",
                    SetType::Working,
                    SetTarget {
                        reps: Some(8),
                        weight_kg: None,
                        rir: None,
                    },
                )],
            ),
        ],
        changes: vec![],
        notes: None,
        current_exercise: None,
    }
}

fn inputs(unit: Unit) -> Inputs<'static> {
    static PROFILE: std::sync::LazyLock<Profile> = std::sync::LazyLock::new(Profile::default);
    Inputs {
        unit,
        requested_workout: None,
        now: Utc::now(),
        profile: &PROFILE,
        history: &[],
        adding: None,
    }
}

fn parsed(text: &str) -> Command {
    command::parse(text)
        .unwrap_or_else(|e| panic!("{text}: {e}"))
        .unwrap_or_else(|| panic!("{text}: not a command"))
        .0
}

/// Applies the typed command `text` to `w`.
fn run_in(text: &str, w: &Workout, unit: Unit) -> Outcome {
    let cmd = parsed(text);
    validate(&cmd, unit).unwrap();
    apply(&cmd, Some(w), &inputs(unit)).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn run(text: &str, w: &Workout) -> Outcome {
    run_in(text, w, Unit::Kg)
}

/// Applies `text` and returns the changed workout.
fn step(text: &str, w: &Workout) -> Workout {
    run(text, w)
        .changed
        .unwrap_or_else(|| panic!("{text} changed nothing"))
}

fn actual(w: &Workout, set_id: &str) -> SetResult {
    let p = w
        .find_set(set_id)
        .unwrap_or_else(|| panic!("no set {set_id}"));
    w.set_at(p)
        .actual
        .clone()
        .unwrap_or_else(|| panic!("{set_id} not done"))
}

/// The keys of each answer's `data` (and which are `null`): the wire format the app reads.
#[test]
fn answer_data_has_the_documented_keys() {
    fn keys(data: &CommandData) -> Vec<String> {
        let v = serde_json::to_value(data).expect("serialises");
        let map = v.as_object().expect("an object");
        map.iter()
            .map(|(k, v)| format!("{k}{}", if v.is_null() { "=null" } else { "" }))
            .collect()
    }
    let w = workout();
    let none = apply(&Command::LogSet, None, &inputs(Unit::Kg)).unwrap();
    assert_eq!(keys(&none.data), ["active_workout=null"]);
    let next = run("next", &w);
    assert_eq!(keys(&next.data), ["next", "unit", "workout_id"]);
    let done = run("done", &w);
    assert_eq!(
        keys(&done.data),
        [
            "added_exercise=null",
            "logged",
            "logged_sets",
            "next",
            "rest_seconds",
            "rest_source",
            "unit",
            "workout_id"
        ]
    );
    let skip = run("skip", &w);
    assert_eq!(keys(&skip.data), ["next", "skipped", "unit", "workout_id"]);
    let done_w = done.changed.expect("logged");
    let undo = run("undo", &done_w);
    assert_eq!(keys(&undo.data), ["next", "undone", "unit", "workout_id"]);
    let nothing = run("undo", &w);
    assert_eq!(keys(&nothing.data), ["undone=null", "unit", "workout_id"]);
    let mut no_reps = workout();
    no_reps.exercises[0].sets[1].target.reps = None;
    let needs = run("done", &no_reps);
    assert_eq!(keys(&needs.data), ["needs", "next", "unit", "workout_id"]);
    let mut open = workout();
    open.exercises[0].sets[1].target = SetTarget::default();
    let ask = run("20x10", &open);
    assert_eq!(keys(&ask.data), ["clarification", "unit", "workout_id"]);
}

#[test]
fn done_logs_the_current_set_as_planned_and_says_the_rest() {
    let out = run("done", &workout());
    assert_eq!(
        out.text,
        "Logged Bench Press set 1 of 2: 8 × 100 kg, RIR 2.\nRest 2:00. Next: Bench Press set 2 of 2: 8 × 100 kg."
    );
    let w = out.changed.unwrap();
    assert_eq!(w.exercises[0].sets[1].status, SetStatus::Done);
    assert_eq!(actual(&w, "b1").weight_kg, Some(100.0));
    assert_eq!(
        w.exercises[0].sets[0].status,
        SetStatus::Planned,
        "warm-ups are not the current set"
    );
    let data = serde_json::to_value(&out.data).expect("serialises");
    assert_eq!(data["logged"]["set_id"], "b1");
    assert_eq!(data["next"]["set_id"], "b2");
    assert_eq!(
        (data["rest_seconds"].as_u64(), data["rest_source"].as_str()),
        (Some(120), Some("default"))
    );
}

#[test]
fn the_planned_rest_is_the_templates_or_the_lifters_own() {
    let mut w = workout();
    w.exercises[0].rest = Some(RestPlan {
        seconds: 150,
        source: RestSource::YourMedian,
    });
    let out = run("done", &w);
    assert!(out.text.contains("Rest 2:30."), "{}", out.text);
    let data = serde_json::to_value(&out.data).unwrap();
    assert_eq!(data["rest_source"], "your_median");
}

#[test]
fn typed_values_are_stored_converted_from_pounds() {
    let out = run_in("5@225lbs rpe 9", &workout(), Unit::Lb);
    let w = out.changed.unwrap();
    let a = actual(&w, "b1");
    assert_eq!(a.reps, 5);
    assert!((a.weight_kg.unwrap() - 102.058_283_25).abs() < 1e-6);
    assert_eq!((a.rpe, a.rir), (Some(9.0), Some(1)));
    assert!(
        out.text
            .starts_with("Logged Bench Press set 1 of 2: 5 × 225 lb, RPE 9."),
        "{}",
        out.text
    );
    assert!(
        out.text
            .contains("Next: Bench Press set 2 of 2: 8 × 220.5 lb.")
    );
    // No unit: the lifter's; no effort given: none invented.
    let w = step("8 @ 100", &workout());
    assert_eq!(
        (actual(&w, "b1").weight_kg, actual(&w, "b1").rir),
        (Some(100.0), None)
    );
}

#[test]
fn reps_only_keeps_the_planned_weight_and_zero_is_a_failed_set() {
    let out = run("6", &workout());
    assert!(
        out.text
            .starts_with("Logged Bench Press set 1 of 2: 6 × 100 kg.")
    );
    let out = run("0", &workout());
    assert!(
        out.text
            .starts_with("Logged Bench Press set 1 of 2: 0 × 100 kg (failed)."),
        "{}",
        out.text
    );
    assert!(actual(&out.changed.unwrap(), "b1").failure);
}

#[test]
fn weight_times_reps_is_read_against_the_plan() {
    // 100x8 against 8 × 100 planned: 100 kg for 8.
    let w = step("100x8", &workout());
    assert_eq!(
        (actual(&w, "b1").reps, actual(&w, "b1").weight_kg),
        (8, Some(100.0))
    );
    // 8x100: the same set written the other way round.
    let w = step("8x100", &workout());
    assert_eq!(
        (actual(&w, "b1").reps, actual(&w, "b1").weight_kg),
        (8, Some(100.0))
    );
    // 20x10 with 10 × 20 planned is 20 kg for 10; with 20 × 10 planned, 10 kg for 20.
    let mut w = workout();
    w.exercises[0].sets[1].target = target(10, 20.0, 2);
    let got = step("20x10", &w);
    assert_eq!(
        (actual(&got, "b1").reps, actual(&got, "b1").weight_kg),
        (10, Some(20.0))
    );
    w.exercises[0].sets[1].target = target(20, 10.0, 2);
    let got = step("20x10", &w);
    assert_eq!(
        (actual(&got, "b1").reps, actual(&got, "b1").weight_kg),
        (20, Some(10.0))
    );
}

#[test]
fn a_set_the_plan_cannot_settle_is_a_question_not_a_guess() {
    let mut w = workout();
    w.exercises[0].sets[1].target = SetTarget::default();
    let out = run("20x10", &w);
    assert!(out.changed.is_none(), "nothing is logged");
    let Shown::Clarification { clarification } = (match &out.data {
        CommandData::Workout { sets, .. } => sets.clone(),
        other => panic!("{other:?}"),
    }) else {
        panic!("{:?}", out.data)
    };
    assert_eq!(clarification.options, ["10 @ 20 kg", "20 @ 10 kg"]);
    assert!(
        out.text.contains("10 reps at 20 kg or 20 reps at 10 kg"),
        "{}",
        out.text
    );
    // Each option, sent back, logs without a question.
    for option in &clarification.options {
        assert!(run(option, &w).changed.is_some(), "{option}");
    }
}

#[test]
fn a_set_named_by_a_word_many_exercises_share_asks_which() {
    let w = workout();
    let out = run("row 8 @ 60", &w);
    assert!(out.changed.is_none(), "nothing is logged");
    let Shown::Clarification { clarification } = (match &out.data {
        CommandData::Workout { sets, .. } => sets.clone(),
        other => panic!("{other:?}"),
    }) else {
        panic!("{:?}", out.data)
    };
    assert!(clarification.options.len() >= 2, "{clarification:?}");
    assert!(
        clarification
            .options
            .iter()
            .any(|o| o == "barbell row 8 @ 60 kg"),
        "{clarification:?}"
    );
    // Each option, sent back, logs that row without a question.
    for option in &clarification.options {
        assert!(run(option, &w).changed.is_some(), "{option}");
    }
}

#[test]
fn several_sets_at_once_fill_the_plan_then_add_and_undo_together() {
    let out = run("3x8 @ 100", &workout());
    assert!(
        out.text
            .starts_with("Logged 3 sets of Bench Press (sets 1–3 of 3): 8 × 100 kg each."),
        "{}",
        out.text
    );
    let w = out.changed.unwrap();
    let bench = &w.exercises[0];
    assert_eq!(
        bench.sets.len(),
        4,
        "two planned sets filled, one extra added"
    );
    assert!(bench.sets[1..].iter().all(|s| s.status == SetStatus::Done));
    let undone = run("undo", &w);
    assert!(
        undone.text.starts_with("Undid 3 sets of Bench Press."),
        "{}",
        undone.text
    );
    let mut back = undone.changed.unwrap();
    back.current_exercise = None;
    assert_eq!(back, workout(), "back to the plan, the extra set gone");
}

#[test]
fn an_extra_set_after_the_plan_is_added_to_the_current_exercise() {
    let mut w = workout();
    for _ in 0..3 {
        w = step("done", &w);
    }
    assert!(w.current_set().is_none());
    let nothing = run("done", &w);
    assert!(nothing.changed.is_none() && nothing.text.starts_with("No planned sets left"));
    let out = run("10 @ 20", &w);
    assert!(
        out.text
            .starts_with("Logged an extra set of Pull-Up (set 2): 10 × 20 kg."),
        "{}",
        out.text
    );
    let w2 = out.changed.unwrap();
    assert_eq!(w2.exercises[1].sets.len(), 2);
    assert_eq!(actual(&w2, "ex2-s2").weight_kg, Some(20.0));
    assert_eq!(run("undo", &w2).changed.unwrap().exercises[1].sets.len(), 1);
}

#[test]
fn a_typed_set_after_the_plan_of_an_exercise_goes_where_its_values_point() {
    let mut w = step("done", &workout());
    w = step("done", &w);
    // A heavy set like the bench's: one more bench set, not the pull-ups.
    let out = run("100x6", &w);
    assert!(
        out.text
            .starts_with("Logged an extra set of Bench Press (set 3)"),
        "{}",
        out.text
    );
    // Reps alone follow the plan: the pull-ups.
    let out = run("10", &w);
    assert!(
        out.text.starts_with("Logged Pull-Up set 1 of 1: 10 reps."),
        "{}",
        out.text
    );
    // Bodyweight reps: the pull-ups too.
    let out = run("bw x 10", &w);
    assert!(
        out.text.starts_with("Logged Pull-Up set 1 of 1"),
        "{}",
        out.text
    );
}

#[test]
fn naming_an_exercise_logs_to_it_and_makes_it_current() {
    let out = run("pull-ups 10", &workout());
    assert!(
        out.text.starts_with("Logged Pull-Up set 1 of 1: 10 reps."),
        "{}",
        out.text
    );
    let w = out.changed.unwrap();
    assert_eq!(w.current_exercise.as_deref(), Some("ex2"));
    // Pull-ups are done: "next" goes back to the bench left behind.
    assert!(run("next", &w).text.contains("Bench Press set 1 of 2"));
    let w = step("bench 100x6", &w);
    assert_eq!(actual(&w, "b1").reps, 6);
}

#[test]
fn now_switches_without_logging() {
    let out = run("now pull-ups", &workout());
    assert_eq!(out.text, "Now Pull-Up: next is Pull-Up set 1 of 1: 8 reps.");
    let w = out.changed.unwrap();
    assert!(
        w.exercises
            .iter()
            .flat_map(|e| &e.sets)
            .all(|s| s.status == SetStatus::Planned)
    );
    let w = step("done", &w);
    assert_eq!(actual(&w, "p1").reps, 8);
}

#[test]
fn a_named_exercise_not_in_the_workout_is_added_from_the_catalog() {
    let out = run("barbell curl 12 @ 15", &workout());
    assert!(out.text.starts_with("Added "), "{}", out.text);
    let w = out.changed.unwrap();
    let curl = w.exercises.last().unwrap();
    assert!(curl.name.to_lowercase().contains("curl"), "{}", curl.name);
    assert_eq!(curl.sets.len(), workouts::DEFAULT_SETS as usize);
    assert_eq!(
        curl.sets[0].actual.as_ref().map(|a| (a.reps, a.weight_kg)),
        Some((12, Some(15.0)))
    );
    // Undo takes the whole addition back.
    assert_eq!(run("undo", &w).changed.unwrap().exercises.len(), 2);
}

#[test]
fn names_tolerate_typos_an_unknown_one_is_an_error_and_a_shared_one_a_question() {
    let w = step("benchh presss 8 @ 100", &workout());
    assert_eq!(actual(&w, "b1").weight_kg, Some(100.0));
    let e = apply(
        &parsed("zorbing 8 @ 100"),
        Some(&workout()),
        &inputs(Unit::Kg),
    )
    .unwrap_err();
    assert!(e.to_string().starts_with("no exercise 'zorbing'"), "{e}");
    // "curls" could be several: a question naming them, nothing logged.
    let out = apply(
        &parsed("curls 12 @ 15"),
        Some(&workout()),
        &inputs(Unit::Kg),
    )
    .unwrap();
    assert!(out.changed.is_none());
    assert!(
        out.text.starts_with("Which exercise is 'curls'") && out.text.contains("Dumbbell Curl"),
        "{}",
        out.text
    );
}

#[test]
fn bodyweight_added_weight_and_time() {
    let w = step("pull-ups +20 x 6", &workout());
    assert_eq!(
        (actual(&w, "p1").reps, actual(&w, "p1").weight_kg),
        (6, Some(20.0))
    );
    let w = step("pull-ups bw x 12", &workout());
    assert_eq!(
        (actual(&w, "p1").reps, actual(&w, "p1").weight_kg),
        (12, None)
    );
    let cmd = parsed("+20 x 8");
    let e = apply(&cmd, Some(&workout()), &inputs(Unit::Kg)).unwrap_err();
    assert!(e.to_string().contains("not a bodyweight exercise"), "{e}");
    let out = run("plank 60s", &workout());
    let w = out.changed.unwrap();
    let plank = w.exercises.last().unwrap();
    let a = plank.sets[0].actual.clone().unwrap();
    assert!(a.is_timed() && a.seconds == Some(60), "{a:?}");
    assert!(out.text.contains("Plank set 1 of 3: 60 s."), "{}", out.text);
    assert!(
        plank.sets[1].target.reps.is_none(),
        "a timed exercise is not planned in reps"
    );
}

#[test]
fn a_superset_alternates_and_rests_after_the_round() {
    let mut w = workout();
    for e in &mut w.exercises {
        e.group = Some("A".into());
    }
    let out = run("done", &w);
    assert!(
        out.text
            .contains("Next: Pull-Up set 1 of 1: 8 reps (superset: go straight on)."),
        "{}",
        out.text
    );
    let data = serde_json::to_value(&out.data).unwrap();
    assert_eq!(
        (data["rest_seconds"].as_u64(), data["rest_source"].as_str()),
        (Some(0), Some("superset"))
    );
    let out = run("done", &out.changed.unwrap());
    assert!(
        out.text.contains("Rest 2:00. Next: Bench Press set 2 of 2"),
        "{}",
        out.text
    );
}

#[test]
fn skip_then_undo_restores_the_set() {
    let w = step("skip", &workout());
    assert_eq!(w.exercises[0].sets[1].status, SetStatus::Skipped);
    let out = run("undo", &w);
    assert_eq!(
        out.text,
        "Undid skipping Bench Press set 1 of 2; it is planned again.\nNext: Bench Press set 1 of 2: 8 × 100 kg."
    );
    let mut back = out.changed.unwrap();
    back.current_exercise = None;
    assert_eq!(back, workout());
}

#[test]
fn undo_reverts_the_last_logged_set_within_the_window() {
    let w = step("7 @ 95", &workout());
    let out = run("undo", &w);
    assert_eq!(
        out.text,
        "Undid Bench Press set 1 of 2 (7 × 95 kg); it is planned again.\nNext: Bench Press set 1 of 2: 8 × 100 kg."
    );
    let reverted = out.changed.unwrap();
    assert_eq!(reverted.exercises[0].sets[1].actual, None);
    let out = run("undo", &reverted);
    assert!(out.changed.is_none() && out.text.starts_with("Nothing to undo"));
}

#[test]
fn undo_does_not_reach_past_fifteen_minutes() {
    let then = Inputs {
        now: Utc::now() - Duration::minutes(UNDO_WINDOW_MINUTES + 1),
        ..inputs(Unit::Kg)
    };
    let w = apply(&Command::LogSet, Some(&workout()), &then)
        .unwrap()
        .changed
        .unwrap();
    let out = run("undo", &w);
    assert!(out.changed.is_none() && out.text.starts_with("Nothing to undo"));
}

#[test]
fn a_different_workout_id_is_refused() {
    let other = Inputs {
        requested_workout: Some("other"),
        ..inputs(Unit::Kg)
    };
    let e = apply(&Command::LogSet, Some(&workout()), &other).unwrap_err();
    assert_eq!(
        e,
        CopilotError::WorkoutMismatch {
            requested: "other".into()
        }
    );
    let same = Inputs {
        requested_workout: Some("w1"),
        ..inputs(Unit::Kg)
    };
    assert!(apply(&Command::LogSet, Some(&workout()), &same).is_ok());
}

#[test]
fn validation_names_the_field() {
    assert_eq!(
        validate(&parsed("8 @ 2000 kg"), Unit::Kg)
            .unwrap_err()
            .field,
        "weight"
    );
    // 2000 lb is 907 kg: allowed.
    assert!(validate(&parsed("8 @ 2000"), Unit::Lb).is_ok());
    assert_eq!(
        validate(&parsed("501"), Unit::Kg).unwrap_err().field,
        "reps"
    );
    assert_eq!(
        validate(&parsed("5 rir 7"), Unit::Kg).unwrap_err().field,
        "rir"
    );
    // One reading in the limits is enough: 5x600 is 600 kg for 5, not 600 reps.
    assert!(validate(&parsed("5x600"), Unit::Kg).is_ok());
}

#[test]
fn the_clients_time_is_taken_when_plausible() {
    let now = Utc::now();
    let started = Some(now - Duration::minutes(40));
    let ten_ago = now - Duration::minutes(10);
    let clock = set_time(Some(ten_ago), now, started).unwrap();
    assert_eq!(
        (clock.at, clock.source, clock.note),
        (ten_ago, Some("client"), None)
    );
    let clock = set_time(None, now, started).unwrap();
    assert_eq!((clock.at, clock.source), (now, None));
    let clock = set_time(Some(now + Duration::minutes(30)), now, started).unwrap();
    assert_eq!((clock.at, clock.source), (now, Some("server")));
    let clock = set_time(Some(now - Duration::hours(2)), now, started).unwrap();
    assert_eq!(clock.at, now);
    assert!(
        clock
            .note
            .is_some_and(|n| n.contains("before this workout started"))
    );
    assert_eq!(
        set_time(Some(now + Duration::days(2)), now, started)
            .unwrap_err()
            .field,
        "at"
    );
    assert_eq!(
        set_time(Some(now - Duration::days(30)), now, started)
            .unwrap_err()
            .field,
        "at"
    );
}
