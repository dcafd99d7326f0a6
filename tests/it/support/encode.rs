//! Helpers shared by the encoder's integration tests: suites, exact bounds from an execution,
//! and tallies of what was compared.
use std::path::{Path, PathBuf};

use mapcheck::encode::Bounds;
use mapcheck::exec::Execution;

/// Every `.litmus` file under `tests/data/oracle/dat3m/litmus/<suite>`, sorted.
pub fn litmus_files(suite: &str) -> Vec<PathBuf> {
    let mut out = vec![];
    walk(
        &Path::new("tests/data/oracle/dat3m/litmus").join(suite),
        &mut out,
    );
    out.sort();
    out
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, out);
        } else if p.extension().is_some_and(|x| x == "litmus") {
            out.push(p);
        }
    }
}

/// Bounds that pin every vocabulary name to its value on `x`.
pub fn exact_bounds(x: &Execution) -> Bounds {
    let base = x.base();
    let mut bounds = Bounds::new(base.n);
    for (name, s) in &base.sets {
        bounds.exact_set(name, *s).unwrap();
    }
    for (name, r) in &base.rels {
        bounds.exact_rel(name, r).unwrap();
    }
    bounds
}

/// What a comparison covered.
#[derive(Clone, Debug, Default)]
pub struct Tally {
    /// Tests whose candidates were enumerated.
    pub tests: usize,
    /// Tests that did not parse or run.
    pub skipped: usize,
    pub candidates: usize,
    pub consistent: usize,
    /// Per-check verdicts compared both ways.
    pub checks: usize,
    /// Checks reading a witness, compared with the evaluator's verdict on the check alone.
    pub witness_checks: usize,
}

impl Tally {
    pub fn add(&mut self, o: &Tally) {
        self.candidates += o.candidates;
        self.consistent += o.consistent;
        self.checks += o.checks;
        self.witness_checks += o.witness_checks;
    }
}

/// The evaluator's verdict on one check: a flag is raised when its test holds; any other check
/// holds unless it is listed as failed.
pub fn evaluator_holds(j: &mapcheck::eval::Outcome, name: &str, flag: bool) -> bool {
    if flag {
        j.flags.iter().any(|f| f == name)
    } else {
        !j.failed.iter().any(|f| f == name)
    }
}

/// The communication relations left free in the tests with open bounds.
pub const FREE: [&str; 3] = ["rf", "co", "fr"];

/// Upper bounds of the free relations on `x`: same-location W→R (rf), distinct W→W (co), R→W (fr).
pub fn free_upper(x: &Execution, name: &str) -> mapcheck::rel::Rel {
    use mapcheck::rel::Rel;
    let base = x.base();
    let (w, r) = (base.sets["W"], base.sets["R"]);
    let (from, to) = match name {
        "rf" => (w, r),
        "co" => (w, w),
        _ => (r, w),
    };
    let loc = &base.rels["loc"];
    Rel::from_pairs(
        x.n(),
        loc.pairs()
            .filter(|&(a, b)| a != b && from.contains(a) && to.contains(b)),
    )
}

/// Exact bounds on `x` except the `FREE` relations, which range from empty to `free_upper`.
pub fn open_bounds(x: &Execution) -> Bounds {
    let mut b = exact_bounds(x);
    for name in FREE {
        b.bound_rel(name, mapcheck::rel::Rel::empty(x.n()), free_upper(x, name))
            .unwrap();
    }
    b
}

/// The model with check `i` alone deciding consistency (every other check made a flag), and
/// negated when `negate`: the evaluator then says whether some choice of the witnesses makes
/// check `i` hold (or fail).
pub fn alone(model: &mapcheck::ir::Model, i: usize, negate: bool) -> mapcheck::ir::Model {
    let mut m = model.clone();
    for (k, c) in m.checks.iter_mut().enumerate() {
        c.flag = k != i;
        c.negated ^= k == i && negate;
    }
    m
}

/// A small deterministic generator (64-bit LCG, high bits).
pub struct Lcg(pub u64);

impl Lcg {
    pub fn next(&mut self, bound: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % bound as u64) as usize
    }
}
