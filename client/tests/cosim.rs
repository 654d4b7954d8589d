//! RISC-V programs on kiln's hardware: `kiln cosim` runs a bare-metal program on Spike
//! whose custom instructions execute on the Verilated top (Level 1), RV32 and RV64
//! (Level 0, `kiln sim --engine verilator`, is checked in `sv_cli.rs`). Spike comes
//! from `../shared/tools/spike` (unpacked to /opt/spike by `scripts/setup.sh`): under CI
//! these tests run; elsewhere they skip when Spike, Verilator or the RISC-V toolchain is
//! missing.

mod cli;
#[path = "../../compiler/tests/common/mod.rs"]
mod common;

use cli::{example, ok};
use std::path::{Path, PathBuf};
use std::process::Command;

const SPIKE: &str = "/opt/spike/bin/spike";

fn cosim_data(file: &str) -> PathBuf {
    common::data(&format!("cosim/{file}"))
}

/// Whether Spike and the tools to build programs and extensions are here (a failure under
/// CI, where `scripts/setup.sh` installs them).
fn tools() -> bool {
    let spike = Path::new(SPIKE).is_file();
    assert!(
        spike || !common::strict(),
        "Spike ({SPIKE}) is required under CI: scripts/setup.sh unpacks it from ../shared/tools/spike"
    );
    if !spike {
        eprintln!("skipping: no Spike at {SPIKE}");
    }
    spike
        && common::have_tool("verilator")
        && common::have_tool("riscv64-unknown-elf-gcc")
        && common::have_tool("dtc")
}

/// Compile `sources` (in tests/data/cosim) with picolibc for `xlen`.
fn program(dir: &Path, name: &str, sources: &[&str], xlen: u32) -> PathBuf {
    let elf = dir.join(format!("{name}{xlen}.elf"));
    let (march, mabi) = match xlen {
        32 => ("-march=rv32imac", "-mabi=ilp32"),
        _ => ("-march=rv64imac", "-mabi=lp64"),
    };
    let out = Command::new("riscv64-unknown-elf-gcc")
        .args([
            march,
            mabi,
            "-O2",
            "-mcmodel=medany",
            "--specs=picolibc.specs",
        ])
        .args(["--crt0=hosted", "-Wl,--defsym=__flash=0x80000000"])
        .args([
            "-Wl,--defsym=__flash_size=0x200000",
            "-Wl,--defsym=__ram=0x80200000",
        ])
        .arg("-Wl,--defsym=__ram_size=0x200000")
        .args(sources.iter().map(|s| cosim_data(s)))
        .arg("-o")
        .arg(&elf)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    elf
}

fn cosim(d: &cli::Daemon, elf: &Path, isa: &str) -> std::process::Output {
    d.kiln_no_daemon()
        .arg("cosim")
        .arg(elf)
        .arg(example())
        .args(["--isa", isa, "--spike", SPIKE, "--timeout", "120"])
        .output()
        .unwrap()
}

/// The seed example's program passes on RV32 and RV64 (it checks the response and the
/// arrays the instruction wrote by DMA, twice), and kiln reports the accelerator's cycles:
/// the response 45 cycles after the command fired, as the rule simulator counts (46 cycles
/// with the command register's), idle one cycle later.
#[test]
fn the_seed_examples_program_passes_on_spike() {
    if !tools() {
        return;
    }
    let d = cli::Daemon::new();
    for (xlen, isa) in [(32, "rv32imac"), (64, "rv64imac")] {
        let elf = program(d.root(), "fba", &["flow_burst_add.c", "htif.c"], xlen);
        let out = cosim(&d, &elf, isa);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{isa}: {out:?}");
        assert_eq!(
            text.matches("@flow_burst_add (opcode 0x2b, funct7 0): response after 45 cycles, idle after 46 cycles")
                .count(),
            2,
            "{text}"
        );
        assert!(
            text.ends_with("2 custom instruction(s); the program exited with 0\n"),
            "{text}"
        );
    }
    // The JSON form, from the cached extension.
    let elf = d.root().join("fba32.elf");
    let out = ok(d
        .kiln_no_daemon()
        .arg("cosim")
        .arg(&elf)
        .arg(example())
        .args(["--spike", SPIKE, "--json"]));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["exit"], 0);
    assert_eq!(v["instructions"].as_array().unwrap().len(), 2);
    assert_eq!(v["instructions"][0]["cycles_to_response"], 45);
}

/// A program that uses an instruction the design does not implement traps (illegal
/// instruction: exit 128 + 2), and a program that checks a wrong result fails: both are
/// failures of `kiln cosim`, not silent passes.
#[test]
fn a_failing_program_fails_kiln_cosim() {
    if !tools() {
        return;
    }
    let d = cli::Daemon::new();
    let elf = program(d.root(), "bad", &["unknown_funct7.c", "htif.c"], 32);
    let out = cosim(&d, &elf, "rv32imac");
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("the program exited with 130"), "{err}");
    let elf = program(d.root(), "wrong", &["wrong_result.c", "htif.c"], 32);
    let out = cosim(&d, &elf, "rv32imac");
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("the program exited with 7"), "{err}");
}
