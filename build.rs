//! Build script: a hash of the source the binary is built from, which the
//! cache (`src/cache/`) keeps its results under with the version, so that a
//! build of changed source never reuses the findings of another build of
//! the same version; and the table of rule pages (`src/rules/mod.rs`), one
//! entry per file of `docs/rules/<system>/<name>.md`.

use std::path::{Path, PathBuf};

fn main() {
    let mut files = Vec::new();
    collect(Path::new("src"), &mut files);
    // The layers below are crates of this workspace: their source is the
    // binary's too.
    collect(Path::new("crates"), &mut files);
    files.push(PathBuf::from("Cargo.lock"));
    files.sort();
    // FNV-1a over each file's path and bytes: no dependency for a build
    // script, and a collision only costs a stale cache during development.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut write = |bytes: &[u8]| {
        for byte in bytes {
            hash ^= u64::from(*byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    };
    for file in &files {
        write(file.to_string_lossy().as_bytes());
        write(&std::fs::read(file).unwrap_or_default());
    }
    println!("cargo:rustc-env=CONFVET_SOURCE_HASH={hash:016x}");
    write_rule_pages();
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=crates");
    println!("cargo:rerun-if-changed=Cargo.lock");
    println!("cargo:rerun-if-changed=docs/rules");
}

/// `PAGES: &[(&str, &str)]`, each page of `docs/rules/` (but its index,
/// README.md) under its rule id, included by path so that the page text is
/// the file's.
fn write_rule_pages() {
    let mut pages = Vec::new();
    collect(Path::new("docs/rules"), &mut pages);
    let mut entries: Vec<String> = pages
        .iter()
        .filter(|page| page.extension().is_some_and(|e| e == "md"))
        .filter_map(|page| {
            let id = page.strip_prefix("docs/rules").ok()?.with_extension("");
            let id = id.to_str()?.replace('\\', "/");
            // The index has no system folder; a rule id is `system/name`.
            id.contains('/').then(|| {
                format!(
                    "    ({id:?}, include_str!(concat!(env!(\"CARGO_MANIFEST_DIR\"), \"/docs/rules/{id}.md\"))),\n"
                )
            })
        })
        .collect();
    entries.sort();
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let text = format!(
        "/// Every page of `docs/rules/`, by rule id.\npub static PAGES: &[(&str, &str)] = &[\n{}];\n",
        entries.concat()
    );
    std::fs::write(out.join("rule_pages.rs"), text).expect("OUT_DIR is writable");
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out);
        } else {
            out.push(path);
        }
    }
}
