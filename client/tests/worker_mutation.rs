//! A mutation campaign over the Bazel persistent worker (`kiln worker --persistent_worker`,
//! the CLI mutation test's sibling for the worker protocol), proto and JSON: sessions of
//! requests (builds, bad inputs, bad arguments, paths out of the worker's directory by
//! `..`, absolute paths and a planted symbolic link, good and malformed digests, cancels of
//! running and unknown requests, duplicate and negative ids), with a fixed seed mutated in
//! their encoding (cut short, strings that are not UTF-8 or hold a lone surrogate, fields of
//! the wrong wire type or JSON type, lengths past the end, unknown fields, huge arguments,
//! empty frames, deep nesting, arrays and junk between JSON objects) and framing (length
//! prefixes of 11 bytes, a frame over the 64 MiB limit, at a session's end a cut frame or
//! a 2^63 length).
//!
//! The worker must answer every frame but a cancel exactly once — a request with its id,
//! a frame whose id cannot be read with id 0 — and go on until its stdin ends (exit code 0,
//! or 1 when it ends inside a frame), never panic or die of a signal, and write nothing
//! outside its directory. `KILN_WORKER_MUTATION_FRAMES` (default 1,100 per protocol) and
//! `KILN_MUTATION_SEED` change the campaign.

#[path = "worker_common/mod.rs"]
mod common;
#[path = "mutation_common/mod.rs"]
mod mutation;

use base64::Engine;
use common::Ws;
use common::bazel::{Input, WorkRequest, WorkResponse};
use mutation::Rng;
use prost::Message;
use serde_json::{Value, json};
use sha2::Digest;
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::process::{ChildStdout, Stdio};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

const SESSIONS: usize = 4;
/// Answers a writer may wait for at once (builds run on their own threads).
const OUTSTANDING: usize = 16;
const MAX_FRAME: usize = 64 << 20;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Protocol {
    Proto,
    Json,
}

/// What one frame brings back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    /// One answer with this id (`Some(code)`: with this exit code, unless cancelled).
    Own(i32, Option<i32>),
    /// One answer, with this id or 0 (where the id can be read from a broken frame
    /// depends on where the break is).
    OwnOrZero(i32),
    /// One answer with id 0.
    Zero,
    /// None (a cancel).
    Nothing,
}

/// One request as the test means it (before mutation) and what it brings back.
struct Planned {
    req: WorkRequest,
    expect: Expect,
    /// It reuses the id of a request that may be in flight.
    dup: bool,
}

struct Gen {
    rng: Rng,
    next_id: i32,
    /// Ids of requests sent lately (cancel and duplicate targets).
    recent: Vec<i32>,
    burst_sha: String,
}

fn args(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

impl Gen {
    fn plan(&mut self) -> Planned {
        self.next_id += 1;
        let id = self.next_id;
        let out = format!("o/{id}");
        let req = |a: Vec<String>| WorkRequest {
            arguments: a,
            request_id: id,
            ..Default::default()
        };
        let planned = |req: WorkRequest, code: Option<i32>| Planned {
            expect: Expect::Own(req.request_id, code),
            req,
            dup: false,
        };
        let p = match self.rng.below(14) {
            0..=2 => planned(
                req(args(&["--out-dir", &out, "src/burst.mlir", "src/mux.blif"])),
                Some(0),
            ),
            3 => planned(
                req(args(&["--out-dir", &out, "--kind", "aag", "src/mux.blif"])),
                Some(0),
            ),
            4 => planned(req(args(&["--out-dir", &out, "src/bad.mlir"])), Some(1)),
            5 => {
                let bad = [
                    args(&["--nope"]),
                    vec![],
                    args(&["--out-dir"]),
                    args(&["--kind", "zz", "--out-dir", "o", "src/mux.blif"]),
                ];
                planned(req(bad[self.rng.below(bad.len())].clone()), Some(2))
            }
            6 => {
                let esc = format!("esc/o{id}");
                let escapes = [
                    args(&["--out-dir", &esc, "src/burst.mlir"]),
                    args(&["--out-dir", &format!("../x{id}"), "src/burst.mlir"]),
                    args(&[
                        "--out-dir",
                        "/tmp/kiln-worker-mutation-escape",
                        "src/burst.mlir",
                    ]),
                    args(&["--out-dir", &out, "esc/secret.mlir"]),
                    args(&["--out-dir", &out, "--blif-lib", "esc", "src/burst.mlir"]),
                ];
                let mut r = req(escapes[self.rng.below(escapes.len())].clone());
                if self.rng.below(4) == 0 {
                    r.arguments = args(&["--out-dir", &out, "src/mux.blif"]);
                    r.sandbox_dir = ["esc", "../..", "/"][self.rng.below(3)].into();
                }
                planned(r, Some(2))
            }
            7 => {
                let mut r = req(args(&["--out-dir", &out, "src/burst.mlir"]));
                let good = self.rng.below(2) == 0;
                r.inputs.push(Input {
                    path: "src/burst.mlir".into(),
                    digest: match good {
                        true => self.burst_sha.clone().into_bytes(),
                        false => b"abc".to_vec(),
                    },
                });
                planned(r, Some(if good { 0 } else { 2 }))
            }
            8 | 9 => {
                // A cancel: of a request sent lately (maybe running), or of none.
                self.next_id -= 1;
                let target = match (self.rng.below(2), self.recent.last()) {
                    (0, Some(&t)) => t,
                    _ => 1_000_000_000 + self.rng.below(1000) as i32,
                };
                return Planned {
                    req: WorkRequest {
                        request_id: target,
                        cancel: true,
                        ..Default::default()
                    },
                    expect: Expect::Nothing,
                    dup: false,
                };
            }
            10 => {
                // The id of a request sent lately: refused while it runs, else run.
                self.next_id -= 1;
                let dup = self.recent.last().copied().unwrap_or(1);
                let mut r = req(args(&["--nope"]));
                r.request_id = dup;
                Planned {
                    dup: true,
                    ..planned(r, None)
                }
            }
            11 => {
                let mut r = req(args(&["--out-dir", &out, "src/mux.blif"]));
                r.request_id = -id;
                r.verbosity = 10;
                planned(r, Some(0))
            }
            12 => planned(req(args(&["--out-dir", &out, "@flags.txt"])), None),
            _ => {
                let mut r = req(args(&["--out-dir", &out, "src/mux.blif"]));
                r.inputs.push(Input {
                    path: "src/mux.blif".into(),
                    digest: vec![b'0'; 40],
                });
                planned(r, Some(0))
            }
        };
        if let Expect::Own(id, _) = p.expect {
            self.recent.push(id);
            if self.recent.len() > 4 {
                self.recent.remove(0);
            }
        }
        p
    }
}

/// The varint of `n`.
fn varint(mut n: u64) -> Vec<u8> {
    let mut v = Vec::new();
    loop {
        let b = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            v.push(b);
            return v;
        }
        v.push(b | 0x80);
    }
}

/// `payload` with its varint length.
fn delimited(payload: &[u8]) -> Vec<u8> {
    let mut v = varint(payload.len() as u64);
    v.extend_from_slice(payload);
    v
}

fn json_of(r: &WorkRequest) -> Value {
    let b64 = base64::engine::general_purpose::STANDARD;
    json!({
        "arguments": r.arguments,
        "inputs": r.inputs.iter().map(|i| json!({"path": i.path, "digest": b64.encode(&i.digest)})).collect::<Vec<_>>(),
        "requestId": r.request_id,
        "cancel": r.cancel,
        "verbosity": r.verbosity,
        "sandboxDir": r.sandbox_dir,
    })
}

/// One planned request, maybe mutated, as bytes on the wire, and what they bring back.
fn encode(
    rng: &mut Rng,
    p: &Planned,
    protocol: Protocol,
    big: &mut bool,
) -> (Vec<u8>, Vec<Expect>) {
    let id = p.req.request_id;
    let mutate = p.expect != Expect::Nothing && rng.below(100) < 45;
    // An answer of exit code 2 for a request whose id is read (or 0, while a request with
    // the id may be in flight).
    let refused = match p.dup {
        false => Expect::Own(id, Some(2)),
        true => Expect::OwnOrZero(id),
    };
    let mut huge = p.req.clone();
    huge.arguments
        .push(format!("{}.mlir", "h".repeat(200_000 + rng.below(800_000))));
    if protocol == Protocol::Proto {
        let bytes = p.req.encode_to_vec();
        if !mutate {
            return (delimited(&bytes), vec![p.expect]);
        }
        let appended = |extra: &[u8]| {
            let mut b = bytes.clone();
            b.extend_from_slice(extra);
            delimited(&b)
        };
        return match rng.below(10) {
            // Cut short.
            0 | 1 if bytes.len() > 1 => {
                let at = 1 + rng.below(bytes.len() - 1);
                (delimited(&bytes[..at]), vec![Expect::OwnOrZero(id)])
            }
            // An argument that is not UTF-8: the id is still read.
            2 => {
                let mut r = p.req.clone();
                r.arguments.insert(0, "__BAD__".into());
                let mut b = r.encode_to_vec();
                let at = b.windows(7).position(|w| w == b"__BAD__").unwrap();
                b[at] = 0xff;
                (delimited(&b), vec![refused])
            }
            // The id with the wrong wire type; a field whose length runs past the end.
            3 => (appended(&[0x1a, 1, 0]), vec![Expect::Zero]),
            4 => (appended(&[0x0a, 100, b'x', b'y']), vec![Expect::Zero]),
            // Unknown fields: ignored.
            5 => (
                appended(&[0x78, 0x05, 0x82, 0x01, 2, b'h', b'i']),
                vec![p.expect],
            ),
            6 => (delimited(&huge.encode_to_vec()), vec![refused]),
            // An empty frame: a request without arguments, id 0.
            7 => (vec![0], vec![Expect::Zero]),
            // A length prefix of 11 bytes, then the request itself.
            8 => {
                let mut v = vec![0x80; 10];
                v.push(0);
                v.extend_from_slice(&delimited(&bytes));
                (v, vec![Expect::Zero, p.expect])
            }
            // Once a session: a frame over the limit, read and dropped.
            _ if !*big => {
                *big = true;
                let mut v = varint(MAX_FRAME as u64 + 1);
                v.resize(v.len() + MAX_FRAME + 1, 0);
                v.extend_from_slice(&delimited(&bytes));
                (v, vec![Expect::Zero, p.expect])
            }
            _ => (delimited(&bytes), vec![p.expect]),
        };
    }
    let text = json_of(&p.req).to_string();
    if !mutate {
        return (text.into_bytes(), vec![p.expect]);
    }
    let with = |k: &str, v: Value| {
        let mut j = json_of(&p.req);
        j.as_object_mut().unwrap().insert(k.into(), v);
        j.to_string()
    };
    match rng.below(11) {
        // Not JSON (its brackets balanced).
        0 => (
            text.replacen("\"cancel\":false", "\"cancel\":fals", 1)
                .into_bytes(),
            vec![Expect::Zero],
        ),
        // Fields of the wrong type: the id is read, unless it is the wrong one.
        1 => {
            let bad = [
                ("arguments", json!(5)),
                ("inputs", json!({})),
                ("cancel", json!("yes")),
                ("sandboxDir", json!([])),
            ];
            let (k, v) = bad[rng.below(bad.len())].clone();
            (with(k, v).into_bytes(), vec![refused])
        }
        2 => {
            let ids = [
                json!("7"),
                json!(7.5),
                json!(4294967296u64),
                json!(null),
                json!([1]),
            ];
            let v = ids[rng.below(ids.len())].clone();
            (with("requestId", v).into_bytes(), vec![Expect::Zero])
        }
        // Junk, or an array, before the request.
        3 => {
            let junk = ["tru ", "12 ", "} ", "\"str\" ", "nul\n", "[1,2]", "[]"];
            let mut v = junk[rng.below(junk.len())].as_bytes().to_vec();
            v.extend_from_slice(text.as_bytes());
            (v, vec![Expect::Zero, p.expect])
        }
        // A string that is not UTF-8, or holds a lone surrogate.
        4 => {
            let mut b = with("arguments", json!(["__BAD__"])).into_bytes();
            let at = b.windows(7).position(|w| w == b"__BAD__").unwrap();
            b[at] = 0xff;
            (b, vec![Expect::OwnOrZero(id)])
        }
        5 => {
            let s = with("arguments", json!(["__BAD__"])).replacen("__BAD__", "\\ud800", 1);
            (s.into_bytes(), vec![Expect::OwnOrZero(id)])
        }
        // Unknown fields, deep nesting in one.
        6 => (
            with("kilnExtra", json!({"a": [1, null]})).into_bytes(),
            vec![p.expect],
        ),
        7 => {
            let depth = 150 + rng.below(300);
            let deep = format!("{}0{}", "[".repeat(depth), "]".repeat(depth));
            let s = with("kilnDeep", json!("__DEEP__")).replacen("\"__DEEP__\"", &deep, 1);
            (s.into_bytes(), vec![Expect::OwnOrZero(id)])
        }
        8 => (json_of(&huge).to_string().into_bytes(), vec![refused]),
        // Once a session: an object over the limit, read and dropped.
        9 if !*big => {
            *big = true;
            let mut v = format!("{{\"kilnPad\":\"{}\"}}", "p".repeat(MAX_FRAME)).into_bytes();
            v.extend_from_slice(text.as_bytes());
            (v, vec![Expect::Zero, p.expect])
        }
        _ => (text.into_bytes(), vec![p.expect]),
    }
}

/// How a session ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ending {
    /// Stdin closed between frames: exit code 0.
    Clean,
    /// Stdin closed inside a frame: exit code 1, requests in flight answered.
    Cut,
    /// A 2^63 length (answered, its body skipped to the end of stdin): exit code 1.
    Huge,
}

/// An answer: id, exit code, cancelled, output.
type Answer = (i32, i32, bool, String);

/// Answers read so far, and a signal for each.
#[derive(Default)]
struct Inbox {
    answers: Mutex<Vec<Answer>>,
    arrived: Condvar,
}

impl Inbox {
    fn push(&self, a: Answer) {
        self.answers.lock().unwrap().push(a);
        self.arrived.notify_all();
    }

    /// Wait until at least `n` answers arrived.
    fn wait_for(&self, n: usize, stderr: &Mutex<String>) {
        let deadline = Instant::now() + Duration::from_secs(120);
        let mut got = self.answers.lock().unwrap();
        while got.len() < n {
            let left = deadline.saturating_duration_since(Instant::now());
            assert!(
                !left.is_zero(),
                "{} answers of {n} after 120 s; the worker's stderr:\n{}",
                got.len(),
                stderr.lock().unwrap()
            );
            got = self.arrived.wait_timeout(got, left).unwrap().0;
        }
    }
}

/// Read the worker's answers into `inbox` until its stdout ends.
fn read_answers(protocol: Protocol, mut out: ChildStdout, inbox: Arc<Inbox>) {
    match protocol {
        Protocol::Proto => loop {
            let mut len = 0u64;
            for shift in (0..64).step_by(7) {
                let mut b = [0u8];
                if out.read_exact(&mut b).is_err() {
                    return;
                }
                len |= u64::from(b[0] & 0x7f) << shift;
                if b[0] & 0x80 == 0 {
                    break;
                }
            }
            let mut buf = vec![0; len as usize];
            out.read_exact(&mut buf).unwrap();
            let r = WorkResponse::decode(buf.as_slice()).unwrap();
            inbox.push((r.request_id, r.exit_code, r.was_cancelled, r.output));
        },
        Protocol::Json => {
            for v in serde_json::Deserializer::from_reader(out).into_iter::<Value>() {
                let v = v.unwrap();
                let int = |k: &str| v[k].as_i64().unwrap_or(0) as i32;
                let output = v["output"].as_str().unwrap_or_default().to_string();
                let cancelled = v["wasCancelled"].as_bool().unwrap_or(false);
                inbox.push((int("requestId"), int("exitCode"), cancelled, output));
            }
        }
    }
}

#[derive(Default)]
struct Tally {
    frames: usize,
    answers: usize,
    zero_answers: usize,
    failures: Vec<String>,
}

fn session(
    ws: &Ws,
    protocol: Protocol,
    k: usize,
    seed: u64,
    count: usize,
    ending: Ending,
    tally: &mut Tally,
) {
    let burst = std::fs::read(ws.dir().join("src/burst.mlir")).unwrap();
    let mut g = Gen {
        rng: Rng::for_case(seed, 2 * k as u64 + protocol as u64),
        next_id: (k as i32 + 1) * 100_000,
        recent: Vec::new(),
        burst_sha: sha2::Sha256::digest(&burst)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect(),
    };
    let mut extra = vec!["--no-daemon"];
    if protocol == Protocol::Json {
        extra.extend(["--worker-protocol", "json"]);
    }
    let (mut child, mut stdin, stdout) = common::spawn_persistent(ws, &extra, None, Stdio::piped());
    let stderr = Arc::new(Mutex::new(String::new()));
    let mut err = child.stderr.take().unwrap();
    let sink = stderr.clone();
    let drain = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        sink.lock().unwrap().push_str(&s);
    });
    let inbox = Arc::new(Inbox::default());
    let reader = {
        let inbox = inbox.clone();
        std::thread::spawn(move || read_answers(protocol, stdout, inbox))
    };
    let mut expects = Vec::new();
    let mut big = false;
    let mut owed: usize = 0;
    for _ in 0..count {
        let p = g.plan();
        let (bytes, e) = encode(&mut g.rng, &p, protocol, &mut big);
        inbox.wait_for((owed + 1).saturating_sub(OUTSTANDING), &stderr);
        stdin.write_all(&bytes).unwrap();
        stdin.flush().unwrap();
        owed += e.iter().filter(|e| **e != Expect::Nothing).count();
        expects.extend(e);
        tally.frames += 1;
    }
    // Alive to the end: a last request is answered before stdin closes.
    g.next_id += 1;
    let last = WorkRequest {
        arguments: args(&["--out-dir", "o/last", "src/mux.blif"]),
        request_id: g.next_id,
        ..Default::default()
    };
    let bytes = match protocol {
        Protocol::Proto => delimited(&last.encode_to_vec()),
        Protocol::Json => json_of(&last).to_string().into_bytes(),
    };
    stdin.write_all(&bytes).unwrap();
    stdin.flush().unwrap();
    expects.push(Expect::Own(last.request_id, Some(0)));
    owed += 1;
    inbox.wait_for(owed, &stderr);
    let code = match (ending, protocol) {
        (Ending::Clean, _) => 0,
        (Ending::Cut, Protocol::Proto) => {
            stdin.write_all(&[40, 1, 2, 3]).unwrap();
            1
        }
        (Ending::Cut, Protocol::Json) => {
            stdin.write_all(b"{\"requestId\": 5, \"argu").unwrap();
            1
        }
        (Ending::Huge, _) => {
            stdin
                .write_all(&[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 1, 2])
                .unwrap();
            expects.push(Expect::Zero);
            1
        }
    };
    drop(stdin);
    let status = child.wait().unwrap();
    reader.join().unwrap();
    drain.join().unwrap();
    let stderr = stderr.lock().unwrap().clone();
    let answers = std::mem::take(&mut *inbox.answers.lock().unwrap());
    let mut fail = |why: String| {
        if tally.failures.len() < 30 {
            tally
                .failures
                .push(format!("{protocol:?} session {k} ({ending:?}): {why}"));
        }
    };
    if status.code() != Some(code) {
        fail(format!("exit status {status}, expected {code}"));
    }
    if stderr.contains("panicked") {
        fail(format!("a panic: {stderr}"));
    }
    check(&answers, &expects, &mut fail);
    tally.answers += answers.len();
    tally.zero_answers += answers.iter().filter(|a| a.0 == 0).count();
}

/// Every frame but a cancel answered once: by its id, or by id 0 where its id cannot be
/// read.
fn check(answers: &[Answer], expects: &[Expect], fail: &mut dyn FnMut(String)) {
    let mut got: BTreeMap<i32, Vec<&Answer>> = BTreeMap::new();
    for a in answers {
        got.entry(a.0).or_default().push(a);
    }
    let mut must: BTreeMap<i32, (usize, Option<i32>)> = BTreeMap::new();
    let mut maybe: BTreeMap<i32, usize> = BTreeMap::new();
    let mut zeros = 0;
    for e in expects {
        match *e {
            Expect::Own(0, _) | Expect::Zero => zeros += 1,
            Expect::Own(id, code) => {
                let m = must.entry(id).or_default();
                m.0 += 1;
                m.1 = if m.0 == 1 { code } else { None };
            }
            Expect::OwnOrZero(0) => zeros += 1,
            Expect::OwnOrZero(id) => *maybe.entry(id).or_default() += 1,
            Expect::Nothing => {}
        }
    }
    // Answers with an id beyond what it must have, which the maybes must account for.
    let mut spare_by_id = 0;
    for (id, list) in &got {
        if *id == 0 {
            continue;
        }
        let (need, code) = must.get(id).copied().unwrap_or_default();
        let may = maybe.get(id).copied().unwrap_or_default();
        if list.len() < need || list.len() > need + may {
            fail(format!(
                "request {id}: {} answers, expected {need}..={}: {list:?}",
                list.len(),
                need + may
            ));
            continue;
        }
        spare_by_id += list.len() - need;
        if let (Some(c), [a]) = (code, list.as_slice())
            && !a.2
            && !a.3.contains("request stream broke")
            && a.1 != c
        {
            fail(format!(
                "request {id}: exit code {}, expected {c}: {}",
                a.1, a.3
            ));
        }
    }
    for (id, (need, _)) in &must {
        if !got.contains_key(id) {
            fail(format!("request {id}: never answered (expected {need})"));
        }
    }
    let zero_got = got.get(&0).map_or(0, Vec::len);
    let maybes: usize = maybe.values().sum();
    if zero_got + spare_by_id != zeros + maybes || zero_got < zeros {
        fail(format!(
            "{zero_got} answers with id 0 and {spare_by_id} by the id of a broken frame; expected {zeros} with id 0 and {maybes} either way"
        ));
    }
}

#[test]
fn mutated_frames_never_end_the_worker_and_every_request_is_answered_once() {
    let frames: usize = mutation::env_or("KILN_WORKER_MUTATION_FRAMES", 1100);
    let seed = mutation::seed();
    let ws = Ws::new();
    let outside = ws.root().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret.mlir"), b"").unwrap();
    std::os::unix::fs::symlink(&outside, ws.dir().join("esc")).unwrap();
    let around = common::names(ws.root());
    let t = Instant::now();
    let mut tally = Tally::default();
    for protocol in [Protocol::Proto, Protocol::Json] {
        let endings = match protocol {
            Protocol::Proto => [Ending::Clean, Ending::Cut, Ending::Clean, Ending::Huge],
            Protocol::Json => [Ending::Clean, Ending::Cut, Ending::Clean, Ending::Clean],
        };
        for (k, ending) in endings.into_iter().enumerate() {
            let count = frames / SESSIONS + usize::from(k < frames % SESSIONS);
            session(&ws, protocol, k, seed, count, ending, &mut tally);
        }
    }
    eprintln!(
        "worker mutation campaign: {} frames in {:?} (seed {seed:#x}, proto and JSON): {} answers, {} with id 0",
        tally.frames,
        t.elapsed(),
        tally.answers,
        tally.zero_answers
    );
    assert_eq!(
        common::names(&outside),
        ["secret.mlir"],
        "written outside the worker's directory"
    );
    assert_eq!(
        common::names(ws.root()),
        around,
        "written next to the worker's directory"
    );
    assert!(!std::path::Path::new("/tmp/kiln-worker-mutation-escape").exists());
    assert!(tally.frames >= 2 * frames);
    assert!(
        tally.failures.is_empty(),
        "{} failures, first ones:\n{}",
        tally.failures.len(),
        tally.failures.join("\n")
    );
}
