//! The Vulkan front end: tests in the syntax of the Khronos Vulkan memory-model litmus tests as
//! Dat3M writes them — title `Vulkan`, an initial state (`y aliases x;` declares a second
//! reference to `x`'s location), an optional `{ ssw 0 1; }` block of system-synchronizes-with
//! declarations, a thread table with headers `P0@sg 0, wg 0, qf 0`, and herd's final clauses
//! (`filter` among them).
//!
//! Tags, by instruction (S a scope, C a storage class, M the `.semscN` semantics classes):
//!   ld.atom{.acq}.S.C{.M}{.semvis}        → [ATOM, NONPRIV, VIS, S, C] + ACQ, M, SEMVIS
//!   st.atom{.rel}.S.C{.M}{.semav}         → [ATOM, NONPRIV, AV, S, C] + REL, M, SEMAV
//!   rmw.atom{.acq|.rel|.acq_rel}.S.C{.M}{.semav}{.semvis}{.add|.sub|.and|.or|.xor}
//!                                         → [ATOM, NONPRIV, AV, VIS, S, C] + …; no operation:
//!                                           an exchange
//!   ld.C / ld.nonpriv.C / ld.vis.S.C      → [C] / [NONPRIV, C] / [NONPRIV, VIS, S, C]
//!   st.C / st.nonpriv.C / st.av.S.C       → [C] / [NONPRIV, C] / [NONPRIV, AV, S, C]
//!   membar.acq|rel|acq_rel.S{.M}{.semav}{.semvis} → a fence with those tags
//!   cbar{.acq|.rel|.acq_rel}.S{.M}{.semav}{.semvis} b | i, b, n
//!                                         → a barrier of the work-group (b its id, n the
//!                                           threads that must arrive), with those tags; without
//!                                           an order it is an execution barrier only
//!   avdevice / visdevice                  → a fence tagged [AVDEVICE] / [VISDEVICE]
//!   add r, v, v (sub, mul, and, or, xor)  → a register assignment
//! The semantics flags (`.M`, `.semav`, `.semvis`) need an order; an acquire reads, a release
//! writes. Placement: `sg` is the subgroup, `wg` the work-group (`Placement::cta`), `qf` the
//! queue family (`Placement::gpu`).
//!
//! Owns: the Vulkan qualifier rules and the `ssw` block. Uses `table` (thread table), `cond`
//! (initial state, clauses), `ptx` (alias declarations), `ptx_instr` (barrier operands),
//! `isa::vulkan` (words) and `labels`.

use crate::diag::Result;
use crate::isa::vulkan::{FLAGS, ORDERS, SCOPES, SEMANTICS_CLASSES, STORAGE_CLASSES};
use crate::isa::{self, Words};
use crate::litmus::ast::{InitItem, Span, Spanned};
use crate::litmus::cond;
use crate::litmus::grammars;
use crate::litmus::program::{Arch, BinOp, Cond, Expr, Instr, Litmus, RmwOp, Tags, Thread};
use crate::litmus::ptx;
use crate::litmus::ptx_ast::{Cell, Header, Qual};
use crate::litmus::ptx_instr::barrier_operands;
use crate::litmus::source::{matching_brace, parse_error, Layout, Source, TokenNames};
use crate::litmus::table;
use crate::litmus::vulkan_ast::VulkanInstr;
use crate::vocab::Tag;

/// Names of the Vulkan grammar's regex terminals, for "expected …" messages.
const NAMES: TokenNames = &[
    ("REG", "a register (`r0`)"),
    ("INT", "an integer"),
    ("IDENT", "a name"),
];

/// The operations of `rmw.…​.op`; an `rmw` without one is an exchange.
const RMW_OPERATIONS: &[(&str, BinOp)] = &[
    ("add", BinOp::Add),
    ("sub", BinOp::Sub),
    ("and", BinOp::And),
    ("or", BinOp::Or),
    ("xor", BinOp::Xor),
];

/// Parse a Vulkan test whose title is `name` and whose regions are `layout`.
pub(crate) fn parse(src: &Source, name: String, layout: &Layout) -> Result<Litmus> {
    let items = cond::parse_init_with_aliases(src, layout.init)?;
    let items = items
        .into_iter()
        .map(|item| alias_declaration(src, item))
        .collect::<Result<Vec<_>>>()?;
    let (init_items, aliases) = ptx::aliases(src, items)?;
    let (ssw_block, body) = ssw_block(src, layout.body)?;
    let example = "P0@sg 0, wg 0, qf 0 | … ;";
    let (headers, columns) = table::columns(src, body, example, &|cell| cell_at(src, cell))?;
    let names: Vec<String> = headers.iter().map(|h| h.name.node.clone()).collect();
    let threads = (headers.iter().zip(&columns))
        .map(|(header, column)| thread(src, header, column))
        .collect::<Result<Vec<_>>>()?;
    let ssw = match ssw_block {
        Some(block) => ssw_pairs(src, block, &names)?,
        None => vec![],
    };
    let (init, clauses) =
        cond::init_and_clauses(src, init_items, layout.condition, &names, &threads)?;
    let cond::Clauses {
        condition,
        locations,
        filter,
    } = clauses;
    Ok(Litmus {
        arch: Arch::Vulkan,
        name,
        init_mem: init.mem,
        init_regs: init.regs,
        loc_tags: vec![],
        ssw,
        aliases,
        threads,
        condition,
        locations,
        filter,
    })
}

/// `y aliases x` (which the initial-state grammar reads as a declaration of `x` with the words
/// `y aliases` before it) as the alias declaration it is: `y` a second reference to `x`'s
/// location.
fn alias_declaration(src: &Source, item: InitItem) -> Result<InitItem> {
    let InitItem::Loc { name, types, .. } = &item else {
        return Ok(item);
    };
    match types.as_slice() {
        [] => Ok(item),
        [alias, keyword] if keyword.node == "aliases" => Ok(InitItem::Alias {
            name: alias.clone(),
            proxy: Spanned {
                node: "generic".to_string(),
                span: keyword.span,
            },
            keyword: keyword.clone(),
            target: name.clone(),
        }),
        [first, ..] => Err(src.error(
            first.span,
            "expected `x = 0` or `y aliases x` in a Vulkan initial state",
        )),
    }
}

/// Split the body into the optional `{ ssw … }` block before the table and the table.
fn ssw_block(src: &Source, body: Span) -> Result<(Option<Span>, Span)> {
    let text = src.slice(body);
    let start = body.lo + (text.len() - text.trim_start().len());
    if !src.masked[start..].starts_with('{') {
        return Ok((None, body));
    }
    let end = matching_brace(src, start)?;
    Ok((Some(Span::new(start + 1, end - 1)), Span::new(end, body.hi)))
}

/// The `ssw A B;` declarations of the block: thread `PA` system-synchronizes-with thread `PB`.
fn ssw_pairs(src: &Source, block: Span, threads: &[String]) -> Result<Vec<(usize, usize)>> {
    let mut pairs = vec![];
    let mut start = block.lo;
    for piece in src.slice(block).split(';') {
        let span = src.trim(Span::new(start, start + piece.len()));
        start += piece.len() + 1;
        let words: Vec<&str> = src.slice(span).split_whitespace().collect();
        match words.as_slice() {
            [] => {}
            ["ssw", a, b] => pairs.push((
                ssw_thread(src, span, a, threads)?,
                ssw_thread(src, span, b, threads)?,
            )),
            _ => return Err(src.error(span, "expected `ssw A B` (two thread numbers)")),
        }
    }
    Ok(pairs)
}

/// The index of the thread an `ssw` declaration names by number (`0` for `P0`).
fn ssw_thread(src: &Source, at: Span, word: &str, threads: &[String]) -> Result<usize> {
    let name = format!("P{word}");
    threads.iter().position(|t| *t == name).ok_or_else(|| {
        src.error(
            at,
            format!("`ssw` names thread {word}, but the test has no thread `{name}`"),
        )
    })
}

/// Parse one instruction cell.
fn cell_at(src: &Source, cell: Span) -> Result<Cell<VulkanInstr>> {
    grammars::vulkan_cell()
        .parse(cell.lo, src.slice(cell))
        .map_err(|e| parse_error(src, cell.lo, "Vulkan instruction", NAMES, e))
}

fn thread(src: &Source, header: &Header, column: &[(Cell<VulkanInstr>, Span)]) -> Result<Thread> {
    let lower = |i: &VulkanInstr, span: Span| lower(src, i, span);
    let code = table::lower_column(src, header, column, VulkanInstr::jump_target, &lower)?;
    Ok(Thread {
        name: header.name.node.clone(),
        placement: table::placement(
            src,
            &header.placement,
            &isa::vulkan::PLACEMENT,
            "a Vulkan",
            "",
        )?,
        code,
        unsequenced: vec![],
    })
}

/// An instruction's qualifiers, sorted by the table they come from.
#[derive(Default)]
struct Quals {
    order: Option<Spanned<Tag>>,
    scope: Option<Spanned<Tag>>,
    class: Option<Spanned<Tag>>,
    semantics: Vec<Spanned<Tag>>,
    flags: Vec<Spanned<Tag>>,
    operation: Option<Spanned<BinOp>>,
}

impl Quals {
    fn has(&self, flag: Tag) -> bool {
        self.flags.iter().any(|f| f.node == flag)
    }

    /// The tags of the order, the semantics classes and the semantics flags, after `base`.
    fn tags(&self, base: &[Tag]) -> Tags {
        let mut tags = base.to_vec();
        tags.extend(self.order.as_ref().map(|o| o.node));
        tags.extend(self.semantics.iter().map(|s| s.node));
        let semantics_flags =
            (self.flags.iter()).filter(|f| matches!(f.node, Tag::Semav | Tag::Semvis));
        tags.extend(semantics_flags.map(|f| f.node));
        tags
    }
}

/// Sort qualifiers into their tables; a word no table has, or a second order, scope or storage
/// class, is an error (an operation only where `operations` allows one).
fn classify(src: &Source, mnemonic: &str, quals: &[Qual], operations: bool) -> Result<Quals> {
    let mut q = Quals::default();
    for qual in quals {
        let word = qual.node.as_str();
        let at = |tag: Tag| Spanned {
            node: tag,
            span: qual.span,
        };
        let once = |given: &[Spanned<Tag>], tag: Tag| match given.iter().any(|g| g.node == tag) {
            true => Err(src.error(qual.span, format!("`.{word}` is given twice"))),
            false => Ok(()),
        };
        let single = |slot: &mut Option<Spanned<Tag>>, tag: Tag, what: &str| {
            if slot.is_some() {
                return Err(src.error(qual.span, format!("`{mnemonic}` takes one {what}")));
            }
            *slot = Some(at(tag));
            Ok(())
        };
        if let Some(t) = ORDERS.tag(word) {
            single(&mut q.order, t, "memory order")?;
        } else if let Some(t) = SCOPES.tag(word) {
            single(&mut q.scope, t, "scope")?;
        } else if let Some(t) = STORAGE_CLASSES.tag(word) {
            single(&mut q.class, t, "storage class")?;
        } else if let Some(t) = SEMANTICS_CLASSES.tag(word) {
            once(&q.semantics, t)?;
            q.semantics.push(at(t));
        } else if let Some(t) = FLAGS.tag(word) {
            once(&q.flags, t)?;
            q.flags.push(at(t));
        } else if let Some(&(_, op)) = RMW_OPERATIONS.iter().find(|(w, _)| *w == word) {
            if !operations || q.operation.is_some() {
                return Err(src.error(qual.span, format!("`{mnemonic}` takes no `.{word}` here")));
            }
            q.operation = Some(Spanned {
                node: op,
                span: qual.span,
            });
        } else {
            return Err(src.error(
                qual.span,
                format!(
                    "unknown qualifier `.{word}` of `{mnemonic}`; expected {}",
                    known_words()
                ),
            ));
        }
    }
    Ok(q)
}

/// Every qualifier word, for the message about an unknown one.
fn known_words() -> String {
    let tables: [&Words; 5] = [
        &ORDERS,
        &SCOPES,
        &STORAGE_CLASSES,
        &SEMANTICS_CLASSES,
        &FLAGS,
    ];
    let words = tables.iter().flat_map(|t| t.0.iter().map(|(w, _)| *w));
    let ops = RMW_OPERATIONS.iter().map(|(w, _)| *w);
    let all: Vec<String> = words.chain(ops).map(|w| format!("`.{w}`")).collect();
    all.join(", ")
}

/// What an access allows beyond its scope and storage class.
struct AccessRule {
    mnemonic: &'static str,
    /// The order an atomic of this kind may take (`acq` for loads, `rel` for stores; `None`:
    /// any, for `rmw`).
    order: Option<Tag>,
    /// The per-instruction operation a non-atomic access may carry (`vis` / `av`), and the flags
    /// every atomic of this kind gets.
    own: &'static [Tag],
}

const LOAD: AccessRule = AccessRule {
    mnemonic: "ld",
    order: Some(Tag::Acq),
    own: &[Tag::Vis],
};

const STORE: AccessRule = AccessRule {
    mnemonic: "st",
    order: Some(Tag::Rel),
    own: &[Tag::Av],
};

const RMW: AccessRule = AccessRule {
    mnemonic: "rmw",
    order: None,
    own: &[Tag::Av, Tag::Vis],
};

/// The tags of a memory access under `rule`.
fn access_tags(src: &Source, rule: &AccessRule, q: &Quals, span: Span) -> Result<Tags> {
    let m = rule.mnemonic;
    let class = q
        .class
        .as_ref()
        .ok_or_else(|| {
            src.error(
                span,
                format!("`{m}` needs a storage class (`.sc0` … `.sc3`)"),
            )
        })?
        .node;
    if !q.has(Tag::Atom) {
        return plain_access_tags(src, rule, q, class, span);
    }
    let scope = q.scope.as_ref().ok_or_else(|| {
        src.error(
            span,
            format!("an atomic `{m}` needs a scope (`.sg` … `.dv`)"),
        )
    })?;
    if let Some(o) = q
        .order
        .as_ref()
        .filter(|o| rule.order.is_some_and(|r| r != o.node))
    {
        let msg = format!("an atomic `{m}` takes no `.{}`", ORDERS.spelling(o.node));
        return Err(src.error(o.span, msg));
    }
    semantics_need_order(src, m, q)?;
    if let Some(f) = (q.flags.iter()).find(|f| matches!(f.node, Tag::Nonpriv | Tag::Av | Tag::Vis))
    {
        let msg = format!("`.{}` is implied by `.atom`", FLAGS.spelling(f.node));
        return Err(src.error(f.span, msg));
    }
    let mut base = vec![Tag::Atom, Tag::Nonpriv];
    base.extend(rule.own);
    base.extend([scope.node, class]);
    Ok(q.tags(&base))
}

/// The tags of a non-atomic access: private, `.nonpriv`, or with its own availability /
/// visibility operation at a scope (`st.av.S`, `ld.vis.S`).
fn plain_access_tags(
    src: &Source,
    rule: &AccessRule,
    q: &Quals,
    class: Tag,
    span: Span,
) -> Result<Tags> {
    let m = rule.mnemonic;
    if rule.order.is_none() {
        return Err(src.error(span, format!("`{m}` is atomic: write `{m}.atom`")));
    }
    let extra = q.order.iter().chain(&q.semantics).next();
    let extra = extra.or(q
        .flags
        .iter()
        .find(|f| !(f.node == Tag::Nonpriv || rule.own.contains(&f.node))));
    if let Some(x) = extra {
        let msg = format!("a non-atomic `{m}` takes no memory semantics; write `{m}.atom`");
        return Err(src.error(x.span, msg));
    }
    let own = q.flags.iter().find(|f| rule.own.contains(&f.node));
    match (own, &q.scope) {
        (Some(own), Some(scope)) => Ok(vec![Tag::Nonpriv, own.node, scope.node, class]),
        (Some(own), None) => {
            let word = FLAGS.spelling(own.node);
            Err(src.error(own.span, format!("`.{word}` needs a scope (`.sg` … `.dv`)")))
        }
        (None, Some(scope)) => {
            let msg = format!(
                "a non-atomic `{m}` has a scope only with its availability or visibility operation"
            );
            Err(src.error(scope.span, msg))
        }
        (None, None) if q.has(Tag::Nonpriv) => Ok(vec![Tag::Nonpriv, class]),
        (None, None) => Ok(vec![class]),
    }
}

/// Storage-class semantics and `.semav` / `.semvis` belong to an acquire or a release.
fn semantics_need_order(src: &Source, mnemonic: &str, q: &Quals) -> Result<()> {
    let semantics_flags = q
        .flags
        .iter()
        .filter(|f| matches!(f.node, Tag::Semav | Tag::Semvis));
    match q.semantics.iter().chain(semantics_flags).next() {
        Some(s) if q.order.is_none() => {
            let msg = format!(
                "memory semantics need an order: write `{mnemonic}.acq`, `.rel` or `.acq_rel`"
            );
            Err(src.error(s.span, msg))
        }
        _ => Ok(()),
    }
}

/// The tags of a `membar` or a `cbar`: an order (optional for `cbar`), a scope, semantics.
fn barrier_tags(src: &Source, mnemonic: &str, q: &Quals, span: Span) -> Result<Tags> {
    let scope = q
        .scope
        .as_ref()
        .ok_or_else(|| src.error(span, format!("`{mnemonic}` needs a scope (`.sg` … `.dv`)")))?;
    let access_word = q.class.iter().chain(
        q.flags
            .iter()
            .filter(|f| !matches!(f.node, Tag::Semav | Tag::Semvis)),
    );
    if let Some(x) = access_word.into_iter().next() {
        let msg = format!(
            "`{mnemonic}` accesses no memory; it takes no `.{}`",
            src.slice(x.span)
        );
        return Err(src.error(x.span, msg));
    }
    semantics_need_order(src, mnemonic, q)?;
    Ok(q.tags(&[scope.node]))
}

/// Lower one instruction (spanning `span`).
fn lower(src: &Source, instr: &VulkanInstr, span: Span) -> Result<Instr> {
    match instr {
        VulkanInstr::Ld { quals, dst, loc } => {
            let q = classify(src, "ld", quals, false)?;
            Ok(Instr::Load {
                dst: dst.node.clone(),
                loc: loc.node.clone(),
                tags: access_tags(src, &LOAD, &q, span)?,
            })
        }
        VulkanInstr::St { quals, loc, value } => {
            let q = classify(src, "st", quals, false)?;
            Ok(Instr::Store {
                loc: loc.node.clone(),
                value: value.expr(),
                tags: access_tags(src, &STORE, &q, span)?,
            })
        }
        VulkanInstr::Rmw {
            quals,
            dst,
            loc,
            value,
        } => {
            let q = classify(src, "rmw", quals, true)?;
            let op = match &q.operation {
                Some(op) => RmwOp::Arith(op.node, value.expr()),
                None => RmwOp::Exch(value.expr()),
            };
            Ok(Instr::Rmw {
                dst: Some(dst.node.clone()),
                loc: loc.node.clone(),
                op,
                tags: access_tags(src, &RMW, &q, span)?,
                fail_tags: None,
            })
        }
        VulkanInstr::Membar { quals } => {
            let q = classify(src, "membar", quals, false)?;
            if q.order.is_none() {
                return Err(src.error(
                    span,
                    "`membar` needs an order (`.acq`, `.rel` or `.acq_rel`)",
                ));
            }
            Ok(Instr::Fence {
                tags: barrier_tags(src, "membar", &q, span)?,
            })
        }
        VulkanInstr::Cbar { quals, operands } => {
            let q = classify(src, "cbar", quals, false)?;
            let (id, count) = barrier_operands(src, "cbar", operands, span)?;
            Ok(Instr::Barrier {
                id,
                count,
                tags: barrier_tags(src, "cbar", &q, span)?,
            })
        }
        VulkanInstr::AvDevice => Ok(Instr::Fence {
            tags: vec![Tag::Avdevice],
        }),
        VulkanInstr::VisDevice => Ok(Instr::Fence {
            tags: vec![Tag::Visdevice],
        }),
        VulkanInstr::Arith { op, dst, lhs, rhs } => Ok(Instr::Assign {
            dst: dst.node.clone(),
            value: Expr::Bin(*op, Box::new(lhs.expr()), Box::new(rhs.expr())),
        }),
        VulkanInstr::Branch {
            op,
            lhs,
            rhs,
            target,
        } => Ok(Instr::BranchIf {
            cond: Cond {
                op: *op,
                lhs: lhs.expr(),
                rhs: rhs.expr(),
            },
            target: target.node.clone(),
        }),
        VulkanInstr::Goto { target } => Ok(Instr::Goto(target.node.clone())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tags_of(text: &str) -> std::result::Result<Tags, String> {
        let test = format!("Vulkan t\n{{ x=0; }}\nP0@sg 0, wg 0, qf 0;\n{text};\nexists (x=0)\n");
        let parsed = crate::litmus::parse_str("t.litmus", &test).map_err(|e| e.to_string())?;
        match &parsed.threads[0].code[0] {
            Instr::Load { tags, .. } | Instr::Store { tags, .. } | Instr::Rmw { tags, .. } => {
                Ok(tags.clone())
            }
            Instr::Fence { tags } | Instr::Barrier { tags, .. } => Ok(tags.clone()),
            other => Err(format!("not an event: {other:?}")),
        }
    }

    #[test]
    fn atomics_are_non_private_with_their_own_availability_and_visibility() {
        use Tag::*;
        assert_eq!(
            tags_of("ld.atom.acq.wg.sc0.semsc0.semvis r0, x").unwrap(),
            vec![Atom, Nonpriv, Vis, Wg, Sc0, Acq, Semsc0, Semvis]
        );
        assert_eq!(
            tags_of("st.atom.dv.sc1 x, 1").unwrap(),
            vec![Atom, Nonpriv, Av, Dv, Sc1]
        );
        assert_eq!(
            tags_of("rmw.atom.acq_rel.qf.sc0.semsc0.semsc1.add r0, x, 1").unwrap(),
            vec![Atom, Nonpriv, Av, Vis, Qf, Sc0, AcqRel, Semsc0, Semsc1]
        );
    }

    #[test]
    fn plain_accesses_are_private_unless_marked() {
        use Tag::*;
        assert_eq!(tags_of("ld.sc0 r0, x").unwrap(), vec![Sc0]);
        assert_eq!(tags_of("st.nonpriv.sc0 x, 1").unwrap(), vec![Nonpriv, Sc0]);
        assert_eq!(
            tags_of("st.av.wg.sc0 x, 1").unwrap(),
            vec![Nonpriv, Av, Wg, Sc0]
        );
        assert_eq!(
            tags_of("ld.vis.dv.sc1 r0, x").unwrap(),
            vec![Nonpriv, Vis, Dv, Sc1]
        );
    }

    #[test]
    fn barriers_and_device_operations() {
        use Tag::*;
        assert_eq!(tags_of("cbar.wg 0").unwrap(), vec![Wg]);
        assert_eq!(
            tags_of("cbar.acq_rel.sg.semsc0.semav.semvis 1").unwrap(),
            vec![Sg, AcqRel, Semsc0, Semav, Semvis]
        );
        assert_eq!(
            tags_of("membar.rel.dv.semsc0.semav").unwrap(),
            vec![Dv, Rel, Semsc0, Semav]
        );
        assert_eq!(tags_of("avdevice").unwrap(), vec![Avdevice]);
    }

    #[test]
    fn illegal_combinations_are_refused_with_the_qualifier() {
        for (text, message) in [
            ("ld.atom.rel.wg.sc0 r0, x", "takes no `.rel`"),
            ("st.atom.wg x, 1", "needs a storage class"),
            ("ld.atom.sc0 r0, x", "needs a scope"),
            ("ld.acq.sc0 r0, x", "takes no memory semantics"),
            ("ld.vis.sc0 r0, x", "`.vis` needs a scope"),
            ("st.wg.sc0 x, 1", "has a scope only with"),
            ("rmw.wg.sc0 r0, x, 1", "write `rmw.atom`"),
            (
                "ld.atom.wg.sc0.semsc0 r0, x",
                "memory semantics need an order",
            ),
            ("membar.wg.semsc0", "needs an order"),
            ("membar.acq.wg.sc0", "accesses no memory"),
            ("ld.atom.wg.sc0.sc1 r0, x", "one storage class"),
            ("ld.atom.atom.wg.sc0 r0, x", "`.atom` is given twice"),
            ("ld.atom.wg.sc0.add r0, x", "takes no `.add`"),
            (
                "ld.atom.wg.sc0.relaxed r0, x",
                "unknown qualifier `.relaxed`",
            ),
        ] {
            let err = tags_of(text).expect_err(text);
            assert!(err.contains(message), "{text}: {err}");
        }
    }
}
