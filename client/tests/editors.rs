//! The editor snippets of README.md's *Editors* section, as written there: each Neovim
//! snippet is the init file of a headless Neovim (Debian's `neovim`) that opens an APS file
//! with an undefined value, and `kiln build`'s diagnostic for it (code, message, line and
//! column) must arrive in the editor's `vim.diagnostic` list; the Helix snippet is valid TOML
//! of Helix's `languages.toml` shape.
//!
//! Each Neovim run has its own workspace, daemon, config and state directories, stops its
//! daemon, and is killed when it has not finished in time.

mod cli;
#[path = "../../compiler/tests/common/mod.rs"]
mod common;

use cli::Daemon;
use serde_json::Value;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long the driver waits in Neovim for diagnostics, and how long the test waits for
/// Neovim to exit (the daemon's first start included).
const WAIT_MS: u64 = 60_000;
const NVIM_TIMEOUT: Duration = Duration::from_secs(120);

/// The body of the first fenced block after the README line `heading`.
fn readme_block(heading: &str) -> String {
    let readme = std::fs::read_to_string(common::repo_root().join("README.md")).unwrap();
    let at = readme
        .lines()
        .position(|l| l == heading)
        .unwrap_or_else(|| panic!("README.md has no line {heading:?}"));
    let mut lines = readme.lines().skip(at + 1).skip_while(|l| l.is_empty());
    let fence = lines.next().unwrap_or_default();
    assert!(
        fence.starts_with("```"),
        "no fenced block after {heading:?}"
    );
    let body: Vec<&str> = lines.take_while(|l| *l != "```").collect();
    body.join("\n") + "\n"
}

const NVIM_07: &str = "Neovim 0.7 (Debian 12) and later:";
const NVIM_010: &str = "Neovim 0.10+ (`vim.lsp.start`; on 0.7 it does not exist):";
const HELIX: &str = "Helix 23.10+ (`languages.toml`; `mlir` is built in, `blif` is not):";

/// Neovim's version `(major, minor)`; `None` (skipped) when `nvim` is missing outside CI, a
/// failure under CI.
fn nvim_version() -> Option<(u32, u32)> {
    let out = Command::new("nvim")
        .arg("--version")
        .stdin(Stdio::null())
        .output();
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

/// Run after the file is loaded: waits for the buffer's diagnostics, writes them with the
/// time since Neovim started (`$KILN_NVIM_OUT`, JSON) and quits, whatever happens.
const DRIVER: &str = r#"
local ok, err = pcall(function()
  local got = vim.wait(tonumber(os.getenv("KILN_NVIM_WAIT_MS")), function()
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
  local f = io.open(os.getenv("KILN_NVIM_OUT"), "w")
  f:write(vim.fn.json_encode({ arrived = got, ms = ms, clients = names,
    filetype = vim.bo.filetype, diagnostics = diags }))
  f:close()
end)
if not ok then
  io.stderr:write("driver: " .. tostring(err) .. "\n")
end
vim.cmd("qa!")
"#;

/// Opens `file` in a headless Neovim whose init file is `init`, with `kiln` (this build) on
/// the path and `env`'s workspace; the driver's report.
fn nvim_report(env: &Daemon, init: &str, file: &Path) -> Value {
    let dir = env.root().join("nvim");
    for d in ["config", "data", "state", "cache"] {
        std::fs::create_dir_all(dir.join(d)).unwrap();
    }
    let init_path = dir.join("init.lua");
    std::fs::write(&init_path, init).unwrap();
    let driver = dir.join("driver.lua");
    std::fs::write(&driver, DRIVER).unwrap();
    let out = dir.join("report.json");
    let _ = std::fs::remove_file(&out);

    let kiln_dir = Path::new(env!("CARGO_BIN_EXE_kiln")).parent().unwrap();
    let path = std::env::join_paths(std::iter::once(kiln_dir.to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    let template = env.kiln();
    let mut cmd = Command::new("nvim");
    for (k, v) in template.get_envs() {
        match v {
            Some(v) => cmd.env(k, v),
            None => cmd.env_remove(k),
        };
    }
    cmd.current_dir(env.ws())
        .env("PATH", path)
        .env("XDG_CONFIG_HOME", dir.join("config"))
        .env("XDG_DATA_HOME", dir.join("data"))
        .env("XDG_STATE_HOME", dir.join("state"))
        .env("XDG_CACHE_HOME", dir.join("cache"))
        .env("KILN_NVIM_OUT", &out)
        .env("KILN_NVIM_WAIT_MS", WAIT_MS.to_string())
        .args(["--headless", "-n", "-i", "NONE"])
        .args(["--cmd", "lua KilnT0 = vim.loop.hrtime()"])
        .arg("-u")
        .arg(&init_path)
        .arg("-c")
        .arg(format!("luafile {}", driver.display()))
        .arg(file)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let started = Instant::now();
    let mut child = cmd.spawn().expect("nvim starts");
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if started.elapsed() > NVIM_TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut stderr = String::new();
    let mut stdout = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut stdout)
        .unwrap();
    let Some(status) = status else {
        panic!("nvim did not finish in {NVIM_TIMEOUT:?}; stderr: {stderr} stdout: {stdout}")
    };
    let report = std::fs::read_to_string(&out).unwrap_or_else(|_| {
        panic!("nvim ({status}) wrote no report; stderr: {stderr} stdout: {stdout}")
    });
    eprintln!(
        "nvim: {report} (process {} ms)",
        started.elapsed().as_millis()
    );
    serde_json::from_str(&report).unwrap()
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
    let out = env
        .kiln_no_daemon()
        .arg("build")
        .arg(file)
        .args(["--message-format", "json", "-o"])
        .arg(env.root().join("out"))
        .output()
        .unwrap();
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
