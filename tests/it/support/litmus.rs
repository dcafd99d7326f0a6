//! Builders for `Litmus` instructions, shared by the tests that write source programs in Rust,
//! and the litmus files of a directory, for the tests that go through a corpus.
use std::path::{Path, PathBuf};

use mapcheck::litmus::{Expr, Instr};
use mapcheck::vocab::Tag;

/// The tests of the Dat3M corpus (paths below `tests/data/oracle/dat3m/litmus/`) that mapcheck
/// refuses, each with the refusal it must give: both write `red.acq_rel`, which PTX does not have
/// (PTX ISA 8.x §9.7.13.6: `red` takes `.relaxed` or `.release`; docs/decisions/017).
pub const REFUSED: [(&str, &str); 2] = [
    ("PTX/Manual/Red-minus-location_.litmus", RED_ACQ_REL),
    ("PTX/Manual/Red-plus-location_.litmus", RED_ACQ_REL),
];

const RED_ACQ_REL: &str = "`red` cannot be `.acq_rel`; expected `.relaxed` or `.release`";

/// The refusal `REFUSED` gives the corpus test at `path`, if any.
pub fn refusal_of(path: &Path) -> Option<&'static str> {
    let path = path.to_string_lossy();
    REFUSED
        .iter()
        .find(|(p, _)| path.ends_with(p))
        .map(|&(_, reason)| reason)
}

/// The tags named `ts` (model names: `"ACQ"`).
pub fn tags(ts: &[&str]) -> Vec<Tag> {
    ts.iter()
        .map(|t| Tag::from_name(t).unwrap_or_else(|| panic!("no tag {t}")))
        .collect()
}

pub fn ld(dst: &str, loc: &str, t: &[&str]) -> Instr {
    Instr::Load {
        dst: dst.into(),
        loc: loc.into(),
        tags: tags(t),
    }
}

pub fn st(loc: &str, v: i64, t: &[&str]) -> Instr {
    Instr::Store {
        loc: loc.into(),
        value: Expr::Const(v),
        tags: tags(t),
    }
}

pub fn fence(t: &[&str]) -> Instr {
    Instr::Fence { tags: tags(t) }
}

pub fn rmw(dst: &str, loc: &str, op: mapcheck::litmus::RmwOp, t: &[&str]) -> Instr {
    Instr::Rmw {
        dst: Some(dst.into()),
        loc: loc.into(),
        op,
        tags: tags(t),
        fail_tags: None,
    }
}

/// The `.litmus` files under `dir`, recursively, sorted.
pub fn litmus_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).expect("test directory") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            files.extend(litmus_files(&path));
        } else if path.extension().is_some_and(|x| x == "litmus") {
            files.push(path);
        }
    }
    files.sort();
    files
}

/// Every shipped PTX model, each as it is (NVIDIA's reading: an RMW's write depends on its read)
/// and under `--variant dep-without-rmw` (Dartagnan's reading).
pub const PTX_READINGS: [(&str, Option<&str>); 6] = [
    ("models/ptx-v6-alloy.cat", None),
    ("models/ptx-v6-alloy.cat", Some("dep-without-rmw")),
    ("models/ptx-v6.cat", None),
    ("models/ptx-v6.cat", Some("dep-without-rmw")),
    ("models/ptx-v7.5.cat", None),
    ("models/ptx-v7.5.cat", Some("dep-without-rmw")),
];

/// Only the readings without an RMW's write in `dep` (Dartagnan's).
pub const DEP_WITHOUT_RMW: [(&str, Option<&str>); 3] = [
    ("models/ptx-v6-alloy.cat", Some("dep-without-rmw")),
    ("models/ptx-v6.cat", Some("dep-without-rmw")),
    ("models/ptx-v7.5.cat", Some("dep-without-rmw")),
];

/// The runner's verdicts on `source` and its compilation by `map`: scoped RC11 and RC11 forbid
/// its outcome without a race, and of the shipped PTX readings exactly `allowed_by` allow the
/// compiled test — each run here with its own load options, and `search::judge_readings` (what
/// a check reports) must say the same.
pub fn assert_source_forbidden_and_compiled_allowed_by(
    map: &str,
    source: &mapcheck::litmus::Litmus,
    allowed_by: &[(&str, Option<&str>)],
) {
    use mapcheck::{ir, mapping, runner, search};
    let m = mapping::load(Path::new(map)).unwrap();
    let target = m.compile_program(source).unwrap().target;
    let opts = runner::Options::default();
    for model in ["models/rc11-scoped.cat", "models/rc11.cat"] {
        let s = runner::run(&ir::load(Path::new(model)).unwrap(), source, &opts).unwrap();
        assert!(!s.validated, "{model} allows the source outcome");
        assert!(s.flags.is_empty(), "{model} finds the source test racy");
    }
    for (model, variant) in PTX_READINGS {
        let load = ir::LoadOptions {
            variants: variant.into_iter().map(String::from).collect(),
            ..ir::LoadOptions::default()
        };
        let t = runner::run(
            &ir::load_with(Path::new(model), &load).unwrap(),
            &target,
            &opts,
        )
        .unwrap();
        let expected = allowed_by.contains(&(model, variant));
        assert_eq!(
            t.validated, expected,
            "{map}: {model} {variant:?} on the compiled test"
        );
    }
    let judged: Vec<(String, Option<String>, Option<bool>)> = search::judge_readings(&m, &target)
        .into_iter()
        .map(|r| (r.reading.file_name(), r.reading.variant, r.allows))
        .collect();
    let wanted: Vec<(String, Option<String>, Option<bool>)> = PTX_READINGS
        .iter()
        .map(|(model, variant)| {
            let file = model.trim_start_matches("models/").to_string();
            let allows = allowed_by.contains(&(*model, *variant));
            (file, variant.map(String::from), Some(allows))
        })
        .collect();
    assert_eq!(judged, wanted, "{map}: the readings a check reports");
}

/// Mapping file `map` with its target model read under herd variant `variant` (a `variant` line
/// added after its `target` line), loaded from its own directory.
pub fn mapping_read_with(map: &str, variant: &str) -> mapcheck::Mapping {
    let path = Path::new(map);
    let text = std::fs::read_to_string(path).expect("mapping reads");
    let target_line = text
        .lines()
        .find(|l| l.starts_with("target "))
        .expect("a target line");
    let with = text.replacen(
        target_line,
        &format!("{target_line} variant \"{variant}\""),
        1,
    );
    mapcheck::mapping::load_str(map, &with, path.parent()).expect("mapping loads with the variant")
}

/// Mapping file `map`, its target model read with `variant` when one is given.
pub fn mapping_reading(map: &str, variant: Option<&str>) -> mapcheck::Mapping {
    match variant {
        Some(v) => mapping_read_with(map, v),
        None => mapcheck::mapping::load(Path::new(map)).expect("mapping loads"),
    }
}

/// Per axiom of scoped RC11 (Coherence, Atomicity, SC), the bound of the counterexample `test` is
/// to mapping `m` as `check --test` judges it (`search::confirm`), or `None`.
pub fn counterexample_bounds(
    m: &mapcheck::Mapping,
    test: &mapcheck::litmus::Litmus,
) -> Vec<(String, Option<usize>)> {
    use mapcheck::search::{self, TestVerdict};
    let axioms = ["Coherence", "Atomicity", "SC"].map(String::from);
    search::confirm(m, test, &axioms)
        .expect("confirm runs")
        .into_iter()
        .map(|(a, v)| match v {
            TestVerdict::Counterexample(c) => (a, Some(c.bound)),
            _ => (a, None),
        })
        .collect()
}

/// Issue 59's region program: one OpenCL work-item stores 1 to `x` and loads it. With `global`,
/// every event is in the `global` region, as in every program the search makes; without it, the
/// load alone is `global` (tagged on the instruction), and the store and the initial write are
/// in no region: a program the search never makes, where `opencl.cat` orders nothing before the
/// load by `sb` (`ghb` has `sb` only between `global` events), so the load may read only 0, while
/// the compiled PTX reads 1.
pub fn region_program(global: bool) -> mapcheck::Litmus {
    let region = if global { "global " } else { "" };
    let text = format!(
        "OPENCL region
{{ [x] = 0; }}
P0@wg 0, dev 0 ({region}int* x) {{
  *x = 1;
  int r0 = *x;
}}
exists (P0:r0 == 0)
"
    );
    let mut test = mapcheck::litmus::parse_str("region.litmus", &text).expect("parses");
    if !global {
        for instr in &mut test.threads[0].code {
            if let Instr::Load { tags, .. } = instr {
                tags.push(Tag::Global);
            }
        }
    }
    test
}
