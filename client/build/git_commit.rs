//! The commit `kiln --version` names, read from git by the build script (a module of
//! `client/build.rs`, and of a test through `#[path]`).
//!
//! Order: `$KILN_GIT_COMMIT` (set by whoever builds from a source archive without `.git`),
//! else the commit checked out where the sources are (short hash and commit date), else
//! `unknown commit`. The files whose change means another commit (the checkout's `HEAD`,
//! the branch it names, packed refs) are returned so that the build script reruns only
//! when they change. (Edits not yet committed are not flagged: the build script does not
//! rerun for them, so a flag would go stale.)

use std::path::{Path, PathBuf};
use std::process::Command;

/// The commit text, and the files the build script must rerun on.
pub fn git_commit(dir: &Path) -> (String, Vec<PathBuf>) {
    if let Some(v) = std::env::var("KILN_GIT_COMMIT")
        .ok()
        .filter(|v| !v.trim().is_empty())
    {
        return (v.trim().to_string(), Vec::new());
    }
    let git = |args: &[&str]| -> Option<String> {
        let out = Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(args)
            .output()
            .ok()?;
        let text = String::from_utf8(out.stdout).ok()?;
        (out.status.success() && !text.trim().is_empty()).then(|| text.trim().to_string())
    };
    // Sources unpacked inside some other checkout are not that checkout's commit.
    let tracked = git(&["ls-files", "--full-name", "--", "build.rs"]).is_some();
    let hash = git(&["rev-parse", "--short=12", "HEAD"]).filter(|_| tracked);
    let Some(hash) = hash else {
        return ("unknown commit".to_string(), Vec::new());
    };
    let text = match git(&["log", "-1", "--format=%cs", "HEAD"]) {
        Some(date) => format!("{hash} {date}"),
        None => hash,
    };
    // `--git-path` answers relative to `dir` (or absolute, in a linked worktree).
    let mut names = vec!["HEAD".to_string(), "packed-refs".to_string()];
    names.extend(git(&["symbolic-ref", "-q", "HEAD"]));
    let watch = names
        .iter()
        .filter_map(|n| git(&["rev-parse", "--git-path", n]))
        .map(|p| dir.join(p))
        .filter(|p| p.exists())
        .collect();
    (text, watch)
}
