//! `kiln sim --engine verilator`: the generated SystemVerilog, Verilated, driven by kiln's
//! Level-0 harness (`compiler::rules::sv::HARNESS_CC`) through the ports of APS's SoC port
//! convention only, with the same reference environment as the rule simulator and the
//! Icarus testbench. The executable is built once per (design, harness, Verilator version)
//! and kept in the cache directory (`$KILN_CACHE_DIR/verilator/<sha256>/`), so a second
//! run of the same design starts at once.

use super::rtl::{RtlError, RtlRun};
use crate::io::{self, Failure};
use compiler::rules::Circuit;
use compiler::rules::sim::{Command, CsrWrite};
use compiler::rules::sv;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command as Proc;

/// Flags of the Verilator build (part of the cache key).
const FLAGS: &[&str] = &[
    "--cc",
    "--exe",
    "--build",
    "-Wno-fatal",
    "--prefix",
    "Vkiln",
    "-Mdir",
    "obj",
    "-o",
    "harness",
];

fn tool_missing(e: std::io::Error) -> Failure {
    Failure::input(format!(
        "error: `--engine verilator` needs Verilator (`verilator`: {e}); install `verilator`"
    ))
}

/// A build kept in the cache directory: `<cache>/<kind>/` (private to this user) and the
/// entry for the build whose inputs are `parts` (named by their SHA-256).
pub(crate) fn cache_entry(kind: &str, parts: &[&[u8]]) -> Result<(PathBuf, PathBuf), Failure> {
    let mut key = Vec::new();
    for part in parts {
        key.extend_from_slice(&(part.len() as u64).to_le_bytes());
        key.extend_from_slice(part);
    }
    let key: String = kiln_cache::digest(&key)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let root = kiln_daemon::paths::cache_dir().join(kind);
    kiln_cache::private::create_private_dir(&root, false)
        .map_err(|e| Failure::input(format!("error: {}: {e}", root.display())))?;
    let dir = root.join(key);
    Ok((root, dir))
}

/// The harness executable for `sv_text` (top `top`), built or found in the cache.
fn executable(sv_text: &str, header: &str, top: &str) -> Result<PathBuf, Failure> {
    let version = Proc::new("verilator")
        .arg("--version")
        .output()
        .map_err(tool_missing)?;
    let (root, dir) = cache_entry(
        "verilator",
        &[
            sv_text.as_bytes(),
            sv::HARNESS_CC.as_bytes(),
            sv::KILN_ENV_H.as_bytes(),
            header.as_bytes(),
            &version.stdout,
            FLAGS.join(" ").as_bytes(),
            top.as_bytes(),
        ],
    )?;
    let exe = dir.join("obj").join("harness");
    if exe.is_file() {
        return Ok(exe);
    }
    // Built in a fresh private directory beside the entry, then renamed into place: a
    // build that fails or is interrupted leaves no entry behind.
    let work = tempfile::Builder::new()
        .prefix(".build-")
        .tempdir_in(&root)
        .map_err(|e| Failure::input(format!("error: {}: {e}", root.display())))?;
    let files = [
        ("design.sv", sv_text.to_string()),
        ("harness.cc", sv::HARNESS_CC.to_string()),
        ("kiln_env.h", sv::KILN_ENV_H.to_string()),
        ("kiln_design.h", header.to_string()),
    ];
    for (name, body) in &files {
        io::write_atomic(&work.path().join(name), body.as_bytes())?;
    }
    let jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
    let build = Proc::new("verilator")
        .args(FLAGS)
        .args(["-j", &jobs.to_string(), "--top-module", top])
        .arg("-CFLAGS")
        .arg(format!("-I{}", work.path().display()))
        .args(["design.sv", "harness.cc"])
        .current_dir(work.path())
        .output()
        .map_err(tool_missing)?;
    if !build.status.success() || !work.path().join("obj/harness").is_file() {
        return Err(Failure::input(format!(
            "error: Verilator could not build the design with kiln's harness:\n{}",
            String::from_utf8_lossy(&build.stderr)
        )));
    }
    let built = work.keep();
    match std::fs::rename(&built, &dir) {
        Ok(()) => {}
        // Another run built the same entry meanwhile: use it.
        Err(_) if exe.is_file() => {
            let _ = std::fs::remove_dir_all(&built);
        }
        Err(e) => {
            let _ = std::fs::remove_dir_all(&built);
            return Err(Failure::input(format!("error: {}: {e}", dir.display())));
        }
    }
    Ok(exe)
}

/// Run `circuit` on commands `cmds` (with the CPU's CSR writes) under Verilator with kiln's harness; the same results (and
/// run-time errors) as the rule simulator.
pub fn run_circuit(
    circuit: &Circuit,
    cmds: &[Command],
    csr_writes: &[CsrWrite],
    mem: BTreeMap<u32, u8>,
    dma_latency: u32,
    max_cycles: u64,
) -> Result<RtlRun, RtlError> {
    let (text, info) =
        sv::emit_sv_with_info(circuit, sv::DEFAULT_TOP).map_err(|d| Failure::input(d.message))?;
    let header = sv::harness_header(&info, &circuit.instructions);
    let exe = executable(&text, &header, &info.top)?;
    let scratch = super::rtl::scratch_dir()?;
    let dir = scratch.path();
    let io_err = |e: std::io::Error| Failure::input(format!("error: {}: {e}", dir.display()));
    io::write_atomic(&dir.join("mem.hex"), sv::mem_hex(&mem).as_bytes())?;
    io::write_atomic(
        &dir.join("cmds.txt"),
        sv::cmds_text(cmds, csr_writes, &info).as_bytes(),
    )?;
    let run = Proc::new(&exe)
        .args(["cmds.txt", "mem.hex", "out.txt"])
        .arg(max_cycles.to_string())
        .arg(dma_latency.to_string())
        .current_dir(dir)
        .output()
        .map_err(|e| Failure::input(format!("error: {}: {e}", exe.display())))?;
    if !run.status.success() {
        return Err(Failure::input(format!(
            "error: the Verilated design failed:\n{}",
            String::from_utf8_lossy(&run.stderr)
        ))
        .into());
    }
    let out = std::fs::read_to_string(dir.join("out.txt")).map_err(io_err)?;
    let r = sv::parse_tb_output(&out).map_err(|m| Failure::input(format!("error: {m}")))?;
    if let Some(e) = r.failure(circuit) {
        return Err(RtlError::Sim(e));
    }
    Ok(super::rtl::run_result(&mem, r, None))
}
