//! Compiles the lalrpop grammars in `grammar/` into Rust parsers (placed in OUT_DIR).
fn main() {
    lalrpop::Configuration::new()
        .set_in_dir("grammar")
        .process()
        .expect("lalrpop grammar failed to compile");
}
