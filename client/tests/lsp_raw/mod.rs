//! A raw LSP client for the protocol tests (included with `#[path]`; not a test on its
//! own): bytes in, JSON values out, responses with a `null` id included (which
//! `lsp-server`'s types cannot hold), the server's stderr kept.
#![allow(dead_code)]

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A `kiln lsp` process.
pub struct Raw {
    pub child: Child,
    stdin: Option<ChildStdin>,
    rx: Receiver<Value>,
    /// Everything the server wrote on stderr so far.
    pub stderr: Arc<Mutex<String>>,
}

/// `body` framed with its `Content-Length` header.
pub fn frame(body: &[u8]) -> Vec<u8> {
    let mut v = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    v.extend_from_slice(body);
    v
}

/// A request's bytes, framed.
pub fn request(id: impl Into<Value>, method: &str, params: Value) -> Vec<u8> {
    let v = json!({"jsonrpc": "2.0", "id": id.into(), "method": method, "params": params});
    frame(v.to_string().as_bytes())
}

/// A notification's bytes, framed.
pub fn notification(method: &str, params: Value) -> Vec<u8> {
    let v = json!({"jsonrpc": "2.0", "method": method, "params": params});
    frame(v.to_string().as_bytes())
}

/// One message the server wrote (its own framing is trusted: it is the server under test
/// only for what it reads).
fn read_message(r: &mut impl BufRead) -> Option<Value> {
    let mut len = None;
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(v) = line.strip_prefix("Content-Length: ") {
            len = v.parse::<usize>().ok();
        }
    }
    let mut body = vec![0; len?];
    r.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

impl Raw {
    /// Start `cmd` (a `kiln lsp` command) with piped stdio.
    pub fn start(mut cmd: Command) -> Raw {
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .env("RUST_BACKTRACE", "0")
            .spawn()
            .unwrap();
        let stdin = child.stdin.take();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            while let Some(m) = read_message(&mut stdout) {
                if tx.send(m).is_err() {
                    return;
                }
            }
        });
        let stderr = Arc::new(Mutex::new(String::new()));
        let mut err = child.stderr.take().unwrap();
        let sink = stderr.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = err.read(&mut buf) {
                if n == 0 {
                    return;
                }
                sink.lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        });
        Raw {
            child,
            stdin,
            rx,
            stderr,
        }
    }

    /// Start and initialize (UTF-16 positions).
    pub fn initialized(cmd: Command) -> Raw {
        let mut s = Raw::start(cmd);
        s.write(&request(
            0,
            "initialize",
            json!({"capabilities": {}, "processId": null}),
        ));
        let init = s.response(&json!(0));
        assert!(init["result"]["capabilities"].is_object(), "{init}");
        s.write(&notification("initialized", json!({})));
        s
    }

    /// Write raw bytes to the server (a closed pipe is ignored: the server may have ended).
    pub fn write(&mut self, bytes: &[u8]) {
        if let Some(stdin) = self.stdin.as_mut() {
            let _ = stdin.write_all(bytes).and_then(|_| stdin.flush());
        }
    }

    /// Close the server's stdin.
    pub fn close(&mut self) {
        self.stdin = None;
    }

    /// The next message, within `timeout`; `None` once the server closed stdout.
    pub fn next(&self, timeout: Duration) -> Option<Value> {
        match self.rx.recv_timeout(timeout) {
            Ok(v) => Some(v),
            Err(RecvTimeoutError::Disconnected) => None,
            Err(RecvTimeoutError::Timeout) => panic!(
                "no message from the server within {timeout:?}; stderr:\n{}",
                self.stderr()
            ),
        }
    }

    /// The next response (notifications skipped), which must be for `id`.
    pub fn response(&self, id: &Value) -> Value {
        loop {
            let m = self
                .next(Duration::from_secs(60))
                .unwrap_or_else(|| panic!("the server ended; stderr:\n{}", self.stderr()));
            if m.get("method").is_some() {
                continue;
            }
            assert_eq!(&m["id"], id, "{m}");
            return m;
        }
    }

    /// The next response must be an error with `code` for `id` (`Value::Null`: no id).
    pub fn error(&self, id: &Value, code: i64) -> Value {
        let m = self.response(id);
        assert_eq!(m["error"]["code"].as_i64(), Some(code), "{m}");
        m
    }

    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// Close stdin and wait (at most `timeout`) for the exit: the exit code and the
    /// messages written after the last one read.
    pub fn finish(mut self, timeout: Duration) -> (Option<i32>, Vec<Value>) {
        self.close();
        let start = Instant::now();
        let mut rest = Vec::new();
        loop {
            match self.rx.recv_timeout(Duration::from_millis(100)) {
                Ok(v) => rest.push(v),
                Err(RecvTimeoutError::Disconnected) => break,
                Err(RecvTimeoutError::Timeout) => {}
            }
            if start.elapsed() > timeout {
                let _ = self.child.kill();
                panic!("the server did not end within {timeout:?}");
            }
        }
        loop {
            if let Some(st) = self.child.try_wait().unwrap() {
                return (st.code(), rest);
            }
            if start.elapsed() > timeout {
                let _ = self.child.kill();
                panic!("the server did not exit within {timeout:?}");
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}
