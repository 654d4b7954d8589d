//! Waveforms of a run with the same signals whichever engine ran it (`kiln sim --vcd`): the
//! rule simulator (and so the CMT2 read back) records them cycle by cycle
//! ([`super::sim::simulate_recorded`]); the Icarus testbench prints them from the RTL's own
//! signals ([`tb_sample_line`], read back by [`parse_tb_waves`]). [`first_difference`] is
//! the oracle that compares two runs signal by signal, cycle by cycle.
//!
//! Signals, in this order, each sampled during its cycle (state as the cycle starts, fires
//! and port activity of the cycle):
//!
//! | scope | signal | width | RTL |
//! |---|---|---|---|
//! | `ports` | `rocc_cmd_fire`, `rocc_resp_fire`, `rocc_resp_rd`, `rocc_resp_data` | 1, 1, 5, 32 | the RoCC handshakes |
//! | `ports` | `<dma>_req_fire` | 1 | a DMA request taken |
//! | `ports` | `hella_cmd_fire` | 1 | the HellaCache request port fires (`hella_cmd_hella_cmd_to_bus_enable` ∧ `_ready`) |
//! | function / `shared` | `<reg>` | its width | `<reg>__q` |
//! | function / `shared` | `<fifo>_count`, `<fifo>_head` | 8, its width | `<fifo>__cnt`, the head entry |
//! | function | `<rule>_will_fire` | 1 | `WILL_FIRE_<rule>` |
//!
//! The scope of a name is its function (`inst2b00_…` → `inst2b00`), else `shared`.
//! In the file, time counts nanoseconds, one cycle every 10 (the testbench's clock), with a
//! `clk` that rises as each cycle ends.

use super::sv::ident;
use super::{Circuit, InstanceKind};

/// What a signal shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Source {
    CmdFire,
    RespFire,
    RespRd,
    RespData,
    DmaFire(String),
    MemFire(String),
    Reg(String),
    FifoCount(String),
    FifoHead(String),
    WillFire(String),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signal {
    pub scope: String,
    pub name: String,
    pub width: u32,
    pub(crate) source: Source,
}

/// The values of every signal, cycle by cycle.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Waves {
    pub signals: Vec<Signal>,
    /// One row per cycle, a value per signal.
    pub rows: Vec<Vec<u128>>,
}

/// The scope of an instance or rule name: its function's prefix, else `shared`.
fn scope_of(name: &str) -> String {
    match name.split_once('_') {
        Some((head, _))
            if head.len() > 4
                && head.starts_with("inst")
                && head[4..].bytes().all(|b| b.is_ascii_hexdigit()) =>
        {
            head.to_string()
        }
        _ => "shared".to_string(),
    }
}

/// The signals of `circuit`, its rules in the simulator's order.
pub fn circuit_signals(circuit: &Circuit) -> Vec<Signal> {
    let order = super::schedule::rule_order(circuit).unwrap_or_default();
    let names: Vec<&str> = order
        .iter()
        .map(|&i| circuit.rules[i].name.as_str())
        .collect();
    signals(circuit, &names)
}

/// The signals of `circuit`, rules in `order` (the simulator's schedule order).
pub fn signals(circuit: &Circuit, order: &[&str]) -> Vec<Signal> {
    let mut out = Vec::new();
    let mut port = |name: String, width, source| {
        out.push(Signal {
            scope: "ports".into(),
            name,
            width,
            source,
        })
    };
    if circuit
        .instances
        .iter()
        .any(|i| matches!(i.kind, InstanceKind::Rocc))
    {
        port("rocc_cmd_fire".into(), 1, Source::CmdFire);
        port("rocc_resp_fire".into(), 1, Source::RespFire);
        port("rocc_resp_rd".into(), 5, Source::RespRd);
        port("rocc_resp_data".into(), 32, Source::RespData);
    }
    for i in &circuit.instances {
        match i.kind {
            InstanceKind::Dma { .. } => port(
                format!("{}_req_fire", ident(&i.name)),
                1,
                Source::DmaFire(i.name.clone()),
            ),
            InstanceKind::MemPort => {
                port("hella_cmd_fire".into(), 1, Source::MemFire(i.name.clone()))
            }
            _ => {}
        }
    }
    for i in &circuit.instances {
        let scope = scope_of(&i.name);
        let id = ident(&i.name);
        match i.kind {
            InstanceKind::Reg { width, .. } => out.push(Signal {
                scope,
                name: id,
                width: width.max(1),
                source: Source::Reg(i.name.clone()),
            }),
            InstanceKind::Fifo { width, .. } => {
                out.push(Signal {
                    scope: scope.clone(),
                    name: format!("{id}_count"),
                    width: 8,
                    source: Source::FifoCount(i.name.clone()),
                });
                out.push(Signal {
                    scope,
                    name: format!("{id}_head"),
                    width: width.max(1),
                    source: Source::FifoHead(i.name.clone()),
                });
            }
            _ => {}
        }
    }
    for r in order {
        out.push(Signal {
            scope: scope_of(r),
            name: format!("{}_will_fire", ident(r)),
            width: 1,
            source: Source::WillFire((*r).to_string()),
        });
    }
    out
}

/// The testbench statement that prints one cycle's values (`w <cycle> <hex>...`) from the
/// RTL's signals (`dut.…`) and the testbench's handshake signals.
pub(crate) fn tb_sample_line(signals: &[Signal]) -> String {
    let mut fmt = String::from("w %0d");
    let mut args = vec!["cyc".to_string()];
    for s in signals {
        fmt.push_str(" %0h");
        let w = s.width;
        args.push(match &s.source {
            Source::CmdFire => "(rocc_cmd_enable && rocc_cmd_ready)".into(),
            Source::RespFire => "(rocc_resp_rocc_resp_to_bus_enable && rocc_resp_rocc_resp_to_bus_ready)".into(),
            Source::RespRd => "((rocc_resp_rocc_resp_to_bus_enable && rocc_resp_rocc_resp_to_bus_ready) ? rocc_resp_rocc_resp_to_bus_result_rd : 5'd0)".into(),
            Source::RespData => {
                "((rocc_resp_rocc_resp_to_bus_enable && rocc_resp_rocc_resp_to_bus_ready) ? rocc_resp_rocc_resp_to_bus_result_rddata : 32'd0)".into()
            }
            Source::DmaFire(_) => {
                let fires: Vec<String> = (0..crate::rules::DMA_CHANNELS)
                    .flat_map(|channel| {
                        [true, false].map(|to_isax| {
                            let m = crate::rules::DmaMethod::Request { to_isax, channel }.name();
                            format!("(dma_{m}_enable && dma_{m}_ready)")
                        })
                    })
                    .collect();
                format!("({})", fires.join(" || "))
            }
            Source::MemFire(_) => {
                "(hella_cmd_hella_cmd_to_bus_enable && hella_cmd_hella_cmd_to_bus_ready)".into()
            }
            Source::Reg(r) => format!("dut.{}__q", ident(r)),
            Source::FifoCount(f) => format!("dut.{}__cnt", ident(f)),
            Source::FifoHead(f) => format!("dut.{}__data[{}:0]", ident(f), w - 1),
            Source::WillFire(r) => format!("dut.WILL_FIRE_{}", ident(r)),
        });
    }
    format!("    $fdisplay(out, \"{fmt}\", {});\n", args.join(", "))
}

/// The `w` lines of a testbench's output as waves of `signals`.
pub fn parse_tb_waves(text: &str, signals: Vec<Signal>) -> Result<Waves, String> {
    let mut rows = Vec::new();
    for line in text.lines().filter(|l| l.starts_with("w ")) {
        let bad = || format!("malformed waveform line `{line}`");
        let mut f = line.split_whitespace().skip(1);
        let cycle: usize = f.next().and_then(|c| c.parse().ok()).ok_or_else(bad)?;
        if cycle != rows.len() {
            return Err(bad());
        }
        let row: Vec<u128> = f
            .map(|x| u128::from_str_radix(x, 16).map_err(|_| bad()))
            .collect::<Result<_, _>>()?;
        if row.len() != signals.len() {
            return Err(bad());
        }
        rows.push(row);
    }
    Ok(Waves { signals, rows })
}

/// The first signal and cycle where `a` and `b` differ: `(signal, cycle, a's value, b's
/// value)`, a missing cycle's value as `None`.
pub fn first_difference(
    a: &Waves,
    b: &Waves,
) -> Option<(String, usize, Option<u128>, Option<u128>)> {
    let names = |w: &Waves| {
        w.signals
            .iter()
            .map(|s| format!("{}.{}", s.scope, s.name))
            .collect::<Vec<_>>()
    };
    let (na, nb) = (names(a), names(b));
    if na != nb {
        let k = (0..na.len().max(nb.len())).find(|&k| na.get(k) != nb.get(k))?;
        let n = na.get(k).or(nb.get(k)).cloned().unwrap_or_default();
        return Some((format!("signal list at {n}"), 0, None, None));
    }
    for cycle in 0..a.rows.len().max(b.rows.len()) {
        let (ra, rb) = (a.rows.get(cycle), b.rows.get(cycle));
        for (k, name) in na.iter().enumerate() {
            let (va, vb) = (ra.map(|r| r[k]), rb.map(|r| r[k]));
            if va != vb {
                return Some((name.clone(), cycle, va, vb));
            }
        }
    }
    None
}

/// The waves as a VCD file: scope `kiln`, then `ports`, each function and `shared`.
pub fn to_vcd(w: &Waves, comment: &str) -> Vec<u8> {
    let mut out = Vec::new();
    let _ = write_vcd(&mut out, w, comment);
    out
}

fn write_vcd(out: &mut Vec<u8>, w: &Waves, comment: &str) -> std::io::Result<()> {
    let mut v = vcd::Writer::new(out);
    v.comment(comment)?;
    v.timescale(1, vcd::TimescaleUnit::NS)?;
    v.add_module("kiln")?;
    let clk = v.add_wire(1, "clk")?;
    let mut scopes: Vec<&str> = Vec::new();
    for s in &w.signals {
        if !scopes.contains(&s.scope.as_str()) {
            scopes.push(&s.scope);
        }
    }
    let mut ids = vec![clk; w.signals.len()];
    for scope in scopes {
        v.add_module(scope)?;
        for (k, s) in w.signals.iter().enumerate() {
            if s.scope == scope {
                ids[k] = v.add_wire(s.width, &s.name)?;
            }
        }
        v.upscope()?;
    }
    v.upscope()?;
    v.enddefinitions()?;
    let mut last: Option<&Vec<u128>> = None;
    for (cycle, row) in w.rows.iter().enumerate() {
        v.timestamp(10 * cycle as u64)?;
        v.change_scalar(clk, vcd::Value::V0)?;
        for (k, s) in w.signals.iter().enumerate() {
            if last.is_some_and(|l| l[k] == row[k]) {
                continue;
            }
            if s.width == 1 {
                v.change_scalar(ids[k], row[k] & 1 == 1)?;
            } else {
                let bits = (0..s.width)
                    .rev()
                    .map(|b| vcd::Value::from(row[k] >> b & 1 == 1));
                v.change_vector(ids[k], bits)?;
            }
        }
        v.timestamp(10 * cycle as u64 + 5)?;
        v.change_scalar(clk, vcd::Value::V1)?;
        last = Some(row);
    }
    v.timestamp(10 * w.rows.len() as u64)?;
    v.change_scalar(clk, vcd::Value::V0)?;
    Ok(())
}

/// A VCD file read back (with the `vcd` crate) as values per signal (`scope.name`) and
/// cycle: what `to_vcd` wrote, for tests and comparisons of files.
pub fn read_vcd(bytes: &[u8]) -> Result<Vec<(String, Vec<u128>)>, String> {
    let mut p = vcd::Parser::new(bytes);
    let header = p.parse_header().map_err(|e| e.to_string())?;
    // Scope `kiln` holds `clk` and one scope per group of signals.
    let mut vars: Vec<(vcd::IdCode, String)> = Vec::new();
    for item in &header.items {
        let vcd::ScopeItem::Scope(top) = item else {
            continue;
        };
        for sub in &top.items {
            let vcd::ScopeItem::Scope(s) = sub else {
                continue;
            };
            for v in &s.items {
                if let vcd::ScopeItem::Var(v) = v {
                    vars.push((v.code, format!("{}.{}", s.identifier, v.reference)));
                }
            }
        }
    }
    let mut current = vec![0u128; vars.len()];
    let mut columns: Vec<Vec<u128>> = vec![Vec::new(); vars.len()];
    let at: std::collections::HashMap<vcd::IdCode, usize> =
        vars.iter().enumerate().map(|(k, (c, _))| (*c, k)).collect();
    let index = |id: vcd::IdCode| at.get(&id).copied();
    let bits = |v: &vcd::Vector| {
        v.iter()
            .fold(0u128, |a, b| a << 1 | u128::from(b == vcd::Value::V1))
    };
    for cmd in p {
        match cmd.map_err(|e| e.to_string())? {
            // A cycle's values stand at its start (t = 10·cycle); record them at the
            // rising edge (t = 10·cycle + 5).
            vcd::Command::Timestamp(t) if t % 10 == 5 => {
                for (k, c) in columns.iter_mut().enumerate() {
                    c.push(current[k]);
                }
            }
            vcd::Command::ChangeScalar(id, v) => {
                if let Some(k) = index(id) {
                    current[k] = u128::from(v == vcd::Value::V1);
                }
            }
            vcd::Command::ChangeVector(id, v) => {
                if let Some(k) = index(id) {
                    current[k] = bits(&v);
                }
            }
            _ => {}
        }
    }
    let mut out: Vec<(String, Vec<u128>)> =
        vars.into_iter().map(|(_, n)| (n, Vec::new())).collect();
    for (k, c) in columns.into_iter().enumerate() {
        out[k].1 = c;
    }
    Ok(out)
}
