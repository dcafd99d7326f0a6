//! `litmus_init`: per instance, the initial values, `NOT_WRITTEN` results and a cleared barrier.
use super::*;

/// Per instance: initial values, `NOT_WRITTEN` results, a cleared barrier.
pub(super) fn init_kernel(layout: &Layout, space: &Space) -> String {
    let params = [
        "mem", "results", "barriers", "gates", "knobs", "regions", "offsets",
    ];
    let mut b = Body::new();
    b.pointers(&params);
    b.scratch();
    b.global_id();
    b.knob("%x", "TESTING_WGS");
    b.line(&format!("div.u32 %x, %x, {};", layout.ctas));
    b.line("setp.lt.u32 %p, %instance, %x;");
    b.line("mul.wide.u32 %off, %instance, 8;");
    b.line("add.u64 %addr, %gates, %off;");
    b.line("@%p st.relaxed.gpu.global.u32 [%addr], 0;");
    b.line("@%p st.relaxed.gpu.global.u32 [%addr+4], 0;");
    b.return_past_instances();
    for (l, (name, init)) in layout.locations.iter().enumerate() {
        b.line(&format!("mov.u32 %y, {l}; // {name}"));
        b.location(layout, "%instance", "%y");
        b.line(&format!(
            "st.relaxed.gpu.global.u32 [%ptr], {};",
            *init as i32
        ));
    }
    let regs = space.registers();
    for k in 0..regs {
        b.store_result(regs, k, &NOT_WRITTEN.to_string());
    }
    b.store_word("barriers", "%instance", "0");
    b.kernel(INIT_KERNEL, &params, &[])
}
