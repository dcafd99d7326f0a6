//! Helpers the test modules share, compiled once.
pub mod cli;
pub mod coq;
pub mod encode;
pub mod expected;
pub mod litmus;
pub mod random;
pub mod search_space;
pub mod tools;

/// The names of `model`'s axioms (its checks that are not flags), in file order: what a mapping
/// check of a source model checks.
pub fn axioms(model: &mapcheck::ir::Model) -> Vec<String> {
    let checks = model.checks.iter().filter(|c| !c.flag);
    checks.map(|c| c.name.clone()).collect()
}
