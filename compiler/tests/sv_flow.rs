//! SystemVerilog backend on `examples/aps/flow_burst_add.mlir`: the RTL (Icarus Verilog with
//! the generated testbench) leaves C = A + B at rs1 and responds 42 in exactly the rule
//! simulator's cycle count; yosys synthesizes the design without latches.

mod common;
mod sv_common;

use sv_common::*;

/// The circuit of `examples/aps/flow_burst_add.mlir`.
fn example_circuit() -> compiler::rules::Circuit {
    let text =
        std::fs::read_to_string(common::repo_root().join("examples/aps/flow_burst_add.mlir"))
            .unwrap();
    file_circuit("flow_burst_add", &text)
}

#[test]
fn flow_burst_add_rtl_matches_rule_sim() {
    let circuit = example_circuit();
    let rs1 = 0x1000;
    let rs2 = 0x2000;
    let mut mem = std::collections::BTreeMap::new();
    for i in 0..16u32 {
        compiler::rules::sim::write_word(&mut mem, rs1 + 4 * i, i + 1);
        compiler::rules::sim::write_word(&mut mem, rs2 + 4 * i, 100 * (i + 1));
    }
    let cmds = vec![compiler::rules::sim::Command {
        opcode: 43,
        funct7: 0,
        rs1,
        rs2,
        rd: 5,
    }];
    let Some(run) = compare(&circuit, &cmds, mem, "flow_burst_add") else {
        return;
    };
    assert_eq!(run.responses, vec![(5, 42, run.responses[0].2)]);
    for i in 0..16u32 {
        let got = compiler::rules::sim::read_word(&run.cpu_mem, rs1 + 4 * i);
        assert_eq!(got, (i + 1) + 100 * (i + 1), "C[{i}]");
    }
    eprintln!(
        "flow_burst_add: {} cycles in RTL and rule simulator",
        run.cycles
    );
}

/// `yosys synth` of the generated design: no latches, no multiple drivers (`check
/// -assert`), prints the cell count. Also checks that emission is byte-identical.
#[test]
fn flow_burst_add_yosys_synth() {
    let circuit = example_circuit();
    let sv_text = compiler::rules::sv::emit_sv(&circuit, "main").unwrap();
    assert_eq!(
        sv_text,
        compiler::rules::sv::emit_sv(&circuit, "main").unwrap()
    );
    if !common::have_tool("yosys") {
        return;
    }
    let dir = scratch_dir("yosys");
    std::fs::write(dir.join("flow_burst_add.sv"), &sv_text).unwrap();
    let cells = yosys_synth(&dir, "flow_burst_add.sv", "main");
    eprintln!("flow_burst_add: yosys synth {cells} cells");
    assert!(cells > 0);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Two back-to-back commands: the second overlaps the first in the pipeline of FIFOs; the
/// RTL still matches the simulator cycle for cycle.
#[test]
fn flow_burst_add_two_commands() {
    let circuit = example_circuit();
    let mut mem = std::collections::BTreeMap::new();
    for i in 0..16u32 {
        for (base, k) in [(0x1000, 1), (0x2000, 10), (0x3000, 100), (0x4000, 1000)] {
            compiler::rules::sim::write_word(&mut mem, base + 4 * i, k * (i + 1));
        }
    }
    let cmd = |rs1, rs2, rd| compiler::rules::sim::Command {
        opcode: 43,
        funct7: 0,
        rs1,
        rs2,
        rd,
    };
    let cmds = [cmd(0x1000, 0x2000, 5), cmd(0x3000, 0x4000, 6)];
    let Some(run) = compare(&circuit, &cmds, mem, "two_commands") else {
        return;
    };
    assert_eq!(run.responses.len(), 2);
    eprintln!("two commands: {} cycles", run.cycles);
}

/// The SystemVerilog grows linearly with the design: per instruction, a 96-instruction module
/// takes at most 1.5 times the bytes of a 12-instruction one. The arbitration of the ports
/// every instruction shares (RoCC, DMA, CPU memory) names running sums of the earlier rules'
/// enables; it once inlined them in every later rule, which made the text quadratic (132 MB
/// for 128 generated instructions).
#[test]
fn sv_size_is_linear_in_the_instructions() {
    let per_function = |n: usize| {
        let text = compiler::aps::workload::generate(n, 7);
        let sv = compiler::rules::sv::emit_sv(&file_circuit("isax", &text), "main").unwrap();
        sv.len() as f64 / n as f64
    };
    let (small, large) = (per_function(12), per_function(96));
    assert!(
        large <= 1.5 * small,
        "bytes per instruction: {small:.0} with 12 instructions, {large:.0} with 96"
    );
}

/// The waveform oracle catches a wrong RTL: with the rules' additions turned into
/// subtractions in the emitted SystemVerilog, the RTL's waves leave the rule simulator's at
/// a named signal and cycle, with both values.
#[test]
fn mutated_rtl_is_caught_by_the_waveforms() {
    if !common::have_tool("iverilog") {
        return;
    }
    let circuit = example_circuit();
    let (rs1, rs2) = (0x1000, 0x2000);
    let mut mem = std::collections::BTreeMap::new();
    for i in 0..16u32 {
        compiler::rules::sim::write_word(&mut mem, rs1 + 4 * i, i + 1);
        compiler::rules::sim::write_word(&mut mem, rs2 + 4 * i, 100 * (i + 1));
    }
    let cmds = vec![compiler::rules::sim::Command {
        opcode: 43,
        funct7: 0,
        rs1,
        rs2,
        rd: 5,
    }];
    let mut trace = compiler::rules::sim::Trace::default();
    let cfg = compiler::rules::sim::SimConfig::default();
    compiler::rules::sim::simulate_recorded(&circuit, &cmds, mem.clone(), &cfg, &mut trace)
        .unwrap();
    let dir = scratch_dir("mutated");
    prepare(&dir, &circuit, &cmds, &mem, 2000);
    let dut = std::fs::read_to_string(dir.join("dut.sv")).unwrap();
    let mut mutated = 0;
    let text: String = dut
        .lines()
        .map(|l| {
            if l.starts_with("  assign inst") && l.contains("_rule__v") && l.contains(" + ") {
                mutated += 1;
                l.replace(" + ", " - ")
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    assert!(mutated > 0, "no addition to mutate");
    std::fs::write(dir.join("dut.sv"), text).unwrap();
    let compiled = std::process::Command::new("iverilog")
        .args(["-g2012", "-o", "sim.vvp", "tb.sv", "dut.sv"])
        .current_dir(&dir)
        .status()
        .unwrap();
    assert!(compiled.success());
    let _ = run(&dir);
    let out = std::fs::read_to_string(dir.join("out.txt")).unwrap();
    let got = compiler::rules::waves::parse_tb_waves(&out, trace.waves.signals.clone()).unwrap();
    let (signal, cycle, a, b) = compiler::rules::waves::first_difference(&trace.waves, &got)
        .expect("the mutated RTL's waves differ");
    assert!(signal.contains("loop_iv"), "first difference at {signal}");
    assert!(cycle > 0 && a != b && a.is_some() && b.is_some());
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every APS test program, one command per instruction queued at once: the RTL agrees with
/// the rule simulator on the results and on the waveforms, signal by signal, cycle by cycle.
#[test]
fn test_programs_agree_with_the_rtl_waveform_by_waveform() {
    if !common::have_tool("iverilog") {
        return;
    }
    let dir = common::repo_root().join("tests/data/aps");
    let mut cases = Vec::new();
    for name in [
        "features",
        "identities",
        "keywords",
        "step_runtime",
        "flow_burst_add_pipelined",
    ] {
        let text = std::fs::read_to_string(dir.join(format!("{name}.mlir"))).unwrap();
        let circuit = file_circuit(name, &text);
        let mut mem = std::collections::BTreeMap::new();
        for i in 0..64u32 {
            compiler::rules::sim::write_word(&mut mem, 0x1000 + 4 * i, 3 * i + 1);
        }
        let cmds = circuit
            .instructions
            .iter()
            .enumerate()
            .map(|(k, ins)| compiler::rules::sim::Command {
                opcode: ins.opcode,
                funct7: ins.funct7,
                rs1: 0x1000,
                rs2: 0x1040,
                rd: k as u32 + 1,
            })
            .collect();
        cases.push(Case {
            tag: name.to_string(),
            circuit,
            cmds,
            mem,
        });
    }
    compare_batch("test_programs", &cases);
}

/// The ports of an emitted top: (name, direction, width), read from its port list.
fn top_ports(sv: &str) -> Vec<(String, String, u32)> {
    let start = sv.find("module main (").expect("top `main`");
    let end = start + sv[start..].find("\n);").expect("end of the port list");
    let mut out = Vec::new();
    for line in sv[start..end].lines().skip(1) {
        let line = line
            .split("//")
            .next()
            .unwrap()
            .trim()
            .trim_end_matches(',');
        let toks: Vec<&str> = line.split_whitespace().collect();
        if toks.len() < 3 {
            continue;
        }
        let (width, name) = match toks[2].strip_prefix('[') {
            Some(range) => {
                let hi: u32 = range.split(':').next().unwrap().parse().unwrap();
                (hi + 1, toks[3])
            }
            None => (1, toks[2]),
        };
        out.push((name.to_string(), toks[0].to_string(), width));
    }
    out
}

/// The HellaCache ports of a design with CPU loads and stores are exactly the `hella_*` rows
/// of `tests/data/soc/ports.tsv` (names, directions, widths), and nothing else of the
/// CPU-memory port is a port.
#[test]
fn hellacache_ports_follow_the_port_table() {
    let table = std::fs::read_to_string(common::data("soc/ports.tsv")).unwrap();
    let mut want: Vec<(String, String, u32)> = table
        .lines()
        .filter(|l| !l.starts_with('#'))
        .skip(1)
        .filter_map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (f.len() >= 3 && f[0].starts_with("hella_"))
                .then(|| (f[0].to_string(), f[1].to_string(), f[2].parse().unwrap()))
        })
        .collect();
    want.sort();
    assert_eq!(want.len(), 17, "hella rows in ports.tsv");
    let path = common::data("aps/loads2.mlir");
    let c = file_circuit("loads2", &std::fs::read_to_string(path).unwrap());
    let sv = compiler::rules::sv::emit_sv(&c, "main").unwrap();
    let ports = top_ports(&sv);
    let mut got: Vec<(String, String, u32)> = ports
        .iter()
        .filter(|p| p.0.starts_with("hella"))
        .cloned()
        .collect();
    got.sort();
    assert_eq!(got, want);
    // Nothing else of the CPU-memory port is a port.
    assert!(
        ports.iter().all(|p| !p.0.starts_with("hellacache")),
        "{ports:?}"
    );
}

/// A circuit with two CPU-memory ports (a hand-written CMT2 text can declare them) has no
/// top: the convention has one HellaCache port. An error, not two sets of one port's names.
#[test]
fn a_second_cpu_memory_port_is_an_error() {
    let path = common::data("aps/loads2.mlir");
    let mut c = file_circuit("loads2", &std::fs::read_to_string(path).unwrap());
    c.instances.push(compiler::rules::Instance {
        name: "cpu2".into(),
        kind: compiler::rules::InstanceKind::MemPort,
    });
    let e = compiler::rules::sv::emit_sv(&c, "main").unwrap_err();
    assert!(
        e.message.contains("`cpu2` is a second one"),
        "{}",
        e.message
    );
}
