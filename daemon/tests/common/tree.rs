//! The files below a directory with their bytes: what the daemon's integration tests and its
//! in-crate build tests compare outputs by (one definition, included by both).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

/// The bytes of every file below `dir` (relative paths), skipping hidden files.
pub fn tree(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if !e.file_name().to_string_lossy().starts_with('.') {
                out.insert(
                    p.strip_prefix(dir).unwrap().to_path_buf(),
                    fs::read(&p).unwrap(),
                );
            }
        }
    }
    out
}
