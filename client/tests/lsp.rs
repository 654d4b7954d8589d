//! `kiln lsp` in a real session: JSON-RPC with Content-Length framing over the server's
//! stdin/stdout, as an editor speaks it. initialize → didOpen → didChange introducing an
//! error → its diagnostics (equal to `kiln build`'s on the same text) → fix → empty
//! diagnostics → definition → references → hover → document symbols → code lenses →
//! shutdown → exit, on a 4-function APS module with non-ASCII text before the error's
//! column; the daemon's counters show each edit re-analyses only the edited function. And
//! a BLIF document: net definition, model references and hover counts.
//!
//! Each test has its own workspace, runtime and cache directories and stops its daemon.

mod cli;
#[path = "../../daemon/tests/common/mod.rs"]
mod common;
#[path = "../../compiler/tests/common/mod.rs"]
mod corpus;

use cli::Daemon;
use lsp_server::{Message, Notification, Request, RequestId};
use serde_json::{Value, json};
use std::io::BufReader;
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// Executions per query kind since the daemon started.
fn executions(env: &Daemon) -> Value {
    let out = cli::ok(env.kiln().args(["stats", "--json"]));
    serde_json::from_slice::<Value>(&out.stdout).unwrap()["queries"].clone()
}

/// Executions of `kind` between two `executions()`.
fn ran(before: &Value, after: &Value, kind: &str) -> u64 {
    let n = |v: &Value| v[kind]["executions"].as_u64().unwrap_or(0);
    n(after) - n(before)
}

/// Between two `executions()`, one function was analysed: its text looked up once, its
/// segmentation computed or loaded from the persistent cache once (a text seen before,
/// in an earlier session or version, is not even parsed again), the design context not.
fn one_function(before: &Value, after: &Value) {
    let hits = |v: &Value| v["segmentation"]["cache_hits"].as_u64().unwrap_or(0);
    let segmentations = ran(before, after, "segmentation") + hits(after) - hits(before);
    assert_eq!(ran(before, after, "function_text"), 1, "{before} {after}");
    assert_eq!(segmentations, 1, "{before} {after}");
    assert!(ran(before, after, "parse") <= 1, "{before} {after}");
    assert!(ran(before, after, "emit_function") <= 1, "{before} {after}");
    assert_eq!(ran(before, after, "context"), 0, "{before} {after}");
}

/// A language server process and the messages it sends.
struct Session {
    child: Child,
    stdin: ChildStdin,
    rx: mpsc::Receiver<Message>,
    next_id: i32,
}

impl Session {
    fn start(env: &Daemon, utf8: bool) -> (Session, Value) {
        let mut cmd = env.kiln();
        cmd.arg("lsp");
        Session::start_with(cmd, utf8)
    }

    fn start_with(mut cmd: Command, utf8: bool) -> (Session, Value) {
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            while let Ok(Some(m)) = Message::read(&mut stdout) {
                if tx.send(m).is_err() {
                    return;
                }
            }
        });
        let mut s = Session {
            child,
            stdin,
            rx,
            next_id: 0,
        };
        let encodings = match utf8 {
            true => json!(["utf-8", "utf-16"]),
            false => json!(["utf-16"]),
        };
        let caps = json!({"general": {"positionEncodings": encodings}});
        let init = s.request(
            "initialize",
            json!({"capabilities": caps, "processId": null}),
        );
        s.notify("initialized", json!({}));
        (s, init)
    }

    fn send(&mut self, m: Message) {
        m.write(&mut self.stdin).unwrap();
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(Notification::new(method.into(), params).into());
    }

    /// `textDocument/didChange` of `path` to `version`: `text` replaces `range`.
    fn change(&mut self, path: &Path, version: u32, range: &Value, text: &str) {
        self.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri(path), "version": version},
                   "contentChanges": [{"range": range, "text": text}]}),
        );
    }

    fn recv(&self) -> Message {
        self.rx
            .recv_timeout(Duration::from_secs(120))
            .expect("the server answers")
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = RequestId::from(self.next_id);
        self.send(Request::new(id.clone(), method.into(), params).into());
        loop {
            if let Message::Response(r) = self.recv()
                && r.id == id
            {
                match r.response_result {
                    Ok(v) => return v,
                    Err(e) => panic!("{method}: {e:?}"),
                }
            }
        }
    }

    /// The next diagnostics published for version `version`.
    fn diagnostics(&self, version: i32) -> Vec<Value> {
        loop {
            if let Message::Notification(n) = self.recv()
                && n.method == "textDocument/publishDiagnostics"
                && n.params["version"] == version
            {
                return n.params["diagnostics"].as_array().unwrap().clone();
            }
        }
    }

    fn finish(mut self) {
        let r = self.request("shutdown", Value::Null);
        assert_eq!(r, Value::Null);
        self.notify("exit", Value::Null);
        let status = self.child.wait().unwrap();
        assert!(status.success(), "{status}");
    }
}

fn uri(p: &Path) -> String {
    format!("file://{}", p.display())
}

fn doc(p: &Path) -> Value {
    json!({"uri": uri(p)})
}

fn at(p: &Path, line: u32, character: u32) -> Value {
    json!({"textDocument": doc(p), "position": {"line": line, "character": character}})
}

/// Line (0-based) and UTF-16 / UTF-8 columns of byte `offset`.
fn pos(text: &str, offset: usize, utf8: bool) -> (u32, u32) {
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let line = text[..offset].matches('\n').count() as u32;
    let before = &text[line_start..offset];
    let col = match utf8 {
        true => before.len(),
        false => before.encode_utf16().count(),
    };
    (line, col as u32)
}

/// The `path:line:col: severity: message [CODE]` lines `kiln build --no-daemon` prints for
/// `text`: line, column, severity, message, code.
fn cli_messages(env: &Daemon, text: &str) -> Vec<(u32, u32, String, String, String)> {
    let f = env.ws().join("cli.mlir");
    std::fs::write(&f, text).unwrap();
    let out = env
        .kiln()
        .args(["build", "--no-daemon", "cli.mlir", "--out-dir", "cli-out"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    stderr
        .lines()
        .filter_map(|l| {
            let rest = l.strip_prefix("cli.mlir:")?;
            let mut parts = rest.splitn(4, ':');
            let line = parts.next()?.parse().ok()?;
            let col = parts.next()?.parse().ok()?;
            let sev = parts.next()?.trim().to_string();
            let (msg, code) = parts.next()?.trim().rsplit_once(" [")?;
            let code = code.strip_suffix(']')?.to_string();
            Some((line, col, sev, msg.to_string(), code))
        })
        .collect()
}

#[test]
fn an_editor_session_on_an_aps_module() {
    let env = Daemon::new();
    let path = env.ws().join("m.mlir");
    // Non-ASCII (one 2-byte char, one astral char: 2 UTF-16 units) before the error's
    // column, in function @f2's `%1 = aps.readrf` line.
    let plain = common::generated_module(4);
    let f2 = plain.find("tor.func @f2(").unwrap();
    let line_at = f2 + plain[f2..].find("%1 = aps.readrf").unwrap();
    let dump = line_at + plain[line_at..].find("\"op_19\"").unwrap();
    let text = format!("{}\"é𝄞 op_19\"{}", &plain[..dump], &plain[dump + 7..]);
    std::fs::write(&path, &text).unwrap();
    for utf8 in [false, true] {
        session(&env, &path, &text, utf8);
    }
}

fn session(env: &Daemon, path: &Path, text: &str, utf8: bool) {
    let (mut s, init) = Session::start(env, utf8);
    let enc = if utf8 { "utf-8" } else { "utf-16" };
    assert_eq!(init["capabilities"]["positionEncoding"], enc, "{init}");
    let before = executions(env);
    s.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri(path), "languageId": "mlir", "version": 1, "text": text}}),
    );
    assert_eq!(s.diagnostics(1), Vec::<Value>::new());
    // The open checked the functions without assembling or emitting any (an editor writes
    // no outputs).
    let after = executions(env);
    assert_eq!(ran(&before, &after, "assemble"), 0, "{before} {after}");
    assert_eq!(ran(&before, &after, "emit_function"), 0, "{before} {after}");

    // An error: the result type `i32` of @f2's `%1 = aps.readrf ... : i5 -> i32` → `q32`.
    let f2 = text.find("tor.func @f2(").unwrap();
    let line_at = f2 + text[f2..].find("%1 = aps.readrf").unwrap();
    let ty = line_at + text[line_at..].find("-> i32").unwrap() + 3;
    let (line, col) = pos(text, ty, utf8);
    let (_, col_end) = pos(text, ty + 3, utf8);
    let range = json!({"start": {"line": line, "character": col}, "end": {"line": line, "character": col_end}});
    let before = executions(env);
    s.change(path, 2, &range, "q32");
    let diags = s.diagnostics(2);
    let after = executions(env);
    let broken = format!("{}q32{}", &text[..ty], &text[ty + 3..]);
    let cli = cli_messages(env, &broken);
    assert!(!cli.is_empty(), "kiln build reports the error");
    assert_eq!(diags.len(), cli.len(), "{diags:?} vs {cli:?}");
    for (d, (cline, ccol, sev, msg, code)) in diags.iter().zip(&cli) {
        assert_eq!(d["message"], msg.as_str());
        assert_eq!(d["code"], code.as_str());
        assert_eq!(d["severity"], if sev == "error" { 1 } else { 2 });
        assert_eq!(d["source"], "kiln");
        // The CLI's column counts characters; the editor's, the negotiated units.
        let line_text = broken.lines().nth(*cline as usize - 1).unwrap();
        let byte: usize = line_text
            .chars()
            .take(*ccol as usize - 1)
            .map(char::len_utf8)
            .sum();
        let units = match utf8 {
            true => byte,
            false => line_text[..byte].encode_utf16().count(),
        };
        assert_eq!(d["range"]["start"]["line"], cline - 1);
        assert_eq!(d["range"]["start"]["character"], units as u64, "{d}");
    }
    // Only the edited function was analysed again.
    one_function(&before, &after);

    // The fix: empty diagnostics, one function re-analysed.
    let before = executions(env);
    s.change(path, 3, &range, "i32");
    assert_eq!(s.diagnostics(3), Vec::<Value>::new());
    let after = executions(env);
    one_function(&before, &after);

    // Definition of `%1` from its use in `aps.itfc.burst_load_req %1,`.
    let use_at = f2 + text[f2..].find("burst_load_req %1,").unwrap() + "burst_load_req ".len();
    let (l, c) = pos(text, use_at + 1, utf8);
    let defs = s.request("textDocument/definition", at(path, l, c));
    let (dl, dc) = pos(text, line_at, utf8);
    assert_eq!(defs.as_array().unwrap().len(), 1, "{defs}");
    assert_eq!(defs[0]["uri"], uri(path));
    assert_eq!(
        defs[0]["range"]["start"],
        json!({"line": dl, "character": dc})
    );
    let mut refs_params = at(path, l, c);
    refs_params["context"] = json!({"includeDeclaration": false});
    let refs = s.request("textDocument/references", refs_params);
    assert!(!refs.as_array().unwrap().is_empty(), "{refs}");
    assert!(
        refs.as_array()
            .unwrap()
            .iter()
            .any(|r| r["range"]["start"] == json!({"line": l, "character": c - 1}))
    );

    // `@mem_a_0` in a function goes to its `memref.global` in the design context.
    let get = f2 + text[f2..].find("get_global @mem_a_0").unwrap() + "get_global @".len();
    let (l, c) = pos(text, get, utf8);
    let defs = s.request("textDocument/definition", at(path, l, c));
    let global = text.find("memref.global @mem_a_0").unwrap() + "memref.global ".len();
    let (gl, gc) = pos(text, global, utf8);
    assert_eq!(
        defs[0]["range"]["start"],
        json!({"line": gl, "character": gc}),
        "{defs}"
    );

    // Hover on the `aps.readrf` op whose dump string holds the non-ASCII text: its schedule.
    let (hl, hc) = pos(text, line_at + "%1 = aps.re".len(), utf8);
    let hover = s.request("textDocument/hover", at(path, hl, hc));
    let md = hover["contents"]["value"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(md.contains("starttime 0, endtime 1"), "{hover}");
    assert!(md.contains("block `") && md.contains("slot 0"), "{md}");
    assert!(md.contains("rules: `"), "{md}");

    let symbols = s.request(
        "textDocument/documentSymbol",
        json!({"textDocument": doc(path)}),
    );
    let names: Vec<&str> = symbols
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["@f0", "@f1", "@f2", "@f3"]);
    assert!(
        symbols[2]["children"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["kind"] == 25),
        "a loop: {}",
        symbols[2]
    );
    let lenses = s.request("textDocument/codeLens", json!({"textDocument": doc(path)}));
    let lenses = lenses.as_array().unwrap();
    assert_eq!(lenses.len(), 4);
    let title = lenses[0]["command"]["title"].as_str().unwrap();
    assert!(
        title.ends_with(" FIFOs") && title.contains(" rules, "),
        "{title}"
    );
    s.notify("textDocument/didClose", json!({"textDocument": doc(path)}));
    s.finish();
}

/// Two functions with one instruction identity: the editor shows the build's error (its
/// check reads the functions' instructions without assembling their circuits).
#[test]
fn an_editor_shows_a_repeated_identity_as_a_build_does() {
    let env = Daemon::new();
    let path = env.ws().join("m.mlir");
    let g = compiler::aps::workload::generate(4, 1);
    let (text, _) = common::replace_in_function(&g, "f2", "funct7 = 2 : i32", "funct7 = 1 : i32");
    let cli = cli_messages(&env, &text);
    assert!(
        cli.iter()
            .any(|(_, _, sev, msg, _)| sev == "error" && msg.contains("same instruction identity")),
        "{cli:?}"
    );
    let (mut s, _) = Session::start(&env, true);
    s.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri(&path), "languageId": "mlir", "version": 1, "text": text}}),
    );
    let diags = s.diagnostics(1);
    let shown: Vec<(u64, String, String)> = diags
        .iter()
        .map(|d| {
            let line = d["range"]["start"]["line"].as_u64().unwrap() + 1;
            (
                line,
                d["message"].as_str().unwrap().to_string(),
                d["code"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let built: Vec<(u64, String, String)> = cli
        .into_iter()
        .map(|(line, _, _, msg, code)| (u64::from(line), msg, code))
        .collect();
    assert_eq!(shown, built);
    s.finish();
}

#[test]
fn an_editor_session_on_a_blif_netlist() {
    let env = Daemon::new();
    let path = env.ws().join("n.blif");
    let text = ".model top\n.inputs a b\n.outputs y\n.subckt and2 x=a w=b o=t\n.names t y\n1 1\n.end\n\n.model and2\n.inputs x w\n.outputs o\n.names x w o\n11 1\n.end\n";
    std::fs::write(&path, text).unwrap();
    let (mut s, _) = Session::start(&env, true);
    s.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri(&path), "languageId": "blif", "version": 1, "text": text}}),
    );
    assert_eq!(s.diagnostics(1), Vec::<Value>::new());
    // `t` in `.names t y` is defined by the subckt's output pin `o=t`.
    let use_t = text.find(".names t y").unwrap() + ".names ".len();
    let (l, c) = pos(text, use_t, true);
    let defs = s.request("textDocument/definition", at(&path, l, c));
    let def_t = text.find("o=t").unwrap() + 2;
    let (dl, dc) = pos(text, def_t, true);
    assert_eq!(
        defs[0]["range"]["start"],
        json!({"line": dl, "character": dc}),
        "{defs}"
    );
    // `.subckt and2` goes to `.model and2`, whose hover counts its PIs, POs, latches, ANDs.
    let sub = text.find(".subckt and2").unwrap() + ".subckt ".len();
    let (l, c) = pos(text, sub, true);
    let defs = s.request("textDocument/definition", at(&path, l, c));
    let model = text.find(".model and2").unwrap() + ".model ".len();
    assert_eq!(defs[0]["range"]["start"]["line"], pos(text, model, true).0);
    let hover = s.request("textDocument/hover", at(&path, l, c));
    assert_eq!(
        hover["contents"]["value"], "model `and2`: 2 PI, 1 PO, 0 latches, 1 ANDs",
        "{hover}"
    );
    let symbols = s.request(
        "textDocument/documentSymbol",
        json!({"textDocument": doc(&path)}),
    );
    assert_eq!(symbols.as_array().unwrap().len(), 2);
    // An error as typed: a latch without its output.
    let end = text.find(".end").unwrap();
    let (l, c) = pos(text, end, true);
    let range = json!({"start": {"line": l, "character": c}, "end": {"line": l, "character": c}});
    let before = executions(&env);
    s.change(&path, 2, &range, ".latch\n");
    let diags = s.diagnostics(2);
    // Only the edited model is parsed again.
    let after = executions(&env);
    assert_eq!(ran(&before, &after, "blif_parse"), 1, "{before} {after}");
    assert!(!diags.is_empty());
    assert_eq!(diags[0]["severity"], 1, "{diags:?}");
    s.finish();
}

/// A `kiln lsp` session with the BLIF library `libs[0]` (and the Verilog templates
/// `libs[1]`) on the Handshake document `path` (`text`), opened without errors.
fn open_handshake(env: &Daemon, path: &Path, text: &str, libs: &[&Path]) -> Session {
    let mut child = env.kiln();
    child.arg("lsp");
    for (flag, dir) in ["--blif-lib", "--rtl-lib"].iter().zip(libs) {
        child.arg(flag).arg(dir);
    }
    let (mut s, _) = Session::start_with(child, true);
    s.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri(path), "languageId": "mlir", "version": 1, "text": text}}),
    );
    let diags = s.diagnostics(1);
    assert!(diags.iter().all(|d| d["severity"] != 1), "{diags:?}");
    s
}

#[test]
fn an_editor_session_on_a_handshake_circuit() {
    let env = Daemon::new();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let text = std::fs::read_to_string(repo.join("examples/handshake/gcd.mlir")).unwrap();
    let path = env.ws().join("gcd.mlir");
    std::fs::write(&path, &text).unwrap();
    let lib = repo.join("tests/data/handshake/library");
    let mut s = open_handshake(&env, &path, &text, &[&lib]);
    // `%13` used by `select %13[` is defined by `%13 = cmpi eq`, whose hover says how
    // Handshake → Synth implements it.
    let def = text.find("%13 = cmpi eq").unwrap();
    let use_at = text.find("select %13[").unwrap() + "select ".len();
    let (l, c) = pos(&text, use_at + 1, true);
    let defs = s.request("textDocument/definition", at(&path, l, c));
    let (dl, dc) = pos(&text, def, true);
    assert_eq!(
        defs[0]["range"]["start"],
        json!({"line": dl, "character": dc}),
        "{defs}"
    );
    let (hl, hc) = pos(&text, def + "%13 = cm".len(), true);
    let hover = s.request("textDocument/hover", at(&path, hl, hc));
    let md = hover["contents"]["value"].as_str().unwrap_or_default();
    assert!(md.starts_with("`cmpi0` (`cmpi`"), "{hover}");
    assert!(
        md.contains("library unit `") || md.contains("built-in generator `"),
        "{md}"
    );
    s.finish();
}

/// With Dynamatic's library and Verilog templates, an op's hover says what the build
/// made of it: a template unit (synthesized by yosys) for a memory controller, the
/// generated `speculator`; as `synth-report` says.
#[test]
fn a_hover_says_what_the_build_made_of_an_op() {
    let Some(shared) = corpus::shared_dir_with("yosys") else {
        return;
    };
    let env = Daemon::new();
    let sample = shared.join("handshake_examples/export_spec_subdiag_fast_out_v1.mlir");
    let text = std::fs::read_to_string(&sample).unwrap();
    let path = env.ws().join("subdiag.mlir");
    std::fs::write(&path, &text).unwrap();
    let (lib, rtl) = (
        shared.join("dynamatic_blif/library"),
        shared.join("dynamatic_rtl/data/verilog"),
    );
    let mut s = open_handshake(&env, &path, &text, &[&lib, &rtl]);
    let report = cli::ok(
        env.kiln()
            .arg("synth-report")
            .arg(&path)
            .arg("--blif-lib")
            .arg(&lib)
            .arg("--rtl-lib")
            .arg(&rtl),
    );
    let report = String::from_utf8_lossy(&report.stdout).to_string();
    for (op, word, says) in [
        (
            "mem_controller3",
            "mem_controller[",
            "Verilog template unit `",
        ),
        (
            "speculator0",
            "speculator[",
            "built-in speculator (fifoDepth 16)",
        ),
    ] {
        let row = report.lines().find(|l| l.starts_with(op)).unwrap();
        let off = text.find(word).unwrap() + 2;
        let (l, c) = pos(&text, off, true);
        let hover = s.request("textDocument/hover", at(&path, l, c));
        let md = hover["contents"]["value"].as_str().unwrap_or_default();
        assert!(md.starts_with(&format!("`{op}`")), "{hover}");
        assert!(md.contains(says), "{md}\nsynth-report: {row}");
    }
    s.finish();
}

#[test]
fn a_long_token_reaches_the_editor_shortened() {
    // A 10^6-character token: its diagnostic names it by its ends and length (issue #31).
    let env = Daemon::new();
    let path = env.ws().join("token.mlir");
    let text = format!("%0 = {}\n", "a".repeat(1_000_000));
    std::fs::write(&path, &text).unwrap();
    let (mut s, _) = Session::start(&env, true);
    s.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri(&path), "languageId": "mlir", "version": 1, "text": text}}),
    );
    let diags = s.diagnostics(1);
    assert_eq!(diags.len(), 1, "{} bytes", json!(diags).to_string().len());
    let message = diags[0]["message"].as_str().unwrap();
    assert!(message.len() < 1000, "a message of {} bytes", message.len());
    assert!(
        message.contains("a…a") && message.contains("(1000000 bytes)"),
        "{message}"
    );
    assert_eq!(
        diags[0]["range"]["start"],
        json!({"line": 0, "character": 5})
    );
    s.finish();
}

/// An unsaved buffer holding a function over the slot limit: its diagnostic is the located
/// limit error, and the daemon behind the editor stays up and analyses the next version.
#[test]
fn an_editor_buffer_over_the_slot_limit_fails_alone() {
    let env = Daemon::new();
    std::fs::write(env.ws().join("kiln.toml"), "[limits]\nmax_slots = 1000\n").unwrap();
    // Never saved: the text exists only in the editor.
    let path = env.ws().join("unsaved.mlir");
    let (mut s, _) = Session::start(&env, false);
    s.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri(&path), "languageId": "mlir", "version": 1,
               "text": compiler::aps::workload::slot_chain(1_001)}}),
    );
    let diags = s.diagnostics(1);
    let [d] = diags.as_slice() else {
        panic!("{diags:?}")
    };
    assert_eq!(d["code"], "E0004", "{d}");
    assert_eq!(
        d["range"]["start"],
        json!({"line": 1004, "character": 6}),
        "{d}"
    );
    assert!(
        d["message"].as_str().unwrap().contains("--max-slots"),
        "{d}"
    );
    let pid = env.daemon_pid().expect("a daemon serves the editor");
    s.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri(&path), "version": 2},
               "contentChanges": [{"text": compiler::aps::workload::slot_chain(50)}]}),
    );
    assert_eq!(s.diagnostics(2), Vec::<Value>::new());
    assert_eq!(env.daemon_pid(), Some(pid), "the daemon was not restarted");
    s.finish();
}

/// An unsaved 10 MB buffer travels whole to the daemon (the RPC's message size follows the
/// input limit, not gRPC's 4 MiB default) and gets its diagnostic at its last line.
#[test]
fn a_ten_megabyte_buffer_gets_its_diagnostics() {
    let env = Daemon::new();
    let path = env.ws().join("big.mlir");
    let lines = 100_000;
    let mut text = format!("// {}\n", "x".repeat(96)).repeat(lines);
    text.push_str("%0 = \n");
    assert!(text.len() > 10_000_000);
    let (mut s, _) = Session::start(&env, false);
    s.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri(&path), "languageId": "mlir", "version": 1, "text": text}}),
    );
    let diags = s.diagnostics(1);
    let [d] = diags.as_slice() else {
        panic!("{diags:?}")
    };
    assert_eq!(d["severity"], 1, "{d}");
    // The dangling `%0 = ` runs into the end of the input, one line further.
    assert_eq!(d["code"], "E0101", "{d}");
    assert_eq!(d["range"]["start"]["line"], lines + 1, "{d}");
    s.finish();
}

/// The workspace's lint levels (`[lints]` in kiln.toml) apply to an editor's diagnostics
/// as to its builds: an allowed warning is not shown, a denied one is an error.
#[test]
fn an_editor_shows_diagnostics_under_the_workspaces_lint_levels() {
    let text = ".model u\n.inputs a\n.outputs y\n.names a nowhere y\n11 1\n.end\n";
    for (level, expect) in [("warn", Some(2)), ("deny", Some(1)), ("allow", None)] {
        let env = Daemon::new();
        std::fs::write(
            env.ws().join("kiln.toml"),
            format!("[lints]\nW0300 = \"{level}\"\n"),
        )
        .unwrap();
        let path = env.ws().join("u.blif");
        std::fs::write(&path, text).unwrap();
        let (mut s, _) = Session::start(&env, true);
        s.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri(&path), "languageId": "blif", "version": 1, "text": text}}),
        );
        let diags = s.diagnostics(1);
        let w0300: Vec<&Value> = diags.iter().filter(|d| d["code"] == "W0300").collect();
        match expect {
            Some(severity) => {
                assert_eq!(w0300.len(), 1, "{level}: {diags:?}");
                assert_eq!(w0300[0]["severity"], severity, "{level}: {diags:?}");
            }
            None => assert!(w0300.is_empty(), "{level}: {diags:?}"),
        }
        s.finish();
    }
}

/// Cycles in the editor: inlay hints on the seed example's scheduled ops (cycles, slot, the
/// rule in the tooltip) and on its loop (window, slots per iteration), at the end of each
/// op's line, only in the requested range.
#[test]
fn inlay_hints_show_the_schedule() {
    let env = Daemon::new();
    let path = env.ws().join("m.mlir");
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/aps/flow_burst_add.mlir"),
    )
    .unwrap();
    std::fs::write(&path, &text).unwrap();
    let (mut s, init) = Session::start(&env, true);
    assert_eq!(init["capabilities"]["inlayHintProvider"], true, "{init}");
    s.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri(&path), "languageId": "mlir", "version": 1, "text": text}}),
    );
    assert_eq!(s.diagnostics(1), Vec::<Value>::new());
    let lines = text.lines().count() as u32;
    let whole =
        json!({"start": {"line": 0, "character": 0}, "end": {"line": lines, "character": 0}});
    let hints = s.request(
        "textDocument/inlayHint",
        json!({"textDocument": doc(&path), "range": whole}),
    );
    let hints = hints.as_array().unwrap();
    let line_of = |needle: &str| text.lines().position(|l| l.contains(needle)).unwrap() as u32;
    let hint_on = |line: u32| {
        hints
            .iter()
            .find(|h| h["position"]["line"] == line)
            .unwrap_or_else(|| panic!("no hint on line {line}: {hints:?}"))
    };
    let readrf = hint_on(line_of("\"op_18\""));
    assert_eq!(readrf["label"], "@c0–c1 · slot 0");
    assert!(
        readrf["tooltip"]
            .as_str()
            .unwrap()
            .contains("rule `inst2b00_block_0_slot_0_rule`"),
        "{readrf}"
    );
    let end = text
        .lines()
        .nth(line_of("\"op_18\"") as usize)
        .unwrap()
        .len();
    assert_eq!(
        readrf["position"]["character"], end as u64,
        "at the line's end"
    );
    assert_eq!(
        hint_on(line_of("\"op_34\""))["label"],
        "@c7–c8 · slot 7",
        "an op scheduled with `on (7 to 8)`: {}",
        hint_on(line_of("\"op_34\""))
    );
    assert_eq!(
        hint_on(line_of("tor.for %arg3"))["label"],
        "loop @c5–c8 · 2 slots per iteration"
    );
    assert!(
        hints
            .iter()
            .all(|h| h["position"]["line"] != line_of("\"op_20\"")),
        "globals get no hint"
    );
    // A range of one line gets that line's hint only.
    let l = line_of("\"op_69\"");
    let one = s.request(
        "textDocument/inlayHint",
        json!({"textDocument": doc(&path),
               "range": {"start": {"line": l, "character": 0}, "end": {"line": l + 1, "character": 0}}}),
    );
    let one = one.as_array().unwrap();
    assert_eq!(one.len(), 1, "{one:?}");
    assert_eq!(one[0]["label"], "@c12–c13 · slot 12");
    s.finish();
}

/// Semantic tokens for the three languages, decoded from the protocol's relative encoding
/// back to text: op names are keywords, SSA values variables, symbols functions, attribute
/// names properties, types types; BLIF directives keywords, models functions, cover rows
/// numbers.
#[test]
fn semantic_tokens_for_aps_handshake_and_blif() {
    let env = Daemon::new();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let (mut s, init) = Session::start(&env, false);
    let legend: Vec<String> =
        init["capabilities"]["semanticTokensProvider"]["legend"]["tokenTypes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_str().unwrap().to_string())
            .collect();
    for (file, source, want) in [
        (
            "m.mlir",
            "examples/aps/flow_burst_add.mlir",
            &[
                ("aps.readrf", "keyword"),
                ("%arg0", "variable"),
                ("@mem_a_0", "function"),
                ("starttime", "property"),
                ("i32", "type"),
                ("\"op_18\"", "string"),
            ][..],
        ),
        (
            "h.mlir",
            "tests/data/handshake/export_gcd.mlir",
            &[
                ("handshake.func", "keyword"),
                ("!handshake.channel", "type"),
            ][..],
        ),
        (
            "b.blif",
            "tests/data/blif/edge/subckt.blif",
            &[(".model", "keyword"), (".subckt", "keyword")][..],
        ),
    ] {
        let text = std::fs::read_to_string(root.join(source)).unwrap();
        let path = env.ws().join(file);
        std::fs::write(&path, &text).unwrap();
        s.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri(&path), "languageId": "mlir", "version": 1, "text": text}}),
        );
        let r = s.request(
            "textDocument/semanticTokens/full",
            json!({"textDocument": doc(&path)}),
        );
        let data: Vec<u64> = r["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        assert!(
            data.len() > 50 && data.len().is_multiple_of(5),
            "{file}: {} numbers",
            data.len()
        );
        // Decode (all ASCII here: UTF-16 units are bytes).
        let lines: Vec<&str> = text.lines().collect();
        let (mut line, mut col) = (0usize, 0usize);
        let mut seen: Vec<(String, String)> = Vec::new();
        for t in data.chunks(5) {
            if t[0] > 0 {
                (line, col) = (line + t[0] as usize, t[1] as usize);
            } else {
                col += t[1] as usize;
            }
            let word = lines[line][col..col + t[2] as usize].to_string();
            seen.push((word, legend[t[3] as usize].clone()));
        }
        for (word, kind) in want {
            assert!(
                seen.iter().any(|(w, k)| w == word && k == kind),
                "{file}: `{word}` as {kind}; saw {:?}",
                &seen[..seen.len().min(40)]
            );
        }
    }
    s.finish();
}
