//! `mappings/EXPECTED.tsv`, the expected verdict of every mapping per source axiom, as the tests
//! read it; and the check of a shipped mapping at its natural bound, run once per test process
//! for every test that reads it (`natural_check`).
use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};

use mapcheck::encode::Backend;
use mapcheck::mapping::{self, Mapping};
use mapcheck::search::{self, Options, Report};

/// One row of the file: axiom, bound, verdict.
pub type Row = (String, usize, String);

/// The rows by mapping, in file order.
pub fn expected() -> Vec<(String, Vec<Row>)> {
    let text = std::fs::read_to_string("mappings/EXPECTED.tsv").unwrap();
    let mut out: Vec<(String, Vec<Row>)> = vec![];
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let cols: Vec<&str> = line.split('\t').collect();
        let [map, axiom, bound, verdict] = cols[..] else {
            panic!("EXPECTED.tsv: not four columns: {line:?}");
        };
        let row = (
            axiom.to_string(),
            bound.parse().unwrap(),
            verdict.to_string(),
        );
        match out.last_mut() {
            Some((m, rows)) if m == map => rows.push(row),
            _ => out.push((map.to_string(), vec![row])),
        }
    }
    out
}

/// `mappings/<map>` and its full check (`Options::natural(bound, CaDiCaL)`, every axiom), run by
/// the first test that asks and shared with every later one: the same search, the same answer.
pub fn natural_check(map: &str, bound: usize) -> (Mapping, Arc<Report>) {
    type Slot = Arc<OnceLock<Arc<Report>>>;
    static CHECKS: OnceLock<Mutex<HashMap<(String, usize), Slot>>> = OnceLock::new();
    let slot = CHECKS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .entry((map.to_string(), bound))
        .or_default()
        .clone();
    let m = mapping::load(&Path::new("mappings").join(map))
        .unwrap_or_else(|e| panic!("{map}: {}", e.message));
    let report = slot.get_or_init(|| {
        let opts = Options::natural(bound, Backend::Cadical);
        Arc::new(
            search::check(&m, &opts, &|_| {}).unwrap_or_else(|e| panic!("{map}: {}", e.message)),
        )
    });
    (m, report.clone())
}
