//! What the slow lane decides before any model call: a short "yes, save it" right after a
//! proposal (apply it, no model), and a destructive request (ask for an explicit confirmation,
//! which any option the clarification offered gives).
//! Both match whole words of the message, never substrings: the original flagged "I clearly
//! need help" as a request to clear data.

/// Replies that confirm the proposal of the coach's previous turn (or a destructive request)
/// when they are the whole message, give or take punctuation and "please". None names a
/// destructive verb: "yes, delete it" must never apply a proposal.
const CONFIRMATIONS: [&str; 16] = [
    "confirm",
    "confirmed",
    "yes",
    "yes save it",
    "save it",
    "yes go ahead",
    "go ahead",
    "do it",
    "yes do it",
    "apply it",
    "accept",
    "accept it",
    "sounds good save it",
    "looks good save it",
    "yes confirm",
    "yep",
];

const DESTRUCTIVE_VERBS: [&str; 7] = [
    "delete", "remove", "clear", "reset", "wipe", "erase", "purge",
];

/// What a destructive verb must apply to for the request to touch stored data (removing a
/// planned set mid-workout is not destructive).
const DATA_OBJECTS: [&str; 17] = [
    "data",
    "history",
    "routine",
    "routines",
    "plan",
    "plans",
    "program",
    "template",
    "templates",
    "workouts",
    "everything",
    "all",
    "account",
    "progress",
    "logs",
    "memories",
    "profile",
];

/// Words of a question that asks the lifter to decide on a proposal.
const DECIDING: [&str; 18] = [
    "confirm",
    "save",
    "apply",
    "go ahead",
    "go with",
    "sound good",
    "sounds good",
    "look good",
    "looks good",
    "look right",
    "want me to",
    "shall i",
    "should i",
    "use it",
    "use this",
    "happy with",
    "want this",
    "ready to",
];

/// Whether a "yes" after the coach's `answer` answers its proposal: the answer's last question,
/// if it asked one, is about deciding on it ("Want me to save it?"), not something else ("Do you
/// train on Sundays?", where a yes applying the plan would change it on the wrong word).
pub(crate) fn yes_means_the_proposal(answer: &str) -> bool {
    let question = super::critic::sentences(answer)
        .into_iter()
        .rev()
        .find(|s| s.trim_end().ends_with('?'));
    question.is_none_or(|q| {
        let q = q.to_lowercase();
        DECIDING.iter().any(|w| q.contains(w))
    })
}

fn words(text: &str) -> Vec<String> {
    text.to_lowercase()
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// The message's words without the politeness that does not change its meaning.
fn reply_words(text: &str) -> String {
    let mut w = words(text);
    w.retain(|x| x != "please" && x != "ok" && x != "okay");
    w.join(" ")
}

/// Whether the whole message is a confirmation ("Yes, save it!", "go ahead please").
pub(crate) fn is_confirmation(text: &str) -> bool {
    let joined = reply_words(text);
    !joined.is_empty() && CONFIRMATIONS.contains(&joined.as_str())
}

/// Whether `text` confirms a destructive request the clarification asked about: a plain
/// confirmation, or an explicit "Yes, {verb} it" (the option the gate offers, for each verb).
pub(crate) fn confirms_destructive(text: &str) -> bool {
    let reply = reply_words(text);
    is_confirmation(text)
        || DESTRUCTIVE_VERBS
            .iter()
            .any(|verb| reply == format!("yes {verb} it"))
}

/// A destructive request: a destructive verb and a data object, as whole words. Returns the verb.
pub(crate) fn destructive_verb(text: &str) -> Option<&'static str> {
    let w = words(text);
    let verb = DESTRUCTIVE_VERBS.iter().find(|v| {
        w.iter()
            .any(|x| x == *v || x.strip_suffix('s') == Some(**v))
    })?;
    w.iter()
        .any(|x| DATA_OBJECTS.contains(&x.as_str()))
        .then_some(*verb)
}

/// The clarification asked before anything destructive happens.
pub fn clarification(verb: &str, request: &str) -> (String, Vec<String>) {
    let shown: String = request.chars().take(120).collect();
    (
        format!(
            "You asked to {verb} stored data (\"{shown}\"). This cannot be undone. Are you sure?"
        ),
        vec![format!("Yes, {verb} it"), "No, keep it".to_string()],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn confirmations_are_whole_messages() {
        for yes in [
            "confirm",
            "Yes, save it!",
            "go ahead please",
            "Do it.",
            "YES",
        ] {
            assert!(is_confirmation(yes), "{yes}");
        }
        for no in [
            "yes but change the squat",
            "save it for later?",
            "",
            "confirm my bench numbers",
            "Yes, delete it",
            "yes reset it",
        ] {
            assert!(!is_confirmation(no), "{no}");
        }
    }

    #[test]
    fn every_offered_option_confirms_its_request() {
        for verb in DESTRUCTIVE_VERBS {
            let request = format!("{verb} all my workout history");
            assert_eq!(destructive_verb(&request), Some(verb), "{request}");
            let (_, options) = clarification(verb, &request);
            assert!(confirms_destructive(&options[0]), "{}", options[0]);
            assert!(!confirms_destructive(&options[1]), "{}", options[1]);
        }
        assert!(confirms_destructive("yes"));
        assert!(!confirms_destructive("yes wipe my squat notes"));
    }

    #[test]
    fn a_yes_applies_a_proposal_only_when_it_was_the_question() {
        for asked in [
            "Here is a three-day plan. Confirm it to make it your routine.",
            "I've drafted a push day. Want me to save it?",
            "The plan is ready. Does it look good? Say yes to apply it.",
            "A new template for you.",
        ] {
            assert!(yes_means_the_proposal(asked), "{asked}");
        }
        for other in [
            "Here is a three-day plan. Do you train on Sundays?",
            "I drafted a routine. Is your knee still sore?",
        ] {
            assert!(!yes_means_the_proposal(other), "{other}");
        }
    }

    #[test]
    fn destructive_requests_match_whole_words() {
        assert_eq!(
            destructive_verb("delete my workout history"),
            Some("delete")
        );
        assert_eq!(destructive_verb("Reset my routine"), Some("reset"));
        assert_eq!(destructive_verb("please clear all my data"), Some("clear"));
        assert_eq!(
            destructive_verb("I clearly need help with my routine"),
            None
        );
        assert_eq!(destructive_verb("remove the last set"), None);
        assert_eq!(destructive_verb("my deleted-scenes plan"), None);
        assert_eq!(destructive_verb("how do I reset my form on squats"), None);
    }
}
