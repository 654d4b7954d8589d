//! Resource bounds on inputs that grow without bound: a 10^5-op Handshake chain, a 10 MB op
//! name, a 10^6-deep BLIF hierarchy, an endless standard input and a 10^7-character token
//! (generated at test time). Every `kiln` here runs with 2 GiB of address space
//! (`RLIMIT_AS`, what `prlimit --as=2G` sets) and either builds within it or fails with a
//! located limit error in under 5 s. Through a daemon, which inherits the limit from the
//! client that starts it, the daemon is alive afterwards and builds the next input. And
//! every command that lowers BLIF, the daemon included, takes the limits of the command
//! line.

mod cli;

use cli::Daemon;
use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The address space of every `kiln` run here.
const ADDRESS_SPACE: u64 = 2 << 30;
/// How long a refusal may take before it counts as a hang. Not a performance figure (those
/// are benchmarks): unloaded, every refusal here takes 0.1–2.1 s, and the earlier code ran
/// these inputs for minutes or until memory ran out; a loaded 2-core CI machine took 5.3 s.
const QUICK: Duration = Duration::from_secs(60);

/// One test at a time: each runs inputs of hundreds of megabytes, and a refusal is timed.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn alone() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
}

/// `cmd` with its address space limited to `bytes` (and its children's: a daemon it starts).
fn limited(mut cmd: Command, bytes: u64) -> Command {
    // SAFETY: setrlimit is async-signal-safe and touches only the child's own limits.
    unsafe {
        cmd.pre_exec(move || {
            let lim = libc::rlimit {
                rlim_cur: bytes,
                rlim_max: bytes,
            };
            match libc::setrlimit(libc::RLIMIT_AS, &lim) {
                0 => Ok(()),
                _ => Err(std::io::Error::last_os_error()),
            }
        });
    }
    cmd
}

/// What a thread writes to a command's standard input.
type Feed = Box<dyn FnOnce(std::process::ChildStdin) + Send>;

/// Run `cmd` (with `stdin` written to it by a thread, if any), killed after a minute (a
/// hang is a failure, not a stuck test); its output and how long it took.
fn run(mut cmd: Command, stdin: Option<Feed>) -> (Output, Duration) {
    let start = Instant::now();
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    cmd.stdin(match stdin {
        Some(_) => Stdio::piped(),
        None => Stdio::null(),
    });
    let mut child = cmd.spawn().expect("kiln starts");
    if let (Some(feed), Some(pipe)) = (stdin, child.stdin.take()) {
        std::thread::spawn(move || feed(pipe));
    }
    let read = |pipe: Option<Box<dyn std::io::Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut p) = pipe {
                let _ = p.read_to_end(&mut bytes);
            }
            bytes
        })
    };
    let out = read(child.stdout.take().map(|p| Box::new(p) as _));
    let err = read(child.stderr.take().map(|p| Box::new(p) as _));
    let status = loop {
        if let Some(status) = child.try_wait().expect("kiln runs") {
            break status;
        }
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("{cmd:?} still running after a minute");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let took = start.elapsed();
    let output = Output {
        status,
        stdout: out.join().unwrap(),
        stderr: err.join().unwrap(),
    };
    (output, took)
}

/// The `line:col` of the first `needle` in `text` (the column in characters).
fn place_of(text: &str, needle: &str) -> String {
    let at = text
        .find(needle)
        .unwrap_or_else(|| panic!("`{needle}` not in the text"));
    let line_start = text[..at].rfind('\n').map_or(0, |n| n + 1);
    let line = text[..at].matches('\n').count() + 1;
    format!("{line}:{}", text[line_start..at].chars().count() + 1)
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `run` must have failed quickly with a located limit error naming `flag` at `place`
/// (`file:line:col`, or `file` for a message about the whole input).
fn refused(what: &str, (out, took): (Output, Duration), place: &str, flag: &str) {
    let e = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{what}: {e}");
    assert!(
        e.contains(&format!("{place}: error: ")),
        "{what}: not at {place}: {e}"
    );
    assert!(e.contains(flag) && e.contains("[E0004]"), "{what}: {e}");
    assert!(e.len() < 4000, "{what}: {} bytes of diagnostics", e.len());
    assert!(took < QUICK, "{what}: refused after {took:?}");
}

fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(rel)
}

/// The library of the in-repo Handshake samples.
fn library() -> PathBuf {
    repo("tests/data/handshake/library")
}

fn chain(n: usize, name: impl Fn(usize) -> String) -> String {
    compiler::handshake::generate::buffer_chain(n, name)
}

/// A chain of three buffers, the second named with `len` bytes.
fn named(len: usize) -> String {
    let huge = "n".repeat(len);
    chain(3, |i| match i {
        1 => huge.clone(),
        _ => format!("b{i}"),
    })
}

/// `kiln ARGS` in process, with 2 GiB of address space.
fn kiln(args: &[&str], paths: &[&Path]) -> Command {
    let mut c = cli::kiln();
    c.args(args).args(paths);
    limited(c, ADDRESS_SPACE)
}

/// `kiln CMD --blif-lib LIB -o OUT FILE` of a Handshake design, with the in-repo library.
fn handshake(cmd: &str, out: &Path, f: &Path) -> Command {
    let mut c = cli::kiln();
    c.args([cmd, "--blif-lib"])
        .arg(library())
        .arg("-o")
        .arg(out)
        .arg(f);
    c
}

/// The outputs in directory `dir` (not the writer's hidden files) and their bytes, by name.
fn files(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    (std::fs::read_dir(dir).unwrap())
        .map(|e| e.unwrap())
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect()
}

#[test]
fn a_handshake_chain_past_the_op_limit_is_refused_quickly() {
    let _alone = alone();
    // The outputs of a short chain, which the refused builds leave as they are.
    let (dir, f) = cli::temp_file("chain.mlir", chain(10, |i| format!("buffer{i}")));
    let out = dir.path().join("out");
    let (o, _) = run(handshake("synth", &out, &f), None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let before = files(&out);
    assert_eq!(before.len(), 4, "{:?}", before.keys());
    std::fs::write(&f, chain(100_000, |i| format!("buffer{i}"))).unwrap();
    // The first op past the limit (50,000) is on line 50,003.
    let place = format!("{}:50003:5", f.display());
    for cmd in ["synth", "build"] {
        let c = limited(handshake(cmd, &out, &f), ADDRESS_SPACE);
        refused(cmd, run(c, None), &place, "--max-ops");
        assert!(files(&out) == before, "{cmd} changed the outputs");
    }
}

#[test]
fn a_handshake_chain_within_the_limits_builds_in_bounded_memory() {
    let _alone = alone();
    // 10,000 32-bit buffers write 191 MB; the peak is about 1.4 times the outputs (272 MB
    // measured), within 512 MiB of address space.
    let (dir, f) = cli::temp_file("chain.mlir", chain(10_000, |i| format!("buffer{i}")));
    let out = dir.path().join("out");
    let (o, _) = run(limited(handshake("synth", &out, &f), 512 << 20), None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let total: u64 = (std::fs::read_dir(&out).unwrap())
        .map(|e| e.unwrap().metadata().unwrap().len())
        .sum();
    assert!(total > 150 << 20, "{total} bytes of outputs");
}

#[test]
fn a_ten_megabyte_name_is_refused_quickly() {
    let _alone = alone();
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("named.mlir");
    let text = named(10_000_000);
    std::fs::write(&f, &text).unwrap();
    let out = dir.path().join("out");
    let place = format!(
        "{}:{}",
        f.display(),
        place_of(&text, "handshake.name = \"nnn")
    );
    refused(
        "synth",
        run(limited(handshake("synth", &out, &f), ADDRESS_SPACE), None),
        &place,
        "--max-name-len",
    );
}

#[test]
fn a_million_deep_blif_hierarchy_is_refused_quickly_by_every_command() {
    let _alone = alone();
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("deep.blif");
    std::fs::write(&f, compiler::blif::generate::and_chain(1_000_000)).unwrap();
    let out = dir.path().join("out");
    // `.subckt m100001` in model m100000, 7 lines a model.
    let place = format!("{}:700004:9", f.display());
    for cmd in ["aig", "build"] {
        let args = [cmd, "-o", out.to_str().unwrap()];
        refused(cmd, run(kiln(&args, &[&f]), None), &place, "--max-depth");
    }
}

#[test]
fn every_command_that_lowers_blif_takes_the_depth_limit_of_its_command_line() {
    let _alone = alone();
    let env = Daemon::new();
    let f = env.ws().join("src/deep.blif");
    std::fs::write(&f, compiler::blif::generate::and_chain(30)).unwrap();
    let place = format!("{}:74:9", f.display());
    let deep = |mut c: Command, what: &str| {
        c.args(["--max-depth", "10", "-o", "out"]).arg(&f);
        refused(what, run(c, None), &place, "--max-depth");
    };
    let mut aig = env.kiln();
    aig.arg("aig");
    deep(aig, "aig");
    let mut one_shot = env.kiln_no_daemon();
    one_shot.arg("build");
    deep(one_shot, "build --no-daemon");
    let mut daemon = env.kiln();
    daemon.arg("build");
    deep(daemon, "build through the daemon");
    // A build-system worker (one action, through the daemon) takes its own flags.
    std::fs::write(
        env.ws().join("deep.params"),
        "src/deep.blif\n--out-dir\nout\n",
    )
    .unwrap();
    let mut worker = env.kiln();
    worker.args(["worker", "--max-depth", "10", "@deep.params"]);
    let (o, took) = run(worker, None);
    let text = String::from_utf8_lossy(&[o.stdout, o.stderr].concat()).into_owned();
    assert_eq!(o.status.code(), Some(1), "worker: {text}");
    assert!(
        text.contains("src/deep.blif:74:9: error: ") && text.contains("--max-depth"),
        "{text}"
    );
    assert!(took < QUICK, "worker: {took:?}");
    // Without the flag, the daemon's own limits are the defaults again.
    let (o, _) = run(
        {
            let mut c = env.kiln();
            c.args(["build", "-o", "out"]).arg(&f);
            c
        },
        None,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // A `kiln.toml` limit reaches the daemon with the request too.
    std::fs::write(env.ws().join("kiln.toml"), "[limits]\nmax_depth = 10\n").unwrap();
    let mut c = env.kiln();
    c.args(["build", "-o", "out"]).arg(&f);
    refused("kiln.toml", run(c, None), &place, "max_depth");
}

#[test]
fn an_endless_standard_input_is_refused_at_the_size_limit() {
    let _alone = alone();
    let endless = || -> Feed {
        Box::new(|mut pipe| {
            let chunk = vec![b'x'; 1 << 20];
            while pipe.write_all(&chunk).is_ok() {}
        })
    };
    // The default limit (1 GiB) within 2 GiB of address space: read, never held twice.
    refused(
        "default",
        run(kiln(&["parse", "-"], &[]), Some(endless())),
        "-",
        "--max-input-size",
    );
    let small = kiln(&["parse", "--max-input-size", "1M", "-"], &[]);
    refused("1M", run(small, Some(endless())), "-", "--max-input-size");
}

#[test]
fn a_long_token_is_shortened_in_every_message_format() {
    let _alone = alone();
    let (_dir, f) = cli::temp_file("token.mlir", format!("%0 = {}\n", "a".repeat(10_000_000)));
    for format in ["human", "json"] {
        let (o, took) = run(kiln(&["parse", "--message-format", format], &[&f]), None);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        let text = [o.stdout.as_slice(), o.stderr.as_slice()].concat();
        let text = String::from_utf8_lossy(&text);
        let longest = text.lines().map(str::len).max().unwrap_or(0);
        assert!(longest < 1000, "{format}: a line of {longest} bytes");
        assert!(
            text.contains("a…a") && text.contains("a' (10000000 bytes)"),
            "{format}: {text}"
        );
        assert!(took < QUICK, "{format}: {took:?}");
        if format == "json" {
            let line = String::from_utf8_lossy(&o.stdout);
            let v: serde_json::Value = serde_json::from_str(line.lines().next().unwrap()).unwrap();
            assert_eq!(v["line"], 1);
        }
    }
}

#[test]
fn the_daemon_survives_each_input_and_builds_the_next() {
    let _alone = alone();
    let env = Daemon::new();
    let src = env.ws().join("src");
    let lib = library();
    let lib = lib.to_str().unwrap();
    let write = |name: &str, text: String| {
        let f = src.join(name);
        std::fs::write(&f, text).unwrap();
        f
    };
    let gcd = src.join("gcd.mlir");
    std::fs::copy(repo("tests/data/handshake/export_gcd.mlir"), &gcd).unwrap();
    let build = |f: &Path| {
        let mut c = env.kiln();
        c.args(["build", "--blif-lib", lib, "-o", "out"]).arg(f);
        run(limited(c, ADDRESS_SPACE), None)
    };
    // The first build starts the daemon (under the client's limit).
    let (o, _) = build(&gcd);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let pid = env.daemon_pid().expect("a daemon runs");
    let name_at = place_of(&named(10), "handshake.name = \"nnn");
    let inputs = [
        (
            write("chain.mlir", chain(100_000, |i| format!("b{i}"))),
            "50003:5".to_string(),
            "--max-ops",
        ),
        (
            write("named.mlir", named(10_000_000)),
            name_at,
            "--max-name-len",
        ),
        (
            write("deep.blif", compiler::blif::generate::and_chain(1_000_000)),
            "700004:9".to_string(),
            "--max-depth",
        ),
    ];
    for (f, at, flag) in &inputs {
        let place = format!("{}:{at}", f.display());
        refused(&f.display().to_string(), build(f), &place, flag);
        assert_eq!(
            env.daemon_pid(),
            Some(pid),
            "the daemon died on {}",
            f.display()
        );
        std::fs::remove_dir_all(env.ws().join("out")).unwrap();
        let (o, _) = build(&gcd);
        assert_eq!(
            o.status.code(),
            Some(0),
            "after {}: {}",
            f.display(),
            stderr(&o)
        );
        assert!(env.ws().join("out/gcd.hier.blif").is_file());
    }
}
