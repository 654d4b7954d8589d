//! `kiln build --remote-cache` when the cache cannot be used, through the `kiln` binary: an
//! unavailable cache (refused, blackholed, TLS to a plain port) is one warning line and the
//! build succeeds with the same outputs as without a cache; the auth header given through
//! the environment appears nowhere in the output, even at `RUST_LOG=trace`; wrong remote
//! settings are usage errors that quote no secret. (The tier against TLS servers that check
//! the header: `kiln-cache`'s `remote::tls_tests`, and `scripts/bazel_test.sh`.)

mod cli;
#[path = "../../tests/support/hostile.rs"]
mod support;

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
