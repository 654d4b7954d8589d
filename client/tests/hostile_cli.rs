//! Hostile input through the `kiln` binary: special files as inputs, the reproducers of
//! `tests/data/hostile/`, limits raised by flag and by `kiln.toml`, and a runtime directory
//! planted by another user.

mod cli;
#[path = "../../tests/support/hostile.rs"]
mod support;

use std::ffi::OsStr;
use std::fs;
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(rel)
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Run with a time limit (a hang is a failure, not a stuck test).
fn run(cmd: &mut Command, limit: Duration) -> Output {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let t = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if t.elapsed() > limit {
            let _ = child.kill();
            panic!("{cmd:?} still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    child.wait_with_output().unwrap()
}

#[test]
fn special_files_are_refused_quickly_by_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("in.mlir");
    support::mkfifo(&fifo);
    let out = dir.path().join("out");
    let lib = repo("tests/data/handshake/library");
    for input in [
        fifo.as_path(),
        Path::new("/dev/zero"),
        Path::new("/dev/urandom"),
    ] {
        let i = input.to_str().unwrap();
        let o = out.to_str().unwrap();
        let l = lib.to_str().unwrap();
        for args in [
            vec!["parse", i],
            vec!["build", "--no-daemon", "--out-dir", o, i],
            vec!["aig", "--out", o, i],
            vec!["synth", "--blif-lib", l, "--out-dir", o, i],
        ] {
            let o = run(cli::kiln().args(&args), Duration::from_secs(10));
            let e = stderr(&o);
            assert_eq!(o.status.code(), Some(1), "{args:?}: {e}");
            assert!(e.contains("not a regular file"), "{args:?}: {e}");
            assert!(e.contains(i), "{args:?}: {e}");
        }
    }
}

#[test]
fn standard_input_is_read_only_when_asked_for_with_a_dash() {
    let text = fs::read(repo("tests/data/hostile/wide_attr.mlir")).unwrap();
    let mut child = cli::kiln()
        .args(["parse", "--max-int-width", "16777215", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), &text).unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn reproducers_give_located_diagnostics_and_exit_1() {
    let lib = repo("tests/data/handshake/library");
    let dir = tempfile::tempdir().unwrap();
    for (name, flag) in [
        ("trunci_wider.mlir", None),
        ("ext_to_i0.mlir", None),
        ("result_count.mlir", Some("--max-results")),
        ("wide_int.mlir", Some("--max-int-width")),
        ("buffer_slots.mlir", Some("--max-results")),
    ] {
        let f = repo(&format!("tests/data/hostile/{name}"));
        let o = run(
            cli::kiln()
                .args(["synth", "--out-dir"])
                .arg(dir.path())
                .arg("--blif-lib")
                .arg(&lib)
                .arg(&f),
            Duration::from_secs(30),
        );
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{name}: {e}");
        assert!(
            e.contains(&format!("{name}:")) && e.contains(": error: "),
            "{name}: {e}"
        );
        if let Some(flag) = flag {
            assert!(e.contains(flag), "{name}: {e}");
        }
        assert!(
            fs::read_dir(dir.path()).unwrap().next().is_none(),
            "{name} wrote outputs"
        );
    }
}

#[test]
fn limits_are_raised_by_flag_and_by_kiln_toml() {
    let f = repo("tests/data/hostile/wide_attr.mlir");
    let o = run(cli::kiln().arg("parse").arg(&f), Duration::from_secs(10));
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("max_int_width"), "{}", stderr(&o));
    let o = run(
        cli::kiln()
            .args(["parse", "--max-int-width", "16777215"])
            .arg(&f),
        Duration::from_secs(10),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("kiln.toml"),
        "[limits]\nmax_int_width = 16_777_215\n",
    )
    .unwrap();
    let o = run(
        cli::kiln().current_dir(dir.path()).arg("parse").arg(&f),
        Duration::from_secs(10),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // The input size limit, lowered by flag.
    let o = run(
        cli::kiln()
            .args(["parse", "--max-input-size", "10"])
            .arg(&f),
        Duration::from_secs(10),
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("--max-input-size"), "{}", stderr(&o));
}

/// A world-writable sticky temp dir (like /tmp), a victim directory, and `kiln` run as the
/// victim with that temp dir and no `$XDG_RUNTIME_DIR`.
fn victim_kiln(tmp: &Path, args: &[&str]) -> Output {
    run(
        cli::kiln()
            .env("TMPDIR", tmp)
            .env_remove("XDG_RUNTIME_DIR")
            .current_dir(tmp)
            .args(args),
        Duration::from_secs(20),
    )
}

#[test]
fn a_runtime_directory_planted_by_another_user_is_refused() {
    let Some(other) = support::second_user() else {
        return;
    };
    let uid = other.0;
    let me = unsafe { libc::geteuid() };
    let dir = tempfile::tempdir().unwrap();
    fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755)).unwrap();
    let tmp = dir.path().join("tmp");
    fs::create_dir(&tmp).unwrap();
    fs::set_permissions(&tmp, fs::Permissions::from_mode(0o1777)).unwrap();
    let victim = dir.path().join("victim");
    fs::create_dir(&victim).unwrap();
    fs::set_permissions(&victim, fs::Permissions::from_mode(0o755)).unwrap();
    let planted = tmp.join(format!("kiln-{me}"));

    // The other user plants a symlink to the victim's directory.
    support::run_as(
        other,
        "ln",
        &["-s".as_ref(), victim.as_os_str(), planted.as_os_str()],
    );
    assert_eq!(fs::symlink_metadata(&planted).unwrap().uid(), uid);
    for args in [&["status"][..], &["daemon", "--idle-timeout", "2"]] {
        let o = victim_kiln(&tmp, args);
        let e = stderr(&o);
        assert_ne!(o.status.code(), Some(0), "{args:?}: {e}");
        assert!(
            e.contains("symbolic link") && e.contains("refusing"),
            "{args:?}: {e}"
        );
    }
    assert_eq!(
        fs::metadata(&victim).unwrap().permissions().mode() & 0o777,
        0o755
    );
    assert!(
        fs::read_dir(&victim).unwrap().next().is_none(),
        "files made in the target"
    );

    // A real directory the other user owns (mode 0777) is refused too.
    fs::remove_file(&planted).unwrap();
    support::run_as(
        other,
        "mkdir",
        &["-m".as_ref(), "777".as_ref(), planted.as_os_str()],
    );
    let o = victim_kiln(&tmp, &["status"]);
    let e = stderr(&o);
    assert!(e.contains(&format!("owned by uid {uid}")), "{e}");
    assert_eq!(
        fs::metadata(&planted).unwrap().permissions().mode() & 0o777,
        0o777
    );
    assert!(fs::read_dir(&planted).unwrap().next().is_none());

    // Without interference the victim's runtime directory is made private.
    fs::remove_dir(&planted).unwrap();
    let o = victim_kiln(&tmp, &["status"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("not running"), "{}", stderr(&o));
    let m = fs::symlink_metadata(&planted).unwrap();
    assert!(m.is_dir() && m.uid() == me && m.permissions().mode() & 0o777 == 0o700);
}

/// `OsStr`s of `args`.
fn os<'a>(args: &[&'a str]) -> Vec<&'a OsStr> {
    args.iter().map(|a| OsStr::new(*a)).collect()
}

/// A character device at `path` with the numbers of /dev/null (1, 3).
fn mknod_null(path: &Path) {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    let r = unsafe { libc::mknod(c.as_ptr(), libc::S_IFCHR | 0o666, libc::makedev(1, 3)) };
    assert_eq!(r, 0, "mknod: {}", std::io::Error::last_os_error());
}

/// What kind of file is at `path` (not following a link), and its mode.
fn kind(path: &Path) -> (&'static str, u32) {
    let m = fs::symlink_metadata(path).unwrap();
    let t = m.file_type();
    let k = if t.is_char_device() && m.rdev() == libc::makedev(1, 3) {
        "null device"
    } else if t.is_fifo() {
        "fifo"
    } else if t.is_socket() {
        "socket"
    } else if t.is_file() {
        "regular file"
    } else {
        "other"
    };
    (k, m.permissions().mode() & 0o7777)
}

/// Every command that writes a file it is given (`-o FILE`, or a file in `-o DIR`), with
/// that file a copy of /dev/null (as root) or a FIFO: written through as a shell
/// redirection would (the FIFO's reader gets the bytes a regular file gets), never renamed
/// over or chmod-ed; a socket there is refused with a clear error. A build's output (`kiln build`, `kiln aig`) that is
/// not a regular file is refused at once (a FIFO without a reader does not hang it).
#[test]
fn outputs_that_are_devices_or_fifos_are_written_through_never_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let ex = cli::example();
    let blif = repo("tests/data/daemon/blif_lib/extsi/5/6/extsi.blif");
    // Each command: its arguments, then the file it writes (`-o FILE`), or the option
    // that names its output directory and the file it writes there.
    let (ex, blif) = (ex.as_os_str(), blif.as_os_str());
    let commands: [(&str, Vec<&OsStr>, Option<&str>, &str); 3] = [
        (
            "parse",
            [os(&["parse", "--emit", "json"]), vec![ex]].concat(),
            None,
            "p.json",
        ),
        (
            "graph",
            [os(&["graph", "--func", "flow_burst_add"]), vec![ex]].concat(),
            None,
            "g.dot",
        ),
        ("man", os(&["man"]), Some("-o"), "kiln.1"),
    ];
    let make = |args: &[&OsStr], dir_flag: Option<&str>, file: &str, dir: &Path| {
        let mut c = cli::kiln();
        c.args(args);
        match dir_flag {
            Some(flag) => c.arg(flag).arg(dir),
            None => c.arg("-o").arg(dir.join(file)),
        };
        (c, dir.join(file))
    };
    let root = support::root_or_skip("a mknod copy of /dev/null");
    for (name, args, dir_flag, file) in &commands {
        let make = |dir: &Path| make(args, *dir_flag, file, dir);
        // The bytes a regular file gets.
        let plain = d.join(format!("{name}-plain"));
        fs::create_dir(&plain).unwrap();
        let (mut c, out) = make(&plain);
        let o = run(&mut c, Duration::from_secs(30));
        assert_eq!(o.status.code(), Some(0), "{name}: {}", stderr(&o));
        let want = fs::read(&out).unwrap();

        if root {
            let at = d.join(format!("{name}-null"));
            fs::create_dir(&at).unwrap();
            let (mut c, out) = make(&at);
            mknod_null(&out);
            let before = kind(&out);
            let o = run(&mut c, Duration::from_secs(30));
            assert_eq!(o.status.code(), Some(0), "{name}: {}", stderr(&o));
            assert_eq!(
                kind(&out),
                before,
                "{name}: the device was replaced or chmod-ed"
            );
        }

        let at = d.join(format!("{name}-fifo"));
        fs::create_dir(&at).unwrap();
        let (mut c, out) = make(&at);
        support::mkfifo(&out);
        let before = kind(&out);
        let (tx, rx) = std::sync::mpsc::channel();
        let reader = out.clone();
        std::thread::spawn(move || {
            let _ = tx.send(fs::read(reader));
        });
        let o = run(&mut c, Duration::from_secs(30));
        assert_eq!(o.status.code(), Some(0), "{name}: {}", stderr(&o));
        assert_eq!(kind(&out), before, "{name}: the FIFO was replaced");
        let got = rx.recv_timeout(Duration::from_secs(10));
        assert!(
            matches!(&got, Ok(Ok(b)) if *b == want),
            "{name}: the FIFO's reader got {:?}",
            got.map(|r| r.map(|b| b.len()))
        );

        let at = d.join(format!("{name}-socket"));
        fs::create_dir(&at).unwrap();
        let (mut c, out) = make(&at);
        let _listener = std::os::unix::net::UnixListener::bind(&out).unwrap();
        let o = run(&mut c, Duration::from_secs(30));
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{name}: {e}");
        assert!(
            e.contains("socket") && e.contains(out.to_str().unwrap()),
            "{name}: {e}"
        );
        assert_eq!(kind(&out).0, "socket", "{name}");
    }

    // A build's outputs (`kiln build`, and `kiln aig`, a build of BLIF inputs): refused,
    // not replaced, and no wait for a FIFO's reader.
    type Make = fn(&Path);
    let specials: [(&str, &OsStr, &str, Make, &str); 4] = [
        (
            "build",
            ex,
            "flow_burst_add.rules.json",
            support::mkfifo,
            "FIFO",
        ),
        (
            "build",
            ex,
            "flow_burst_add.cmt2.mlir",
            mknod_null,
            "character device",
        ),
        ("aig", blif, "extsi.aig", support::mkfifo, "FIFO"),
        ("aig", blif, "extsi.aig", mknod_null, "character device"),
    ];
    for (command, input, file, make, what) in specials {
        if what != "FIFO" && !root {
            continue;
        }
        let out = d.join(format!("{command}-{what}-{file}"));
        fs::create_dir(&out).unwrap();
        make(&out.join(file));
        let before = kind(&out.join(file));
        let o = run(
            cli::kiln().args([command, "-o"]).arg(&out).arg(input),
            Duration::from_secs(30),
        );
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{e}");
        assert!(e.contains(file) && e.contains(what), "{e}");
        assert_eq!(kind(&out.join(file)), before);
    }
}
