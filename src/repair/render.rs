//! A repair's answer in words, for the terminal (`--json` prints the answer's own fields).
//!
//! Owns: `render_repair`, `render_weakening`. Uses: the answer types of this stage.
use std::fmt::Write as _;
use std::path::Path;

use super::{Change, Known, Refused, Repair, RepairVerdict, Weakening, Work};

/// `repair`'s answer; `written`: where the repaired mapping went.
pub fn render_repair(r: &Repair, written: Option<&Path>) -> String {
    let mut s = format!(
        "repair {} at bound {} (natural counting, every axiom; {} costs)\n",
        r.mapping, r.bound, r.costs
    );
    match r.verdict {
        RepairVerdict::AlreadySound => {
            let _ = writeln!(
                s,
                "the mapping has no counterexample up to bound {}: nothing to repair",
                r.bound
            );
        }
        RepairVerdict::Stopped => {
            let _ = writeln!(s, "stopped before an answer (nothing is claimed)");
        }
        RepairVerdict::NoneInSpace => {
            let _ = writeln!(
                s,
                "no mapping in the candidate space is sound up to bound {}",
                r.bound
            );
        }
        RepairVerdict::Repaired => {
            let _ = writeln!(
                s,
                "repaired: no counterexample up to bound {}; cost {} -> {} (+{}), the least in the candidate space",
                r.bound,
                r.input_cost,
                r.repaired_cost,
                r.repaired_cost.saturating_sub(r.input_cost)
            );
            s.push_str("changed rules:\n");
            for c in &r.changes {
                change_line(&mut s, c);
                let why = match c.kills.as_slice() {
                    [] => "needed only together with the other changes".to_string(),
                    ks => format!("without it {} breaks the mapping again", ks.join(", ")),
                };
                let _ = writeln!(s, "      why: {why}");
            }
            if !r.weaker.is_empty() {
                s.push_str("weaker alternatives, each refused:\n");
                refused_lines(&mut s, &r.weaker);
            }
            match r.ties.len() {
                0 => s.push_str("no other mapping of the same cost was found sound\n"),
                n => {
                    let _ = writeln!(
                        s,
                        "{n} other mapping(s) of the same cost, also sound up to bound {}:",
                        r.bound
                    );
                    for t in &r.ties {
                        let parts: Vec<String> = t
                            .iter()
                            .map(|c| format!("{} -> {}", c.class, c.to))
                            .collect();
                        let _ = writeln!(s, "  {}", parts.join("; "));
                    }
                }
            }
        }
    }
    if let Some(path) = written {
        let _ = writeln!(s, "repaired mapping written to {}", path.display());
    }
    counterexample_lines(&mut s, &r.counterexamples);
    work_line(&mut s, &r.work);
    s
}

/// `repair --weaken`'s answer.
pub fn render_weakening(w: &Weakening) -> String {
    let mut s = format!(
        "weaken {} at bound {} (natural counting, every axiom; {} costs)\n",
        w.mapping, w.bound, w.costs
    );
    if w.stopped {
        s.push_str("stopped: the weakenings below are those decided before it\n");
    }
    if !w.input_sound && !w.stopped {
        let _ = writeln!(s, "the mapping has a counterexample up to bound {}: repair it first (nothing was weakened)", w.bound);
    }
    if w.input_sound {
        match w.sound.len() {
            0 => {
                let _ = writeln!(
                    s,
                    "no rule can be made one step weaker and stay sound up to bound {}",
                    w.bound
                );
            }
            n => {
                let _ = writeln!(
                    s,
                    "{n} one-step weakening(s) stay sound up to bound {} (each on its own):",
                    w.bound
                );
                for c in &w.sound {
                    change_line(&mut s, c);
                }
            }
        }
        let _ = writeln!(s, "{} weakening(s) refused:", w.refused.len());
        refused_lines(&mut s, &w.refused);
        for n in &w.not_searched {
            let _ = writeln!(s, "not tried ({n})");
        }
    }
    counterexample_lines(&mut s, &w.counterexamples);
    work_line(&mut s, &w.work);
    s
}

fn change_line(s: &mut String, c: &Change) {
    let _ = writeln!(
        s,
        "  {:<12} {}  ->  {}   ({:+})",
        c.class, c.from, c.to, c.cost
    );
}

fn refused_lines(s: &mut String, refused: &[Refused]) {
    for r in refused {
        let _ = writeln!(
            s,
            "  {:<12} {:<40} refused by {}",
            r.class, r.rule, r.counterexample
        );
    }
}

fn counterexample_lines(s: &mut String, known: &[Known]) {
    if known.is_empty() {
        return;
    }
    let _ = writeln!(s, "counterexamples found ({}):", known.len());
    for k in known {
        let on = match k.found_on.as_slice() {
            [] => "the input".to_string(),
            rules => rules.join("; "),
        };
        let runner = if k.by_outcome {
            ""
        } else {
            "; not decided by outcome, so never used to refuse without a search"
        };
        let _ = writeln!(
            s,
            "  {}: {} at bound {}, classes {}, found on {on}{runner}",
            k.name,
            k.axiom,
            k.bound,
            k.classes.join(" ")
        );
        for line in k.source.lines() {
            let _ = writeln!(s, "      {line}");
        }
    }
}

fn work_line(s: &mut String, w: &Work) {
    let _ = writeln!(
        s,
        "work: {} full searches ({:.2} s), {} runner checks ({:.2} s), {} candidates; {:.2} s in all",
        w.full_searches, w.search_seconds, w.runner_checks, w.runner_seconds, w.candidates, w.seconds
    );
}
