//! The SystemVerilog side of the APS flow in the CLI: the `--emit sv` option of `kiln build`
//! (whose `<stem>.sv` the APS flow writes, `compiler::flow::aps::sv`) and
//! `kiln sim --engine rtl` (runs the generated RTL with its testbench under Icarus Verilog
//! and reports what the rule simulator reports).

use crate::io::{self, Failure};
use compiler::rules::Circuit;
use compiler::rules::sim::{Command, CsrWrite};
use compiler::rules::sv::{self, TbConfig};
use std::collections::BTreeMap;
use std::process::Command as Proc;

/// Responses (`(rd, value)`), final CPU memory and cycle count of an RTL run, and its
/// waveforms when asked for.
pub struct RtlRun {
    /// `(rd, value)` in response order.
    pub responses: Vec<(u32, u32)>,
    pub cpu_mem: BTreeMap<u32, u8>,
    pub cycles: u64,
    pub waves: Option<compiler::rules::waves::Waves>,
    /// CSR write-backs `(lane, value, cycle)` and each lane's final value.
    pub csr_sets: Vec<(String, u32, u64)>,
    pub csrs: BTreeMap<String, u32>,
}

/// Why an RTL run gave no result: what the rule simulator would report for the same run
/// (a deadlock, a hazard, a timeout), or a failure of the tools or the files.
pub enum RtlError {
    Sim(compiler::rules::sim::SimError),
    Other(Failure),
}

impl From<Failure> for RtlError {
    fn from(f: Failure) -> RtlError {
        RtlError::Other(f)
    }
}

/// Extra outputs of `kiln build`.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Emit {
    /// `<stem>.sv`: the rule circuit of every function as one SystemVerilog top.
    Sv,
}

/// The testbench's working directory: a fresh name under the temp dir, created exclusively
/// and private (mode 0700), removed when the guard drops, on every way out of the run. A
/// directory or symbolic link another user planted under the temp dir is never reused.
pub(crate) fn scratch_dir() -> Result<tempfile::TempDir, Failure> {
    let mut b = tempfile::Builder::new();
    b.prefix("kiln-rtl-");
    #[cfg(unix)]
    b.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o700));
    b.tempdir().map_err(|e| {
        let tmp = std::env::temp_dir();
        Failure::input(format!(
            "error: cannot create a private directory under {}: {e}",
            tmp.display()
        ))
    })
}

/// Run `circuit` on commands `cmds` (with the CPU's CSR writes) in the RTL testbench (Icarus Verilog). Returns the
/// responses, the final CPU memory (every initialised or written byte) and the cycle count.
pub fn run_circuit(
    circuit: &Circuit,
    cmds: &[Command],
    csr_writes: &[CsrWrite],
    mem: BTreeMap<u32, u8>,
    dma_latency: u32,
    waves: bool,
) -> Result<RtlRun, RtlError> {
    let tool_missing = |t: &str, e: std::io::Error| {
        Failure::input(format!(
            "error: `--engine rtl` needs Icarus Verilog (`{t}`: {e}); install `iverilog`"
        ))
    };
    let (text, info) =
        sv::emit_sv_with_info(circuit, sv::DEFAULT_TOP).map_err(|d| Failure::input(d.message))?;
    let cfg = TbConfig {
        dma_latency,
        waves,
        ..TbConfig::default()
    };
    if let Some(a) = mem.keys().find(|a| **a >= cfg.mem_bytes) {
        return Err(RtlError::Other(Failure::input(format!(
            "error: CPU memory address {a:#x} is outside the RTL testbench window [0, {:#x})",
            cfg.mem_bytes
        ))));
    }
    let scratch = scratch_dir()?;
    let dir = scratch.path();
    let io_err = |e: std::io::Error| Failure::input(format!("error: {}: {e}", dir.display()));
    let files = [
        ("dut.sv", text),
        ("tb.sv", sv::testbench(circuit, &info, &cfg)),
        ("mem.hex", sv::mem_hex(&mem)),
        ("cmds.txt", sv::cmds_text(cmds, csr_writes, &info)),
    ];
    for (name, body) in &files {
        io::write_atomic(&dir.join(name), body.as_bytes())?;
    }
    let compile = Proc::new("iverilog")
        .args(["-g2012", "-o", "sim.vvp", "tb.sv", "dut.sv"])
        .current_dir(dir)
        .output()
        .map_err(|e| tool_missing("iverilog", e))?;
    if !compile.status.success() {
        return Err(RtlError::Other(Failure::input(format!(
            "error: iverilog rejected the generated design:\n{}",
            String::from_utf8_lossy(&compile.stderr)
        ))));
    }
    let run = Proc::new("vvp")
        .args(["-n", "sim.vvp"])
        .current_dir(dir)
        .output()
        .map_err(|e| tool_missing("vvp", e))?;
    let out = std::fs::read_to_string(dir.join("out.txt")).map_err(io_err)?;
    if !run.status.success() {
        return Err(Failure::input("error: the RTL simulation failed").into());
    }
    let r = sv::parse_tb_output(&out).map_err(|m| Failure::input(format!("error: {m}")))?;
    let waves = match waves {
        true => Some(
            compiler::rules::waves::parse_tb_waves(
                &out,
                compiler::rules::waves::circuit_signals(circuit),
            )
            .map_err(|m| Failure::input(format!("error: {m}")))?,
        ),
        false => None,
    };
    drop(scratch);
    if let Some(e) = r.failure(circuit) {
        return Err(RtlError::Sim(e));
    }
    if r.errors > 0 {
        return Err(Failure::input(
            "error: the design accessed CPU memory outside the testbench window",
        )
        .into());
    }
    Ok(run_result(&mem, r, waves))
}

/// What a testbench or harness run gives `kiln sim`: its responses, the final CPU memory
/// and its cycles. The run lists the bytes that are non-zero or were written; bytes of the
/// initial image `mem` it does not list were initialised to 0 and never written.
pub(crate) fn run_result(
    mem: &BTreeMap<u32, u8>,
    r: sv::TbOutput,
    waves: Option<compiler::rules::waves::Waves>,
) -> RtlRun {
    let mut final_mem: BTreeMap<u32, u8> = mem.keys().map(|a| (*a, 0)).collect();
    final_mem.extend(r.cpu_mem);
    RtlRun {
        responses: r.responses.iter().map(|x| (x.0, x.1)).collect(),
        cpu_mem: final_mem,
        cycles: r.cycles,
        waves,
        csr_sets: r.csr_sets,
        csrs: r.csrs,
    }
}

#[cfg(test)]
mod tests {
    #[cfg(unix)]
    #[test]
    fn scratch_dirs_are_private_fresh_and_removed() {
        use std::os::unix::fs::PermissionsExt;
        let a = super::scratch_dir().unwrap();
        let b = super::scratch_dir().unwrap();
        assert_ne!(a.path(), b.path());
        let mode = std::fs::symlink_metadata(a.path())
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o700, "{mode:o}");
        assert!(
            a.path()
                .file_name()
                .unwrap()
                .to_str()
                .unwrap()
                .starts_with("kiln-rtl-")
        );
        let path = a.path().to_path_buf();
        drop(a);
        assert!(!path.exists());
    }
}
