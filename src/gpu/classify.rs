//! The on-device classification of one test instance, as C that is both OpenCL C and CUDA C:
//! the counted outcome (`outcome::counted`) as a C expression, and the instance's histogram bin
//! (`Space::bin_of`) as C statements.
//!
//! Convention: the instance's observed values are in `int` variables `v0`, `v1`, … in the order
//! of `Space::targets` (`value_var`); the statements declare `uint bin` (`BINS`, a macro the
//! kernel defines as `Space::bins()`, for a state outside the domains) and `int counted`.
use std::fmt::Write as _;

use super::outcome::{counted, Space};
use crate::litmus::{Condition, Prop, Target};

/// The C variable holding the value of target number `i`.
pub(crate) fn value_var(i: usize) -> String {
    format!("v{i}")
}

/// C statements that set `uint bin` and `int counted` from the `v` variables.
pub(crate) fn classify_statements(space: &Space, condition: &Condition) -> String {
    let mut s = String::new();
    let mut weight = 1usize;
    let mut terms = vec![];
    for (i, domain) in space.domains.iter().enumerate() {
        let v = value_var(i);
        let lookup: String = domain
            .iter()
            .enumerate()
            .map(|(k, x)| format!("{v} == {x} ? {k} : "))
            .collect();
        let _ = writeln!(s, "int d{i} = {lookup}-1;");
        terms.push(format!("d{i} * {weight}"));
        weight *= domain.len();
    }
    let outside: Vec<String> = (0..space.domains.len())
        .map(|i| format!("d{i} < 0"))
        .collect();
    let _ = writeln!(
        s,
        "uint bin = ({}) ? BINS : (uint)({});",
        joined(&outside, " || "),
        joined(&terms, " + ")
    );
    let _ = writeln!(s, "int counted = {};", prop_c(space, &counted(condition)));
    s
}

/// The parts joined with `sep`, or `0` if there are none.
fn joined(parts: &[String], sep: &str) -> String {
    if parts.is_empty() {
        "0".to_string()
    } else {
        parts.join(sep)
    }
}

/// A proposition over the `v` variables.
fn prop_c(space: &Space, p: &Prop) -> String {
    let var = |t: &Target| {
        let i = space
            .index_of(t)
            .expect("the space observes every target of the condition");
        value_var(i)
    };
    let bin =
        |a: &Prop, op: &str, b: &Prop| format!("({} {op} {})", prop_c(space, a), prop_c(space, b));
    match p {
        Prop::True => "1".into(),
        Prop::False => "0".into(),
        Prop::Eq(t, v) => format!("({} == {v})", var(t)),
        Prop::EqTargets(a, b) => format!("({} == {})", var(a), var(b)),
        Prop::Not(a) => format!("(!{})", prop_c(space, a)),
        Prop::And(a, b) => bin(a, "&&", b),
        Prop::Or(a, b) => bin(a, "||", b),
        Prop::Implies(a, b) => format!("((!{}) || {})", prop_c(space, a), prop_c(space, b)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::litmus::parse_str;

    #[test]
    fn store_buffering_classifies_by_mixed_radix() {
        let test = parse_str("sb.litmus", crate::gpu::outcome::tests::SB).unwrap();
        let space = Space::of(&test).unwrap();
        let c = classify_statements(&space, &test.condition);
        assert!(
            c.contains("int d0 = v0 == 0 ? 0 : v0 == 1 ? 1 : -1;"),
            "{c}"
        );
        assert!(
            c.contains("uint bin = (d0 < 0 || d1 < 0 || d2 < 0 || d3 < 0) ? BINS : (uint)(d0 * 1 + d1 * 2 + d2 * 4 + d3 * 4);"),
            "{c}"
        );
        assert!(c.contains("int counted = ((v0 == 0) && (v1 == 0));"), "{c}");
    }
}
