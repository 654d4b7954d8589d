//! Outputs on disk, whatever happens to their directory between builds:
//!
//! - outputs deleted by hand, or with their directory (`rm -rf out && kiln build`, build
//!   systems moving outputs out of a reused sandbox), are written again by the next build,
//!   whichever build of the daemon saw the deletion first; an input directory built into
//!   two output directories rebuilds both after an edit;
//! - a race of builds against the deletion and re-creation of their output directories
//!   (between builds and during them, APS and Handshake inputs, through the daemon) never
//!   ends a build with exit 0 and an output missing or wrong;
//! - in an output directory another user can write to, the links that user plants (spares,
//!   `.kiln-spare` itself, temp and cookie names, a mirrored subdirectory) are never
//!   followed: the victim's files keep their bytes;
//! - a full disk fails the build and leaves neither litter nor a damaged previous output.

mod common;
#[path = "../../tests/support/hostile.rs"]
mod support;

use common::{Env, data, tree};
use kiln_daemon::build::Builder;
use kiln_daemon::build::Spares;
use kiln_daemon::report::BuildReport;
use kiln_daemon::request::{BuildSpec, HandshakeSpec, OutputKind};
use kiln_daemon::testing::Watcher;
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// An in-process builder with the daemon's watcher and spares.
fn watched_builder() -> Builder {
    Builder::new(None, Watcher::new(), Spares::Ahead)
}

fn aps(functions: usize, seed: u64) -> String {
    compiler::aps::workload::generate(functions, seed)
}

fn spec(input: &Path, out: &Path) -> BuildSpec {
    BuildSpec {
        inputs: vec![input.to_path_buf()],
        out_dir: out.to_path_buf(),
        handshake: HandshakeSpec {
            blif_lib: Some(data("handshake/library")),
            ..HandshakeSpec::default()
        },
        ..BuildSpec::default()
    }
}

fn built(r: &BuildReport) -> &BuildReport {
    assert!(r.ok(), "{}", r.rendered());
    r
}

/// The outputs of a cold one-shot build of `input`, by file name.
fn expected(input: &Path, scratch: &Path) -> BTreeMap<OsString, Vec<u8>> {
    expected_of(input, scratch, |s| s)
}

/// [`expected`] of the build `spec(input, …)` as `adjust` changes it.
fn expected_of(
    input: &Path,
    scratch: &Path,
    adjust: impl Fn(BuildSpec) -> BuildSpec,
) -> BTreeMap<OsString, Vec<u8>> {
    let out = scratch.join(input.file_name().unwrap());
    let r = kiln_daemon::oneshot::build(&adjust(spec(input, &out)));
    built(&r);
    let files: BTreeMap<OsString, Vec<u8>> = r
        .files
        .iter()
        .map(|f| {
            (
                f.path.file_name().unwrap().into(),
                fs::read(&f.path).unwrap(),
            )
        })
        .collect();
    assert!(!files.is_empty());
    files
}

/// Every output of `want` is in `dir` with its bytes (other files may be there too).
fn assert_on_disk(dir: &Path, want: &BTreeMap<OsString, Vec<u8>>, what: &str) {
    for (name, bytes) in want {
        let p = dir.join(name);
        match fs::read(&p) {
            Ok(b) => assert!(b == *bytes, "{what}: {} has other bytes", p.display()),
            Err(e) => panic!("{what}: {}: {e}", p.display()),
        }
    }
}

#[test]
fn outputs_deleted_from_a_shared_directory_are_written_again_by_their_own_build() {
    let dir = tempfile::tempdir().unwrap();
    let (x, y) = (dir.path().join("x.mlir"), dir.path().join("y.mlir"));
    fs::write(&x, aps(4, 1)).unwrap();
    fs::write(&y, aps(4, 2)).unwrap();
    let (want_x, want_y) = (
        expected(&x, &dir.path().join("ref")),
        expected(&y, &dir.path().join("ref")),
    );
    let out = dir.path().join("out");
    let b = watched_builder();
    for round in 0..4 {
        built(&b.build(&spec(&x, &out)));
        built(&b.build(&spec(&y, &out)));
        assert_on_disk(&out, &want_x, &format!("round {round}, x"));
        assert_on_disk(&out, &want_y, &format!("round {round}, y"));
        // Delete y's outputs: the next build of x sees the deletion first.
        for name in want_y.keys() {
            fs::remove_file(out.join(name)).unwrap();
        }
    }
}

#[test]
fn an_input_directory_built_into_two_output_directories_rebuilds_both_after_an_edit() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    fs::create_dir(&src).unwrap();
    let f = src.join("f.mlir");
    let (o1, o2) = (dir.path().join("o1"), dir.path().join("o2"));
    let b = watched_builder();
    for seed in 1..4 {
        fs::write(&f, aps(3, seed)).unwrap();
        let want = expected(&f, &dir.path().join(format!("ref{seed}")));
        built(&b.build(&spec(&src, &o1)));
        built(&b.build(&spec(&src, &o2)));
        assert_on_disk(&o1, &want, &format!("seed {seed}, o1"));
        assert_on_disk(&o2, &want, &format!("seed {seed}, o2"));
    }
}

/// The recipe, in process: `rm -rf hs; mkdir -p hs/a hs/b`, then each input into
/// each directory.
#[test]
fn a_recreated_output_directory_is_written_again() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = [dir.path().join("x.mlir"), dir.path().join("y.mlir")];
    fs::write(&inputs[0], aps(4, 1)).unwrap();
    fs::write(&inputs[1], aps(4, 2)).unwrap();
    let want: Vec<_> = (inputs.iter())
        .map(|i| expected(i, &dir.path().join("ref")))
        .collect();
    let hs = dir.path().join("hs");
    let b = watched_builder();
    for round in 0..25 {
        let _ = fs::remove_dir_all(&hs);
        fs::create_dir_all(hs.join("a")).unwrap();
        fs::create_dir_all(hs.join("b")).unwrap();
        for (input, want) in inputs.iter().zip(&want) {
            for d in ["a", "b"] {
                built(&b.build(&spec(input, &hs.join(d))));
                assert_on_disk(&hs.join(d), want, &format!("round {round}, {d}"));
            }
        }
    }
}

/// A small deterministic generator (xorshift64*), so that a failing run can be replayed.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % n
    }
}

/// Builds through the daemon while output directories are deleted and re-created, between
/// builds (every build that follows is checked) and during them (then every input is built
/// into every directory again, checked). At least 2,000 builds.
#[test]
fn a_race_of_builds_against_deleted_output_directories_loses_no_output() {
    let env = Env::new(&[]);
    let src = env.ws().join("src");
    let inputs = [src.join("x.mlir"), src.join("y.mlir"), src.join("gcd.mlir")];
    fs::write(&inputs[0], aps(4, 1)).unwrap();
    fs::write(&inputs[1], aps(4, 2)).unwrap();
    fs::copy(data("handshake/export_gcd.mlir"), &inputs[2]).unwrap();
    let scratch = tempfile::tempdir().unwrap();
    let want: Vec<_> = (inputs.iter())
        .map(|i| expected(i, scratch.path()))
        .collect();
    let hs = env.ws().join("hs");
    let dirs = [hs.join("a"), hs.join("b")];
    let pairs: Vec<(usize, usize)> = (0..inputs.len())
        .flat_map(|i| (0..dirs.len()).map(move |d| (i, d)))
        .collect();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut builds, mut checked, mut failed_during) = (0usize, 0usize, 0usize);
    // Why builds failed during a race (the first few, for the log).
    let mut why = Vec::new();
    let start = Instant::now();
    let check = |(i, d): (usize, usize), what: &str, builds: &mut usize| {
        let r = env.build(&spec(&inputs[i], &dirs[d]));
        *builds += 1;
        assert!(r.ok(), "{what}: {}", r.rendered());
        assert_eq!(r.files.len(), want[i].len(), "{what}");
        assert_on_disk(&dirs[d], &want[i], what);
    };
    let mut round = 0;
    while builds < 2_000 {
        round += 1;
        if round % 5 != 0 {
            // Between builds: one way of clearing the outputs, then some builds, each checked.
            match rng.below(5) {
                0 | 1 => {
                    let _ = fs::remove_dir_all(&hs);
                    for d in &dirs {
                        fs::create_dir_all(d).unwrap();
                    }
                }
                // Not re-created: the build makes the directory.
                2 => {
                    let _ = fs::remove_dir_all(&hs);
                }
                // Moved away (a reused sandbox), a new one in its place.
                3 => {
                    let d = &dirs[rng.below(2)];
                    let old = hs.join("old");
                    let _ = fs::remove_dir_all(&old);
                    if fs::rename(d, &old).is_ok() {
                        fs::create_dir_all(d).unwrap();
                    }
                }
                // The files only.
                _ => {
                    for d in &dirs {
                        for e in fs::read_dir(d).into_iter().flatten().flatten() {
                            let _ = fs::remove_file(e.path());
                        }
                    }
                }
            }
            for _ in 0..1 + rng.below(pairs.len()) {
                let p = pairs[rng.below(pairs.len())];
                check(p, &format!("round {round}, {p:?}"), &mut builds);
                checked += 1;
            }
        } else {
            // During builds: a thread deletes and re-creates the directories meanwhile.
            let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
            let deleter = {
                let (stop, hs, dirs) = (stop.clone(), hs.clone(), dirs.clone());
                std::thread::spawn(move || {
                    let mut n = 0u64;
                    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                        let _ = fs::remove_dir_all(&hs);
                        for d in &dirs {
                            let _ = fs::create_dir_all(d);
                        }
                        n += 1;
                        std::thread::sleep(Duration::from_micros(200 * (n % 7)));
                    }
                })
            };
            for _ in 0..10 {
                let (i, d) = pairs[rng.below(pairs.len())];
                let r = env.build(&spec(&inputs[i], &dirs[d]));
                builds += 1;
                // A build whose directory vanished under it may fail; it must not panic.
                if !r.ok() {
                    failed_during += 1;
                    if why.len() < 3 {
                        why.push(r.rendered());
                    }
                }
            }
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
            deleter.join().unwrap();
            for &p in &pairs {
                check(
                    p,
                    &format!("round {round}, after the race, {p:?}"),
                    &mut builds,
                );
                checked += 1;
            }
        }
    }
    eprintln!(
        "{builds} builds ({checked} checked, {failed_during} failed during a race) in {:.1} s; \
         failures during a race, for example:\n{}",
        start.elapsed().as_secs_f64(),
        why.concat()
    );
}

/// A victim's directory of files, as `(path, bytes)`.
fn victim_files(dir: &Path, names: &[&str]) -> Vec<(PathBuf, Vec<u8>)> {
    fs::create_dir_all(dir).unwrap();
    names
        .iter()
        .map(|n| {
            let p = dir.join(n);
            let bytes = format!("the victim's {n}\n").into_bytes();
            fs::write(&p, &bytes).unwrap();
            (p, bytes)
        })
        .collect()
}

fn assert_unchanged(files: &[(PathBuf, Vec<u8>)], what: &str) {
    for (p, bytes) in files {
        let now = fs::read(p).unwrap_or_else(|e| panic!("{what}: {}: {e}", p.display()));
        assert!(now == *bytes, "{what}: {} was written", p.display());
    }
}

/// Each output of `r` is a regular file (not a link) with the bytes `want` gives its name.
fn assert_outputs(r: &BuildReport, want: &BTreeMap<OsString, Vec<u8>>, what: &str) {
    built(r);
    for f in &r.files {
        let m = fs::symlink_metadata(&f.path).unwrap();
        assert!(
            m.is_file(),
            "{what}: {} is not a regular file",
            f.path.display()
        );
        let name = f.path.file_name().unwrap();
        assert!(
            fs::read(&f.path).unwrap() == want[name],
            "{what}: {} has other bytes",
            f.path.display()
        );
    }
}

/// A link at `link` to `target`, owned by `user` (as if that user had made it).
fn plant_link(user: (u32, u32), target: &Path, link: &Path) {
    std::os::unix::fs::symlink(target, link).unwrap();
    std::os::unix::fs::lchown(link, Some(user.0), Some(user.1)).unwrap();
}

/// A directory anyone may write to, owned by `user`.
fn plant_dir(user: (u32, u32), dir: &Path) {
    fs::create_dir(dir).unwrap();
    fs::set_permissions(dir, fs::Permissions::from_mode(0o777)).unwrap();
    std::os::unix::fs::chown(dir, Some(user.0), Some(user.1)).unwrap();
}

/// In a shared (0777) output directory another user plants links where the daemon writes:
/// spares, `.kiln-spare` itself, temp files, watcher cookies, a mirrored subdirectory. The
/// victim's files keep their bytes and every output is a regular file of its own bytes.
#[test]
fn links_a_neighbour_plants_in_a_shared_output_directory_are_never_followed() {
    if !support::root_or_skip("the two-user test") {
        return;
    }
    let Some(other) = support::second_user() else {
        return;
    };
    let env = Env::new(&[]);
    fs::set_permissions(env.root.path(), fs::Permissions::from_mode(0o755)).unwrap();
    let small = env.ws().join("src/small.mlir");
    fs::write(&small, aps(3, 1)).unwrap();
    built(&env.build(&spec(&small, &env.root.path().join("warm-up"))));
    // Each case on its own, so that one followed link does not hide another.
    let mut followed = Vec::new();
    for case in [
        "spares",
        "spare-directory",
        "temp-and-cookie-names",
        "subdirectory",
        "output-directory",
    ] {
        let run = std::panic::AssertUnwindSafe(|| match case {
            "subdirectory" => linked_subdirectory(&env, other),
            "output-directory" => linked_output_directory(&env, other),
            _ => planted_in_output_directory(&env, other, case),
        });
        if std::panic::catch_unwind(run).is_err() {
            followed.push(case);
        }
    }
    assert!(followed.is_empty(), "links followed: {followed:?}");
}

/// Builds of a large and a small APS module into a shared directory where `other` planted
/// links (`case`): spares, `.kiln-spare` itself, or temp and cookie names.
fn planted_in_output_directory(env: &Env, other: (u32, u32), case: &str) {
    let (root, ws) = (env.root.path(), env.ws());
    // Large outputs (at least 1 MiB) go through spares, small ones through temp files.
    let (big, small) = (ws.join("src/big.mlir"), ws.join("src/small.mlir"));
    let outputs = [
        "big.cmt2.mlir",
        "big.rules.json",
        "small.cmt2.mlir",
        "small.rules.json",
    ];
    let shared = root.join(format!("shared-{case}"));
    fs::create_dir(&shared).unwrap();
    fs::set_permissions(&shared, fs::Permissions::from_mode(0o777)).unwrap();
    let victim = root.join("victim").join(case);
    let mine = victim_files(
        &victim,
        &[
            "secret1",
            "secret2",
            "big.cmt2.mlir.spare",
            "big.rules.json.spare",
        ],
    );
    match case {
        "spares" => {
            let spare = shared.join(".kiln-spare");
            plant_dir(other, &spare);
            for (o, (target, _)) in outputs.iter().zip(&mine) {
                plant_link(other, target, &spare.join(format!("{o}.spare")));
            }
        }
        "spare-directory" => plant_link(other, &victim, &shared.join(".kiln-spare")),
        _ => {
            // The daemon's temp and cookie names are predictable from its pid.
            let pid = env.pid().expect("the daemon runs");
            for n in 0..512 {
                for o in outputs {
                    let tmp = shared.join(format!(".{o}.tmp.{pid}.{n}"));
                    plant_link(other, &mine[0].0, &tmp);
                }
                let cookie = shared.join(format!(".kiln-cookie-{pid}-{n}"));
                plant_link(other, &mine[1].0, &cookie);
            }
        }
    }
    for (k, seed) in [1, 2, 1, 3].into_iter().enumerate() {
        fs::write(&big, aps(40, seed)).unwrap();
        fs::write(&small, aps(3, seed)).unwrap();
        for input in [&big, &small] {
            let want = expected(input, &root.join(format!("ref-{case}-{k}")));
            let r = env.build(&spec(input, &shared));
            assert_outputs(&r, &want, &format!("{case}, build {k}"));
            assert_unchanged(&mine, &format!("{case}, build {k}"));
        }
        // Let the daemon prepare its spares (in the background) before the next edit.
        std::thread::sleep(Duration::from_millis(300));
    }
}

/// A mirrored subdirectory of the output directory replaced by `other`'s link to a
/// directory of the victim's: the build fails and writes nothing there.
fn linked_subdirectory(env: &Env, other: (u32, u32)) {
    let root = env.root.path();
    let lib = env.ws().join("lib");
    common::copy_tree(&data("daemon/blif_lib/extsi"), &lib);
    let blif = lib.join("5/6/extsi.blif");
    let shared = root.join("shared-subdirectory");
    fs::create_dir(&shared).unwrap();
    fs::set_permissions(&shared, fs::Permissions::from_mode(0o777)).unwrap();
    let r = env.build(&spec(&lib, &shared));
    built(&r);
    assert!(shared.join("5/6/extsi.aig").is_file(), "{:?}", r.files);
    let decoy = root.join("victim/decoy");
    let mine = victim_files(&decoy, &["extsi.aig"]);
    fs::rename(shared.join("5/6"), shared.join("5/moved")).unwrap();
    plant_link(other, &decoy, &shared.join("5/6"));
    let text = fs::read_to_string(&blif).unwrap();
    fs::write(&blif, format!("# edited\n{text}")).unwrap();
    let r = env.build(&spec(&lib, &shared));
    assert_unchanged(&mine, "a linked subdirectory");
    let names: Vec<_> = fs::read_dir(&decoy)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(
        names.len(),
        1,
        "files made in the victim's directory: {names:?}"
    );
    assert!(
        !r.ok(),
        "a build through another user's link reported success"
    );
}

/// The output directory itself, in a shared directory, replaced by `other`'s link to a
/// directory of the victim's: the build fails and writes nothing there.
fn linked_output_directory(env: &Env, other: (u32, u32)) {
    let root = env.root.path();
    let shared = root.join("shared-parent");
    fs::create_dir(&shared).unwrap();
    fs::set_permissions(&shared, fs::Permissions::from_mode(0o777)).unwrap();
    let small = env.ws().join("src/small.mlir");
    built(&env.build(&spec(&small, &shared.join("out"))));
    let decoy = root.join("victim/out");
    let mine = victim_files(&decoy, &["small.cmt2.mlir", "small.rules.json"]);
    fs::rename(shared.join("out"), shared.join("moved")).unwrap();
    plant_link(other, &decoy, &shared.join("out"));
    fs::write(&small, aps(3, 7)).unwrap();
    let r = env.build(&spec(&small, &shared.join("out")));
    assert_unchanged(&mine, "a linked output directory");
    assert!(
        !r.ok(),
        "a build through another user's link reported success"
    );
}

/// A tmpfs of `size` mounted on a fresh directory, unmounted on drop; `None` where this
/// process cannot mount (outside CI: the test is skipped).
struct Tmpfs(PathBuf);

impl Tmpfs {
    fn mount(at: &Path, size: &str) -> Option<Tmpfs> {
        fs::create_dir_all(at).unwrap();
        let st = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(at)
            .status();
        if st.is_ok_and(|s| s.success()) {
            return Some(Tmpfs(at.to_path_buf()));
        }
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "CI runs as root and can mount a tmpfs"
        );
        eprintln!("skipped: cannot mount a tmpfs");
        None
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg("-l")
            .arg(&self.0)
            .status();
    }
}

/// Names of kiln's partial files (temp files, spare claims) anywhere below `dir`.
fn litter(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).into_iter().flatten().flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            } else if name.ends_with(".claim") || name.contains(".tmp.") {
                out.push(e.path());
            }
        }
    }
    out
}

/// Fill the file system of `dir` with one more file (`filler-<n>`) until it is full.
fn fill(dir: &Path, n: usize) -> PathBuf {
    use std::io::Write;
    let p = dir.join(format!("filler-{n}"));
    let mut f = fs::File::create(&p).unwrap();
    let chunk = vec![0xa5u8; 64 << 10];
    while f.write_all(&chunk).is_ok() {}
    let mut small = vec![0u8; 4096];
    while !small.is_empty() {
        if f.write_all(&small).is_err() {
            small.truncate(small.len() / 2);
        }
    }
    p
}

/// A daemon build on a disk too full for its output fails with the reason, removes every
/// partial file it made at once, and leaves the previous output as it was; once space is
/// freed the next build writes the new output.
///
/// What "too full" means: a spare is expendable, so a failed rewrite through a spare drops
/// it and writes the output the plain way in the room that freed. The build below has one
/// large output (the CMT2 text alone), so the only room a failed build can free is that
/// output's own spare, which holds the previous, smaller version: the failure is certain.
/// (With several outputs, the spares one output drops may be room enough for another,
/// and whether that build then succeeds depends on the order the writes happen in.)
#[test]
fn a_full_disk_fails_the_build_and_leaves_no_litter() {
    if !support::root_or_skip("the full-disk test") {
        return;
    }
    let env = Env::new(&[]);
    // Room for the 80-function output with its spare once the fillers go.
    let Some(disk) = Tmpfs::mount(&env.root.path().join("disk"), "32m") else {
        return;
    };
    let out = disk.0.join("out");
    let input = env.ws().join("src/big.mlir");
    fs::write(&input, aps(50, 3)).unwrap();
    let cmt2_only = |s: BuildSpec| BuildSpec {
        kinds: vec![OutputKind::Cmt2],
        ..s
    };
    let s = cmt2_only(spec(&input, &out));
    built(&env.build(&s));
    // The daemon prepares the spare of a large output in the background: wait for it, and
    // for no preparation in flight (a claim that fails on the full disk below would free
    // its room and let the build succeed).
    let spares = || {
        let names: Vec<String> = fs::read_dir(out.join(".kiln-spare"))
            .map(|d| {
                d.flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        let done = names.iter().filter(|n| n.ends_with(".spare")).count();
        let busy = names.iter().any(|n| n.ends_with(".claim"));
        done >= 1 && !busy
    };
    let t = Instant::now();
    while !spares() && t.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(spares(), "the daemon's spare was not ready in 60 s");
    // The outputs (spares are expendable: a failed write may drop one).
    let outputs = |d: &Path| {
        let mut t = tree(d);
        t.retain(|p, _| !p.starts_with(".kiln-spare"));
        t
    };
    let before = outputs(&out);
    let mut fillers = Vec::new();
    for (k, functions) in [60, 70, 80].into_iter().enumerate() {
        // Full again (a failed build may have dropped spares, freeing room).
        fillers.push(fill(&disk.0, k));
        fs::write(&input, aps(functions, 3)).unwrap();
        let new = expected_of(&input, &env.root.path().join(format!("ref-{k}")), cmt2_only);
        let r = env.build(&s);
        assert!(!r.ok(), "build {k} succeeded on a full disk");
        assert!(
            r.rendered().contains("No space left"),
            "build {k}: {}",
            r.rendered()
        );
        assert_eq!(litter(&out), Vec::<PathBuf>::new(), "build {k}");
        // The output whole, as it was.
        let now = outputs(&out);
        assert_eq!(now.len(), 1, "build {k}: {:?}", now.keys());
        assert!(now == before, "build {k}: the previous output changed");
        assert!(now.values().all(|b| new.values().all(|n| n != b)));
    }
    for f in fillers {
        fs::remove_file(f).unwrap();
    }
    let want = expected_of(&input, &env.root.path().join("ref"), cmt2_only);
    let r = env.build(&s);
    assert_outputs(&r, &want, "after space was freed");
    assert_eq!(litter(&out), Vec::<PathBuf>::new());
}
