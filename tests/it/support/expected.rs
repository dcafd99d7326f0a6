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

/// A mapping's rows under one reading of its source at one bound: the mapping (relative to
/// `mappings/`), the source model's variant (`None`: its default reading; `cxx20`: C++20's
/// release sequences), and its rows in file order, all of one bound.
pub struct Expected {
    pub map: String,
    pub source_variant: Option<String>,
    pub rows: Vec<Row>,
}

impl Expected {
    /// The bound of its rows.
    pub fn bound(&self) -> usize {
        self.rows[0].1
    }

    /// How the documents name the reading: `` or ` with variant cxx20 of the source`.
    pub fn reading_words(&self) -> String {
        match &self.source_variant {
            None => String::new(),
            Some(v) => format!(" with variant {v} of the source"),
        }
    }

    /// The check the rows state, run once per test process (`natural_check`).
    pub fn check(&self) -> (Mapping, Arc<Report>) {
        natural_check(&self.map, self.source_variant.as_deref(), self.bound())
    }
}

/// The rows by mapping, source reading and bound, in file order.
pub fn expected() -> Vec<Expected> {
    let text = std::fs::read_to_string("mappings/EXPECTED.tsv").unwrap();
    let mut out: Vec<Expected> = vec![];
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let cols: Vec<&str> = line.split('\t').collect();
        let [map, reading, axiom, bound, verdict] = cols[..] else {
            panic!("EXPECTED.tsv: not five columns: {line:?}");
        };
        let source_variant = (reading != "-").then(|| reading.to_string());
        let row = (
            axiom.to_string(),
            bound.parse().unwrap(),
            verdict.to_string(),
        );
        match out.last_mut() {
            Some(e) if e.map == map && e.source_variant == source_variant && e.bound() == row.1 => {
                e.rows.push(row)
            }
            _ => out.push(Expected {
                map: map.to_string(),
                source_variant,
                rows: vec![row],
            }),
        }
    }
    out
}

/// `mappings/<map>`, its source read with `source_variant` when given, and its full check
/// (`Options::natural(bound, CaDiCaL)`, every axiom), run by the first test that asks and shared
/// with every later one: the same search, the same answer.
pub fn natural_check(
    map: &str,
    source_variant: Option<&str>,
    bound: usize,
) -> (Mapping, Arc<Report>) {
    type Slot = Arc<OnceLock<Arc<Report>>>;
    type Key = (String, Option<String>, usize);
    static CHECKS: OnceLock<Mutex<HashMap<Key, Slot>>> = OnceLock::new();
    let variant = source_variant.map(str::to_string);
    let slot = CHECKS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .entry((map.to_string(), variant.clone(), bound))
        .or_default()
        .clone();
    let variants = mapping::Variants {
        source: variant.into_iter().collect(),
        target: vec![],
    };
    let m = mapping::load_with(&Path::new("mappings").join(map), &variants)
        .unwrap_or_else(|e| panic!("{map}: {}", e.message));
    let report = slot.get_or_init(|| {
        let opts = Options::natural(bound, Backend::Cadical);
        Arc::new(
            search::check(&m, &opts, &|_| {}).unwrap_or_else(|e| panic!("{map}: {}", e.message)),
        )
    });
    (m, report.clone())
}
