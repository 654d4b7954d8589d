//! `kiln-bench lsp [--functions N] [--edits E]`: the latency an editor sees, from sending a
//! `didChange` to receiving its `publishDiagnostics`, on a generated APS module (default
//! 512 functions). A `kiln lsp` child process (with a fresh daemon, workspace and cache) is
//! driven over stdin/stdout like an editor: open the module, then E edits, each in another
//! function (an op renamed `tor.addi` → `tor.subi` → `tor.muli`, so every edit is a real
//! change of one function that stays valid). Reports p50 and p90, and the cold open against
//! a cold `kiln build --no-daemon` of the module (timed before it). The `kiln` driven is the
//! one next to `kiln-bench`.

use crate::common::{EDIT_CYCLE, Failure, fail, first_cycle_op, kiln_binary, ms};
use lsp_server::{Message, Notification, Request, RequestId};
use serde_json::{Value, json};
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

#[derive(clap::Args)]
pub struct Args {
    /// Functions of the generated module.
    #[arg(long, default_value_t = 512)]
    pub functions: usize,
    /// Edits timed.
    #[arg(long, default_value_t = 101)]
    pub edits: usize,
}

pub fn run(args: Args) -> Result<(), Failure> {
    let root = tempfile::tempdir().map_err(fail)?;
    for d in ["ws", "run", "cache"] {
        std::fs::create_dir_all(root.path().join(d)).map_err(fail)?;
    }
    let exe = kiln_binary(None)?;
    let result = bench(&args, &exe, root.path());
    let _ = kiln(&exe, root.path()).arg("shutdown").output();
    result
}

/// A `kiln` command in the benchmark's own workspace, runtime and cache directories.
fn kiln(exe: &Path, root: &Path) -> Command {
    let mut c = Command::new(exe);
    c.env("KILN_WORKSPACE", root.join("ws"))
        .env("XDG_RUNTIME_DIR", root.join("run"))
        .env("KILN_CACHE_DIR", root.join("cache"))
        .env_remove("KILN_NO_DAEMON")
        .current_dir(root.join("ws"));
    c
}

struct Editor {
    child: Child,
    stdin: ChildStdin,
    rx: mpsc::Receiver<Message>,
}

impl Editor {
    fn send(&mut self, m: Message) -> Result<(), Failure> {
        m.write(&mut self.stdin).map_err(fail)
    }

    fn notify(&mut self, method: &str, params: Value) -> Result<(), Failure> {
        self.send(Notification::new(method.into(), params).into())
    }

    /// Wait for the message `want` accepts.
    fn wait(&self, want: impl Fn(&Message) -> bool) -> Result<Message, Failure> {
        loop {
            let m = self
                .rx
                .recv_timeout(Duration::from_secs(300))
                .map_err(|_| fail("kiln lsp did not answer"))?;
            if want(&m) {
                return Ok(m);
            }
        }
    }

    fn diagnostics(&self, version: i32) -> Result<usize, Failure> {
        let m = self.wait(|m| {
            matches!(m, Message::Notification(n)
                if n.method == "textDocument/publishDiagnostics" && n.params["version"] == version)
        })?;
        let Message::Notification(n) = m else {
            return Ok(0);
        };
        Ok(n.params["diagnostics"].as_array().map_or(0, |d| d.len()))
    }
}

fn bench(args: &Args, exe: &Path, root: &Path) -> Result<(), Failure> {
    let mut child = kiln(exe, root)
        .arg("lsp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(fail)?;
    let stdin = child.stdin.take().ok_or_else(|| fail("no stdin"))?;
    let mut stdout = BufReader::new(child.stdout.take().ok_or_else(|| fail("no stdout"))?);
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        while let Ok(Some(m)) = Message::read(&mut stdout) {
            if tx.send(m).is_err() {
                return;
            }
        }
    });
    let mut ed = Editor { child, stdin, rx };
    let t = Instant::now();
    let caps = json!({"general": {"positionEncodings": ["utf-16"]}});
    let init = Request::new(
        RequestId::from(1),
        "initialize".into(),
        json!({"capabilities": caps}),
    );
    ed.send(init.into())?;
    ed.wait(|m| matches!(m, Message::Response(_)))?;
    ed.notify("initialized", json!({}))?;
    println!(
        "kiln lsp start + daemon start + initialize: {:.1} ms",
        ms(t.elapsed())
    );

    let path = root.join("ws/big.mlir");
    let mut text = compiler::aps::workload::generate(args.functions, 1);
    std::fs::write(&path, &text).map_err(fail)?;
    let uri = file_uri(&path);
    let uri = uri.as_str();
    // The anchor: a cold build of the same module (a child process, no daemon), before the
    // didOpen, so that nothing the daemon does after publishing runs beside it.
    let mut cold = Vec::new();
    for k in 0..3 {
        let t = Instant::now();
        let out = std::process::Command::new(exe)
            .args(["build", "--no-daemon", "-q", "-o"])
            .arg(root.join(format!("cold{k}")))
            .arg(&path)
            .output()
            .map_err(fail)?;
        if !out.status.success() {
            return Err(fail("the cold build of the module failed"));
        }
        cold.push(t.elapsed());
    }
    cold.sort();
    let t = Instant::now();
    ed.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "mlir", "version": 1, "text": text}}),
    )?;
    let n = ed.diagnostics(1)?;
    let opened = t.elapsed();
    println!(
        "didOpen of {} functions ({:.1} MB) → publishDiagnostics: {:.1} ms ({n} diagnostics); cold `kiln build --no-daemon` of it: {:.1} ms (median of 3), ratio {:.2}",
        args.functions,
        text.len() as f64 / 1e6,
        ms(opened),
        ms(cold[1]),
        opened.as_secs_f64() / cold[1].as_secs_f64()
    );

    let starts: Vec<usize> = text.match_indices("tor.func @").map(|(i, _)| i).collect();
    let mut samples = Vec::with_capacity(args.edits);
    for e in 0..args.edits {
        let version = e as i32 + 2;
        let start = starts[e % starts.len()];
        let (k, op) = first_cycle_op(&text, start).ok_or_else(|| fail("no op to edit"))?;
        let next = EDIT_CYCLE[(op + 1) % EDIT_CYCLE.len()];
        let (line, col) = position(&text, k);
        let range = json!({"start": {"line": line, "character": col},
                           "end": {"line": line, "character": col + next.len()}});
        let change = json!({"textDocument": {"uri": uri, "version": version},
                            "contentChanges": [{"range": range, "text": next}]});
        text.replace_range(k..k + next.len(), next);
        let t = Instant::now();
        ed.notify("textDocument/didChange", change)?;
        let n = ed.diagnostics(version)?;
        samples.push(t.elapsed());
        if n != 0 {
            return Err(fail(format!("edit {e}: {n} diagnostics on a valid module")));
        }
    }
    samples.sort();
    let q = |p: usize| ms(samples[(samples.len() - 1) * p / 100]);
    println!(
        "didChange (one function) → publishDiagnostics over {} edits: p50 {:.2} ms, p90 {:.2} ms, max {:.2} ms",
        samples.len(),
        q(50),
        q(90),
        q(100)
    );
    let shutdown = Request::new(RequestId::from(2), "shutdown".into(), Value::Null);
    ed.send(shutdown.into())?;
    ed.wait(|m| matches!(m, Message::Response(_)))?;
    ed.notify("exit", Value::Null)?;
    let _ = ed.child.wait();
    Ok(())
}

/// The `file://` URI of an absolute path (bytes outside the unreserved set and `/`
/// percent-encoded), as an editor names it.
fn file_uri(path: &Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    let path = std::path::absolute(path).unwrap_or_else(|_| PathBuf::from(path));
    let mut s = String::from("file://");
    for &b in path.as_os_str().as_bytes() {
        match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'/' | b'-' | b'.' | b'_' | b'~' => {
                s.push(b as char)
            }
            _ => s.push_str(&format!("%{b:02X}")),
        }
    }
    s
}

/// Line and UTF-16 column of byte `offset` (the module is ASCII: bytes).
fn position(text: &str, offset: usize) -> (usize, usize) {
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    (text[..offset].matches('\n').count(), offset - line_start)
}
