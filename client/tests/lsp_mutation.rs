//! A mutation campaign over `kiln lsp` (the CLI mutation test's sibling for the editor
//! protocol): sessions of editor messages (open, edits, hovers, definitions, references,
//! symbols, code lenses, unknown methods, notifications, the client's own responses), with
//! a fixed seed each mutated in its framing (missing, negative, malformed, too short or too
//! long `Content-Length`, extra headers, bare newlines, junk lines, long header lines; at a
//! session's end a 2^63 length, a cut body or header) or in its message (not JSON, a lone
//! surrogate, bytes that are not UTF-8, arrays and scalars, ids and methods of the wrong
//! type, missing members, wrong parameters, huge strings, deep nesting, requests turned
//! into notifications and back, duplicate members).
//!
//! Every session must end only when it ends (`exit`, or the end of stdin), with exit code
//! 0 after `shutdown` and 1 otherwise, never a panic or a signal; every request must be
//! answered exactly once with its id (with the error the specification gives it for a
//! mutated one), a message whose id cannot be read with id `null`, and no notification at
//! all. `KILN_LSP_MUTATION_MESSAGES` (default 2,400) and `KILN_MUTATION_SEED` change the
//! campaign; a failing session's bytes are kept under `target/mutation-failures/`.

mod cli;
#[path = "mutation_common/mod.rs"]
mod mutation;
#[path = "lsp_raw/mod.rs"]
mod raw;

use mutation::Rng;
use raw::{Raw, frame};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const METHOD_NOT_FOUND: i64 = -32601;
const INVALID_PARAMS: i64 = -32602;
const SESSIONS: usize = 8;

/// What one message sent must bring back.
#[derive(Debug, Clone)]
enum Expect {
    /// One response with this id: a result or an error whose code is in the list (empty:
    /// a result or `InvalidParams`, what a request on the document gives).
    Answer(Value, Vec<i64>),
    /// One response with id `null` and this code.
    Null(i64),
    /// At most one response, with this id or `null` (mutations whose outcome depends on
    /// where a parser stops).
    Loose(Value),
    /// No response.
    Nothing,
}

/// An unmutated message: its JSON and what it brings back.
struct Base {
    msg: Value,
    expect: Expect,
}

/// Where the campaign is in one session.
struct Gen {
    rng: Rng,
    uri: String,
    uri2: String,
    version: i64,
    next_id: u64,
}

impl Gen {
    fn id(&mut self) -> Value {
        self.next_id += 1;
        match self.rng.chance(50) {
            true => json!(self.next_id),
            false => json!(format!("s{}", self.next_id)),
        }
    }

    fn position(&mut self) -> Value {
        match self.rng.below(10) {
            0 => json!({"line": 4294967295u32, "character": 4294967295u32}),
            1 => json!({"line": -1, "character": 0}),
            _ => json!({"line": self.rng.below(70), "character": self.rng.below(90)}),
        }
    }

    fn request(&mut self, method: &str, params: Value, codes: Vec<i64>) -> Base {
        let id = self.id();
        Base {
            msg: json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
            expect: Expect::Answer(id, codes),
        }
    }

    fn notification(&mut self, method: &str, params: Value) -> Base {
        Base {
            msg: json!({"jsonrpc": "2.0", "method": method, "params": params}),
            expect: Expect::Nothing,
        }
    }

    /// One editor message.
    fn base(&mut self) -> Base {
        let doc = json!({"uri": self.uri});
        match self.rng.below(20) {
            0..=2 => {
                let p = json!({"textDocument": doc, "position": self.position()});
                self.request("textDocument/hover", p, vec![])
            }
            3 | 4 => {
                let p = json!({"textDocument": doc, "position": self.position()});
                self.request("textDocument/definition", p, vec![])
            }
            5 => {
                let p = json!({"textDocument": doc, "position": self.position(),
                               "context": {"includeDeclaration": self.rng.chance(50)}});
                self.request("textDocument/references", p, vec![])
            }
            6 => self.request(
                "textDocument/documentSymbol",
                json!({"textDocument": doc}),
                vec![],
            ),
            7 => self.request(
                "textDocument/codeLens",
                json!({"textDocument": doc}),
                vec![],
            ),
            8 => self.request("kiln/unknown", json!({"x": 1}), vec![METHOD_NOT_FOUND]),
            9..=13 => {
                self.version += 1;
                let texts = [
                    "",
                    "x",
                    "%9 = ",
                    "}",
                    "\n",
                    "tor.func @q() {\n",
                    "é𝄞",
                    "// c\n",
                ];
                let text = texts[self.rng.below(texts.len())];
                let (a, b) = (self.position(), self.position());
                let p = json!({"textDocument": {"uri": self.uri, "version": self.version},
                               "contentChanges": [{"range": {"start": a, "end": b}, "text": text}]});
                self.notification("textDocument/didChange", p)
            }
            14 => {
                let text = ".model m\n.inputs a\n.outputs y\n.names a y\n1 1\n.end\n";
                let p = json!({"textDocument": {"uri": self.uri2, "languageId": "blif",
                                                "version": 1, "text": text}});
                self.notification("textDocument/didOpen", p)
            }
            15 => self.notification(
                "textDocument/didClose",
                json!({"textDocument": {"uri": self.uri2}}),
            ),
            16 => self.notification("$/cancelRequest", json!({"id": self.next_id})),
            17 => self.notification("$/setTrace", json!({"value": "off"})),
            18 => {
                let id = self.id();
                Base {
                    msg: json!({"jsonrpc": "2.0", "id": id, "result": null}),
                    expect: Expect::Nothing,
                }
            }
            _ => self.request(
                "textDocument/hover",
                json!({"textDocument": doc}),
                vec![INVALID_PARAMS],
            ),
        }
    }
}

/// The id of a request's expectation, if it is one.
fn request_id(e: &Expect) -> Option<Value> {
    match e {
        Expect::Answer(id, _) => Some(id.clone()),
        _ => None,
    }
}

/// `base` mutated in its message (its framing intact): the body and what it brings back.
fn mutate_message(rng: &mut Rng, base: &Base) -> (Vec<u8>, Vec<Expect>) {
    let text = base.msg.to_string();
    let id = request_id(&base.expect);
    let has_method = base.msg.get("method").is_some();
    let answer = |codes: Vec<i64>| match &id {
        Some(id) => Expect::Answer(id.clone(), codes),
        None => Expect::Nothing,
    };
    // An invalid request: answered for its id, or with id null when it has none.
    let invalid = || match &id {
        Some(id) => Expect::Answer(id.clone(), vec![INVALID_REQUEST]),
        None => Expect::Null(INVALID_REQUEST),
    };
    let with = |f: &dyn Fn(&mut serde_json::Map<String, Value>)| {
        let mut m = base.msg.as_object().unwrap().clone();
        f(&mut m);
        Value::Object(m).to_string().into_bytes()
    };
    let method_text = base.msg["method"]
        .as_str()
        .map(|m| format!("\"method\":\"{m}\""));
    let kinds = if has_method { 14 } else { 4 };
    let (body, expect) = match rng.below(kinds) {
        // Not JSON: cut short (no prefix of an object is JSON).
        0 => {
            let at = 1 + rng.below(text.len() - 1);
            (text.as_bytes()[..at].to_vec(), Expect::Null(PARSE_ERROR))
        }
        // An array, a scalar.
        1 => (
            format!("[{text}]").into_bytes(),
            Expect::Null(INVALID_REQUEST),
        ),
        2 => {
            let scalars = ["42", "\"x\"", "true", "null", "{}"];
            (
                scalars[rng.below(scalars.len())].as_bytes().to_vec(),
                Expect::Null(INVALID_REQUEST),
            )
        }
        // An id of the wrong type.
        3 => {
            let ids = [
                json!(1.5),
                json!(true),
                json!({}),
                json!([]),
                json!(null),
                json!(1e40),
            ];
            let bad = ids[rng.below(ids.len())].clone();
            (
                with(&|m| {
                    m.insert("id".into(), bad.clone());
                }),
                Expect::Null(INVALID_REQUEST),
            )
        }
        // A lone surrogate in the method.
        4 => {
            let m = method_text.unwrap();
            let bad = format!("{}\\ud800\"", &m[..m.len() - 1]);
            (text.replacen(&m, &bad, 1).into_bytes(), invalid())
        }
        // A byte that is not UTF-8 in the method.
        5 => {
            let m = method_text.unwrap();
            let mut body = Vec::new();
            let at = text.find(&m).unwrap() + m.len() - 1;
            body.extend_from_slice(&text.as_bytes()[..at]);
            body.push(0xff);
            body.extend_from_slice(&text.as_bytes()[at..]);
            (body, answer(vec![PARSE_ERROR]))
        }
        // A method of the wrong type, or none.
        6 => {
            let types = [json!(7), json!(null), json!({}), json!(["x"])];
            let bad = types[rng.below(types.len())].clone();
            (
                with(&|m| {
                    m.insert("method".into(), bad.clone());
                }),
                invalid(),
            )
        }
        7 => (
            with(&|m| {
                m.remove("method");
            }),
            invalid(),
        ),
        // Parameters of the wrong shape, or none.
        8 => {
            let shapes = [
                json!(5),
                json!("x"),
                json!([]),
                json!(null),
                json!({"textDocument": 3}),
            ];
            let bad = shapes[rng.below(shapes.len())].clone();
            let drop = rng.chance(20);
            let unknown = base.msg["method"] == "kiln/unknown";
            let body = with(&|m| {
                match drop {
                    true => m.remove("params"),
                    false => m.insert("params".into(), bad.clone()),
                };
            });
            (
                body,
                answer(vec![if unknown {
                    METHOD_NOT_FOUND
                } else {
                    INVALID_PARAMS
                }]),
            )
        }
        // A huge method name; a huge unknown parameter (ignored).
        9 => {
            let huge = "m".repeat(100_000 + rng.below(200_000));
            (
                with(&|m| {
                    m.insert("method".into(), json!(huge.clone()));
                }),
                answer(vec![METHOD_NOT_FOUND]),
            )
        }
        10 => {
            let huge = "p".repeat(100_000 + rng.below(200_000));
            let body = with(&|m| {
                if let Some(p) = m.get_mut("params").and_then(Value::as_object_mut) {
                    p.insert("kilnPad".into(), json!(huge.clone()));
                }
            });
            (body, base.expect.clone())
        }
        // A request turned into a notification (never answered), and back (a
        // notification's method is no request method).
        11 => match &id {
            Some(_) => (
                with(&|m| {
                    m.remove("id");
                }),
                Expect::Nothing,
            ),
            None => {
                let new_id = json!(format!("n{}", rng.next() % 1_000_000_000));
                let body = with(&|m| {
                    m.insert("id".into(), new_id.clone());
                });
                (body, Expect::Answer(new_id, vec![METHOD_NOT_FOUND]))
            }
        },
        // Unknown members and an old `jsonrpc`: as if they were not there.
        12 => (
            with(&|m| {
                m.insert("kilnExtra".into(), json!([1, {"a": null}]));
                m.insert("jsonrpc".into(), json!("1.0"));
            }),
            base.expect.clone(),
        ),
        // A duplicate member; deep nesting in the parameters.
        _ => match rng.chance(50) {
            true => (
                format!("{{\"method\":\"dup\",{}", &text[1..]).into_bytes(),
                Expect::Null(INVALID_REQUEST),
            ),
            false => {
                let depth = 100 + rng.below(400);
                let deep = format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
                let body = with(&|m| {
                    m.insert("params".into(), json!("__DEEP__"));
                });
                let body = String::from_utf8(body)
                    .unwrap()
                    .replace("\"__DEEP__\"", &deep);
                let e = match &id {
                    Some(id) => Expect::Loose(id.clone()),
                    None => Expect::Loose(Value::Null),
                };
                (body.into_bytes(), e)
            }
        },
    };
    (body, vec![expect])
}

/// A notification that absorbs the damage a broken frame before it does to the framing.
fn pad() -> Vec<u8> {
    let body = json!({"jsonrpc": "2.0", "method": "kiln/pad", "params": {"pad": "-".repeat(48)}});
    frame(body.to_string().as_bytes())
}

/// One message framed, maybe mutated: its bytes and what they bring back.
fn message(g: &mut Gen) -> (Vec<u8>, Vec<Expect>) {
    let base = g.base();
    let body = base.msg.to_string().into_bytes();
    let len = body.len();
    let roll = g.rng.below(100);
    if roll < 35 {
        return (frame(&body), vec![base.expect]);
    }
    if roll < 75 {
        let (body, expect) = mutate_message(&mut g.rng, &base);
        return (frame(&body), expect);
    }
    let with_body = |head: String| {
        let mut v = head.into_bytes();
        v.extend_from_slice(&body);
        v
    };
    if roll < 87 {
        // Framing that is odd but whole: the message is read as it is.
        let head = match g.rng.below(6) {
            0 => format!(
                "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: {len}\r\nX-Kiln: 1\r\n\r\n"
            ),
            1 => format!("Content-Length: {len}\n\n"),
            2 => format!("content-length:   {len}  \r\n\r\n"),
            3 => format!("this is not a header\r\nContent-Length: {len}\r\n\r\n"),
            4 => format!(
                "X-Pad: {}\r\nContent-Length: {len}\r\n\r\n",
                "p".repeat(10_000)
            ),
            _ => format!("\r\nContent-Length: {len}\r\n\r\n"),
        };
        return (with_body(head), vec![base.expect]);
    }
    // Framing that loses the message (answered with id null); the pad after it is read
    // again after its header, or lost too when a too-long length ate into it.
    let (bytes, pad_lost) = match g.rng.below(5) {
        0 => (with_body(format!("Content-Lenght: {len}\r\n\r\n")), false),
        1 => {
            let bad = ["-5", "abc", "99999999999999999999999", "", "0x10", "1 2"];
            let v = bad[g.rng.below(bad.len())];
            (with_body(format!("Content-Length: {v}\r\n\r\n")), false)
        }
        2 => {
            let cut = 1 + g.rng.below(len - 1);
            (
                with_body(format!("Content-Length: {}\r\n\r\n", len - cut)),
                false,
            )
        }
        3 => {
            let more = 1 + g.rng.below(12);
            (
                with_body(format!("Content-Length: {}\r\n\r\n", len + more)),
                true,
            )
        }
        _ => (
            with_body(format!("Content-Length: {len}\r\nContent-Length:\r\n\r\n")),
            false,
        ),
    };
    let mut bytes = bytes;
    bytes.extend_from_slice(&pad());
    let mut expect = vec![Expect::Null(PARSE_ERROR)];
    if pad_lost {
        expect.push(Expect::Null(PARSE_ERROR));
    }
    // The message itself is lost: its id is never answered.
    (bytes, expect)
}

/// How a session ends.
#[derive(Debug, Clone, Copy)]
enum Ending {
    /// `shutdown`, a request after it (invalid), `exit`: 0.
    Clean,
    /// `shutdown`, then the end of stdin: 0.
    Eof,
    /// `exit` without `shutdown`: 1.
    ExitEarly,
    /// A 2^63 length whose body runs to the end of stdin: 1.
    Huge,
    /// A body cut by the end of stdin: 1.
    CutBody,
    /// A header cut by the end of stdin: 1.
    CutHeader,
}

#[derive(Default, Debug)]
struct Tally {
    messages: usize,
    requests: usize,
    null_answers: usize,
    failures: Vec<String>,
}

fn session(
    env: &cli::Daemon,
    k: usize,
    seed: u64,
    count: usize,
    ending: Ending,
    tally: &mut Tally,
) {
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/data/aps/flow_burst_add.mlir"),
    )
    .unwrap();
    let mut g = Gen {
        rng: Rng::for_case(seed, k as u64),
        uri: format!("file://{}/m{k}.mlir", env.ws().display()),
        uri2: format!("file://{}/n{k}.blif", env.ws().display()),
        version: 1,
        next_id: 0,
    };
    let mut cmd = env.kiln();
    cmd.args(["lsp", "--max-input-size", "4M"]);
    let mut s = Raw::initialized(cmd);
    let open = json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument":
        {"uri": g.uri, "languageId": "mlir", "version": 1, "text": text}}});
    s.write(&frame(open.to_string().as_bytes()));
    let mut expects = Vec::new();
    // Everything sent, kept when the session fails.
    let mut sent = Vec::new();
    for _ in 0..count {
        let (bytes, e) = message(&mut g);
        s.write(&bytes);
        sent.extend_from_slice(&bytes);
        expects.extend(e);
        tally.messages += 1;
    }
    let code = match ending {
        Ending::Clean | Ending::Eof => {
            s.write(&raw::request("shutdown", "shutdown", Value::Null));
            expects.push(Expect::Answer(json!("shutdown"), vec![]));
            if let Ending::Clean = ending {
                s.write(&raw::request("late", "textDocument/hover", json!({})));
                expects.push(Expect::Answer(json!("late"), vec![INVALID_REQUEST]));
                s.write(&raw::notification("textDocument/didOpen", json!({})));
                s.write(&raw::notification("exit", Value::Null));
            }
            0
        }
        Ending::ExitEarly => {
            s.write(&raw::notification("exit", Value::Null));
            1
        }
        Ending::Huge => {
            s.write(b"Content-Length: 9223372036854775808\r\n\r\n{\"jsonrpc\":");
            expects.push(Expect::Null(PARSE_ERROR));
            1
        }
        Ending::CutBody => {
            s.write(b"Content-Length: 100\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":\"cut\"");
            expects.push(Expect::Null(PARSE_ERROR));
            1
        }
        Ending::CutHeader => {
            s.write(b"Content-Length: 100\r\nContent-Ty");
            expects.push(Expect::Null(PARSE_ERROR));
            1
        }
    };
    let stderr = s.stderr.clone();
    let (status, messages) = s.finish(Duration::from_secs(120));
    let stderr = stderr.lock().unwrap().clone();
    if stderr.contains("panicked") && tally.failures.len() < 30 {
        tally
            .failures
            .push(format!("session {k}: a panic: {stderr}"));
    }
    let failures = tally.failures.len();
    check(k, ending, code, status, &messages, &expects, tally);
    if tally.failures.len() > failures {
        let keep =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/mutation-failures");
        let _ = std::fs::create_dir_all(&keep);
        let file = keep.join(format!("lsp-session{k}-seed{seed:x}.bin"));
        let _ = std::fs::write(&file, &sent);
        tally.failures.push(format!(
            "session {k}: its messages (after initialize and didOpen) kept as {}",
            file.display()
        ));
    }
}

/// Compare what came back with what was expected.
fn check(
    k: usize,
    ending: Ending,
    code: i32,
    status: Option<i32>,
    messages: &[Value],
    expects: &[Expect],
    tally: &mut Tally,
) {
    let mut fail = |why: String| {
        if tally.failures.len() < 30 {
            tally
                .failures
                .push(format!("session {k} ({ending:?}): {why}"));
        }
    };
    if status != Some(code) {
        fail(format!("exit status {status:?}, expected {code}"));
    }
    let mut by_id: BTreeMap<String, Vec<&Value>> = BTreeMap::new();
    let mut nulls = Vec::new();
    for m in messages.iter().filter(|m| m.get("method").is_none()) {
        match &m["id"] {
            Value::Null => nulls.push(m),
            id => by_id.entry(id.to_string()).or_default().push(m),
        }
    }
    let (mut null_min, mut null_max) = (0, 0);
    let mut null_codes: BTreeMap<i64, usize> = BTreeMap::new();
    for e in expects {
        match e {
            Expect::Answer(id, codes) => {
                tally.requests += 1;
                let got = by_id.remove(&id.to_string()).unwrap_or_default();
                if got.len() != 1 {
                    fail(format!(
                        "request {id} answered {} times: {got:?}",
                        got.len()
                    ));
                    continue;
                }
                let err = got[0]["error"]["code"].as_i64();
                let ok = match (codes.is_empty(), err) {
                    (true, None) => got[0].get("result").is_some(),
                    (true, Some(c)) => c == INVALID_PARAMS,
                    (false, Some(c)) => codes.contains(&c),
                    (false, None) => false,
                };
                if !ok {
                    fail(format!("request {id}: expected {codes:?}, got {}", got[0]));
                }
            }
            Expect::Null(code) => {
                null_min += 1;
                null_max += 1;
                *null_codes.entry(*code).or_default() += 1;
            }
            Expect::Loose(id) => {
                null_max += 1;
                if !id.is_null() {
                    let got = by_id.remove(&id.to_string()).unwrap_or_default();
                    if got.len() > 1 {
                        fail(format!("request {id} answered {} times", got.len()));
                    }
                    if got.len() == 1 {
                        null_max -= 1;
                    }
                }
            }
            Expect::Nothing => {}
        }
    }
    for (id, got) in by_id {
        fail(format!("an answer to {id}, which needs none: {got:?}"));
    }
    if nulls.len() < null_min || nulls.len() > null_max {
        fail(format!(
            "{} answers with id null, expected {null_min}..={null_max}",
            nulls.len()
        ));
    }
    for n in &nulls {
        let c = n["error"]["code"].as_i64();
        if c != Some(PARSE_ERROR) && c != Some(INVALID_REQUEST) {
            fail(format!("an answer with id null: {n}"));
        }
    }
    for (code, want) in null_codes {
        let got = nulls.iter().filter(|n| n["error"]["code"] == code).count();
        if got < want {
            fail(format!(
                "{got} answers with id null and code {code}, expected at least {want}"
            ));
        }
    }
    tally.null_answers += nulls.len();
}

#[test]
fn mutated_messages_never_end_the_server_and_every_request_is_answered_once() {
    let total: usize = mutation::env_or("KILN_LSP_MUTATION_MESSAGES", 2400);
    let seed = mutation::seed();
    let env = cli::Daemon::new();
    let endings = [
        Ending::Clean,
        Ending::Huge,
        Ending::CutBody,
        Ending::Eof,
        Ending::Clean,
        Ending::CutHeader,
        Ending::ExitEarly,
        Ending::Clean,
    ];
    let t = Instant::now();
    let mut tally = Tally::default();
    for (k, ending) in endings.iter().enumerate().take(SESSIONS) {
        let count = total / SESSIONS + usize::from(k < total % SESSIONS);
        session(&env, k, seed, count, *ending, &mut tally);
    }
    eprintln!(
        "lsp mutation campaign: {} messages in {SESSIONS} sessions in {:?} (seed {seed:#x}): {} requests answered once, {} answers with id null",
        tally.messages,
        t.elapsed(),
        tally.requests,
        tally.null_answers
    );
    assert!(tally.messages >= total);
    assert!(
        tally.failures.is_empty(),
        "{} failures, first ones:\n{}",
        tally.failures.len(),
        tally.failures.join("\n")
    );
}
