//! RISC-V programs on kiln's hardware: `kiln cosim` runs a bare-metal program on Spike
//! whose custom instructions execute on the Verilated top (Level 1), RV32 and RV64
//! (Level 0, `kiln sim --engine verilator`, is checked in `sv_cli.rs`). Spike comes
//! from `../shared/tools/spike` (unpacked to /opt/spike by `scripts/setup.sh`): under CI
//! these tests run; elsewhere they skip when Spike, Verilator or the RISC-V toolchain is
//! missing. Every APS test design with instructions a program can call has a program in
//! tests/data/cosim that checks many responses against a C reference, a design with one
//! operator mutated fails its program, and the functions of a generated corpus answer as
//! the rule simulator does (programs written at test time from its answers).

mod cli;
#[path = "../../compiler/tests/common/mod.rs"]
mod common;

use cli::{aps_data, example, ok};
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

/// Compile `sources` (in tests/data/cosim, or absolute paths) with picolibc for `xlen`.
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
        .arg(format!("-I{}", cosim_data("").display()))
        .args(sources.iter().map(|s| {
            if Path::new(s).is_absolute() {
                PathBuf::from(s)
            } else {
                cosim_data(s)
            }
        }))
        .arg("-o")
        .arg(&elf)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    elf
}

fn cosim(d: &cli::Daemon, elf: &Path, isa: &str) -> std::process::Output {
    cosim_on(d, elf, &example(), isa)
}

fn cosim_on(d: &cli::Daemon, elf: &Path, design: &Path, isa: &str) -> std::process::Output {
    cosim_styled(d, elf, design, isa, "fsm")
}

fn cosim_styled(
    d: &cli::Daemon,
    elf: &Path,
    design: &Path,
    isa: &str,
    style: &str,
) -> std::process::Output {
    d.kiln_no_daemon()
        .arg("cosim")
        .arg(elf)
        .arg(design)
        .args(["--isa", isa, "--spike", SPIKE, "--timeout", "120"])
        .args(["--style", style])
        .output()
        .unwrap()
}

/// `program.c` (with kiln_test.h and htif.c) on each of `designs` (tests/data/aps), RV32
/// and, with `rv64`, RV64 too, in the state machine style, and on RV32 in the fifo style:
/// it must print `PASS <program>` and exit 0.
fn program_passes(program: &str, designs: &[&str], rv64: bool) {
    if !tools() {
        return;
    }
    let d = cli::Daemon::new();
    let c = format!("{program}.c");
    let xlens: &[(u32, &str)] = if rv64 {
        &[(32, "rv32imac"), (64, "rv64imac")]
    } else {
        &[(32, "rv32imac")]
    };
    for &(xlen, isa) in xlens {
        let elf = self::program(d.root(), program, &[&c, "htif.c"], xlen);
        let styles: &[&str] = match xlen {
            32 => &["fsm", "fifo"],
            _ => &["fsm"],
        };
        for design in designs {
            for style in styles {
                let design_file = aps_data(&format!("{design}.mlir"));
                let out = cosim_styled(&d, &elf, &design_file, isa, style);
                let text = String::from_utf8_lossy(&out.stdout);
                let what = format!("{program} on {design} ({isa}, {style})");
                assert!(
                    out.status.success(),
                    "{what}: {text}{}",
                    String::from_utf8_lossy(&out.stderr)
                );
                assert!(
                    text.lines()
                        .any(|l| l.starts_with(&format!("PASS {program}: "))),
                    "{what}: {text}"
                );
                assert!(text.ends_with("the program exited with 0\n"), "{text}");
            }
        }
    }
}

/// The seed example's program passes on RV32 and RV64 (it checks the response and the
/// arrays the instruction wrote by DMA, twice), and kiln reports the accelerator's cycles:
/// the response 45 cycles after the command fired, as the rule simulator counts (46 cycles
/// with the command register's), idle one cycle later. The many-input program
/// (burst_add.c: 120 pseudo-random pairs of arrays at varied places, overlapping ones
/// among them, the whole pool checked after each) passes too.
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
    // The many-input program, from the cached extension.
    let elf = program(d.root(), "burst_add", &["burst_add.c", "htif.c"], 32);
    let out = cosim(&d, &elf, "rv32imac");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("PASS burst_add: 30840 checks\n"), "{text}");
    // The JSON form.
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

/// tests/data/aps/features.mlir (loops with run-time bounds, nested and descending loops, a
/// global register under a condition): 480 instructions, RV32 and RV64. On RV32 this needs
/// the response sign-extended into Spike's 64-bit register (a response with bit 31 set
/// compared unequal with the same word computed by the core).
#[test]
fn the_features_program_passes() {
    program_passes("features", &["features"], true);
}

/// Two instructions under one opcode: a bank kept across instructions, two CPU stores in
/// one slot (the whole buffer checked after each).
#[test]
fn the_identities_program_passes() {
    program_passes("identities", &["identities"], false);
}

/// Two CPU loads in one slot and a store, at varied words of a buffer.
#[test]
fn the_loads2_program_passes() {
    program_passes("loads2", &["loads2"], false);
}

/// A store and a load of different words in one slot (custom-3).
#[test]
fn the_cpu_hazard_program_passes() {
    program_passes("cpu_hazard", &["cpu_hazard"], false);
}

/// A loop step known only at run time (custom-3).
#[test]
fn the_step_runtime_program_passes() {
    program_passes("step_runtime", &["step_runtime"], false);
}

/// SystemVerilog keywords as names; a global register kept across instructions.
#[test]
fn the_keywords_program_passes() {
    program_passes("keywords", &["keywords"], false);
}

/// Loops that end when the induction variable would overflow (an i8 one among them).
#[test]
fn the_loop_overflow_program_passes() {
    program_passes("loop_overflow", &["loop_overflow"], false);
}

/// The seed example's many-input program (burst_add.c) on its three variants whose
/// hardware differs but whose results do not: the pipelined loop, three reads of one bank
/// in a cycle, two pipeline stages reading one bank.
#[test]
fn the_burst_add_program_passes_on_the_seeds_variants() {
    program_passes(
        "burst_add",
        &[
            "flow_burst_add_pipelined",
            "bank_three_reads",
            "bank_reads_pipelined",
        ],
        false,
    );
}

/// Rocket custom CSRs: the program configures cfg with `csrw` and reads the write-backs
/// with `csrr` (the extension's lanes are the hart's CSRs 0x810, 0x811), RV32 and RV64.
#[test]
fn the_csr_program_passes() {
    program_passes("csr", &["csr"], true);
}

/// A mutant must fail: identities.mlir with @sum's `tor.addi` of rs1 and rs2 made a
/// `tor.subi` fails the identities program under co-simulation (it prints FAIL and exits
/// 1), and `kiln sim --engine verilator` on the mutant disagrees with the rule simulator
/// on the original design (5 + 3 + 7 = 15 there, 5 - 3 + 7 = 9 on the mutant's hardware).
#[test]
fn a_mutated_design_fails_its_program() {
    if !tools() {
        return;
    }
    let d = cli::Daemon::new();
    let original = aps_data("identities.mlir");
    let text = std::fs::read_to_string(&original).unwrap();
    let mutated = text.replacen("tor.addi %0 %1", "tor.subi %0 %1", 1);
    assert_ne!(text, mutated);
    let mutant = d.root().join("identities_mutant.mlir");
    std::fs::write(&mutant, mutated).unwrap();
    let elf = program(d.root(), "identities", &["identities.c", "htif.c"], 32);
    let out = cosim_on(&d, &elf, &mutant, "rv32imac");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(stdout.contains("FAIL identities: 200 of "), "{stdout}");
    assert!(stdout.contains("mismatch: sum("), "{stdout}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("the program exited with 1"), "{err}");
    let sim = |design: &Path, engine: &str| -> serde_json::Value {
        let out = ok(d
            .kiln_no_daemon()
            .arg("sim")
            .arg(design)
            .args(["--func", "sum", "--rs1", "5", "--rs2", "3", "--json"])
            .args(["--engine", engine]));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let rules = sim(&original, "rules");
    let level0 = sim(&mutant, "verilator");
    assert_eq!(rules["responses"][0]["value"], 15, "{rules}");
    assert_eq!(level0["responses"][0]["value"], 9, "{level0}");
    assert_ne!(rules["responses"], level0["responses"]);
}

/// Where a generated function's rs1 and rs2 point (Spike's RAM: 2 GiB from 0x80000000,
/// zero at start, above the program, its data and its stack).
const GEN_RS1: u32 = 0x8080_0000;
const GEN_RS2: u32 = 0x8080_0400;

/// A generated corpus on Spike: each function of `kiln-bench gen aps --functions 8`, in a program
/// of its own (the functions share banks and globals, and the rule simulator answers from
/// reset), with rs1 and rs2 pointing into Spike's memory, must answer what the rule
/// simulator answers for the same rs1, rs2 and memory, and leave the CPU memory as it
/// does (every word the simulator reports, compared by the program).
#[test]
fn a_generated_corpus_answers_as_the_rule_simulator_on_spike() {
    if !tools() {
        return;
    }
    let d = cli::Daemon::new();
    let corpus = cli::gen_aps(&d.root().join("corpus.mlir"), 8, 3);
    let text = std::fs::read_to_string(&corpus).unwrap();
    let attr = |line: &str, key: &str| -> u32 {
        let at = line.find(&format!("{key} = ")).unwrap() + key.len() + 3;
        let digits: String = line[at..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        digits.parse().unwrap()
    };
    let functions: Vec<(String, u32, u32)> = text
        .lines()
        .filter_map(|l| {
            let name = l.trim().strip_prefix("tor.func @")?.split('(').next()?;
            Some((name.to_string(), attr(l, "opcode"), attr(l, "funct7")))
        })
        .collect();
    assert_eq!(functions.len(), 8, "{text}");
    for (name, opcode, funct7) in &functions {
        let out = ok(d
            .kiln_no_daemon()
            .arg("sim")
            .arg(&corpus)
            .args(["--func", name, "--json"])
            .arg(format!("--rs1={GEN_RS1}"))
            .arg(format!("--rs2={GEN_RS2}")));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let want = v["responses"][0]["value"].as_i64().unwrap() as u32;
        let mut c = format!(
            "#include \"kiln_test.h\"\nint main(void) {{\n  kiln_check(\"{name}\", {GEN_RS1}u, {GEN_RS2}u, KILN_INSN({opcode:#x}, {funct7}, {GEN_RS1}u, {GEN_RS2}u), {want}u);\n"
        );
        for region in v["cpu_mem"].as_array().unwrap() {
            let addr = region["addr"].as_u64().unwrap();
            for (i, w) in region["i32"].as_array().unwrap().iter().enumerate() {
                let (a, w) = (addr + 4 * i as u64, w.as_i64().unwrap() as u32);
                c += &format!(
                    "  kiln_check(\"{name} memory\", {a}u, 0, *(volatile uint32_t *)(uintptr_t){a}u, {w}u);\n"
                );
            }
        }
        c += &format!("  return kiln_done(\"{name}\");\n}}\n");
        let source = d.root().join(format!("{name}.c"));
        std::fs::write(&source, c).unwrap();
        let elf = program(d.root(), name, &[source.to_str().unwrap(), "htif.c"], 32);
        let out = cosim_on(&d, &elf, &corpus, "rv32imac");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && stdout.contains(&format!("PASS {name}: ")),
            "{name}: {stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
