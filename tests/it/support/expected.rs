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

/// A mapping's rows under one pair of readings at one bound: the mapping (relative to
/// `mappings/`), the source model's variant (`None`: its default reading; `cxx20`: C++20's
/// release sequences), the target model's (`None`: NVIDIA's reading of PTX; `dep-without-rmw`:
/// Dartagnan's), and its rows in file order, all of one bound.
pub struct Expected {
    pub map: String,
    pub source_variant: Option<String>,
    pub target_variant: Option<String>,
    pub rows: Vec<Row>,
}

impl Expected {
    /// The bound of its rows.
    pub fn bound(&self) -> usize {
        self.rows[0].1
    }

    /// Are `self` and `other` rows of one mapping under the same readings (at any bound)?
    pub fn same_readings(&self, other: &Expected) -> bool {
        self.map == other.map
            && self.source_variant == other.source_variant
            && self.target_variant == other.target_variant
    }

    /// The variants named, source first, each with its side (`source`, `target`).
    fn variants(&self) -> impl Iterator<Item = (&str, &'static str)> {
        [
            (&self.source_variant, "source"),
            (&self.target_variant, "target"),
        ]
        .into_iter()
        .filter_map(|(v, side)| v.as_deref().map(|v| (v, side)))
    }

    /// How a mapping's header names the readings: ``, ` with variant cxx20 of the source`,
    /// ` with variant dep-without-rmw of the target`, or both joined by `and`.
    pub fn reading_words(&self) -> String {
        let named: Vec<String> = self
            .variants()
            .map(|(v, side)| format!("variant {v} of the {side}"))
            .collect();
        match named.is_empty() {
            true => String::new(),
            false => format!(" with {}", named.join(" and ")),
        }
    }

    /// How `mappings/README.md` labels the readings: `None` for the defaults, else the variants
    /// named, source first, joined by ` + ` (`cxx20`, `dep-without-rmw`, `cxx20 + dep-without-rmw`).
    pub fn reading_label(&self) -> Option<String> {
        let named: Vec<&str> = self.variants().map(|(v, _)| v).collect();
        (!named.is_empty()).then(|| named.join(" + "))
    }

    /// The check the rows state, run once per test process (`natural_check`).
    pub fn check(&self) -> (Mapping, Arc<Report>) {
        natural_check(
            &self.map,
            self.source_variant.as_deref(),
            self.target_variant.as_deref(),
            self.bound(),
        )
    }
}

/// `-` is the default reading; anything else names a variant.
fn variant(column: &str) -> Option<String> {
    (column != "-").then(|| column.to_string())
}

/// The rows by mapping, readings and bound, in file order.
pub fn expected() -> Vec<Expected> {
    let text = std::fs::read_to_string("mappings/EXPECTED.tsv").unwrap();
    let mut out: Vec<Expected> = vec![];
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let cols: Vec<&str> = line.split('\t').collect();
        let [map, source, target, axiom, bound, verdict] = cols[..] else {
            panic!("EXPECTED.tsv: not six columns: {line:?}");
        };
        let next = Expected {
            map: map.to_string(),
            source_variant: variant(source),
            target_variant: variant(target),
            rows: vec![(
                axiom.to_string(),
                bound.parse().unwrap(),
                verdict.to_string(),
            )],
        };
        match out.last_mut() {
            Some(e) if e.same_readings(&next) && e.bound() == next.bound() => {
                e.rows.extend(next.rows)
            }
            _ => out.push(next),
        }
    }
    out
}

/// `mappings/<map>`, its source and target read with the variants given, and its full check
/// (`Options::natural(bound, CaDiCaL)`, every axiom), run by the first test that asks and shared
/// with every later one: the same search, the same answer.
pub fn natural_check(
    map: &str,
    source_variant: Option<&str>,
    target_variant: Option<&str>,
    bound: usize,
) -> (Mapping, Arc<Report>) {
    type Slot = Arc<OnceLock<Arc<Report>>>;
    type Key = (String, Option<String>, Option<String>, usize);
    static CHECKS: OnceLock<Mutex<HashMap<Key, Slot>>> = OnceLock::new();
    let source = source_variant.map(str::to_string);
    let target = target_variant.map(str::to_string);
    let slot = CHECKS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .entry((map.to_string(), source.clone(), target.clone(), bound))
        .or_default()
        .clone();
    let variants = mapping::Variants {
        source: source.into_iter().collect(),
        target: target.into_iter().collect(),
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
