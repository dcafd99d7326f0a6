//! The read-back check: the printed text parsed again and compared with the test, the tags
//! within one instruction compared as sets; a difference is reported instruction by instruction.
//! Text that does not parse is the printer's bug: an internal error (exit 70), never bad input.
use crate::diag::{Error, Internal, Result};
use crate::litmus::program::{Instr, Litmus};

/// Parse `text` again and compare it with `test`, tags compared as sets. Printed text that does
/// not parse is a bug in the printer (an internal error); text that parses to another test says
/// that the test cannot be written in C (the test's error).
pub(super) fn check(test: &Litmus, text: &str) -> Result<()> {
    let again = crate::litmus::parse::parse_str(&test.name, text).map_err(|e| {
        Error::internal(
            test.name.clone(),
            Internal(format!("the printed test does not parse ({e}):\n{text}")),
        )
    })?;
    let (a, b) = (normalized(test), normalized(&again));
    if a == b {
        return Ok(());
    }
    Err(Error::file(
        test.name.clone(),
        format!(
            "cannot be written in C so that it reads back the same: {}",
            difference(&a, &b)
        ),
    ))
}

/// `test` with the tags of every instruction and location sorted.
fn normalized(test: &Litmus) -> Litmus {
    let mut t = test.clone();
    for (_, tags) in &mut t.loc_tags {
        tags.sort();
    }
    for instr in t.threads.iter_mut().flat_map(|t| &mut t.code) {
        match instr {
            Instr::Load { tags, .. }
            | Instr::Store { tags, .. }
            | Instr::Fence { tags }
            | Instr::Barrier { tags, .. } => tags.sort(),
            Instr::Rmw {
                tags, fail_tags, ..
            } => {
                tags.sort();
                if let Some(f) = fail_tags {
                    f.sort()
                }
            }
            Instr::Assign { .. } | Instr::Label(_) | Instr::Goto(_) | Instr::BranchIf { .. } => {}
        }
    }
    t
}

/// The first difference between the test and its reading, in words.
fn difference(a: &Litmus, b: &Litmus) -> String {
    if a.init_mem != b.init_mem || a.init_regs != b.init_regs {
        return "the initial state differs".into();
    }
    if a.loc_tags != b.loc_tags {
        return format!(
            "location tags {:?} read back as {:?}",
            a.loc_tags, b.loc_tags
        );
    }
    for (x, y) in a.threads.iter().zip(&b.threads) {
        if x.placement != y.placement {
            return format!("{} is placed differently", x.name);
        }
        for (i, (p, q)) in x.code.iter().zip(&y.code).enumerate() {
            if p != q {
                return format!("{}, instruction {i} `{p:?}` reads back as `{q:?}`", x.name);
            }
        }
        if x.code.len() != y.code.len() {
            return format!(
                "{} has {} instructions, which read back as {}",
                x.name,
                x.code.len(),
                y.code.len()
            );
        }
    }
    if a.condition != b.condition {
        return "the final condition differs".into();
    }
    "the thread list differs".into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Fault;

    fn test() -> Litmus {
        let text = "C t\n{ [x] = 0; }\nP0 (atomic_int* x) {\n  atomic_store_explicit(x, 1, memory_order_relaxed);\n}\nexists (x == 1)\n";
        crate::litmus::parse_str("t", text).expect("the test parses")
    }

    /// Printed text that does not parse is the printer's bug: exit 70, not 2.
    #[test]
    fn printed_text_that_does_not_parse_is_an_internal_error() {
        let e = check(&test(), "C t\n{ [x] = 0; }\nP0 (atomic_int* x) {\n").unwrap_err();
        assert_eq!(e.fault(), Fault::Internal, "{e}");
        assert_eq!(e.fault().exit_status(), 70);
        assert!(
            e.message
                .starts_with("internal error: the printed test does not parse"),
            "{e}"
        );
    }

    /// Text that parses to another test is the test's (it cannot be written in C).
    #[test]
    fn printed_text_that_reads_back_as_another_test_is_the_tests_error() {
        let other = "C t\n{ [x] = 0; }\nP0 (atomic_int* x) {\n  atomic_store_explicit(x, 2, memory_order_relaxed);\n}\nexists (x == 1)\n";
        let e = check(&test(), other).unwrap_err();
        assert_eq!(e.fault(), Fault::Input, "{e}");
        assert!(e.message.contains("reads back the same"), "{e}");
        check(&test(), &crate::litmus::print_c(&test()).unwrap())
            .expect("its own print reads back");
    }
}
