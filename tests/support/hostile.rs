//! Helpers of the hostile-neighbour tests, shared by `cache/tests/` and `client/tests/`
//! (included with `#[path]`): a second user, commands run as that user, the process's
//! peak memory, a server that never answers, and the request reader of hostile HTTP caches.
#![allow(dead_code)]

use std::os::unix::process::CommandExt;
use std::process::Command;

/// Whether this process is root; where it is not, `what` (a test, or part of one, that
/// needs root) is skipped with a message, and fails under CI (CI runs as root).
pub fn root_or_skip(what: &str) -> bool {
    if unsafe { libc::geteuid() } == 0 {
        return true;
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "CI runs as root: {what} must run there"
    );
    eprintln!("skipped: {what} needs root");
    false
}

/// The uid and gid of a second user (made with `useradd` when missing); `None` where this
/// process is not root, which fails under CI (CI runs as root, so these tests run there).
pub fn second_user() -> Option<(u32, u32)> {
    if !root_or_skip("creating a second user") {
        return None;
    }
    let name = "kiln-test-other";
    let id = |flag: &str| {
        Command::new("id")
            .args([flag, name])
            .output()
            .ok()
            .filter(|o| o.status.success())
            .and_then(|o| String::from_utf8(o.stdout).ok()?.trim().parse::<u32>().ok())
    };
    if id("-u").is_none() {
        let st = Command::new("useradd")
            .args([
                "--system",
                "--no-create-home",
                "--shell",
                "/usr/sbin/nologin",
                name,
            ])
            .status()
            .expect("useradd");
        assert!(st.success() || id("-u").is_some(), "useradd failed");
    }
    Some((id("-u").unwrap(), id("-g").unwrap()))
}

/// Run `program args` as `user` (uid, gid); it must succeed.
pub fn run_as(user: (u32, u32), program: &str, args: &[&std::ffi::OsStr]) {
    let st = Command::new(program)
        .args(args)
        .uid(user.0)
        .gid(user.1)
        .status()
        .unwrap();
    assert!(st.success(), "{program} {args:?} as uid {}", user.0);
}

/// Reset the process's peak resident memory (VmHWM).
pub fn reset_peak() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// The process's peak resident memory since the last reset, in KiB.
pub fn peak_kib() -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = s.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// Make a FIFO at `path`.
pub fn mkfifo(path: &std::path::Path) {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo");
}

/// A server on a free loopback port that accepts every connection and never reads or
/// writes: its port.
pub fn blackhole() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for s in l.incoming().flatten() {
            held.push(s);
        }
    });
    port
}

/// Method, path and body of one HTTP/1.1 request (with `Content-Length`).
pub fn read_http_request(s: &std::net::TcpStream) -> Option<(String, String, Vec<u8>)> {
    use std::io::{BufRead, Read};
    let mut r = std::io::BufReader::new(s);
    let mut line = String::new();
    r.read_line(&mut line).ok()?;
    let mut parts = line.split_whitespace();
    let (method, path) = (parts.next()?.to_string(), parts.next()?.to_string());
    let mut len = 0usize;
    loop {
        let mut h = String::new();
        r.read_line(&mut h).ok()?;
        if h.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':')
            && k.eq_ignore_ascii_case("content-length")
        {
            len = v.trim().parse().ok()?;
        }
    }
    let mut body = vec![0; len];
    r.read_exact(&mut body).ok()?;
    Some((method, path, body))
}

/// An HTTP/1.1 server on a free loopback port that calls `answer` with each request's
/// connection and path, a thread per connection: its URL.
pub fn http_server<F>(answer: F) -> String
where
    F: Fn(std::net::TcpStream, &str) + Send + Sync + 'static,
{
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", l.local_addr().unwrap());
    let answer = std::sync::Arc::new(answer);
    std::thread::spawn(move || {
        for s in l.incoming().flatten() {
            let answer = answer.clone();
            std::thread::spawn(move || {
                if let Some((_, path, _)) = read_http_request(&s) {
                    answer(s, &path);
                }
            });
        }
    });
    url
}

/// Write a `200 OK` response with `body` (and `Connection: close`).
pub fn http_ok(s: &mut std::net::TcpStream, body: &[u8]) {
    use std::io::Write;
    let head = format!(
        "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = s.write_all(head.as_bytes()).and_then(|_| s.write_all(body));
}
