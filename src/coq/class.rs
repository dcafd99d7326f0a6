//! A given test held to `searched`, the class of programs the search considers: each condition
//! of the exported statement that the test's program breaks, with the events it names.
//! `check --test` refuses a test outside the class with it (no counterexample verdict, no
//! refutation: the claims quantify over `searched` programs only).
//!
//! The judge is the one `tests/it/coq_searched_equivalence.rs` holds to the search's class: the
//! conditions' boolean texts, exactly as `searched_on_b` conjoins them, evaluated by
//! `coq::judge` on the program `Program::of_test` builds (the one a refutation states).
//!
//! Owns: `SearchedClass`, `Breach`, `hold_to_class` (the diagnostic). Uses: `coq::mapping` (the
//! conditions), `coq::judge`, `coq::program`, `eval` (`wf.cat`), `search` (event keys), `litmus`
//! (where the events were written).
use super::judge::{Input, Statement, Statements, MAX_EVENTS};
use super::program::Program;
use crate::diag;
use crate::eval;
use crate::ir::Model;
use crate::litmus::{first_events, Litmus, Positions};
use crate::mapping::Mapping;
use crate::search::EventKey;

/// The conditions of one mapping's `searched`, compiled.
pub struct SearchedClass {
    conditions: Vec<(String, Statement)>,
    wf: Model,
}

/// A condition of `searched` that a test breaks.
#[derive(Clone, Debug)]
pub struct Breach {
    /// The condition, as the statement's comment gives it.
    pub why: String,
    /// The events it names (of a set that must be empty, or of the pairs of a relation that
    /// must be), as keys of the test; empty when it names none.
    pub events: Vec<EventKey>,
}

impl SearchedClass {
    /// `searched` of `mapping`, its conditions compiled.
    pub fn new(mapping: &Mapping) -> diag::Result<SearchedClass> {
        super::statements_cover(mapping)?;
        let wf = super::wf_model()?;
        let (definitions, conditions) = super::with_names(mapping, &wf, |models| {
            super::mapping::searched_class(mapping, models)
        });
        let statements = Statements::read(&definitions);
        let conditions = conditions
            .into_iter()
            .map(|c| {
                let compiled = statements.compile_body(&c.boolean);
                (c.why, compiled)
            })
            .collect();
        Ok(SearchedClass { conditions, wf })
    }

    /// Whether `p` is `searched`.
    pub fn admits(&self, p: &Program) -> bool {
        let input = self.input(p);
        self.conditions.iter().all(|(_, c)| c.decide(&input))
    }

    /// The conditions `test` (a source test of the mapping) breaks, in the statement's order;
    /// empty when it is in the class.
    pub fn breaches(&self, mapping: &Mapping, test: &Litmus) -> diag::Result<Vec<Breach>> {
        let (program, keys) = Program::of_test_keyed(&mapping.source, test)?;
        if keys.len() > MAX_EVENTS {
            return Err(diag::Error::file(
                &test.name,
                format!(
                    "the test has {} events (initial writes included); the searched class is decided for at most {MAX_EVENTS}",
                    keys.len()
                ),
            ));
        }
        let input = self.input(&program);
        Ok(self
            .conditions
            .iter()
            .filter(|(_, c)| !c.decide(&input))
            .map(|(why, c)| Breach {
                why: why.clone(),
                events: c
                    .witnesses(&input)
                    .iter()
                    .map(|&e| keys[e].clone())
                    .collect(),
            })
            .collect())
    }

    fn input<'a>(&self, p: &'a Program) -> Input<'a> {
        Input {
            base: &p.skeleton,
            gread: &p.gread,
            gwrite: &p.gwrite,
            wf_consistent: eval::evaluate(&self.wf, &p.skeleton).failed.is_empty(),
        }
    }
}

/// `Ok` when `test` is in `mapping`'s searched class; else an error (bad input, exit status 2)
/// naming the first condition it breaks at the first instruction that condition names, with
/// every other event and condition in notes.
pub fn hold_to_class(mapping: &Mapping, test: &Litmus, positions: &Positions) -> diag::Result<()> {
    let class = SearchedClass::new(mapping)?;
    let breaches = class.breaches(mapping, test)?;
    let Some(first) = breaches.first() else {
        return Ok(());
    };
    let message = format!(
        "not in the searched class of {}: {}",
        mapping.path, first.why
    );
    let first_instruction = first
        .events
        .iter()
        .find_map(|key| instruction_of(test, key));
    let mut error = match first_instruction {
        Some((t, i)) => positions.error_at(t, i, &message),
        None => positions.error(&message),
    };
    for key in first.events.iter() {
        error = error.with_note(format!(
            "the condition names {}",
            event_place(test, positions, key)
        ));
    }
    for other in &breaches[1..] {
        error = error.with_note(format!("also not in the class: {}", other.why));
    }
    Err(error.with_note(
        "the search never considers this program, and the Coq claims quantify over the programs it considers: it gets no counterexample verdict and no refutation",
    ))
}

/// `(thread, instruction)` of a thread event of `test`; `None` for an initial write.
fn instruction_of(test: &Litmus, key: &EventKey) -> Option<(usize, usize)> {
    let &EventKey::Event(t, k) = key else {
        return None;
    };
    let code = &test.threads[t].code;
    let first = first_events(code);
    (0..code.len())
        .find(|&i| first[i] <= k && k < first[i] + code[i].event_count())
        .map(|i| (t, i))
}

/// An event as a reader finds it: the initial write of a location, or a thread's event at the
/// place its instruction was written.
fn event_place(test: &Litmus, positions: &Positions, key: &EventKey) -> String {
    match (key, instruction_of(test, key)) {
        (EventKey::Init(loc), _) => format!("the initial write of `{loc}`"),
        (EventKey::Event(t, _), Some((_, i))) => {
            let thread = &test.threads[*t].name;
            match positions.place(*t, i) {
                Some(place) => format!("{thread}'s event at {place}"),
                None => format!("{thread}'s event of instruction {i}"),
            }
        }
        (EventKey::Event(t, k), None) => format!("event {k} of thread {t}"),
    }
}
