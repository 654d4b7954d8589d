//! `kiln cosim PROGRAM.elf DESIGN.mlir`: a bare-metal RISC-V program on Spike whose custom
//! instructions run on kiln's hardware (Level 1 co-simulation, `docs/soc.md`). The design's
//! SystemVerilog is Verilated with kiln's Spike extension (`compiler::rules::sv::SPIKE_EXT_CC`
//! over the reference environment `KILN_ENV_H`) into a shared library, built once per
//! (design, sources, Verilator, Spike) and kept in the cache directory; Spike loads it with
//! `--extlib`. Reports the program's exit status and the accelerator cycles per
//! instruction.

use crate::io::{self, Failure};
use compiler::aps;
use compiler::rules::sv;
use std::path::{Path, PathBuf};
use std::process::Command as Proc;
use std::time::{Duration, Instant};

#[derive(clap::Args)]
#[command(after_help = "Examples:
  kiln cosim prog.elf examples/aps/flow_burst_add.mlir --isa rv32imac
  kiln cosim prog64.elf design.mlir --isa rv64imac --spike /opt/spike/bin/spike --json
  kiln cosim prog.elf design.mlir --style fifo --aps-config aps_config.yaml")]
pub struct Args {
    /// The RISC-V program (an ELF for Spike: HTIF `tohost`, loaded at 0x80000000).
    pub program: PathBuf,
    /// The APS design whose instructions the program uses.
    pub design: PathBuf,
    /// Spike's `--isa`; its XLEN must be the program's (a mismatch hangs until --timeout).
    #[arg(long, default_value = "rv32imac")]
    pub isa: String,
    /// The Spike executable (default: $KILN_SPIKE, else `spike` on PATH, else
    /// /opt/spike/bin/spike); its headers and `libcustomext.so` are found beside it.
    #[arg(long)]
    pub spike: Option<PathBuf>,
    /// Seconds before the run is stopped (a failure).
    #[arg(long, default_value_t = 300)]
    pub timeout: u64,
    /// The architecture of the design's rules, as `kiln build --style`
    /// [default: `style` of kiln.toml, else fsm]
    #[arg(long, value_name = "STYLE", value_parser = super::sim::parse_style)]
    pub style: Option<aps::Style>,
    /// The SoC's CSR list (`aps_config.yaml`), as `kiln build --aps-config`
    /// [default: `aps_config` of kiln.toml, else one lane per CSR global]
    #[arg(long, value_name = "FILE")]
    pub aps_config: Option<PathBuf>,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
}

fn spike_path(args: &Args) -> Result<PathBuf, Failure> {
    let candidates: Vec<PathBuf> = args
        .spike
        .iter()
        .cloned()
        .chain(std::env::var_os("KILN_SPIKE").map(PathBuf::from))
        .chain(std::env::var_os("PATH").into_iter().flat_map(|p| {
            std::env::split_paths(&p)
                .map(|d| d.join("spike"))
                .collect::<Vec<_>>()
        }))
        .chain(std::iter::once(PathBuf::from("/opt/spike/bin/spike")))
        .collect();
    let explicit = args.spike.is_some() || std::env::var_os("KILN_SPIKE").is_some();
    match candidates.into_iter().find(|p| p.is_file()) {
        Some(p) => Ok(p),
        None if explicit => Err(Failure::input(
            "error: the Spike executable given does not exist",
        )),
        None => Err(Failure::input(
            "error: `kiln cosim` needs Spike (the RISC-V ISA simulator) with its extension headers: pass --spike PATH or set KILN_SPIKE",
        )),
    }
}

/// Run a tool; a failure names it and shows its error output.
fn tool(cmd: &mut Proc, what: &str) -> Result<std::process::Output, Failure> {
    let out = cmd
        .output()
        .map_err(|e| Failure::input(format!("error: {what}: {e}")))?;
    if !out.status.success() {
        return Err(Failure::input(format!(
            "error: {what} failed:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )));
    }
    Ok(out)
}

/// The extension library for `sv_text`, built or found in the cache.
fn extension(sv_text: &str, header: &str, spike: &Path) -> Result<PathBuf, Failure> {
    let prefix = spike
        .parent()
        .and_then(Path::parent)
        .ok_or_else(|| Failure::input("error: cannot find Spike's installation prefix"))?
        .to_path_buf();
    if !prefix.join("include/riscv/extension.h").is_file() {
        return Err(Failure::input(format!(
            "error: {} has no include/riscv/extension.h: Spike's extension headers are needed",
            prefix.display()
        )));
    }
    let version = tool(
        Proc::new("verilator").arg("--version"),
        "verilator --version",
    )
    .map_err(|_| Failure::input("error: `kiln cosim` needs Verilator; install `verilator`"))?;
    let root = tool(
        Proc::new("verilator").args(["--getenv", "VERILATOR_ROOT"]),
        "verilator --getenv",
    )?;
    let vroot = PathBuf::from(String::from_utf8_lossy(&root.stdout).trim());
    let (cache, dir) = super::verilator::cache_entry(
        "cosim",
        &[
            sv_text.as_bytes(),
            sv::KILN_ENV_H.as_bytes(),
            sv::SPIKE_EXT_CC.as_bytes(),
            header.as_bytes(),
            &version.stdout,
            prefix.as_os_str().as_encoded_bytes(),
        ],
    )?;
    let lib = dir.join("libkiln.so");
    if lib.is_file() {
        return Ok(lib);
    }
    let work = tempfile::Builder::new()
        .prefix(".build-")
        .tempdir_in(&cache)
        .map_err(|e| Failure::input(format!("error: {}: {e}", cache.display())))?;
    let w = work.path();
    for (name, body) in [
        ("design.sv", sv_text),
        ("kiln_env.h", sv::KILN_ENV_H),
        ("spike_ext.cc", sv::SPIKE_EXT_CC),
        ("kiln_design.h", header),
    ] {
        io::write_atomic(&w.join(name), body.as_bytes())?;
    }
    let jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
    // The model as position-independent objects, then Verilator's runtime beside it.
    tool(
        Proc::new("verilator")
            .args(["--cc", "--build", "-Wno-fatal", "--top-module", "main"])
            .args(["--prefix", "Vkiln", "-Mdir", "obj", "-j", &jobs.to_string()])
            .args(["-CFLAGS", "-fPIC -O2", "design.sv"])
            .current_dir(w),
        "verilator",
    )?;
    tool(
        Proc::new("make")
            .args([
                "-C",
                "obj",
                "-f",
                "Vkiln.mk",
                "verilated.o",
                "verilated_threads.o",
            ])
            .current_dir(w),
        "make (Verilator's runtime)",
    )?;
    let inc = |p: &Path| format!("-I{}", p.display());
    tool(
        Proc::new("g++")
            .args(["-std=c++17", "-O2", "-fPIC", "-shared"])
            .arg(inc(&prefix.join("include/riscv")))
            .arg(inc(&prefix.join("include/softfloat")))
            .arg(inc(&prefix.join("include/fesvr")))
            .arg(inc(&prefix.join("include")))
            .args(["-Iobj", "-I."])
            .arg(inc(&vroot.join("include")))
            .arg(inc(&vroot.join("include/vltstd")))
            .args(["spike_ext.cc", "obj/Vkiln__ALL.a", "obj/verilated.o"])
            .args(["obj/verilated_threads.o", "-o", "libkiln.so"])
            .arg(format!("-L{}", prefix.join("lib").display()))
            .arg(format!("-Wl,-rpath,{}", prefix.join("lib").display()))
            .args(["-lcustomext", "-pthread"])
            .current_dir(w),
        "g++ (the Spike extension)",
    )?;
    let built = work.keep();
    if std::fs::rename(&built, &dir).is_err() && !lib.is_file() {
        let _ = std::fs::remove_dir_all(&built);
        return Err(Failure::input(format!(
            "error: cannot store {}",
            dir.display()
        )));
    }
    let _ = std::fs::remove_dir_all(&built);
    Ok(lib)
}

/// One line of the extension's trace: an instruction and its cycles.
struct Executed {
    opcode: u32,
    funct7: u32,
    to_resp: i64,
    to_idle: i64,
}

pub fn run(args: Args) -> Result<(), Failure> {
    let path = args.design.display().to_string();
    let text = std::fs::read_to_string(&args.design)
        .map_err(|e| Failure::input(format!("{path}: error: {e}")))?;
    let fail = |d| Failure::diagnostics(&[compiler::flow::Flow::Aps.coded(d)], &path, &text);
    let limits = kiln_daemon::input::limits();
    let module = compiler::mlir::parse_with(&text, &limits).map_err(fail)?;
    let style = super::sim::style_or_config(args.style);
    let csr_config = super::sim::csr_config(args.aps_config.as_deref())?;
    let ctx = aps::design_context_with(&module, csr_config.as_ref()).map_err(fail)?;
    let circuits = aps::build_module_styled(&module, &ctx, &limits, style).map_err(fail)?;
    let stem = args
        .design
        .file_stem()
        .map_or("design".into(), |s| s.to_string_lossy().into_owned());
    let circuit = aps::build_file_circuit(&stem, circuits);
    let (sv_text, info) = sv::emit_sv_with_info(&circuit, sv::DEFAULT_TOP)
        .map_err(|d| Failure::input(format!("{path}: error: {}", d.message)))?;
    let header = sv::harness_header(&info, &circuit.instructions);
    let spike = spike_path(&args)?;
    let lib = extension(&sv_text, &header, &spike)?;
    let scratch = super::rtl::scratch_dir()?;
    let trace = scratch.path().join("trace.txt");
    let started = Instant::now();
    let mut child = Proc::new(&spike)
        .arg(format!("--isa={}", args.isa))
        .arg(format!("--extlib={}", lib.display()))
        .arg("--extension=kiln")
        .arg(&args.program)
        .env("KILN_COSIM_TRACE", &trace)
        .spawn()
        .map_err(|e| Failure::input(format!("error: {}: {e}", spike.display())))?;
    let status = loop {
        if let Some(s) = child
            .try_wait()
            .map_err(|e| Failure::input(format!("error: {e}")))?
        {
            break s;
        }
        if started.elapsed() > Duration::from_secs(args.timeout) {
            let _ = child.kill();
            let _ = child.wait();
            return Err(Failure::input(format!(
                "error: the program did not finish within {} s (does --isa {} match its XLEN?)",
                args.timeout, args.isa
            )));
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let executed: Vec<Executed> = std::fs::read_to_string(&trace)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| {
            let f: Vec<i64> = l
                .split_whitespace()
                .filter_map(|x| x.parse().ok())
                .collect();
            (f.len() == 4).then(|| Executed {
                opcode: f[0] as u32,
                funct7: f[1] as u32,
                to_resp: f[2],
                to_idle: f[3],
            })
        })
        .collect();
    let code = status.code();
    if args.json {
        let list: Vec<serde_json::Value> = executed
            .iter()
            .map(|e| {
                serde_json::json!({"opcode": e.opcode, "funct7": e.funct7,
                    "cycles_to_response": (e.to_resp >= 0).then_some(e.to_resp),
                    "cycles_to_idle": e.to_idle})
            })
            .collect();
        outln!(
            "{}",
            serde_json::json!({"exit": code, "instructions": list})
        );
    } else {
        for e in &executed {
            let resp = match e.to_resp {
                r if r >= 0 => format!("response after {r} cycles, "),
                _ => String::new(),
            };
            let name = (circuit.instructions.iter())
                .find(|i| i.opcode == e.opcode && i.funct7 == e.funct7)
                .map_or("?", |i| i.function.as_str());
            outln!(
                "@{name} (opcode {:#04x}, funct7 {}): {resp}idle after {} cycles",
                e.opcode,
                e.funct7,
                e.to_idle
            );
        }
        outln!(
            "{} custom instruction(s); the program exited with {}",
            executed.len(),
            code.map_or("a signal".into(), |c| c.to_string())
        );
    }
    match code {
        Some(0) => Ok(()),
        Some(c) => Err(Failure::input(format!(
            "error: the program exited with {c}"
        ))),
        None => Err(Failure::input("error: Spike was stopped by a signal")),
    }
}
