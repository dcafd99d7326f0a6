//! `litmus_test`: testing work-items (their slot, role and instance) pre-stress, meet at the
//! barrier and run their test thread, its registers to `results`; stressing work-groups stress.
use super::*;

/// Testing work-items run their test thread of their instance; stressing work-groups stress.
pub(super) fn test_kernel(
    test: &Litmus,
    layout: &Layout,
    space: &Space,
    events: &[Vec<Event>],
) -> String {
    let params = [
        "mem",
        "results",
        "barriers",
        "gates",
        "scratch",
        "knobs",
        "workgroup_table",
        "local_table",
        "instance_table",
        "regions",
        "offsets",
        "stress_targets",
        "accesses",
    ];
    let mut b = Body::new();
    b.pointers(&params);
    b.scratch();
    b.line(".reg .b32 %zero, %wg, %testing, %lid, %slot, %cta, %role, %thread;");
    b.line(".reg .b64 %gate;");
    b.line("ld.param.u32 %zero, [zero];");
    b.line("mov.u32 %x, %ctaid.x;");
    b.word("%wg", "workgroup_table", "%x");
    b.knob("%testing", "TESTING_WGS");
    b.line("setp.ge.u32 %p, %wg, %testing;");
    b.line("@%p bra $stressing;");
    testing_work_item(&mut b, layout);
    pre_stress_and_barrier(&mut b);
    for t in 0..test.threads.len() {
        b.line(&format!("setp.eq.u32 %p, %thread, {t};"));
        b.line(&format!("@%p bra $thread{t};"));
    }
    b.line("bra.uni $done;");
    for (t, ev) in events.iter().enumerate() {
        call_thread(&mut b, test, layout, space, t, ev);
    }
    stressing_work_group(&mut b);
    b.kernel(TEST_KERNEL, &params, &["zero"])
}

/// Slot, role (index into `role_thread`) and instance of a testing work-item; idle ones return.
fn testing_work_item(b: &mut Body, layout: &Layout) {
    let (ctas, roles) = (layout.ctas, layout.roles_per_workgroup);
    b.line(&format!("div.u32 %x, %wg, {ctas};"));
    b.line("mul.wide.u32 %off, %x, 8;");
    b.line("add.u64 %gate, %gates, %off;");
    b.line("mov.u32 %x, %tid.x;");
    b.line("setp.eq.u32 %p, %x, 0;");
    b.line("@%p red.relaxed.gpu.global.add.u32 [%gate], 1;");
    b.word("%lid", "local_table", "%x");
    b.line(&format!("div.u32 %slot, %lid, {roles};"));
    b.knob("%x", "SLOTS");
    b.line("setp.ge.u32 %p, %slot, %x;");
    b.line("@%p bra $done;");
    b.line(&format!("rem.u32 %cta, %wg, {ctas};"));
    b.line(&format!("rem.u32 %role, %lid, {roles};"));
    b.line(&format!("mad.lo.u32 %role, %cta, {roles}, %role;"));
    b.line("mov.u32 %thread, -1;");
    for (role, thread) in layout.role_thread.iter().enumerate() {
        if let Some(t) = thread {
            b.line(&format!("setp.eq.u32 %p, %role, {role};"));
            b.line(&format!("@%p mov.u32 %thread, {t};"));
        }
    }
    b.line("setp.eq.u32 %p, %thread, -1;");
    b.line("@%p bra $done;");
    // 32 bits: the index is below CTAs × instances ≤ testing work-groups × their size, 2^24.
    b.knob("%x", "INSTANCES");
    b.line("mul.lo.u32 %y, %cta, %x;");
    b.line(&format!("div.u32 %z, %wg, {ctas};"));
    b.knob("%x", "SLOTS");
    b.line("mad.lo.u32 %y, %z, %x, %y;");
    b.line("add.u32 %y, %y, %slot;");
    b.word("%instance", "instance_table", "%y");
}

/// `stress(&scratch[word], iterations, pattern)` with the three in `%x`, `%y`, `%z`.
fn call_stress(b: &mut Body) {
    b.line("mul.wide.u32 %off, %x, 4;");
    b.line("add.u64 %ptr, %scratch, %off;");
    b.line("{");
    b.line(".param .u64 word;");
    b.line(".param .b32 iterations;");
    b.line(".param .b32 pattern;");
    b.line("st.param.u64 [word], %ptr;");
    b.line("st.param.b32 [iterations], %y;");
    b.line("st.param.b32 [pattern], %z;");
    b.line("call stress, (word, iterations, pattern);");
    b.line("}");
}

fn pre_stress_and_barrier(b: &mut Body) {
    b.knob("%x", "PRE_STRESS");
    b.line("setp.eq.u32 %p, %x, 0;");
    b.line("@%p bra $barrier;");
    b.knob("%y", "STRESS_TARGET_LINES");
    b.line("rem.u32 %y, %wg, %y;");
    b.word("%x", "stress_targets", "%y");
    b.knob("%y", "PRE_STRESS_ITERATIONS");
    b.knob("%z", "PRE_STRESS_PATTERN");
    call_stress(b);
    b.label("$barrier");
    b.knob("%x", "BARRIER");
    b.line("setp.eq.u32 %p, %x, 0;");
    b.line("@%p bra $dispatch;");
    b.line("{");
    b.line(".param .u64 gate;");
    b.line(".param .u64 knobs_arg;");
    b.line(".param .b32 started;");
    b.line("st.param.u64 [gate], %gate;");
    b.line("st.param.u64 [knobs_arg], %knobs;");
    b.line("call (started), block_started, (gate, knobs_arg);");
    b.line("ld.param.b32 %x, [started];");
    b.line("}");
    b.line("setp.eq.u32 %p, %x, 0;");
    b.line("@%p bra $dispatch;");
    b.line("mul.wide.u32 %off, %instance, 4;");
    b.line("add.u64 %ptr, %barriers, %off;");
    b.line("{");
    b.line(".param .u64 count;");
    b.line(".param .u64 knobs_arg;");
    b.line(".param .b32 instance;");
    b.line(".param .b32 thread;");
    b.line("st.param.u64 [count], %ptr;");
    b.line("st.param.u64 [knobs_arg], %knobs;");
    b.line("st.param.b32 [instance], %instance;");
    b.line("st.param.b32 [thread], %thread;");
    b.line("call spin_barrier, (count, knobs_arg, instance, thread);");
    b.line("}");
    b.label("$dispatch");
}

/// Thread `t` of `%instance`: its access pointers, the call, its registers to `results`.
fn call_thread(
    b: &mut Body,
    test: &Litmus,
    layout: &Layout,
    space: &Space,
    t: usize,
    events: &[Event],
) {
    let accesses: Vec<usize> = events
        .iter()
        .filter_map(|e| match e {
            Event::Access(a) => Some(a.number),
            Event::Fence(_) => None,
        })
        .collect();
    let observed = thread::observed_registers(&space.targets, t);
    b.label(&format!("$thread{t}"));
    b.line(&format!("{{ // {}", test.threads[t].name));
    for k in 0..accesses.len() {
        b.line(&format!(".param .u64 a{k};"));
    }
    b.line(".param .b32 zero_arg;");
    if !observed.is_empty() {
        b.line(&format!(
            ".param .align 4 .b8 observed[{}];",
            4 * observed.len()
        ));
    }
    for (k, number) in accesses.iter().enumerate() {
        b.line(&format!(
            "ld.global.u32 %y, [%accesses+{}]; // location",
            8 * number
        ));
        b.location(layout, "%instance", "%y");
        b.line(&format!(
            "ld.global.u32 %y, [%accesses+{}]; // tag",
            8 * number + 4
        ));
        b.line("cvt.u64.u32 %off, %y;");
        b.line("sub.u64 %ptr, %ptr, %off;");
        b.line(&format!("st.param.u64 [a{k}], %ptr;"));
    }
    b.line("st.param.b32 [zero_arg], %zero;");
    let args: Vec<String> = (0..accesses.len())
        .map(|k| format!("a{k}"))
        .chain(std::iter::once("zero_arg".to_string()))
        .collect();
    let ret = if observed.is_empty() {
        ""
    } else {
        "(observed), "
    };
    b.line(&format!(
        "call {ret}{}, ({});",
        thread::name(t),
        args.join(", ")
    ));
    let regs = space.registers();
    for (j, reg) in observed.iter().enumerate() {
        let k = space
            .index_of(&Target::Reg {
                thread: t,
                reg: reg.clone(),
            })
            .expect("observed registers are in the space");
        b.line(&format!("ld.param.b32 %x, [observed+{}];", 4 * j));
        b.store_result(regs, k, "%x");
    }
    b.line("}");
    b.line("bra.uni $done;");
}

/// Stressing work-group `wg - testing`: its stress line (round-robin or chunking), then stress.
fn stressing_work_group(b: &mut Body) {
    b.label("$stressing");
    b.knob("%x", "MEM_STRESS");
    b.line("setp.eq.u32 %p, %x, 0;");
    b.line("@%p bra $done;");
    b.line("sub.u32 %y, %wg, %testing;");
    b.knob("%x", "STRESS_TARGET_LINES");
    b.knob("%z", "STRESS_CHUNKING");
    b.line("setp.ne.u32 %p, %z, 0;");
    b.line("@%p bra $chunking;");
    b.line("rem.u32 %y, %y, %x;");
    b.line("bra.uni $stress_line;");
    b.label("$chunking");
    b.knob("%z", "STRESSING_WGS");
    b.line("add.u32 %z, %z, %x;");
    b.line("sub.u32 %z, %z, 1;");
    b.line("div.u32 %z, %z, %x;");
    b.line("div.u32 %y, %y, %z;");
    b.label("$stress_line");
    b.word("%x", "stress_targets", "%y");
    b.knob("%y", "MEM_STRESS_ITERATIONS");
    b.knob("%z", "MEM_STRESS_PATTERN");
    call_stress(b);
}
