//! The claims `docs/results/2026-11-27-h100/README.md` makes, checked against the data it
//! publishes beside them (`outcomes.csv`: every outcome of every run, as `gpu run` wrote it into
//! each `result.csv`): no outcome the test's model forbids was seen; Fig. 11's SC counterexample
//! (`rc11-ptx-SC`) was seen twice, its `cuda-ptx` twin never; M2's Atomicity program showed
//! another state the source forbids.
const OUTCOMES: &str = "docs/results/2026-11-27-h100/outcomes.csv";

/// One line of `result.csv` (see `RunResult::to_csv`).
#[derive(Debug)]
struct Outcome {
    test: String,
    state: String,
    count: u64,
    instances: u64,
    counted: bool,
    verdict: String,
    shows_counterexample: bool,
}

/// RFC 4180 fields of one line: quoted ones with `""` inside, or bare ones.
fn fields(line: &str) -> Vec<String> {
    let mut out = vec![];
    let mut field = String::new();
    let (mut quoted, mut chars) = (false, line.chars().peekable());
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => out.push(std::mem::take(&mut field)),
            _ => field.push(c),
        }
    }
    out.push(field);
    out
}

fn outcomes() -> Vec<Outcome> {
    let text = std::fs::read_to_string(OUTCOMES).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("test,state,count,instances,rate,p_rep,low_95,high_95,counted,verdict,shows_counterexample,sequential")
    );
    lines
        .map(|line| {
            let f = fields(line);
            assert_eq!(f.len(), 12, "{line}");
            Outcome {
                test: f[0].clone(),
                state: f[1].clone(),
                count: f[2].parse().unwrap(),
                instances: f[3].parse().unwrap(),
                counted: f[8] == "true",
                verdict: f[9].clone(),
                shows_counterexample: f[10] == "true",
            }
        })
        .collect()
}

/// Seen counts of the counted outcome and of source-forbidden states, per test, and instances.
fn of_test(all: &[Outcome], test: &str) -> (u64, u64, u64) {
    let rows: Vec<&Outcome> = all.iter().filter(|o| o.test == test).collect();
    assert!(!rows.is_empty(), "{test} is not in {OUTCOMES}");
    let counted = rows.iter().filter(|o| o.counted).map(|o| o.count).sum();
    let forbidden_by_source = rows
        .iter()
        .filter(|o| o.shows_counterexample)
        .map(|o| o.count)
        .sum();
    (counted, forbidden_by_source, rows[0].instances)
}

#[test]
fn no_outcome_the_model_forbids_was_seen() {
    let all = outcomes();
    let seen_forbidden: Vec<&Outcome> = all
        .iter()
        .filter(|o| o.verdict == "forbidden" && o.count > 0)
        .collect();
    assert!(seen_forbidden.is_empty(), "{seen_forbidden:#?}");
    assert!(all.iter().all(|o| o.verdict != "unjudged"));
}

#[test]
fn fig11_sc_counterexample_was_seen_and_its_cuda_twin_was_not() {
    let all = outcomes();
    assert_eq!(of_test(&all, "rc11-ptx-SC"), (2, 2, 67_058_046));
    assert_eq!(of_test(&all, "cuda-ptx-SC"), (0, 0, 67_058_046));
    let m2 = of_test(&all, "m2-release-store-relaxed-Atomicity");
    assert_eq!(m2, (0, 21_854, 119_441_454));
    let other = all
        .iter()
        .find(|o| {
            o.test == "m2-release-store-relaxed-Atomicity" && o.count > 0 && o.shows_counterexample
        })
        .unwrap();
    assert_eq!(other.state, "0:r0=3; 0:r1=0; y=2; x=3;");
}

/// The confirmation runs (seed 2, 100 000 launches), as `gpu run` printed them: Fig. 11's
/// counterexample 11 times, its `cuda-ptx` twin never, and no state the model forbids seen.
#[test]
fn the_confirmation_runs_say_what_the_readme_says() {
    let report = |name: &str| {
        std::fs::read_to_string(format!("docs/results/2026-11-27-h100/{name}")).unwrap()
    };
    let rc11 = report("cx-rc11-ptx-SC-seed2.txt");
    assert!(
        rc11.contains("observed 11 times in 678411294 instances"),
        "{rc11}"
    );
    let cuda = report("cx-cuda-ptx-SC-seed2.txt");
    assert!(
        cuda.contains("not observed in 678411294 instances"),
        "{cuda}"
    );
    for text in [rc11, cuda] {
        assert!(text.contains("(assembled by ptxas, passed optcheck)"));
        assert!(!text.contains("FORBIDDEN"), "{text}");
    }
}
