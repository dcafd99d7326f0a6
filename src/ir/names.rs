//! Help for unknown names: "did you mean" suggestions and herd's derived built-ins.
//!
//! Owns: the edit distance used for suggestions and the table of names herd builds in that
//! mapcheck's vocabulary leaves to the model (with the one-line definition to add).
//! Uses: nothing else in the crate.

/// Names herd7 computes itself that are not in `vocab`; a model using them must define them.
const HERD_DERIVED: &[(&str, &str)] = &[
    ("po-loc", "let po-loc = po & loc"),
    ("rfe", "let rfe = rf & ext"),
    ("rfi", "let rfi = rf & int"),
    ("coe", "let coe = co & ext"),
    ("coi", "let coi = co & int"),
    ("fre", "let fre = fr & ext"),
    ("fri", "let fri = fr & int"),
    ("com", "let com = rf | co | fr"),
    ("fencerel", "let fencerel(B) = (po & (_ * B)) ; po"),
];

/// The note for a herd built-in that mapcheck leaves to the model, if `name` is one.
pub(crate) fn herd_derived_note(name: &str) -> Option<String> {
    HERD_DERIVED.iter().find(|(n, _)| *n == name).map(|(n, def)| {
        format!("herd builds `{n}` in; mapcheck's vocabulary does not, so define it before use: `{def}`")
    })
}

/// The closest candidates to `name` (at most three), if any is close enough to be a likely typo.
pub(crate) fn suggestions<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Vec<&'a str> {
    let limit = (name.chars().count() / 3).max(1);
    let mut scored: Vec<(usize, &str)> = candidates
        .into_iter()
        .filter(|c| *c != name)
        .map(|c| (edit_distance(name, c), c))
        .filter(|(d, _)| *d <= limit)
        .collect();
    scored.sort();
    scored.dedup_by(|a, b| a.1 == b.1);
    scored.into_iter().take(3).map(|(_, c)| c).collect()
}

/// "did you mean `a`?" / "did you mean one of `a`, `b`?"
pub(crate) fn did_you_mean(found: &[&str]) -> Option<String> {
    match found {
        [] => None,
        [one] => Some(format!("did you mean `{one}`?")),
        many => Some(format!(
            "did you mean one of {}?",
            many.iter()
                .map(|s| format!("`{s}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// Levenshtein distance over characters, case-sensitive.
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diag = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let next = (diag + usize::from(ca != cb))
                .min(row[j] + 1)
                .min(row[j + 1] + 1);
            diag = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(edit_distance("po", "po"), 0);
        assert_eq!(edit_distance("po", "op"), 2);
        assert_eq!(edit_distance("rfe", "rf"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }

    #[test]
    fn close_names_are_suggested_far_ones_are_not() {
        assert_eq!(suggestions("pp", ["po", "rf", "ppo"]), vec!["po", "ppo"]);
        assert!(suggestions("zzzz", ["po", "rf"]).is_empty());
    }
}
