//! `kiln --version` names the commit it was built from: the build script's git look-up
//! (`client/build/git_commit.rs`) on this checkout, on a directory without `.git`, and on a
//! checkout that does not track kiln's sources.

#[path = "../build/git_commit.rs"]
mod git_commit;

use std::path::Path;
use std::process::Command;

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

#[test]
fn version_names_the_commit_of_this_checkout() {
    let out = Command::new(env!("CARGO_BIN_EXE_kiln"))
        .arg("--version")
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let client = Path::new(env!("CARGO_MANIFEST_DIR"));
    let want = match std::env::var("KILN_GIT_COMMIT") {
        Ok(v) if !v.trim().is_empty() => v.trim().to_string(),
        // A source tree without git (an unpacked archive) says so.
        _ if !client.join("../.git").exists() => "unknown commit".to_string(),
        _ => format!(
            "{} {}",
            git(client, &["rev-parse", "--short=12", "HEAD"]),
            git(client, &["log", "-1", "--format=%cs", "HEAD"])
        ),
    };
    assert_eq!(
        text,
        format!("kiln {} ({want})\n", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn without_git_the_commit_is_unknown() {
    if std::env::var_os("KILN_GIT_COMMIT").is_some() {
        return; // the override wins over any look-up (tested above)
    }
    let bare = tempfile::tempdir().unwrap();
    std::fs::write(bare.path().join("build.rs"), "fn main() {}\n").unwrap();
    assert_eq!(
        git_commit::git_commit(bare.path()),
        ("unknown commit".to_string(), Vec::new())
    );
    // A checkout whose files do not include the sources (kiln unpacked inside another
    // project's repository) is not the sources' commit either.
    let outer = tempfile::tempdir().unwrap();
    git(outer.path(), &["init", "-q"]);
    std::fs::write(outer.path().join("other.txt"), "x\n").unwrap();
    git(outer.path(), &["add", "other.txt"]);
    git(
        outer.path(),
        &[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-qm",
            "x",
        ],
    );
    let vendored = outer.path().join("kiln/client");
    std::fs::create_dir_all(&vendored).unwrap();
    std::fs::write(vendored.join("build.rs"), "fn main() {}\n").unwrap();
    assert_eq!(git_commit::git_commit(&vendored).0, "unknown commit");
    // Tracked there, it is that checkout's commit, and the build script watches its refs.
    git(outer.path(), &["add", "kiln"]);
    git(
        outer.path(),
        &[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-qm",
            "y",
        ],
    );
    let (text, watch) = git_commit::git_commit(&vendored);
    let head = git(outer.path(), &["rev-parse", "--short=12", "HEAD"]);
    assert!(text.starts_with(&format!("{head} ")), "{text}");
    assert!(
        watch.iter().any(|p| p.ends_with("HEAD")),
        "HEAD is watched: {watch:?}"
    );
}
