//! The editor snippets of README.md's *Editors* section, as written there. Each Neovim
//! snippet is the init file of a headless Neovim (Debian's `neovim`) and the Emacs snippet is
//! loaded in batch Emacs with eglot (`emacs-nox`, `elpa-eglot`); the editor opens an APS file
//! with an undefined value, and `kiln build`'s diagnostic for it (code, message, line and
//! column) must arrive in the editor's diagnostics, from the workspace's daemon. The Helix
//! snippet must be valid TOML of Helix's `languages.toml` shape.
//!
//! Each editor run has its own workspace, daemon, home, config and state directories, stops
//! its daemon, and is killed when it has not finished in time.

mod cli;
#[path = "../../compiler/tests/common/mod.rs"]
mod common;

use cli::Daemon;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// How long a driver waits in the editor for diagnostics, and how long the test waits for
/// the editor to exit (the daemon's first start included).
const WAIT_MS: u64 = 60_000;
const EDITOR_TIMEOUT: Duration = Duration::from_secs(120);
/// How long `nvim --version`, Emacs's eglot check and `kiln build` may take.
const PROBE_TIMEOUT: Duration = Duration::from_secs(60);

/// The body of the first fenced block after the README line starting with `heading`.
fn readme_block(heading: &str) -> String {
    let readme = std::fs::read_to_string(common::repo_root().join("README.md")).unwrap();
    let at = readme
        .lines()
        .position(|l| l.starts_with(heading))
        .unwrap_or_else(|| panic!("README.md has no line {heading:?}"));
    let mut lines = readme
        .lines()
        .skip(at)
        .skip_while(|l| !l.starts_with("```"));
    let fence = lines.next().unwrap_or_default();
    assert!(
        fence.starts_with("```"),
        "no fenced block after {heading:?}"
    );
    let body: Vec<&str> = lines.take_while(|l| *l != "```").collect();
    body.join("\n") + "\n"
}

const NVIM_07: &str = "Neovim 0.7 to 0.9 (Debian 12 ships 0.7.2):";
const NVIM_010: &str = "Neovim 0.10+ (`vim.lsp.start`; on 0.7 it does not exist):";
const EMACS: &str = "Emacs 29+, or 28 with eglot (Debian 12: `elpa-eglot`)";
const HELIX: &str = "Helix 23.10+ (`languages.toml`; `mlir` is built in, `blif` is not):";

/// Neovim's version `(major, minor)`; `None` (skipped) when `nvim` is missing outside CI, a
/// failure under CI.
fn nvim_version() -> Option<(u32, u32)> {
    let out = output_within(Command::new("nvim").arg("--version"), PROBE_TIMEOUT);
    let Some(out) = out.ok().filter(|o| o.status.success()) else {
        assert!(
            !common::strict(),
            "nvim missing: run scripts/setup.sh (Debian package neovim)"
        );
        eprintln!("skipping: nvim (Debian package neovim) not installed");
        return None;
    };
    let text = String::from_utf8_lossy(&out.stdout);
    let v = text
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("NVIM v"))
        .unwrap_or_else(|| panic!("unexpected nvim --version: {text}"));
    let mut parts = v.split(['.', '-']).map(|p| p.parse::<u32>().unwrap_or(0));
    Some((parts.next().unwrap_or(0), parts.next().unwrap_or(0)))
}

/// Whether Emacs with eglot (built in from Emacs 29, Debian's `elpa-eglot` before) runs
/// here; false (skipped) when missing outside CI, a failure under CI.
fn emacs_with_eglot() -> bool {
    let mut probe = Command::new("emacs");
    probe
        .args([
            "--batch",
            "-q",
            "--eval",
            "(progn (package-initialize) (require 'eglot))",
        ])
        .stdin(Stdio::null());
    let usable = output_within(&mut probe, PROBE_TIMEOUT).is_ok_and(|o| o.status.success());
    assert!(
        usable || !common::strict(),
        "emacs with eglot missing: run scripts/setup.sh (Debian packages emacs-nox, elpa-eglot)"
    );
    if !usable {
        eprintln!(
            "skipping: emacs with eglot (Debian packages emacs-nox, elpa-eglot) not installed"
        );
    }
    usable
}

/// Run after the file is loaded: waits for the buffer's diagnostics, writes them with the
/// time since Neovim started (`$KILN_EDITOR_OUT`, JSON) and quits, whatever happens.
const NVIM_DRIVER: &str = r#"
local ok, err = pcall(function()
  local got = vim.wait(tonumber(os.getenv("KILN_EDITOR_WAIT_MS")), function()
    return #vim.diagnostic.get(0) > 0
  end, 5)
  local ms = (vim.loop.hrtime() - KilnT0) / 1e6
  local diags = {}
  for _, d in ipairs(vim.diagnostic.get(0)) do
    local lsp = (d.user_data and d.user_data.lsp) or {}
    table.insert(diags, { lnum = d.lnum, col = d.col, severity = d.severity,
      message = d.message, code = d.code or lsp.code })
  end
  local names = {}
  for _, c in ipairs((vim.lsp.get_clients or vim.lsp.get_active_clients)()) do
    table.insert(names, c.name)
  end
  local f = io.open(os.getenv("KILN_EDITOR_OUT"), "w")
  f:write(vim.fn.json_encode({ arrived = got, ms = ms, clients = names,
    filetype = vim.bo.filetype, diagnostics = diags }))
  f:close()
end)
if not ok then
  io.stderr:write("driver: " .. tostring(err) .. "\n")
end
vim.cmd("qa!")
"#;

/// Loaded after the README snippet: visits the file, waits for its flymake diagnostics,
/// writes them with the time since Emacs started (`$KILN_EDITOR_OUT`, JSON) and exits. An
/// error ends batch Emacs too.
const EMACS_DRIVER: &str = r#"
;; Debian's elpa-eglot, activated as an interactive Emacs activates installed packages.
(package-initialize)
(load (getenv "KILN_EMACS_INIT") nil t)
(find-file (getenv "KILN_EMACS_FILE"))
;; eglot-ensure connects after the next command.
(run-hooks 'post-command-hook)
(let* ((wait (/ (string-to-number (getenv "KILN_EDITOR_WAIT_MS")) 1000.0))
       (deadline (+ (float-time) wait))
       diags)
  (while (and (null (setq diags (flymake-diagnostics))) (< (float-time) deadline))
    (accept-process-output nil 0.005))
  (let ((report
         `((arrived . ,(if diags t :json-false))
           (ms . ,(* 1000 (float-time (time-subtract nil before-init-time))))
           (mode . ,(symbol-name major-mode))
           (managed . ,(if (eglot-current-server) t :json-false))
           (diagnostics
            . ,(vconcat
                (mapcar (lambda (d)
                          (save-excursion
                            (goto-char (flymake-diagnostic-beg d))
                            `((line . ,(line-number-at-pos))
                              (col . ,(current-column))
                              (type . ,(symbol-name (flymake-diagnostic-type d)))
                              (text . ,(flymake-diagnostic-text d)))))
                        diags))))))
    (with-temp-file (getenv "KILN_EDITOR_OUT")
      (insert (json-encode report)))))
(kill-emacs 0)
"#;

/// A fresh directory `name` under `env`'s root for one editor run.
fn editor_dir(env: &Daemon, name: &str) -> PathBuf {
    let dir = env.root().join(name);
    for d in ["config", "data", "state", "cache", "home"] {
        std::fs::create_dir_all(dir.join(d)).unwrap();
    }
    dir
}

/// `program` in `env`'s workspace with `env`'s daemon directories and `kiln` (this build)
/// first on the path; its configuration and state directories under `dir`.
fn editor_command(env: &Daemon, program: &str, dir: &Path) -> Command {
    let kiln_dir = Path::new(env!("CARGO_BIN_EXE_kiln")).parent().unwrap();
    let path = std::env::join_paths(std::iter::once(kiln_dir.to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    let mut cmd = Command::new(program);
    for (k, v) in env.kiln().get_envs() {
        match v {
            Some(v) => cmd.env(k, v),
            None => cmd.env_remove(k),
        };
    }
    cmd.current_dir(env.ws())
        .env("PATH", path)
        .env("HOME", dir.join("home"))
        .env("XDG_CONFIG_HOME", dir.join("config"))
        .env("XDG_DATA_HOME", dir.join("data"))
        .env("XDG_STATE_HOME", dir.join("state"))
        .env("XDG_CACHE_HOME", dir.join("cache"))
        .env("KILN_EDITOR_OUT", dir.join("report.json"))
        .env("KILN_EDITOR_WAIT_MS", WAIT_MS.to_string());
    cmd
}

/// Opens `file` in a headless Neovim whose init file is `init`; the driver's report.
fn nvim_report(env: &Daemon, init: &str, file: &Path) -> Value {
    let dir = editor_dir(env, "nvim");
    let init_path = dir.join("init.lua");
    std::fs::write(&init_path, init).unwrap();
    let driver = dir.join("driver.lua");
    std::fs::write(&driver, NVIM_DRIVER).unwrap();
    let mut cmd = editor_command(env, "nvim", &dir);
    cmd.args(["--headless", "-n", "-i", "NONE"])
        .args(["--cmd", "lua KilnT0 = vim.loop.hrtime()"])
        .arg("-u")
        .arg(&init_path)
        .arg("-c")
        .arg(format!("luafile {}", driver.display()))
        .arg(file);
    run_editor(cmd, &dir)
}

/// Opens `file` in Emacs in batch mode with `init` loaded; the driver's report.
fn emacs_report(env: &Daemon, init: &str, file: &Path) -> Value {
    let dir = editor_dir(env, "emacs");
    let init_path = dir.join("init.el");
    std::fs::write(&init_path, init).unwrap();
    let driver = dir.join("driver.el");
    std::fs::write(&driver, EMACS_DRIVER).unwrap();
    let mut cmd = editor_command(env, "emacs", &dir);
    cmd.env("KILN_EMACS_INIT", &init_path)
        .env("KILN_EMACS_FILE", file)
        .args(["--batch", "-q", "-l"])
        .arg(&driver);
    run_editor(cmd, &dir)
}

/// Runs the editor `cmd`; the JSON report its driver wrote (`dir/report.json`).
fn run_editor(mut cmd: Command, dir: &Path) -> Value {
    let name = cmd.get_program().to_string_lossy().into_owned();
    let out = dir.join("report.json");
    let _ = std::fs::remove_file(&out);
    let started = Instant::now();
    let o = output_within(&mut cmd, EDITOR_TIMEOUT).expect("the editor starts");
    let report = std::fs::read_to_string(&out).unwrap_or_else(|_| {
        panic!(
            "{name} ({}) wrote no report; stderr: {} stdout: {}",
            o.status,
            String::from_utf8_lossy(&o.stderr),
            String::from_utf8_lossy(&o.stdout)
        )
    });
    eprintln!(
        "{name}: {report} (process {} ms)",
        started.elapsed().as_millis()
    );
    serde_json::from_str(&report).unwrap()
}

/// `cmd`'s output, read from files (never from pipes that a server it started could hold
/// open); it is killed, and the test fails, when it runs longer than `limit`. An error when
/// it cannot start.
fn output_within(cmd: &mut Command, limit: Duration) -> std::io::Result<Output> {
    let dir = tempfile::tempdir().unwrap();
    let file = |f: &str| std::fs::File::create(dir.path().join(f)).unwrap();
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(file("stdout"))
        .stderr(file("stderr"))
        .spawn()?;
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break Some(status);
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let read = |f: &str| std::fs::read(dir.path().join(f)).unwrap_or_default();
    let (stdout, stderr) = (read("stdout"), read("stderr"));
    let Some(status) = status else {
        panic!(
            "{:?} did not finish in {limit:?}; stderr: {} stdout: {}",
            cmd.get_program(),
            String::from_utf8_lossy(&stderr),
            String::from_utf8_lossy(&stdout)
        )
    };
    Ok(Output {
        status,
        stdout,
        stderr,
    })
}

/// `tests/data/aps/diag/undefined_value.mlir` in `env`'s workspace, with its expected
/// `(line, column, message)` (1-based, from its `// expect:` line).
fn erroneous_file(env: &Daemon) -> (PathBuf, (u64, u64, String)) {
    let src = common::data("aps/diag/undefined_value.mlir");
    let text = std::fs::read_to_string(&src).unwrap();
    let expect = text
        .lines()
        .next()
        .unwrap()
        .strip_prefix("// expect: ")
        .unwrap();
    let mut parts = expect.splitn(3, ':');
    let line = parts.next().unwrap().parse().unwrap();
    let col = parts.next().unwrap().parse().unwrap();
    let message = parts.next().unwrap().trim().to_string();
    let file = env.ws().join("src/undefined_value.mlir");
    std::fs::write(&file, text).unwrap();
    (file, (line, col, message))
}

/// The code of the one diagnostic `kiln build` reports for `file`, at `(line, col)`.
fn build_code(env: &Daemon, file: &Path, line: u64, col: u64) -> String {
    let mut cmd = env.kiln_no_daemon();
    cmd.arg("build")
        .arg(file)
        .args(["--message-format", "json", "-o"])
        .arg(env.root().join("out"));
    let out = output_within(&mut cmd, PROBE_TIMEOUT).unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let [v] = text.lines().collect::<Vec<_>>()[..] else {
        panic!("one diagnostic expected: {text}")
    };
    let v: Value = serde_json::from_str(v).unwrap();
    assert_eq!(
        (v["line"].as_u64(), v["col"].as_u64()),
        (Some(line), Some(col)),
        "{v}"
    );
    v["code"].as_str().unwrap().to_string()
}

/// The snippet, run verbatim in Neovim, delivers the file's one diagnostic.
fn check_snippet(heading: &str) {
    let env = Daemon::new();
    let (file, (line, col, message)) = erroneous_file(&env);
    let code = build_code(&env, &file, line, col);
    let report = nvim_report(&env, &readme_block(heading), &file);
    assert_eq!(report["arrived"], true, "{report}");
    assert_eq!(report["clients"], serde_json::json!(["kiln"]), "{report}");
    assert_eq!(report["filetype"], "mlir", "{report}");
    let diags = report["diagnostics"].as_array().unwrap();
    let [d] = diags.as_slice() else {
        panic!("{report}")
    };
    assert_eq!(d["code"], code.as_str(), "{d}");
    assert_eq!(d["message"], message.as_str(), "{d}");
    // Neovim's positions are 0-based (the column in bytes: the line is ASCII).
    assert_eq!(d["lnum"], line - 1, "{d}");
    assert_eq!(d["col"], col - 1, "{d}");
    assert_eq!(d["severity"], 1, "an error: {d}");
    assert!(
        env.daemon_pid().is_some(),
        "the workspace's daemon served the editor"
    );
}

#[test]
fn the_neovim_07_snippet_shows_a_diagnostic() {
    if nvim_version().is_none() {
        return;
    }
    check_snippet(NVIM_07);
}

#[test]
fn the_neovim_010_snippet_shows_a_diagnostic() {
    let Some(version) = nvim_version() else {
        return;
    };
    if version < (0, 10) {
        eprintln!(
            "skipping: the Neovim 0.10+ snippet needs vim.lsp.start; nvim is {}.{}",
            version.0, version.1
        );
        return;
    }
    check_snippet(NVIM_010);
}

#[test]
fn the_emacs_snippet_shows_a_diagnostic() {
    if !emacs_with_eglot() {
        return;
    }
    let env = Daemon::new();
    let (file, (line, col, message)) = erroneous_file(&env);
    let code = build_code(&env, &file, line, col);
    let report = emacs_report(&env, &readme_block(EMACS), &file);
    assert_eq!(report["arrived"], true, "{report}");
    assert_eq!(report["mode"], "mlir-mode", "{report}");
    assert_eq!(report["managed"], true, "{report}");
    let diags = report["diagnostics"].as_array().unwrap();
    let [d] = diags.as_slice() else {
        panic!("{report}")
    };
    // eglot shows the code and the message in one text ("kiln [E0200]: value ...").
    let text = d["text"].as_str().unwrap();
    assert!(text.contains(&code) && text.contains(&message), "{d}");
    assert_eq!(d["line"], line, "{d}");
    // Emacs's columns are 0-based.
    assert_eq!(d["col"], col - 1, "{d}");
    assert_eq!(d["type"], "eglot-error", "{d}");
    assert!(
        env.daemon_pid().is_some(),
        "the workspace's daemon served the editor"
    );
}

#[test]
fn the_helix_snippet_is_a_languages_toml() {
    let t: toml::Table = toml::from_str(&readme_block(HELIX)).expect("valid TOML");
    let server = &t["language-server"]["kiln"];
    assert_eq!(server["command"].as_str(), Some("kiln"));
    assert_eq!(server["args"], toml::Value::Array(vec!["lsp".into()]));
    let langs = t["language"].as_array().unwrap();
    let names: Vec<&str> = langs.iter().map(|l| l["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["mlir", "blif"]);
    for l in langs {
        let name = l["name"].as_str().unwrap();
        assert_eq!(
            l["file-types"],
            toml::Value::Array(vec![name.into()]),
            "{l}"
        );
        assert_eq!(l["scope"].as_str(), Some(format!("source.{name}").as_str()));
        assert_eq!(
            l["language-servers"],
            toml::Value::Array(vec!["kiln".into()])
        );
    }
}
