use super::*;

fn cmd(text: &str) -> Option<Command> {
    parse(text).unwrap().map(|(c, _)| c)
}

fn near_miss(text: &str) -> String {
    parse(text).unwrap_err().message
}

fn entry(text: &str) -> SetEntry {
    match cmd(text) {
        Some(Command::Log(e)) => e,
        other => panic!("{text}: {other:?}"),
    }
}

/// The only reading of `text`.
fn one(text: &str) -> Reading {
    let e = entry(text);
    assert_eq!(e.readings.len(), 1, "{text}: {:?}", e.readings);
    e.readings[0].clone()
}

fn set(reps: u32, load: Load, effort: Option<Effort>) -> Reading {
    Reading {
        sets: 1,
        reps: Some(reps),
        load,
        seconds: None,
        effort,
    }
}

fn kg(value: f64) -> Load {
    Load::Weight {
        value,
        unit: Some(Unit::Kg),
    }
}

fn plain(value: f64) -> Load {
    Load::Weight { value, unit: None }
}

#[test]
fn log_set_words() {
    for t in [
        "done",
        "DONE",
        " log ",
        "log set",
        "finished",
        "completed set",
        "done!",
        "Done.",
    ] {
        assert_eq!(cmd(t), Some(Command::LogSet), "{t}");
    }
}

#[test]
fn reps_at_weight() {
    assert_eq!(one("8@100"), set(8, plain(100.0), None));
    assert_eq!(one("8 @ 100kg"), set(8, kg(100.0), None));
    let lb = Load::Weight {
        value: 225.0,
        unit: Some(Unit::Lb),
    };
    assert_eq!(one("5@225lbs"), set(5, lb, None));
    assert_eq!(one("log 8 reps at 100kg"), set(8, kg(100.0), None));
    assert_eq!(one("8 at 100"), set(8, plain(100.0), None));
    assert_eq!(one("8 reps @ 100"), set(8, plain(100.0), None));
    assert_eq!(one("8 @ 102.5 kg"), set(8, kg(102.5), None));
    assert_eq!(
        one("8@100 rir 2"),
        set(8, plain(100.0), Some(Effort::Rir(2)))
    );
    assert_eq!(
        one("8 @ 100 @9"),
        set(8, plain(100.0), Some(Effort::Rpe(9.0)))
    );
    assert_eq!(
        one("8@100kg@8.5"),
        set(8, kg(100.0), Some(Effort::Rpe(8.5)))
    );
    assert_eq!(
        one("8 @ 225 pounds rpe 9"),
        set(8, lb, Some(Effort::Rpe(9.0)))
    );
    assert_eq!(parse("8@100").unwrap().unwrap().1, "pattern:log_shorthand");
}

#[test]
fn weight_times_reps_as_strong_and_hevy_write_it() {
    assert_eq!(one("100kg x 8"), set(8, kg(100.0), None));
    assert_eq!(one("100 kg x 8 reps"), set(8, kg(100.0), None));
    assert_eq!(one("100kgx8"), set(8, kg(100.0), None));
    assert_eq!(one("8 x 100kg"), set(8, kg(100.0), None));
    assert_eq!(entry("100 × 8"), entry("100x8"));
    assert_eq!(one("102.5x5"), set(5, plain(102.5), None));
    assert_eq!(one("5x102.5"), set(5, plain(102.5), None));
    // Plain numbers: every reading, Strong's first, for the plan to settle.
    let e = entry("100x8");
    assert_eq!(
        e.readings,
        [set(8, plain(100.0), None), set(100, plain(8.0), None)]
    );
    let e = entry("20x10 rpe 8");
    assert_eq!(e.readings.len(), 2);
    assert!(
        e.readings
            .iter()
            .all(|r| r.effort == Some(Effort::Rpe(8.0)))
    );
    let e = entry("5x5");
    assert_eq!(
        e.readings,
        [
            set(5, plain(5.0), None),
            Reading {
                sets: 5,
                ..set(5, Load::Planned, None)
            }
        ]
    );
}

#[test]
fn several_sets_at_once() {
    let three = |load| Reading {
        sets: 3,
        ..set(8, load, None)
    };
    assert_eq!(one("3x8 @ 100"), three(plain(100.0)));
    assert_eq!(one("3 x 8 @ 100kg"), three(kg(100.0)));
    assert_eq!(one("3 sets of 8 at 100"), three(plain(100.0)));
    assert_eq!(one("3 sets of 8"), three(Load::Planned));
    assert_eq!(parse("3x8@100").unwrap().unwrap().1, "pattern:sets_of_reps");
    // "@8" after a pair: 3 sets at 8 kg, or an RPE.
    let e = entry("3x8 @ 8");
    assert_eq!(e.readings.len(), 3);
    assert!(e.readings.contains(&three(plain(8.0))));
    assert!(
        e.readings
            .contains(&set(8, plain(3.0), Some(Effort::Rpe(8.0))))
    );
}

#[test]
fn an_exercise_named_in_front() {
    let named = |text: &str, name: &str| {
        let e = entry(text);
        assert_eq!(e.exercise.as_deref(), Some(name), "{text}");
        e.readings
    };
    assert_eq!(named("bench 100x5", "bench")[0], set(5, plain(100.0), None));
    assert_eq!(
        named("squat: 5 @ 140", "squat"),
        [set(5, plain(140.0), None)]
    );
    assert_eq!(named("row 8@60", "row"), [set(8, plain(60.0), None)]);
    assert_eq!(
        named("Incline DB Press 3 sets of 10", "incline db press")[0].sets,
        3
    );
    assert_eq!(
        named("log pull-ups 12", "pull-ups"),
        [set(12, Load::Planned, None)]
    );
}

#[test]
fn switching_exercise() {
    for (t, name) in [
        ("now squats", "squats"),
        ("switch to rows", "rows"),
        ("Going to bench press", "bench press"),
        ("on to curls", "curls"),
    ] {
        assert_eq!(
            cmd(t),
            Some(Command::Switch {
                exercise: name.into()
            }),
            "{t}"
        );
    }
    for t in [
        "now what",
        "switch to a new program",
        "go to the gym?",
        "now",
    ] {
        assert!(
            !matches!(cmd(t), Some(Command::Switch { .. })),
            "{t}: {:?}",
            cmd(t)
        );
    }
}

#[test]
fn bodyweight_and_added_weight() {
    assert_eq!(one("bw x 15"), set(15, Load::Bodyweight, None));
    assert_eq!(one("bodyweight x 15"), set(15, Load::Bodyweight, None));
    assert_eq!(one("15 x bw"), set(15, Load::Bodyweight, None));
    assert_eq!(one("12 @ bw"), set(12, Load::Bodyweight, None));
    let added = |value, unit| Load::Added { value, unit };
    assert_eq!(one("+20 x 8"), set(8, added(20.0, None), None));
    assert_eq!(one("+20kg x 8"), set(8, added(20.0, Some(Unit::Kg)), None));
    assert_eq!(one("8 @ +20"), set(8, added(20.0, None), None));
    assert_eq!(
        one("bw+10 lb x 6"),
        set(6, added(10.0, Some(Unit::Lb)), None)
    );
}

#[test]
fn timed_sets() {
    let timed = |s| Reading {
        sets: 1,
        reps: None,
        load: Load::Planned,
        seconds: Some(s),
        effort: None,
    };
    assert_eq!(one("60s"), timed(60));
    assert_eq!(one("45 sec"), timed(45));
    assert_eq!(one("2 min"), timed(120));
    assert_eq!(one("1:30"), timed(90));
    let e = entry("plank 60s");
    assert_eq!(
        (e.exercise.as_deref(), &e.readings[..]),
        (Some("plank"), &[timed(60)][..])
    );
    assert_eq!(parse("45 sec").unwrap().unwrap().1, "pattern:timed");
}

#[test]
fn number_words_as_dictation_gives_them() {
    assert_eq!(one("eight at a hundred"), set(8, plain(100.0), None));
    assert_eq!(one("ten reps"), set(10, Load::Planned, None));
    assert_eq!(
        one("eight reps at sixty two point five kilos"),
        set(8, kg(62.5), None)
    );
    assert_eq!(
        one("three sets of eight at a hundred"),
        Reading {
            sets: 3,
            ..set(8, plain(100.0), None)
        }
    );
    assert_eq!(one("five at two twenty five pounds").reps, Some(5));
}

#[test]
fn rep_counts() {
    assert_eq!(one("8"), set(8, Load::Planned, None));
    assert_eq!(one("12 reps"), set(12, Load::Planned, None));
    assert_eq!(one("0"), set(0, Load::Planned, None));
    assert_eq!(
        one("10 reps rir 1"),
        set(10, Load::Planned, Some(Effort::Rir(1)))
    );
    assert_eq!(parse("8").unwrap().unwrap().1, "pattern:log_reps");
}

#[test]
fn navigation_words() {
    for t in [
        "next",
        "next set",
        "what's next?",
        "whats next",
        "what’s next",
        "What's Next",
    ] {
        assert_eq!(cmd(t), Some(Command::NextSet), "{t}");
    }
    for t in ["rest", "resting", "ok", "ready"] {
        assert_eq!(cmd(t), Some(Command::RestAck), "{t}");
    }
    for t in ["undo", "undo last", "undo last set"] {
        assert_eq!(cmd(t), Some(Command::Undo), "{t}");
    }
    assert_eq!(cmd("skip"), Some(Command::SkipSet));
    assert_eq!(cmd("skip set"), Some(Command::SkipSet));
}

#[test]
fn conversation_is_not_a_command() {
    for t in [
        "how's my bench?",
        "done for today, thanks",
        "what is next",
        "okay",
        "5 sets of 5 at 100kg sounds good?",
        "\"done\"",
        "next week",
        "log my workout please",
        "yesterday 100x5",
        "can you log 8 @ 100",
        "i did 100x8",
        "bench 100x5 felt heavy",
        "",
    ] {
        assert!(
            matches!(parse(t), Ok(None) | Ok(Some((Command::RestAck, _)))),
            "{t} -> {:?}",
            parse(t)
        );
    }
    assert_eq!(cmd("okay"), Some(Command::RestAck));
}

#[test]
fn near_misses_are_errors_with_a_hint() {
    assert!(near_miss("8@").contains("weight is missing"));
    assert!(near_miss("@100").contains("reps are missing"));
    assert!(near_miss("-8@100").contains("negative"));
    assert!(near_miss("8@-100").contains("negative"));
    assert!(near_miss("8.5@100").contains("whole number"));
    assert!(near_miss("8@100 rir").contains("effort value is missing"));
    assert!(near_miss("99999999999@1").contains("too large"));
    assert!(near_miss("8@1.2.3").contains("not a number"));
    assert!(near_miss("８@１００").contains("full-width"));
    assert!(near_miss("８").contains("full-width"));
    assert!(near_miss("0x0").contains("nothing to log"));
    assert!(near_miss("3x").contains("reps are missing"));
    assert!(near_miss("x8").contains("weight is missing"));
    assert!(near_miss("100 kg lb x 8").contains("one unit"));
    assert!(near_miss("100kg x 8kg").contains("one weight"));
    let e = parse("20x8 @ 100").unwrap_err();
    assert_eq!(e.field, Some("sets"), "{e}");
    let e = parse("12 sets of 8").unwrap_err();
    assert_eq!(e.field, Some("sets"), "{e}");
    assert!(near_miss("1:75").contains("seconds under 60"));
}
