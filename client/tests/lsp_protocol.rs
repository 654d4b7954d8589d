//! `kiln lsp` against a client that breaks the protocol: frames with huge, malformed or
//! missing lengths, bodies that are not JSON (a lone surrogate, bytes that are not UTF-8),
//! messages that are not requests (an array, no `method`, an id of the wrong type), and
//! the lifecycle out of order. Every bad message gets the JSON-RPC error (with its id when
//! it can be read) and the server goes on; it exits 0 only after `shutdown`.

mod cli;
#[path = "lsp_raw/mod.rs"]
mod raw;

use raw::{Raw, frame, notification, request};
use serde_json::{Value, json};
use std::time::Duration;

const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const METHOD_NOT_FOUND: i64 = -32601;
const INVALID_PARAMS: i64 = -32602;
const NOT_INITIALIZED: i64 = -32002;

fn lsp(env: &cli::Daemon, extra: &[&str]) -> std::process::Command {
    let mut c = env.kiln();
    c.arg("lsp").args(extra);
    c
}

/// The server answers a good request (a method it lacks: -32601) with id `id`.
fn alive(s: &mut Raw, id: i64) {
    s.write(&request(id, "kiln/ping", json!({})));
    s.error(&json!(id), METHOD_NOT_FOUND);
}

#[test]
fn malformed_messages_get_errors_and_the_server_goes_on() {
    let env = cli::Daemon::new();
    let mut s = Raw::initialized(lsp(&env, &[]));
    let cases: Vec<(Vec<u8>, Value, i64)> = vec![
        // Not JSON.
        (
            br#"{"jsonrpc":"2.0","id":1,"method":"#.to_vec(),
            Value::Null,
            PARSE_ERROR,
        ),
        // A lone surrogate: valid JSON text, no Unicode string.
        (
            br#"{"jsonrpc":"2.0","id":2,"method":"\ud800"}"#.to_vec(),
            json!(2),
            INVALID_REQUEST,
        ),
        // Not UTF-8: its id is read all the same.
        (
            b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"a\xff\"}".to_vec(),
            json!(3),
            PARSE_ERROR,
        ),
        // A JSON array (a batch, which LSP does not have).
        (
            br#"[{"jsonrpc":"2.0","id":4,"method":"x"}]"#.to_vec(),
            Value::Null,
            INVALID_REQUEST,
        ),
        (b"42".to_vec(), Value::Null, INVALID_REQUEST),
        // A request without `method`, and with a `method` that is not a string.
        (
            br#"{"jsonrpc":"2.0","id":5,"params":{}}"#.to_vec(),
            json!(5),
            INVALID_REQUEST,
        ),
        (
            br#"{"jsonrpc":"2.0","id":"s","method":7}"#.to_vec(),
            json!("s"),
            INVALID_REQUEST,
        ),
        // Ids that are neither integers nor strings.
        (
            br#"{"jsonrpc":"2.0","id":1.5,"method":"x"}"#.to_vec(),
            Value::Null,
            INVALID_REQUEST,
        ),
        (
            br#"{"jsonrpc":"2.0","id":null,"method":"x"}"#.to_vec(),
            Value::Null,
            INVALID_REQUEST,
        ),
        (
            br#"{"jsonrpc":"2.0","id":{},"method":"x"}"#.to_vec(),
            Value::Null,
            INVALID_REQUEST,
        ),
        // Parameters of the wrong shape.
        (
            br#"{"jsonrpc":"2.0","id":6,"method":"textDocument/hover","params":[1]}"#.to_vec(),
            json!(6),
            INVALID_PARAMS,
        ),
        (
            br#"{"jsonrpc":"2.0","id":7,"method":"textDocument/hover"}"#.to_vec(),
            json!(7),
            INVALID_PARAMS,
        ),
        // A second `initialize`.
        (
            br#"{"jsonrpc":"2.0","id":8,"method":"initialize","params":{}}"#.to_vec(),
            json!(8),
            INVALID_REQUEST,
        ),
    ];
    for (i, (body, id, code)) in cases.iter().enumerate() {
        s.write(&frame(body));
        let m = s.error(id, *code);
        assert!(
            m["error"]["message"]
                .as_str()
                .unwrap()
                .starts_with("kiln lsp: "),
            "{m}"
        );
        alive(&mut s, 100 + i as i64);
    }
    // Notifications that are wrong are never answered: a bad `didOpen`, one not UTF-8.
    s.write(&notification(
        "textDocument/didOpen",
        json!({"textDocument": 5}),
    ));
    s.write(&frame(b"{\"jsonrpc\":\"2.0\",\"method\":\"x\xfe\"}"));
    s.write(&notification("$/cancelRequest", json!({"id": 1})));
    alive(&mut s, 200);
    // After `shutdown`, requests are invalid; `exit` ends the server with 0.
    s.write(&request(300, "shutdown", Value::Null));
    assert_eq!(s.response(&json!(300))["result"], Value::Null);
    s.write(&request(301, "textDocument/hover", json!({})));
    s.error(&json!(301), INVALID_REQUEST);
    s.write(&notification("exit", Value::Null));
    let stderr_before = s.stderr();
    let (code, _) = s.finish(Duration::from_secs(30));
    assert_eq!(code, Some(0), "{stderr_before}");
    assert!(!stderr_before.contains("panicked"), "{stderr_before}");
}

#[test]
fn broken_framing_is_answered_and_reading_goes_on() {
    let env = cli::Daemon::new();
    let mut s = Raw::initialized(lsp(&env, &["--max-input-size", "1K"]));
    // A body over the limit: skipped whole, answered, and the next message is read.
    let big = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"x","params":"{}"}}"#,
        "a".repeat(4000)
    );
    s.write(&frame(big.as_bytes()));
    let m = s.error(&Value::Null, PARSE_ERROR);
    assert!(
        m["error"]["message"]
            .as_str()
            .unwrap()
            .contains("--max-input-size"),
        "{m}"
    );
    alive(&mut s, 2);
    // No `Content-Length`, a negative one, one that is not a number: the message is lost
    // (answered with id null), the next one is found after it.
    for header in [
        "Content-Type: x",
        "Content-Length: -5",
        "Content-Length: 0x10",
    ] {
        let body = r#"{"jsonrpc":"2.0","id":3,"method":"x"}"#;
        s.write(format!("{header}\r\n\r\n{body}").as_bytes());
        s.error(&Value::Null, PARSE_ERROR);
        alive(&mut s, 4);
    }
    // Extra headers, bare newlines, a junk line before the header: read as they are.
    let body = r#"{"jsonrpc":"2.0","id":5,"method":"kiln/ping","params":{}}"#;
    s.write(
        format!(
            "X-Extra: 1\nContent-Type: application/vscode-jsonrpc; charset=utf-8\ncontent-length: {}\n\n{body}",
            body.len()
        )
        .as_bytes(),
    );
    s.error(&json!(5), METHOD_NOT_FOUND);
    s.write(b"garbage\r\n");
    alive(&mut s, 6);
    // 2^63: refused before anything is allocated; its body runs to the end of the stream.
    s.write(b"Content-Length: 9223372036854775808\r\n\r\n{}");
    let stderr = s.stderr();
    let (code, rest) = s.finish(Duration::from_secs(30));
    assert_eq!(code, Some(1), "no shutdown: {stderr}");
    assert_eq!(rest.len(), 1, "{rest:?}");
    assert_eq!(rest[0]["id"], Value::Null);
    assert_eq!(rest[0]["error"]["code"], PARSE_ERROR);
}

/// Resident memory of process `pid`, in KiB.
fn rss_kib(pid: u32) -> u64 {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = s.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[test]
fn an_announced_length_commits_no_memory() {
    let env = cli::Daemon::new();
    let mut s = Raw::initialized(lsp(&env, &["--max-input-size", "2G"]));
    let before = rss_kib(s.child.id());
    s.write(b"Content-Length: 1500000000\r\n\r\n{\"jsonrpc\"");
    std::thread::sleep(Duration::from_millis(1500));
    let during = rss_kib(s.child.id());
    eprintln!("kiln lsp RSS: {before} KiB before, {during} KiB while 1.5e9 bytes are announced");
    assert!(
        during < before + 64 * 1024,
        "{during} KiB (from {before} KiB)"
    );
    let (code, rest) = s.finish(Duration::from_secs(30));
    assert_eq!(code, Some(1));
    let why = rest[0]["error"]["message"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(why.contains("after 10 of the 1500000000 bytes"), "{rest:?}");
}

#[test]
fn the_lifecycle_is_the_specifications() {
    let env = cli::Daemon::new();
    // Before `initialize`: requests get -32002, notifications are dropped.
    let mut s = Raw::start(lsp(&env, &[]));
    s.write(&request(1, "textDocument/hover", json!({})));
    s.error(&json!(1), NOT_INITIALIZED);
    s.write(&notification("textDocument/didOpen", json!({})));
    s.write(&request(2, "initialize", json!({"capabilities": {}})));
    assert!(s.response(&json!(2))["result"]["capabilities"].is_object());
    // `exit` without `shutdown`: exit code 1.
    s.write(&notification("exit", Value::Null));
    let (code, _) = s.finish(Duration::from_secs(30));
    assert_eq!(code, Some(1));
    // The end of stdin without `shutdown`: 1 too; after it: 0.
    let s = Raw::initialized(lsp(&env, &[]));
    assert_eq!(s.finish(Duration::from_secs(30)).0, Some(1));
    let mut s = Raw::initialized(lsp(&env, &[]));
    s.write(&request(1, "shutdown", Value::Null));
    s.response(&json!(1));
    assert_eq!(s.finish(Duration::from_secs(30)).0, Some(0));
}
