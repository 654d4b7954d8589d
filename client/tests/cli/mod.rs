//! What the end-to-end CLI tests share: the `kiln` binary run in process (no workspace
//! daemon; `build_daemon.rs` and `daemon_cli.rs` test that path), the APS example, and
//! running a command that must succeed.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Command, Output};

/// `kiln` with `KILN_NO_DAEMON=1` and no library directory inherited from the environment.
pub fn kiln() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_kiln"));
    c.env("KILN_NO_DAEMON", "1").env_remove("KILN_BLIF_LIB");
    c
}

/// `examples/aps/flow_burst_add.mlir`.
pub fn example() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples/aps/flow_burst_add.mlir")
}

/// A file under `tests/data/aps/`.
pub fn aps_data(file: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/data/aps")
        .join(file)
}

/// Run `cmd`; it must exit 0 (its stderr is the failure message otherwise).
pub fn ok(cmd: &mut Command) -> Output {
    let out = cmd.output().expect("kiln runs");
    assert!(
        out.status.success(),
        "{:?} failed: {}",
        cmd,
        String::from_utf8_lossy(&out.stderr)
    );
    out
}
