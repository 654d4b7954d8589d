//! `kiln build --remote-cache` when the cache cannot be used, through the `kiln` binary: an
//! unavailable cache (refused, blackholed, TLS to a plain port) is one warning line and the
//! build succeeds with the same outputs as without a cache; the auth header given through
//! the environment appears nowhere in the output, even at `RUST_LOG=trace`; wrong remote
//! settings are usage errors that quote no secret; a hostile cache (endless bodies, blobs
//! that do not match their digests) is one warning line per build, on stderr and in the
//! daemon's log alike. (The tier against TLS servers that check the header: `kiln-cache`'s
//! `remote::tls_tests`, and `scripts/bazel_test.sh`.)

mod cli;
#[path = "../../tests/support/hostile.rs"]
mod support;

use std::io::Write;
use std::net::TcpListener;
use std::path::Path;
use std::process::Output;
use std::time::Instant;

const TOKEN: &str = "kiln-cli-test-token-93d1e0";

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The files under `dir`, by name, with their bytes.
fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let name = e.file_name().to_string_lossy().into_owned();
            (name, std::fs::read(e.path()).unwrap())
        })
        .collect();
    v.sort();
    v
}

#[test]
fn an_unavailable_cache_is_one_warning_and_the_build_succeeds() {
    let dir = tempfile::tempdir().unwrap();
    let reference = dir.path().join("ref");
    cli::ok(
        cli::kiln()
            .args(["build", "--no-daemon", "--out-dir"])
            .arg(&reference)
            .arg(cli::example()),
    );
    let hole = support::blackhole();
    let plain = TcpListener::bind("127.0.0.1:0").unwrap(); // accepts, never speaks TLS
    let plain = plain.local_addr().unwrap().port();
    for (i, url) in [
        "http://127.0.0.1:1".to_string(),
        "grpcs://127.0.0.1:1".to_string(),
        format!("https://127.0.0.1:{hole}"),
        format!("grpc://127.0.0.1:{hole}"),
        format!("https://127.0.0.1:{plain}"),
    ]
    .iter()
    .enumerate()
    {
        for log in ["", "trace"] {
            let out = dir.path().join(format!("out-{i}-{log}"));
            let mut cmd = cli::kiln();
            cmd.args(["build", "--remote-cache", url, "--cache-dir"])
                .arg(dir.path().join(format!("cache-{i}-{log}")))
                .arg("--out-dir")
                .arg(&out)
                .arg(cli::example())
                .env(
                    "KILN_REMOTE_HEADER",
                    format!("Authorization=Bearer {TOKEN}"),
                )
                .env_remove("RUST_LOG");
            if !log.is_empty() {
                cmd.env("RUST_LOG", log);
            }
            let t = Instant::now();
            let o = cli::ok(&mut cmd);
            let err = stderr(&o);
            eprintln!(
                "{url} (RUST_LOG={log:?}): {:?}, {} stderr lines",
                t.elapsed(),
                err.lines().count()
            );
            assert!(!err.contains(TOKEN), "{url}: the token was printed");
            assert_eq!(files(&out), files(&reference), "{url}: outputs differ");
            if log.is_empty() {
                let warnings: Vec<&str> = err
                    .lines()
                    .filter(|l| l.starts_with("kiln: warning:"))
                    .collect();
                assert_eq!(warnings.len(), 1, "{url}:\n{err}");
                assert!(warnings[0].contains(url.as_str()), "{}", warnings[0]);
                assert_eq!(
                    err.lines().count(),
                    2,
                    "one warning and the cache summary:\n{err}"
                );
            }
        }
    }
}

#[test]
fn wrong_remote_settings_are_usage_errors_quoting_no_secret() {
    let dir = tempfile::tempdir().unwrap();
    let build = |args: &[&str]| {
        cli::kiln()
            .args(["build", "--out-dir"])
            .arg(dir.path().join("out"))
            .args(args)
            .arg(cli::example())
            .output()
            .unwrap()
    };
    let bearer = format!("Authorization: Bearer {TOKEN}");
    let bad_value = format!("x-key={TOKEN}\u{7}");
    let in_url = format!("https://user:{TOKEN}@127.0.0.1:1");
    let missing = dir.path().join("missing-ca.pem");
    let missing = missing.to_str().unwrap();
    for (args, says) in [
        (
            vec![
                "--remote-cache",
                "https://127.0.0.1:1",
                "--remote-header",
                &bearer,
            ],
            "NAME=VALUE",
        ),
        (
            vec![
                "--remote-cache",
                "https://127.0.0.1:1",
                "--remote-header",
                &bad_value,
            ],
            "`x-key`",
        ),
        (vec!["--remote-cache", &in_url], "--remote-header"),
        (
            vec![
                "--remote-cache",
                "https://127.0.0.1:1",
                "--remote-ca",
                missing,
            ],
            missing,
        ),
        (
            vec![
                "--remote-cache",
                "http://127.0.0.1:1",
                "--remote-ca",
                "/dev/null",
            ],
            "/dev/null",
        ),
        (vec!["--remote-cache", "ftp://127.0.0.1:1"], "grpc[s]://"),
    ] {
        let o = build(&args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(
            !err.contains(TOKEN),
            "{args:?}: the token was printed: {err}"
        );
    }
    // `--help` names the environment variable but hides its value.
    let o = cli::ok(cli::kiln().args(["build", "--help"]).env(
        "KILN_REMOTE_HEADER",
        format!("Authorization=Bearer {TOKEN}"),
    ));
    let help = String::from_utf8_lossy(&o.stdout);
    assert!(help.contains("KILN_REMOTE_HEADER"), "{help}");
    assert!(!help.contains(TOKEN), "{help}");
}

/// A hostile Bazel HTTP cache on loopback: every action result names a 1 KiB blob, whose
/// body never ends (`endless`) or is 1 KiB that does not match its digest; uploads are
/// accepted. Its URL.
fn hostile(endless: bool) -> String {
    support::http_server(move |mut s, path| {
        if path.contains("/ac/") {
            // An ActionResult (field 2: an OutputFile with path field 1 and a Digest,
            // field 2: hash field 1, size_bytes field 2 = 1024).
            let mut digest = vec![0x0a, 64];
            digest.extend_from_slice("ab".repeat(32).as_bytes());
            digest.extend_from_slice(&[0x10, 0x80, 0x08]);
            let name = b"kiln-cache-entry";
            let mut file = vec![0x0a, name.len() as u8];
            file.extend_from_slice(name);
            file.extend_from_slice(&[0x12, digest.len() as u8]);
            file.extend_from_slice(&digest);
            let mut ar = vec![0x12, file.len() as u8];
            ar.extend_from_slice(&file);
            support::http_ok(&mut s, &ar);
        } else if path.contains("/cas/") && endless {
            let _ = s.write_all(b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n");
            let chunk = vec![0u8; 64 * 1024];
            while s.write_all(&chunk).is_ok() {}
        } else if path.contains("/cas/") {
            support::http_ok(&mut s, &[b'x'; 1024]);
        } else {
            support::http_ok(&mut s, b"");
        }
    })
}

/// A generated 24-function APS module in `dir`: many cached queries, so many lookups.
fn generated(dir: &Path) -> std::path::PathBuf {
    cli::gen_aps(&dir.join("gen.mlir"), 24, 3)
}

/// The lines of `text` that warn about the cache at `url`.
fn warnings<'a>(text: &'a str, url: &str) -> Vec<&'a str> {
    text.lines()
        .filter(|l| (l.contains("warning") || l.contains("WARN")) && l.contains(url))
        .collect()
}

#[test]
fn a_hostile_cache_is_one_warning_line_per_build() {
    let dir = tempfile::tempdir().unwrap();
    let input = generated(dir.path());
    for (i, endless) in [true, false].into_iter().enumerate() {
        let url = hostile(endless);
        let o = cli::ok(
            cli::kiln()
                .args(["build", "--remote-cache", &url, "--cache-dir"])
                .arg(dir.path().join(format!("cache-{i}")))
                .arg("--out-dir")
                .arg(dir.path().join(format!("out-{i}")))
                .arg(&input)
                .env_remove("RUST_LOG"),
        );
        let err = stderr(&o);
        let warned = warnings(&err, &url);
        assert_eq!(
            warned.len(),
            1,
            "endless {endless}: {} lines:\n{err}",
            err.lines().count()
        );
        assert!(
            warned[0].starts_with("kiln: warning: remote cache "),
            "{}",
            warned[0]
        );
        assert!(warned[0].contains("entries rejected"), "{}", warned[0]);
        assert_eq!(
            err.lines().count(),
            2,
            "one warning and the cache summary:\n{err}"
        );
        let summary = err
            .lines()
            .find(|l| l.contains("; cache: lookups"))
            .unwrap();
        let rejected: u64 = summary
            .split(", ")
            .find_map(|p| p.strip_prefix("rejected "))
            .and_then(|n| n.parse().ok())
            .unwrap();
        assert!(rejected >= 24, "{summary}");
    }
}

#[test]
fn a_hostile_cache_is_one_warning_line_per_build_in_the_daemon_log() {
    let env = cli::Daemon::new();
    let input = generated(&env.ws());
    let url = hostile(false);
    // The workspace's daemon, with the remote tier (stopped by `env`'s drop).
    let mut daemon = env
        .kiln()
        .args(["daemon", "--remote-cache", &url])
        .env_remove("KILN_REMOTE_CACHE")
        .env_remove("RUST_LOG")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while env.status().is_none() {
        assert!(started.elapsed().as_secs() < 30, "the daemon did not start");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let o = cli::ok(
        env.kiln()
            .args(["build", "--out-dir", "out"])
            .arg(&input)
            .env_remove("KILN_REMOTE_CACHE")
            .env_remove("RUST_LOG"),
    );
    assert!(warnings(&stderr(&o), &url).is_empty(), "{}", stderr(&o));
    let status = env.status().expect("the daemon runs");
    let socket = Path::new(status["socket"].as_str().unwrap());
    let log = std::fs::read_to_string(socket.parent().unwrap().join("daemon.log")).unwrap();
    let warned = warnings(&log, &url);
    assert_eq!(
        warned.len(),
        1,
        "{} warning lines:\n{}",
        warned.len(),
        warned.join("\n")
    );
    assert!(warned[0].contains("entries rejected"), "{}", warned[0]);
    let stats = cli::ok(env.kiln().args(["stats", "--json"]));
    let stats: serde_json::Value = serde_json::from_slice(&stats.stdout).unwrap();
    assert!(stats["remote"]["rejected"].as_u64() >= Some(24), "{stats}");
    cli::ok(env.kiln().arg("shutdown"));
    let _ = daemon.wait();
}

/// A cached build takes what `kiln build` takes (a Handshake design with its library,
/// `--emit sv`), writes the same bytes, and ends with `kiln build`'s one summary line,
/// the cache's activity at its end (here with a server that is not there).
#[test]
fn cached_builds_take_every_input_and_print_one_summary_line() {
    let dir = tempfile::tempdir().unwrap();
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/handshake");
    let gcd = data.join("export_gcd.mlir");
    let lib = data.join("library");
    let example = cli::example();
    for (input, extra) in [
        (
            &gcd,
            vec!["--blif-lib".to_string(), lib.display().to_string()],
        ),
        (&example, vec!["--emit".into(), "sv".into()]),
    ] {
        let (cached, plain) = (dir.path().join("cached"), dir.path().join("plain"));
        let o = cli::ok(
            cli::kiln()
                .args([
                    "build",
                    "--remote-cache",
                    "http://127.0.0.1:1",
                    "--cache-dir",
                ])
                .arg(dir.path().join("cache"))
                .arg("-o")
                .arg(&cached)
                .args(&extra)
                .arg(input),
        );
        let err = stderr(&o);
        let built: Vec<&str> = err.lines().filter(|l| l.contains("Built ")).collect();
        assert_eq!(built.len(), 1, "{err}");
        assert!(
            built[0].contains("[in process, cached]") && built[0].contains("; cache: lookups "),
            "{err}"
        );
        assert!(!err.contains("kiln: cache:"), "{err}");
        cli::ok(
            cli::kiln()
                .arg("build")
                .arg("-o")
                .arg(&plain)
                .args(&extra)
                .arg(input),
        );
        assert_eq!(files(&cached), files(&plain), "{input:?}");
    }
}

/// A failed build through the cached pipeline ends with the closing line of `kiln build`,
/// naming the input as the user named it.
#[test]
fn a_failed_cached_build_names_its_input() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.mlir");
    std::fs::write(&bad, "module {\n  %x = \n}\n").unwrap();
    let o = cli::kiln()
        .args([
            "build",
            "--remote-cache",
            "http://127.0.0.1:1",
            "--cache-dir",
        ])
        .arg(dir.path().join("cache"))
        .arg("--out-dir")
        .arg(dir.path().join("out"))
        .arg(&bad)
        .output()
        .unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    let want = format!("error: could not build `{}` (1 error, ", bad.display());
    assert!(err.lines().any(|l| l.starts_with(&want)), "{err}");
}
