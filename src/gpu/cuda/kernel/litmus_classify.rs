//! `litmus_classify`: per instance, its observed values, its histogram bin, and whether it shows
//! the counted outcome (the test's condition as predicate registers).
use super::*;

/// Per instance: its observed values, its bin, and whether it shows the counted outcome.
pub(super) fn classify_kernel(test: &Litmus, layout: &Layout, space: &Space) -> String {
    let params = ["mem", "results", "knobs", "regions", "offsets", "histogram"];
    let mut b = Body::new();
    b.pointers(&params);
    b.scratch();
    let n = space.targets.len();
    b.line(&format!(".reg .b32 %v<{n}>, %digit, %bin;"));
    let prop = counted(&test.condition);
    b.line(&format!(".reg .pred %c<{}>;", predicate_count(&prop)));
    b.global_id();
    b.return_past_instances();
    let regs = space.registers();
    for (k, target) in space.targets.iter().enumerate() {
        match target {
            Target::Reg { .. } => {
                b.line(&format!("// {}", space.names[k]));
                b.load_result(&format!("%v{k}"), regs, k);
            }
            Target::Mem(l) => {
                let loc = layout.location_index(l).expect("layout has every location");
                b.line(&format!("mov.u32 %y, {loc}; // {l}"));
                b.location(layout, "%instance", "%y");
                b.line(&format!("ld.relaxed.gpu.global.u32 %v{k}, [%ptr];"));
            }
        }
    }
    bin(&mut b, space);
    let mut next = 0;
    let counted_pred = predicate(&mut b, space, &prop, &mut next);
    b.line(&format!(
        "@{counted_pred} red.global.add.u32 [%histogram+{}], 1;",
        4 * (space.bins() + 1)
    ));
    b.kernel(CLASSIFY_KERNEL, &params, &[])
}

/// `%bin` (mixed radix over the domains, the first target least significant; `bins()` outside)
/// and its count.
fn bin(b: &mut Body, space: &Space) {
    b.line("mov.u32 %bin, 0;");
    for (k, domain) in space.domains.iter().enumerate().rev() {
        b.line(&format!("mov.u32 %digit, {};", domain.len()));
        for (i, v) in domain.iter().enumerate() {
            b.line(&format!("setp.eq.s32 %p, %v{k}, {v};"));
            b.line(&format!("@%p mov.u32 %digit, {i};"));
        }
        b.line(&format!("setp.eq.u32 %p, %digit, {};", domain.len()));
        b.line("@%p bra $outside;");
        b.line(&format!("mad.lo.u32 %bin, %bin, {}, %digit;", domain.len()));
    }
    b.line("bra.uni $count;");
    b.label("$outside");
    b.line(&format!("mov.u32 %bin, {};", space.bins()));
    b.label("$count");
    b.count("histogram", "%bin");
}

/// A predicate register holding `p` over the `%v` values; `next` numbers the `%c` registers.
fn predicate(b: &mut Body, space: &Space, p: &Prop, next: &mut usize) -> String {
    let var = |t: &Target| {
        let k = space
            .index_of(t)
            .expect("the space observes every target of the condition");
        format!("%v{k}")
    };
    let mut node = |b: &mut Body, text: &dyn Fn(&str) -> String| {
        let c = format!("%c{next}");
        *next += 1;
        b.line(&text(&c));
        c
    };
    match p {
        Prop::True => node(b, &|c| format!("setp.eq.u32 {c}, %x, %x;")),
        Prop::False => node(b, &|c| format!("setp.ne.u32 {c}, %x, %x;")),
        Prop::Eq(t, v) => node(b, &|c| format!("setp.eq.s32 {c}, {}, {v};", var(t))),
        Prop::EqTargets(x, y) => node(b, &|c| format!("setp.eq.s32 {c}, {}, {};", var(x), var(y))),
        Prop::Not(a) => {
            let a = predicate(b, space, a, next);
            let c = format!("%c{next}");
            *next += 1;
            b.line(&format!("not.pred {c}, {a};"));
            c
        }
        Prop::And(x, y) | Prop::Or(x, y) | Prop::Implies(x, y) => {
            let x = predicate(b, space, x, next);
            let y = predicate(b, space, y, next);
            let c = format!("%c{next}");
            *next += 1;
            match p {
                Prop::And(..) => b.line(&format!("and.pred {c}, {x}, {y};")),
                Prop::Or(..) => b.line(&format!("or.pred {c}, {x}, {y};")),
                _ => {
                    b.line(&format!("not.pred {c}, {x};"));
                    b.line(&format!("or.pred {c}, {c}, {y};"));
                }
            }
            c
        }
    }
}

/// Predicate registers `predicate` uses for `p`: one per node.
fn predicate_count(p: &Prop) -> usize {
    1 + match p {
        Prop::Not(a) => predicate_count(a),
        Prop::And(x, y) | Prop::Or(x, y) | Prop::Implies(x, y) => {
            predicate_count(x) + predicate_count(y)
        }
        _ => 0,
    }
}
