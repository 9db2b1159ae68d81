//! Matching free text against exercise names: words normalised (case, punctuation,
//! abbreviations, plurals), then a similarity that tolerates word order and typos.

/// Lower-cases, splits on anything that is not a letter, digit or '&', expands abbreviations
/// and singularises each word.
pub(super) fn normalise_tokens(text: &str) -> Vec<String> {
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
pub(super) fn keys_for(tokens: &[String]) -> Vec<String> {
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

/// The token overlap of `query` and `candidate` (Dice), typos of a letter or two forgiven.
pub(super) fn dice(query: &[String], candidate: &[String]) -> f64 {
    let matched = query
        .iter()
        .filter(|q| {
            candidate
                .iter()
                .any(|c| c == *q || (q.len() >= 4 && edit_distance(q, c) <= 1 + q.len() / 7))
        })
        .count() as f64;
    2.0 * matched / (query.len() + candidate.len()).max(1) as f64
}

/// Token overlap (Dice) blended with a character-level similarity of the compact forms, so that
/// both word-order changes and typos score well.
pub(super) fn similarity(query: &[String], candidate: &[String]) -> f64 {
    let dice = dice(query, candidate);
    let a = query.concat();
    let b = candidate.concat();
    let longest = a.chars().count().max(b.chars().count()).max(1) as f64;
    let chars = 1.0 - edit_distance(&a, &b) as f64 / longest;
    0.6 * dice + 0.4 * chars
}

/// How well a search box's text matches a name as the lifter types it: every query word the
/// start of a word of the name ("ben pre" → "bench press") scores at least 0.8 (more the more of
/// the name it covers); otherwise the typo-tolerant [`similarity`].
pub(super) fn search_score(query: &[String], candidate: &[String]) -> f64 {
    // A query word may also run words of the name together ("benchpress", "latpulldown"):
    // it is then the start of the name's words from one of them on, written without spaces.
    let runs: Vec<String> = (0..candidate.len())
        .map(|i| candidate[i..].concat())
        .collect();
    let prefixes = !query.is_empty()
        && query
            .iter()
            .all(|q| runs.iter().any(|c| c.starts_with(q.as_str())));
    let typed = similarity(query, candidate);
    if prefixes {
        let covered = query.concat().chars().count() as f64
            / candidate.concat().chars().count().max(1) as f64;
        typed.max(0.8 + 0.2 * covered.min(1.0))
    } else {
        typed
    }
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
