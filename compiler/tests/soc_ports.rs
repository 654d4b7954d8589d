//! The generated top's ports are APS-MLIR's SoC port convention: the names, directions and
//! widths of `tests/data/soc/ports.tsv` (written from APS-MLIR's documents and its generated
//! `main.sv`), read back from the emitted SystemVerilog by Verilator's own parser
//! (`verilator --xml-only`), for the seed example, every APS test program and generated
//! designs. The port list is the convention's whatever the design uses: a design without
//! DMA or CPU-memory traffic has the same ports, tied off.

mod common;
mod sv_common;

use compiler::aps::workload;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use sv_common::*;

/// (name, direction, width) of one port.
type Port = (String, String, u32);

/// The convention's ports without CSR lanes (a design without `aps.readcsr`/`writecsr`
/// has none).
fn convention() -> BTreeSet<Port> {
    convention_with(&[])
}

/// The convention's ports of a design with CSR lanes `lanes`: the table's five `csr_{csr}`
/// rows once per lane.
fn convention_with(lanes: &[&str]) -> BTreeSet<Port> {
    let text = std::fs::read_to_string(common::data("soc/ports.tsv")).unwrap();
    let rows: Vec<Port> = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (f[0].to_string(), f[1].to_string(), f[2].parse().unwrap())
        })
        .collect();
    let mut out: BTreeSet<Port> = (rows.iter())
        .filter(|(n, _, _)| !n.starts_with("csr_"))
        .cloned()
        .collect();
    for lane in lanes {
        for (n, d, w) in rows.iter().filter(|(n, _, _)| n.starts_with("csr_")) {
            out.insert((n.replace("{csr}", lane), d.clone(), *w));
        }
    }
    out
}

/// The top module's ports as Verilator parses `sv`, in declaration order.
fn ports(tag: &str, sv: &str) -> Vec<Port> {
    let dir = scratch_dir(&format!("ports_{tag}"));
    std::fs::write(dir.join("top.sv"), sv).unwrap();
    let out = std::process::Command::new("verilator")
        .args([
            "--xml-only",
            "-Wno-fatal",
            "--top-module",
            "main",
            "-Mdir",
            "obj",
        ])
        .arg("top.sv")
        .current_dir(&dir)
        .output()
        .expect("run verilator");
    assert!(out.status.success(), "{tag}: {out:?}");
    let xml = std::fs::read_to_string(dir.join("obj/Vmain.xml")).unwrap();
    let attr = |line: &str, name: &str| -> Option<String> {
        let at = line.find(&format!(" {name}=\""))? + name.len() + 3;
        Some(line[at..at + line[at..].find('"')?].to_string())
    };
    // Data types: id → width.
    let mut widths: BTreeMap<String, u32> = BTreeMap::new();
    for l in xml
        .lines()
        .filter(|l| l.trim_start().starts_with("<basicdtype "))
    {
        let id = attr(l, "id").unwrap();
        let w = match (attr(l, "left"), attr(l, "right")) {
            (Some(a), Some(b)) => a.parse::<u32>().unwrap() - b.parse::<u32>().unwrap() + 1,
            _ => 1,
        };
        widths.insert(id, w);
    }
    let top = xml.find("topModule=\"1\"").expect("a top module");
    let body = &xml[top..top + xml[top..].find("</module>").unwrap()];
    let got = body
        .lines()
        .filter(|l| l.trim_start().starts_with("<var ") && l.contains(" dir=\""))
        .map(|l| {
            let w = widths[&attr(l, "dtype_id").unwrap()];
            (attr(l, "name").unwrap(), attr(l, "dir").unwrap(), w)
        })
        .collect();
    let _ = std::fs::remove_dir_all(&dir);
    got
}

fn check(tag: &str, circuit: &compiler::rules::Circuit) {
    check_with(tag, circuit, &[]);
}

/// [`check`] for a design with CSR lanes `lanes`: their ports come after every other
/// port, lane by lane in lane order.
fn check_with(tag: &str, circuit: &compiler::rules::Circuit, lanes: &[&str]) {
    let sv = compiler::rules::sv::emit_sv(circuit, "main").unwrap();
    let order = ports(tag, &sv);
    let csr_at = order.iter().position(|p| p.0.starts_with("csr_"));
    if let Some(at) = csr_at {
        let tail: Vec<&str> = order[at..].iter().map(|p| p.0.as_str()).collect();
        let want_tail: Vec<String> = (lanes.iter())
            .flat_map(|l| {
                [
                    "value_res0",
                    "value_ready",
                    "set_{l}_sdata",
                    "set_ready",
                    "set_enable",
                ]
                .map(|s| format!("csr_{l}_{}", s.replace("{l}", l)))
            })
            .collect();
        assert_eq!(tail, want_tail, "{tag}: CSR ports last, in lane order");
    }
    let got: BTreeSet<Port> = order.into_iter().collect();
    let want = convention_with(lanes);
    let missing: Vec<&Port> = want.difference(&got).collect();
    let extra: Vec<&Port> = got.difference(&want).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "{tag}: ports differ from the convention\n  missing: {missing:?}\n  extra: {extra:?}"
    );
}

fn program(path: &Path) -> compiler::rules::Circuit {
    let text = std::fs::read_to_string(path).unwrap();
    let name = path.file_stem().unwrap().to_string_lossy().into_owned();
    file_circuit(&name, &text)
}

#[test]
fn the_top_has_the_conventions_ports() {
    if !common::have_tool("verilator") {
        return;
    }
    check(
        "flow_burst_add",
        &program(&common::repo_root().join("examples/aps/flow_burst_add.mlir")),
    );
    for name in [
        "features",
        "cpu_hazard",
        "step_runtime",
        "keywords",
        "loads2",
    ] {
        check(name, &program(&common::data(&format!("aps/{name}.mlir"))));
    }
    for seed in [1, 2] {
        let text = workload::generate(4, seed);
        check(&format!("gen{seed}"), &file_circuit("gen", &text));
    }
    check_with(
        "csr",
        &program(&common::data("aps/csr.mlir")),
        &["cfg", "status"],
    );
}

/// The test's table is the convention's: its 77 non-CSR rows, and a
/// misspelt or mis-sized port would be reported (the check is not vacuous).
#[test]
fn the_table_is_complete_and_the_check_sees_a_wrong_port() {
    let want = convention();
    assert_eq!(want.len(), 77, "{want:?}");
    if !common::have_tool("verilator") {
        return;
    }
    let c = program(&common::repo_root().join("examples/aps/flow_burst_add.mlir"));
    let sv = compiler::rules::sv::emit_sv(&c, "main").unwrap();
    let bad = sv.replacen(
        "input  logic [31:0] burst_write_addr",
        "input  logic [15:0] burst_write_addr",
        1,
    );
    assert_ne!(bad, sv);
    let got = ports("bad", &bad);
    assert!(got.contains(&("burst_write_addr".into(), "input".into(), 16)));
    assert!(!got.contains(&("burst_write_addr".into(), "input".into(), 32)));
}

/// The ports circt-cmt2's lowering (`--lower-cmt2-to-firrtl`) gives the top module of
/// kiln's CMT2 text, by its naming rule: the clock and reset arguments; a top method `m`
/// has `m_enable` (in), `m_ready` (out), `m_<arg>` (in) and `m_res<k>` (out); a method `m`
/// of an interface declaration `d` has `d_m_enable` (out), `d_m_ready` (in), `d_m_<arg>`
/// (out) and `d_m_res<k>` (in), a value `v` of it `d_v_ready` and `d_v_res<k>` (in).
fn cmt2_ports(text: &str) -> BTreeSet<Port> {
    /// A function header: name, whether a value, (argument, width)s, result widths.
    type Header = (String, bool, Vec<(String, u32)>, Vec<u32>);
    /// The function header `cmt2.method @m(%a: T, ...) -> (R)` of `line`.
    fn header(line: &str) -> Option<Header> {
        let line = line.trim_start();
        let value = line.starts_with("cmt2.value @");
        if !value && !line.starts_with("cmt2.method @") {
            return None;
        }
        let at = line.find('@')? + 1;
        let open = line.find('(')?;
        let close = at + line[at..].find(')')?;
        let width = |t: &str| -> u32 {
            let t = t.trim();
            t["!firrtl.uint<".len()..t.len() - 1].parse().unwrap()
        };
        let args = line[open + 1..close]
            .split(", ")
            .filter(|a| !a.is_empty())
            .map(|a| {
                let (n, t) = a.split_once(": ").unwrap();
                (n.trim_start_matches('%').to_string(), width(t))
            })
            .collect();
        let rest = &line[close..];
        let r0 = rest.find("-> (")? + 4;
        let r1 = r0 + rest[r0..].find(')')?;
        let results = rest[r0..r1]
            .split(", ")
            .filter(|r| !r.is_empty())
            .map(width)
            .collect();
        Some((line[at..open].to_string(), value, args, results))
    }
    let mut interfaces: BTreeMap<String, Vec<Header>> = BTreeMap::new();
    let mut current: Option<String> = None;
    let mut in_main = false;
    let mut out = BTreeSet::new();
    let port = |out: &mut BTreeSet<Port>, n: String, d: &str, w: u32| {
        assert!(out.insert((n.clone(), d.to_string(), w)), "port {n} twice");
    };
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("    cmt2.interface @") {
            current = Some(rest.trim_end_matches(" {").to_string());
            continue;
        }
        if line.starts_with("    cmt2.module @main(") {
            in_main = true;
            port(&mut out, "clk".into(), "input", 1);
            port(&mut out, "rst".into(), "input", 1);
            continue;
        }
        if line.starts_with("    }") {
            current = None;
            in_main = false;
            continue;
        }
        if let Some(itf) = &current
            && line.starts_with("      cmt2.")
            && let Some(h) = header(line)
        {
            interfaces.entry(itf.clone()).or_default().push(h);
            continue;
        }
        if !in_main || !line.starts_with("      cmt2.") {
            continue;
        }
        if let Some(rest) = line.strip_prefix("      cmt2.interface.decl @") {
            let (d, itf) = rest.split_once(" : @").unwrap();
            let itf = itf.split(' ').next().unwrap();
            for (m, value, args, results) in &interfaces[itf] {
                if !value {
                    port(&mut out, format!("{d}_{m}_enable"), "output", 1);
                }
                port(&mut out, format!("{d}_{m}_ready"), "input", 1);
                for (a, w) in args {
                    port(&mut out, format!("{d}_{m}_{a}"), "output", *w);
                }
                for (k, w) in results.iter().enumerate() {
                    port(&mut out, format!("{d}_{m}_res{k}"), "input", *w);
                }
            }
        } else if let Some((m, value, args, results)) = header(line) {
            if !value {
                port(&mut out, format!("{m}_enable"), "input", 1);
            }
            port(&mut out, format!("{m}_ready"), "output", 1);
            for (a, w) in args {
                port(&mut out, format!("{m}_{a}"), "input", w);
            }
            for (k, w) in results.into_iter().enumerate() {
                port(&mut out, format!("{m}_res{k}"), "output", w);
            }
        }
    }
    out
}

/// Ports of the CMT2 text the convention does not have: the faults' (`<fault>_raise_*`;
/// kiln's observability, internal in the SystemVerilog top).
fn cmt2_internal(name: &str) -> bool {
    name.contains("_raise_")
}

/// circt-cmt2 would lower kiln's CMT2 text to the convention's top ports (names,
/// directions, widths) for RoCC commands and responses, the DMA requests, the HellaCache
/// requests and responses, and CSRs.
#[test]
fn the_cmt2_top_lowers_to_the_conventions_ports() {
    let cases: Vec<(String, compiler::rules::Circuit, Vec<&str>)> = vec![
        (
            "flow_burst_add".into(),
            program(&common::repo_root().join("examples/aps/flow_burst_add.mlir")),
            vec![],
        ),
        (
            "features".into(),
            program(&common::data("aps/features.mlir")),
            vec![],
        ),
        (
            "gen".into(),
            file_circuit("gen", &workload::generate(4, 1)),
            vec![],
        ),
        (
            "csr".into(),
            program(&common::data("aps/csr.mlir")),
            vec!["cfg", "status"],
        ),
    ];
    for (tag, c, lanes) in cases {
        let text = compiler::rules::emit_cmt2(&c);
        let got: BTreeSet<Port> = cmt2_ports(&text)
            .into_iter()
            .filter(|p| !cmt2_internal(&p.0))
            .collect();
        let want: BTreeSet<Port> = convention_with(&lanes);
        let missing: Vec<&Port> = want.difference(&got).collect();
        let extra: Vec<&Port> = got.difference(&want).collect();
        assert!(
            missing.is_empty() && extra.is_empty(),
            "{tag}: the CMT2 top's ports differ from the convention\n  missing: {missing:?}\n  extra: {extra:?}"
        );
        // The read-back gives the circuit's instances back, the glue not among them
        // (`cmt2.rs` simulates read-backs against the circuits).
        let back = compiler::rules::read_cmt2(&text).unwrap();
        assert_eq!(back.instances, c.instances, "{tag}: read-back");
    }
}

/// The reader refuses CMT2 whose SoC side is not kiln's: a rule writing a CSR latch, a
/// misnamed response declaration.
#[test]
fn the_reader_refuses_a_foreign_soc_side() {
    let c = program(&common::data("aps/csr.mlir"));
    let text = compiler::rules::emit_cmt2(&c);
    let bad = text.replacen(
        "cmt2.call @csr_status @set(",
        "cmt2.call @csr_status_latch @write(",
        1,
    );
    assert_ne!(bad, text);
    let e = compiler::rules::read_cmt2(&bad).unwrap_err();
    assert!(e.message.contains("does not call"), "{}", e.message);
    let bad = text.replace("@rocc_resp ", "@resp ");
    let e = compiler::rules::read_cmt2(&bad).unwrap_err();
    assert!(e.message.contains("rocc_resp"), "{}", e.message);
}
