//! `kiln watch` as an editor drives it: saves by truncate-then-write, by atomic rename and
//! by touch print no false failure and one status line per rebuild; a save that changes
//! no diagnostic prints nothing but its status line; a new diagnostic is printed once, and
//! once more as `fixed:` when it goes. A half-written file left longer than the debounce
//! is built again once complete, not reported as failed. The CSR configuration is watched
//! like an input (a bad one fails its build, outputs kept). Each test has its own workspace and
//! daemon (shut down at the end); every wait has a generous timeout.

mod cli;

use cli::Daemon;
use std::fs;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::Child;
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

/// How long any one step may take on a loaded machine.
const PATIENCE: Duration = Duration::from_secs(90);

/// A design whose function sends no response: one warning (W0204) naming `func`.
fn warns(func: &str) -> String {
    compiler::aps::workload::slot_chain(3)
        .replace(
            "      aps.writerf %arg2, %v1 {starttime = 2 : i32, endtime = 3 : i32} : i5, i32\n",
            "",
        )
        .replace("tor.func @chain(", &format!("tor.func @{func}("))
}

fn clean() -> String {
    fs::read_to_string(cli::example()).unwrap()
}

/// How a save writes a file.
#[derive(Clone, Copy, Debug)]
enum Save {
    /// Truncate, wait 50 ms, write (an editor that rewrites in place).
    TruncateThenWrite,
    /// Write a temporary file beside it and rename it over (an atomic save).
    Rename,
    /// Only touch it (the bytes stay).
    Touch,
}

fn save(path: &Path, how: Save, text: &str, i: usize) {
    match how {
        Save::TruncateThenWrite => {
            let f = fs::OpenOptions::new()
                .write(true)
                .truncate(true)
                .open(path)
                .unwrap();
            std::thread::sleep(Duration::from_millis(50));
            use std::io::Write;
            (&f).write_all(text.as_bytes()).unwrap();
        }
        Save::Rename => {
            let name = path.file_name().unwrap().to_string_lossy();
            let tmp = path.with_file_name(format!(".{name}.swp{i}"));
            fs::write(&tmp, text).unwrap();
            fs::rename(&tmp, path).unwrap();
        }
        Save::Touch => {
            let f = fs::File::options().append(true).open(path).unwrap();
            f.set_modified(std::time::SystemTime::now()).unwrap();
        }
    }
}

/// `kiln watch` with stdout and stderr in one pipe (so lines come in the order printed),
/// and the lines it prints.
fn start(env: &Daemon, args: &[&str]) -> (Child, Receiver<String>) {
    let (reader, writer) = std::io::pipe().unwrap();
    let mut cmd = env.kiln();
    cmd.args(["watch", "--color", "never"])
        .args(args)
        .stdout(writer.try_clone().unwrap())
        .stderr(writer);
    let child = cmd.spawn().unwrap();
    // The command holds the pipe's writing end: without it the reader sees the end.
    drop(cmd);
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(reader).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    (child, rx)
}

fn is_status(line: &str) -> bool {
    line.starts_with('[') && (line.contains("] ok ") || line.contains("] FAILED "))
}

/// The lines up to and including the next status line.
fn next_rebuild(rx: &Receiver<String>, what: &str) -> Vec<String> {
    let deadline = Instant::now() + PATIENCE;
    let mut lines = Vec::new();
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(l) => {
                let done = is_status(&l);
                lines.push(l);
                if done {
                    return lines;
                }
            }
            Err(e) => panic!("{what}: no status line ({e}); so far: {lines:#?}"),
        }
    }
}

/// Whatever is printed within `quiet` (nothing is expected).
fn stray(rx: &Receiver<String>, quiet: Duration) -> Vec<String> {
    let mut lines = Vec::new();
    while let Ok(l) = rx.recv_timeout(quiet) {
        lines.push(l);
    }
    lines
}

/// Wait for `child` to exit; its exit code.
fn exit_code(child: &mut Child) -> Option<i32> {
    let deadline = Instant::now() + PATIENCE;
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return s.code();
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("kiln watch did not exit after --max-events");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// 20 saves by the three ways editors save: no false failure, one status line each (and
/// `[N]` counting up), nothing but the status line for a save that changes no diagnostic,
/// and each changed diagnostic once as new and once as fixed.
#[test]
fn watch_prints_what_changed_and_one_status_line_per_save() {
    let env = Daemon::new();
    let src = env.ws().join("src");
    let path = |name: &str| -> PathBuf { src.join(name) };
    fs::write(path("w1.mlir"), warns("one")).unwrap();
    fs::write(path("w2.mlir"), warns("two")).unwrap();
    fs::write(path("w3.mlir"), warns("three")).unwrap();
    fs::write(path("clean.mlir"), clean()).unwrap();
    let broken = "tor.design @d {\n  %x = \n}\n";
    let shifted = format!("// a comment above the warning\n{}", warns("two"));

    use Save::*;
    // (file, how, new text, diagnostics it adds, diagnostics it fixes); "" = none.
    #[rustfmt::skip]
    let saves: Vec<(&str, Save, String, &str, &str)> = vec![
        ("w1.mlir", Touch, warns("one"), "", ""),
        ("w1.mlir", TruncateThenWrite, warns("one"), "", ""),
        ("w2.mlir", Rename, warns("two"), "", ""),
        ("w1.mlir", TruncateThenWrite, warns("uno"), "@uno", "@one"),
        ("w1.mlir", Rename, warns("uno"), "", ""),
        ("w2.mlir", Touch, warns("two"), "", ""),
        // Lines added above a warning move it: it is neither new nor fixed.
        ("w2.mlir", TruncateThenWrite, shifted.clone(), "", ""),
        ("clean.mlir", Rename, broken.to_string(), "error", ""),
        ("clean.mlir", TruncateThenWrite, clean(), "", "error"),
        ("clean.mlir", Touch, clean(), "", ""),
        ("w3.mlir", Rename, warns("tres"), "@tres", "@three"),
        ("w3.mlir", TruncateThenWrite, warns("three"), "@three", "@tres"),
        ("w3.mlir", Touch, warns("three"), "", ""),
        ("w1.mlir", Rename, warns("one"), "@one", "@uno"),
        ("w2.mlir", TruncateThenWrite, shifted.clone(), "", ""),
        ("w1.mlir", Touch, warns("one"), "", ""),
        ("w2.mlir", Rename, warns("two"), "", ""),
        ("w1.mlir", TruncateThenWrite, warns("one"), "", ""),
        ("w3.mlir", Rename, warns("three"), "", ""),
        ("clean.mlir", Touch, clean(), "", ""),
    ];
    assert_eq!(saves.len(), 20);
    let events = (saves.len() + 1).to_string();
    let debounce = Duration::from_millis(400);
    let (mut child, rx) = start(
        &env,
        &[
            "src",
            "-o",
            "out",
            "--debounce",
            "400",
            "--max-events",
            &events,
        ],
    );

    // The first build shows every diagnostic: three warnings.
    let first = next_rebuild(&rx, "first build");
    let status = first.last().unwrap();
    assert!(status.starts_with("[0] ok "), "{first:#?}");
    assert!(status.ends_with("; 3 warnings"), "{first:#?}");
    let warnings = first.iter().filter(|l| l.contains(": warning: ")).count();
    assert_eq!(warnings, 3, "{first:#?}");
    assert!(stray(&rx, debounce * 2).is_empty());

    for (i, (file, how, text, adds, fixes)) in saves.iter().enumerate() {
        let what = format!("save {} ({how:?} {file})", i + 1);
        save(&path(file), *how, text, i);
        let lines = next_rebuild(&rx, &what);
        let (status, shown) = lines.split_last().unwrap();
        assert!(
            status.starts_with(&format!("[{}] ", i + 1)),
            "{what}: one status line a save: {lines:#?}"
        );
        let failed = status.contains("] FAILED ");
        assert_eq!(failed, *adds == "error", "{what}: {lines:#?}");
        // What the save changed, and nothing else.
        let news: Vec<&String> = shown
            .iter()
            .filter(|l| l.contains(": warning: ") || l.contains(": error: "))
            .filter(|l| !l.starts_with("fixed: "))
            .collect();
        let fixed: Vec<&String> = shown.iter().filter(|l| l.starts_with("fixed: ")).collect();
        match *adds {
            "" => assert!(news.is_empty(), "{what}: nothing new: {lines:#?}"),
            "error" => assert!(
                news.len() == 1 && news[0].contains("clean.mlir:") && news[0].contains(": error: "),
                "{what}: {lines:#?}"
            ),
            func => assert!(
                news.len() == 1
                    && news[0].contains(&format!("{file}:"))
                    && news[0].contains(&format!("`{func}` sends no response"))
                    && news[0].ends_with("[W0204]"),
                "{what}: {lines:#?}"
            ),
        }
        match *fixes {
            "" => assert!(fixed.is_empty(), "{what}: nothing fixed: {lines:#?}"),
            "error" => assert!(
                fixed.len() == 1
                    && fixed[0].contains("clean.mlir:")
                    && fixed[0].contains(": error: "),
                "{what}: {lines:#?}"
            ),
            func => assert!(
                fixed.len() == 1
                    && fixed[0].contains(&format!("{file}:"))
                    && fixed[0].contains(&format!("`{func}` sends no response"))
                    && fixed[0].ends_with("[W0204]"),
                "{what}: {lines:#?}"
            ),
        }
        // The status line counts what changed.
        let delta = match (adds.is_empty(), fixes.is_empty()) {
            (true, true) => "",
            (false, true) => " (1 new)",
            (true, false) => " (1 fixed)",
            (false, false) => " (1 new, 1 fixed)",
        };
        assert_eq!(
            status.contains(" new") || status.contains(" fixed"),
            !delta.is_empty(),
            "{what}: {status}"
        );
        assert!(
            status.ends_with(&format!("warnings{delta}")),
            "{what}: {status}"
        );
        if adds.is_empty() && fixes.is_empty() {
            // Only the status line (its source excerpts and notes are part of a diagnostic).
            assert!(shown.is_empty(), "{what}: nothing new: {lines:#?}");
        }
        let extra = stray(&rx, debounce * 2);
        assert!(extra.is_empty(), "{what}: a second rebuild: {extra:#?}");
    }
    assert_eq!(exit_code(&mut child), Some(0), "the last build succeeded");
}

/// A writer that leaves a half-written file for longer than the debounce, while the build
/// of it runs or just after: the failed build is built again once the file settled, never
/// reported (the daemon built more often than it reported).
#[test]
fn watch_builds_a_half_written_file_again_instead_of_failing() {
    let env = Daemon::new();
    let file = env.ws().join("src/a.mlir");
    let text = clean();
    fs::write(&file, &text).unwrap();
    let (mut child, rx) = start(
        &env,
        &[
            "src",
            "-o",
            "out",
            "--debounce",
            "3000",
            "--max-events",
            "2",
        ],
    );
    let first = next_rebuild(&rx, "first build");
    assert!(first.last().unwrap().starts_with("[0] ok "), "{first:#?}");

    // Half the file (not a design) for 1.5 debounce periods: the build of it starts after
    // one period; the rest arrives during it or within the period after it (either way
    // with half a period to spare, for a loaded machine).
    fs::write(&file, &text[..text.len() / 2]).unwrap();
    std::thread::sleep(Duration::from_millis(4500));
    fs::write(&file, &text).unwrap();
    let lines = next_rebuild(&rx, "the write");
    let status = lines.last().unwrap();
    assert!(status.starts_with("[1] ok "), "{lines:#?}");
    assert!(!lines.iter().any(|l| l.contains(": error: ")), "{lines:#?}");
    assert_eq!(exit_code(&mut child), Some(0));

    let stats = env.run(&["stats", "--json"]);
    assert!(stats.status.success());
    let v: serde_json::Value = serde_json::from_slice(&stats.stdout).unwrap();
    let builds = v["builds"].as_u64().unwrap();
    assert!(
        builds >= 3,
        "the half-written file was built and not reported: {v}"
    );
}

/// The SystemVerilog top's CSR lanes (`input logic [31:0] csr_<lane>_value_res0`).
fn csr_lanes(sv: &Path) -> Vec<String> {
    (fs::read_to_string(sv).unwrap().lines())
        .filter_map(|l| l.trim().strip_prefix("input  logic [31:0] csr_"))
        .map(|l| l.trim_end_matches(',').to_string())
        .collect()
}

/// The CSR configuration (`--aps-config`) is watched like an input and read again before
/// each build: an edit rebuilds with its lanes; a configuration that does not read fails
/// its build with the located error (named as given) and leaves the outputs as they were;
/// fixing it builds again and says the error is fixed.
#[test]
fn watch_reads_the_csr_configuration_again_when_it_changes() {
    let env = Daemon::new();
    fs::copy(cli::aps_data("csr.mlir"), env.ws().join("src/csr.mlir")).unwrap();
    let config = env.ws().join("aps_config.yaml");
    let first = "csrs:\n  - {id: 0x810, name: cfg}\n  - {id: 0x811, name: status}\n";
    fs::write(&config, first).unwrap();
    let (mut child, rx) = start(
        &env,
        &[
            "src/csr.mlir",
            "-o",
            "out",
            "--emit",
            "sv",
            "--aps-config",
            "aps_config.yaml",
            "--max-events",
            "4",
        ],
    );
    let sv = env.ws().join("out/csr.sv");
    let lines = next_rebuild(&rx, "first build");
    assert!(lines.last().unwrap().starts_with("[0] ok "), "{lines:#?}");
    assert_eq!(csr_lanes(&sv), ["cfg_value_res0", "status_value_res0"]);

    // New names and order: rebuilt with them.
    save(
        &config,
        Save::Rename,
        "csrs:\n  - {id: 0x811, name: flags}\n  - {id: 0x810, name: scale}\n",
        0,
    );
    let lines = next_rebuild(&rx, "renamed lanes");
    let status = lines.last().unwrap();
    assert!(status.starts_with("[1] ok "), "{lines:#?}");
    assert!(
        status.contains("changed: ") && status.contains("aps_config.yaml"),
        "{lines:#?}"
    );
    assert_eq!(csr_lanes(&sv), ["flags_value_res0", "scale_value_res0"]);
    let before = fs::read(&sv).unwrap();

    // A second CSR with one id: the build fails with the file's located error, the
    // outputs stay.
    let bad = "csrs:\n  - {id: 0x810, name: a}\n  - {id: 0x810, name: b}\n";
    save(&config, Save::TruncateThenWrite, bad, 1);
    let lines = next_rebuild(&rx, "bad configuration");
    assert!(
        lines.last().unwrap().starts_with("[2] FAILED "),
        "{lines:#?}"
    );
    let error = "aps_config.yaml:3:5: error: a second CSR with id 0x810";
    assert!(
        lines.iter().any(|l| l.starts_with(error)),
        "{error}: {lines:#?}"
    );
    assert_eq!(fs::read(&sv).unwrap(), before, "the outputs stay");

    // Fixed: built again with the first lanes, the error listed as fixed.
    save(&config, Save::Rename, first, 2);
    let lines = next_rebuild(&rx, "fixed configuration");
    assert!(lines.last().unwrap().starts_with("[3] ok "), "{lines:#?}");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with(&format!("fixed: {error}"))),
        "{lines:#?}"
    );
    assert_eq!(csr_lanes(&sv), ["cfg_value_res0", "status_value_res0"]);
    assert_eq!(exit_code(&mut child), Some(0));
}
