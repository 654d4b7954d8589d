//! The daemon's `Watch` streams under what editors and version control do: the watched
//! directory deleted and re-created (a branch switch), then an edit storm; the output
//! directory inside the watched tree; kiln's own `.kiln-*` files.

mod common;

use common::{Env, in_process, tree};
use kiln_daemon::client::WatchEvent;
use kiln_daemon::request::BuildSpec;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// A `Watch` stream's events, with the time each arrived.
struct Stream {
    rx: mpsc::Receiver<(Instant, WatchEvent)>,
}

impl Stream {
    /// Start watching `spec` through the daemon of `env` (started if needed).
    fn open(env: &Env, spec: &BuildSpec) -> Stream {
        let (tx, rx) = mpsc::channel();
        let (connector, spec) = (env.connector.clone(), spec.clone());
        std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async move {
                use tokio_stream::StreamExt;
                let mut client = connector.ensure().await.unwrap();
                let stream = client.watch(&spec).await.unwrap();
                let mut stream = std::pin::pin!(stream);
                while let Some(Ok(event)) = stream.next().await {
                    if tx.send((Instant::now(), event)).is_err() {
                        return;
                    }
                }
            });
        });
        Stream { rx }
    }

    fn next(&self, within: Duration) -> Option<(Instant, WatchEvent)> {
        self.rx.recv_timeout(within).ok()
    }

    /// The events that arrive until `deadline`.
    fn until(&self, deadline: Instant) -> Vec<(Instant, WatchEvent)> {
        let mut out = Vec::new();
        while let Some(left) = deadline.checked_duration_since(Instant::now()) {
            match self.rx.recv_timeout(left) {
                Ok(e) => out.push(e),
                Err(_) => break,
            }
        }
        out
    }
}

fn spec(inputs: &[PathBuf], out_dir: &Path) -> BuildSpec {
    BuildSpec {
        inputs: inputs.to_vec(),
        out_dir: out_dir.to_path_buf(),
        ..Default::default()
    }
}

/// The two sources of a branch: an APS design and, one level down, a BLIF netlist; the
/// variant `v` changes both (same sizes, as most edits are).
fn sources(v: usize) -> [(&'static str, String); 2] {
    let aps = fs::read_to_string(common::data("aps/flow_burst_add.mlir")).unwrap();
    let blif = fs::read_to_string(common::data("daemon/blif_lib/mux/2/2/1/mux.blif")).unwrap();
    let op = ["tor.addi", "tor.subi"][v % 2];
    let row = blif.find("\n1").unwrap();
    let bit = ["1", "0"][(v / 2) % 2];
    [
        (
            "burst.mlir",
            format!("// v{:04}\n{}", v, aps.replacen("tor.addi", op, 1)),
        ),
        (
            "sub/mux.blif",
            format!("# v{:04}\n{}\n{bit}{}", v, &blif[..row], &blif[row + 2..]),
        ),
    ]
}

fn write_sources(dir: &Path, v: usize, by_rename: bool) {
    for (rel, text) in sources(v) {
        let path = dir.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        if by_rename {
            let tmp = path.with_extension("swp");
            fs::write(&tmp, text).unwrap();
            fs::rename(&tmp, &path).unwrap();
        } else {
            fs::write(&path, text).unwrap();
        }
    }
}

/// Delete and re-create the watched directory (what a `git checkout` does to it), then 500
/// edits in 2 s: the last build's outputs equal a cold build of the final sources within
/// 3 s of the last edit, and no build runs after that without a new edit. Edits after the
/// storm are still seen (the re-created directory is watched again).
#[test]
fn watch_recovers_from_a_recreated_directory_and_an_edit_storm() {
    let env = Env::new(&[]);
    let src = env.ws().join("src");
    let out = env.ws().join("out");
    write_sources(&src, 0, false);
    let stream = Stream::open(&env, &spec(std::slice::from_ref(&src), &out));
    let (_, first) = stream.next(Duration::from_secs(60)).expect("first build");
    assert!(first.report.ok(), "{}", first.report.rendered());

    fs::remove_dir_all(&src).unwrap();
    fs::create_dir(&src).unwrap();
    write_sources(&src, 1, false);
    let start = Instant::now();
    let edits = 500;
    for i in 0..edits {
        write_sources(&src, 2 + i, i % 3 == 0);
        let due = start + Duration::from_millis(2000 * (i as u64 + 1) / edits as u64);
        if let Some(wait) = due.checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
    }
    let last_edit = Instant::now();
    let storm = last_edit - start;
    let cold = env.ws().join("cold");
    assert!(in_process(std::slice::from_ref(&src), &cold).ok());
    let expected = tree(&cold);
    assert_eq!(expected.len(), 3, "{:?}", expected.keys());

    let events = stream.until(last_edit + Duration::from_secs(3));
    let (at, last) = events.last().expect("builds after the storm");
    assert!(last.report.ok(), "{}", last.report.rendered());
    assert_eq!(tree(&out), expected, "outputs 3 s after the last edit");
    let quiet = stream.until(Instant::now() + Duration::from_secs(3));
    assert!(
        quiet.is_empty(),
        "builds without an edit: {:?}",
        quiet.iter().map(|(_, e)| &e.changed).collect::<Vec<_>>()
    );
    eprintln!(
        "{edits} edits in {storm:?}: {} builds, the last {:?} after the last edit",
        events.len(),
        at.saturating_duration_since(last_edit)
    );
    assert!(
        events.len() < edits / 2,
        "edits do not coalesce: {} builds",
        events.len()
    );

    // One more edit, in the re-created directory: one build, with its outputs.
    write_sources(&src, 9999, true);
    let (_, e) = stream
        .next(Duration::from_secs(10))
        .expect("a build for the edit");
    assert!(e.report.ok(), "{}", e.report.rendered());
    let _ = fs::remove_dir_all(&cold);
    assert!(in_process(std::slice::from_ref(&src), &cold).ok());
    assert_eq!(tree(&out), tree(&cold));
    let more = stream.until(Instant::now() + Duration::from_secs(2));
    assert!(more.is_empty(), "{} more builds", more.len());
}

/// `kiln watch src` with its output directory inside `src`: its own outputs (`.cmt2.mlir`
/// included) are neither inputs nor changes, and neither are `.kiln-*` files; one save is
/// one rebuild.
#[test]
fn outputs_inside_the_watched_tree_are_not_inputs() {
    let env = Env::new(&[]);
    let src = env.ws().join("src");
    let out = src.join("out");
    write_sources(&src, 0, false);
    let spec = spec(std::slice::from_ref(&src), &out);
    // A directory build: two inputs, three outputs, whatever is in the output directory.
    let report = env.build(&spec);
    assert!(report.ok(), "{}", report.rendered());
    assert_eq!(report.files.len(), 3, "{:?}", report.files);
    let again = env.build(&spec);
    assert!(again.ok(), "outputs read as inputs: {}", again.rendered());
    assert_eq!(again.files.len(), 3, "{:?}", again.files);
    assert!(!out.join("out").exists(), "outputs of outputs");

    let stream = Stream::open(&env, &spec);
    let (_, first) = stream.next(Duration::from_secs(60)).expect("first build");
    assert!(first.report.ok(), "{}", first.report.rendered());
    assert_eq!(first.report.files.len(), 3, "{:?}", first.report.files);
    let idle = stream.until(Instant::now() + Duration::from_millis(1500));
    assert!(idle.is_empty(), "rebuilt on its own outputs");

    // kiln's own files, even with an input's name, are not inputs.
    fs::create_dir_all(src.join(".kiln-x")).unwrap();
    fs::write(src.join(".kiln-x/junk.mlir"), "not MLIR").unwrap();
    let idle = stream.until(Instant::now() + Duration::from_millis(1500));
    assert!(idle.is_empty(), "rebuilt on a .kiln-* file");

    write_sources(&src, 1, true);
    let (_, e) = stream
        .next(Duration::from_secs(10))
        .expect("a build for the save");
    assert!(e.report.ok(), "{}", e.report.rendered());
    assert_eq!(e.report.files.len(), 3);
    let more = stream.until(Instant::now() + Duration::from_millis(1500));
    assert!(
        more.is_empty(),
        "one save, {} more builds: {:?}",
        more.len(),
        more.iter().map(|(_, e)| &e.changed).collect::<Vec<_>>()
    );
    // The same sources built cold elsewhere (the output directory left behind).
    let cold = env.ws().join("cold");
    write_sources(&cold, 1, false);
    assert!(in_process(std::slice::from_ref(&cold), &cold.join("out")).ok());
    assert_eq!(tree(&out), tree(&cold.join("out")));
}
