//! Compiles the lalrpop grammars in `grammar/` into Rust parsers (placed in OUT_DIR), and lists
//! the shipped models and mappings (`models/*.cat`, `mappings/**/*.map`) for `src/shipped.rs` to
//! embed (`OUT_DIR/shipped_files.rs`).
use std::path::{Path, PathBuf};

fn main() {
    // Naming any path below turns off cargo's rerun on every change, so name all the inputs.
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=grammar");
    lalrpop::Configuration::new()
        .set_in_dir("grammar")
        .process()
        .expect("lalrpop grammar failed to compile");
    embed_shipped_files();
}

/// Write `OUT_DIR/shipped_files.rs`: `FILES`, each shipped file's path from the crate root and
/// its bytes (`include_bytes!`), sorted by path.
fn embed_shipped_files() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let mut files = vec![];
    for (dir, ext) in [("models", "cat"), ("mappings", "map")] {
        println!("cargo:rerun-if-changed={dir}");
        collect(&root, &root.join(dir), ext, &mut files);
    }
    files.sort();
    let mut out = String::from("pub(crate) const FILES: &[(&str, &[u8])] = &[\n");
    for relative in &files {
        let absolute = root.join(relative);
        out.push_str(&format!(
            "    ({relative:?}, include_bytes!({:?})),\n",
            absolute.display().to_string()
        ));
    }
    out.push_str("];\n");
    let dest =
        Path::new(&std::env::var("OUT_DIR").expect("cargo sets it")).join("shipped_files.rs");
    std::fs::write(dest, out).expect("OUT_DIR is writable");
}

/// Every file under `dir` (recursively) whose extension is `ext`, as a path from `root` with `/`.
fn collect(root: &Path, dir: &Path, ext: &str, files: &mut Vec<String>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("a directory entry").path();
        println!("cargo:rerun-if-changed={}", path.display());
        if path.is_dir() {
            collect(root, &path, ext, files);
        } else if path.extension().is_some_and(|e| e == ext) {
            let relative = path.strip_prefix(root).expect("under the root");
            let parts: Vec<String> = (relative.components())
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            files.push(parts.join("/"));
        }
    }
}
