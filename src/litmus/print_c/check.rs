//! The read-back check: the printed text parsed again and compared with the test, the tags
//! within one instruction compared as sets; a difference is reported instruction by instruction.
use crate::litmus::print::Msg;
use crate::litmus::program::{Instr, Litmus};

/// Parse `text` again and compare it with `test`, tags compared as sets.
pub(super) fn check(test: &Litmus, text: &str) -> Msg<()> {
    let again = crate::litmus::parse::parse_str(&test.name, text).map_err(|e| {
        format!(
            "internal error: the printed test does not parse ({}):\n{text}",
            e
        )
    })?;
    let (a, b) = (normalized(test), normalized(&again));
    if a == b {
        return Ok(());
    }
    Err(format!(
        "cannot be written in C so that it reads back the same: {}",
        difference(&a, &b)
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
