//! Units from Dynamatic's Verilog templates (`data/verilog/` of Dynamatic, the `--rtl-lib`
//! directory): which template implements an op and with which parameters, as
//! `rtl-config-verilog.json` maps them, and the wrapper module that binds the template's
//! ports to the op's unbundled 1-bit pins by name.
//!
//! Pure: the caller reads the template files, synthesizes the wrapper with yosys (to one flat
//! BLIF model named [`Template::model`] whose ports are the op's pin names) and lowers that
//! BLIF like a library file. Templates cover the ops that have one in Dynamatic's Verilog
//! library and are not float arithmetic: the three memory controllers (loads only, stores
//! only, both), `join`, `muli` (whose library units are blackboxed above 4 bits) and `absf`
//! (the sign bit cleared).

use super::circuit::{Circuit, OpNode, ValueRef};
use super::signals::{PortRef, SigKind, signals};
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// A template instantiated for one parameter set.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Template {
    /// The template's module (`mem_controller_storeless`).
    pub module: String,
    /// Files relative to the template directory, dependencies first.
    pub files: Vec<String>,
    /// (generic, value), as `rtl-config-verilog.json` maps the op.
    pub params: Vec<(String, u64)>,
    /// The wrapper module's name, the synthesized model's (`kiln_rtl_join_type__3`).
    pub model: String,
    /// The wrapper's Verilog text: the op's pins as ports, the template instantiated.
    pub wrapper: String,
}

impl Template {
    /// The key of the synthesized unit among the design's units (distinct from library
    /// paths, which end in `.blif`): `mem_controller_storeless/2/32/9/mem_controller_storeless.v`.
    pub fn key(&self) -> String {
        let mut k = self.module.clone();
        for (_, v) in &self.params {
            let _ = write!(k, "/{v}");
        }
        let _ = write!(k, "/{}.v", self.module);
        k
    }

    /// `handshake/mem_controller_storeless.v (NUM_LOADS=2, DATA_TYPE=32, ADDR_TYPE=9)`: the
    /// template's file and parameters (for reports).
    pub fn about(&self) -> String {
        let p: Vec<String> = (self.params.iter())
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        let file = self
            .files
            .last()
            .map_or(self.module.as_str(), String::as_str);
        format!("{file} ({})", p.join(", "))
    }
}

/// One bit of a template port.
type Bit = (String, u32);

/// How the op's pins bind to the template's ports.
struct Binding {
    module: &'static str,
    files: &'static [&'static str],
    params: Vec<(String, u64)>,
    /// (name, width, output) of each template port, in declaration order.
    ports: Vec<(String, u32, bool)>,
    /// The template bit of each op signal (input or output); `None`: unconnected (an op
    /// input the template does not read, or an op output driven by `tie`).
    bit: Box<dyn Fn(PortRef, SigKind) -> Option<Bit>>,
    /// The constant an op output with no template bit is tied to.
    tie: bool,
}

/// The template of each op (`None`: no Verilog template for it, or its form is not one the
/// template covers), in op order.
pub fn templates(circuit: &Circuit) -> Vec<Option<Template>> {
    (circuit.ops.iter())
        .map(|node| template(circuit, node))
        .collect()
}

/// The template of `node`, an op of `circuit` or a unit inside one's signal manager
/// ([`super::managers::inner_nodes`]), if a template covers it.
pub fn template(circuit: &Circuit, node: &OpNode) -> Option<Template> {
    binding(circuit, node).map(|b| instantiate(node, b))
}

/// The binding of `node`, if a template covers it.
fn binding(circuit: &Circuit, node: &OpNode) -> Option<Binding> {
    if (node.inputs.iter().chain(&node.outputs)).any(|p| p.ty.has_extras()) {
        return None;
    }
    match node.kind.as_str() {
        "join" => join(node),
        "mem_controller" => mem_controller(circuit, node),
        "muli" => operator(
            node,
            "muli",
            &[
                "support/delay_buffer.v",
                "handshake/join.v",
                "handshake/dataless/oehb.v",
                "arith/muli.v",
            ],
            &["lhs", "rhs"],
            "result",
        ),
        "absf" => operator(node, "absf", &["arith/absf.v"], &["ins"], "outs"),
        _ => None,
    }
}

/// The binding of a template whose ports are the op's pins by name: operand `k` is
/// `ins[k]`, the result `out` (data bits, `_valid`, `_ready`), plus `clk` and `rst`.
fn pins_by_name(
    ins: &'static [&'static str],
    out: &'static str,
) -> Box<dyn Fn(PortRef, SigKind) -> Option<Bit>> {
    Box::new(move |port, kind| {
        let name = match port {
            PortRef::Input(k) => *ins.get(k)?,
            PortRef::Output(0) => out,
            PortRef::Global if kind == SigKind::Clk => return Some(("clk".into(), 0)),
            PortRef::Global if kind == SigKind::Rst => return Some(("rst".into(), 0)),
            _ => return None,
        };
        match kind {
            SigKind::Data(b) => Some((name.to_string(), b)),
            SigKind::Valid => Some((format!("{name}_valid"), 0)),
            SigKind::Ready => Some((format!("{name}_ready"), 0)),
            _ => None,
        }
    })
}

/// An operator whose template's ports are the op's pins, all `DATA_TYPE` (the width) wide:
/// operands named `ins` (`lhs`, `rhs` of a binary one; `ins` of a unary one), the result
/// `out` (`result`, `outs`) — the library's own naming, which came from these templates.
fn operator(
    node: &OpNode,
    module: &'static str,
    files: &'static [&'static str],
    ins: &'static [&'static str],
    out: &'static str,
) -> Option<Binding> {
    let w = node.outputs.first()?.ty.width;
    // A unary template (`absf`) keeps the bits below a sign bit: at least 2.
    let least = if ins.len() == 1 { 2 } else { 1 };
    if w < least {
        return None;
    }
    if node.inputs.len() != ins.len() || node.outputs.len() != 1 {
        return None;
    }
    if !(node.inputs.iter().chain(&node.outputs)).all(|p| p.ty.width == w && p.ty.handshake) {
        return None;
    }
    let names: Vec<&str> = (node.inputs.iter().chain(&node.outputs))
        .map(|p| p.name.as_str())
        .collect();
    if names.iter().copied().ne(ins.iter().copied().chain([out])) {
        return None;
    }
    let mut ports = vec![("clk".into(), 1, false), ("rst".into(), 1, false)];
    for (p, is_out) in (ins.iter().map(|p| (*p, false))).chain([(out, true)]) {
        ports.push((p.to_string(), w, is_out));
        ports.push((format!("{p}_valid"), 1, is_out));
        ports.push((format!("{p}_ready"), 1, !is_out));
    }
    Some(Binding {
        module,
        files,
        params: vec![("DATA_TYPE".into(), u64::from(w))],
        ports,
        bit: pins_by_name(ins, out),
        tie: false,
    })
}

/// `join_type` (`handshake/join.v`, SIZE = the operand count): control operands only.
fn join(node: &OpNode) -> Option<Binding> {
    let n = u32::try_from(node.inputs.len()).ok()?;
    if n == 0 || node.outputs.len() != 1 {
        return None;
    }
    if (node.inputs.iter().chain(&node.outputs)).any(|p| p.ty.width != 0 || !p.ty.handshake) {
        return None;
    }
    Some(Binding {
        module: "join_type",
        files: &["support/logic.v", "handshake/join.v"],
        params: vec![("SIZE".into(), u64::from(n))],
        ports: vec![
            ("ins_valid".into(), n, false),
            ("outs_ready".into(), 1, false),
            ("ins_ready".into(), n, true),
            ("outs_valid".into(), 1, true),
        ],
        bit: Box::new(|port, kind| match (port, kind) {
            (PortRef::Input(k), SigKind::Valid) => Some(("ins_valid".into(), k as u32)),
            (PortRef::Input(k), SigKind::Ready) => Some(("ins_ready".into(), k as u32)),
            (PortRef::Output(0), SigKind::Valid) => Some(("outs_valid".into(), 0)),
            (PortRef::Output(0), SigKind::Ready) => Some(("outs_ready".into(), 0)),
            _ => None,
        }),
        tie: false,
    })
}

/// What one operand of a memory controller is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Access {
    /// The memref (its data is the memory's read data).
    Memory,
    Start,
    /// A block's store count (`ctrl`, 32 bits).
    Ctrl(u32),
    LdAddr(u32),
    StAddr(u32),
    StData(u32),
    End,
}

/// The memory controller (`mem_controller[%m] %memStart (accesses) %ctrlEnd`): its accesses
/// classified by their producers (a `load`'s address; a `store`'s address and data; an
/// `lsq`'s load address, store address and store data, in that order; anything else a
/// block's store count), then `mem_controller_storeless`, `_loadless` or `mem_controller`
/// as `rtl-config-verilog.json` chooses by the counts. The memory's read data is the
/// memref's data; the memref's ready is tied to 1 and its valid is not read (kiln models
/// the memref as a channel). The BRAM side's other outputs (`loadEn`, `loadAddr`,
/// `storeEn`, `storeAddr`, `storeData`) stay outputs of the unit that no op reads.
fn mem_controller(circuit: &Circuit, node: &OpNode) -> Option<Binding> {
    let n = node.inputs.len();
    if n < 3 || node.outputs.is_empty() {
        return None;
    }
    let (mut ctrl, mut ld, mut st, mut sd) = (0u32, 0u32, 0u32, 0u32);
    let mut lsq_seen = 0;
    let mut roles = Vec::with_capacity(n);
    for (i, operand) in node.operands.iter().enumerate() {
        let role = if i == 0 {
            Access::Memory
        } else if i == 1 {
            Access::Start
        } else if i == n - 1 {
            Access::End
        } else {
            let producer = match operand {
                ValueRef::Result { op, index } => {
                    circuit.ops.get(*op).map(|o| (o.kind.as_str(), *index))
                }
                ValueRef::Arg(_) => None,
            };
            let kind = match producer {
                Some(("load", 0)) => 0,
                Some(("store", 0)) => 1,
                Some(("store", 1)) => 2,
                Some(("lsq", _)) => {
                    lsq_seen += 1;
                    match lsq_seen {
                        1 => 0,
                        2 => 1,
                        3 => 2,
                        _ => return None,
                    }
                }
                _ => 3,
            };
            let next = |c: &mut u32| {
                *c += 1;
                *c - 1
            };
            match kind {
                0 => Access::LdAddr(next(&mut ld)),
                1 => Access::StAddr(next(&mut st)),
                2 => Access::StData(next(&mut sd)),
                _ => Access::Ctrl(next(&mut ctrl)),
            }
        };
        roles.push(role);
    }
    let width = |k: usize| node.inputs[k].ty.width;
    let data = width(0);
    let addrs: Vec<u32> = (roles.iter().enumerate())
        .filter(|(_, r)| matches!(r, Access::LdAddr(_) | Access::StAddr(_)))
        .map(|(k, _)| width(k))
        .collect();
    let addr = *addrs.first()?;
    let ok = data >= 1
        && addr >= 1
        && st == sd
        && addrs.iter().all(|&a| a == addr)
        && (roles.iter().enumerate()).all(|(k, r)| match r {
            Access::Memory => node.inputs[k].ty.handshake,
            Access::Start | Access::End => width(k) == 0,
            Access::Ctrl(_) => width(k) == 32,
            Access::StData(_) => width(k) == data,
            Access::LdAddr(_) | Access::StAddr(_) => true,
        })
        && node.outputs.len() == ld as usize + 1
        && node.outputs[..ld as usize]
            .iter()
            .all(|p| p.ty.width == data)
        && node.outputs[ld as usize].ty.width == 0;
    // The template's buses are `count × width` bits: kept far below `u32` (and within what
    // a unit can be), whatever counts and widths the input has.
    let lanes = u64::from(ld.max(st).max(ctrl));
    if !ok || lanes * u64::from(data.max(addr).max(32)) > 1 << 20 {
        return None;
    }
    let (module, files): (&'static str, &'static [&'static str]) = match (ld, st, ctrl) {
        (1.., 0, 0) => (
            "mem_controller_storeless",
            &[
                "support/mc_support.v",
                "handshake/mem_controller_storeless.v",
            ],
        ),
        (0, 1.., 1..) => (
            "mem_controller_loadless",
            &[
                "support/mc_support.v",
                "handshake/mem_controller_loadless.v",
            ],
        ),
        (1.., 1.., 1..) => (
            "mem_controller",
            &[
                "support/mc_support.v",
                "handshake/mem_controller_loadless.v",
                "handshake/mem_controller.v",
            ],
        ),
        _ => return None,
    };
    let mut params = Vec::new();
    let mut p = |k: &str, v: u32| params.push((k.to_string(), u64::from(v)));
    if module != "mem_controller_storeless" {
        p("NUM_CONTROLS", ctrl);
    }
    if module != "mem_controller_loadless" {
        p("NUM_LOADS", ld);
    }
    if module != "mem_controller_storeless" {
        p("NUM_STORES", st);
    }
    p("DATA_TYPE", data);
    p("ADDR_TYPE", addr);
    let mut ports: Vec<(&'static str, u32, bool)> = vec![
        ("memStart_valid", 1, false),
        ("memStart_ready", 1, true),
        ("memEnd_valid", 1, true),
        ("memEnd_ready", 1, false),
        ("ctrlEnd_valid", 1, false),
        ("ctrlEnd_ready", 1, true),
    ];
    let channel = |ports: &mut Vec<(&'static str, u32, bool)>,
                   names: [&'static str; 3],
                   count: u32,
                   w: u32,
                   out: bool| {
        if count > 0 {
            ports.push((names[0], count * w, out));
            ports.push((names[1], count, out));
            ports.push((names[2], count, !out));
        }
    };
    channel(
        &mut ports,
        ["ctrl", "ctrl_valid", "ctrl_ready"],
        ctrl,
        32,
        false,
    );
    channel(
        &mut ports,
        ["ldAddr", "ldAddr_valid", "ldAddr_ready"],
        ld,
        addr,
        false,
    );
    channel(
        &mut ports,
        ["ldData", "ldData_valid", "ldData_ready"],
        ld,
        data,
        true,
    );
    channel(
        &mut ports,
        ["stAddr", "stAddr_valid", "stAddr_ready"],
        st,
        addr,
        false,
    );
    channel(
        &mut ports,
        ["stData", "stData_valid", "stData_ready"],
        st,
        data,
        false,
    );
    ports.extend([
        ("loadData", data, false),
        ("loadEn", 1, true),
        ("loadAddr", addr, true),
        ("storeEn", 1, true),
        ("storeAddr", addr, true),
        ("storeData", data, true),
    ]);
    let end_out = ld as usize;
    let bit = move |port: PortRef, kind: SigKind| -> Option<Bit> {
        let lane = |names: [&'static str; 3], k: u32, w: u32| match kind {
            SigKind::Data(b) => Some((names[0].to_string(), k * w + b)),
            SigKind::Valid => Some((names[1].to_string(), k)),
            SigKind::Ready => Some((names[2].to_string(), k)),
            _ => None,
        };
        match port {
            PortRef::Input(i) => match roles[i] {
                Access::Memory => match kind {
                    SigKind::Data(b) => Some(("loadData".to_string(), b)),
                    _ => None,
                },
                Access::Start => lane(["", "memStart_valid", "memStart_ready"], 0, 0),
                Access::End => lane(["", "ctrlEnd_valid", "ctrlEnd_ready"], 0, 0),
                Access::Ctrl(k) => lane(["ctrl", "ctrl_valid", "ctrl_ready"], k, 32),
                Access::LdAddr(k) => lane(["ldAddr", "ldAddr_valid", "ldAddr_ready"], k, addr),
                Access::StAddr(k) => lane(["stAddr", "stAddr_valid", "stAddr_ready"], k, addr),
                Access::StData(k) => lane(["stData", "stData_valid", "stData_ready"], k, data),
            },
            PortRef::Output(j) if j == end_out => lane(["", "memEnd_valid", "memEnd_ready"], 0, 0),
            PortRef::Output(j) => lane(["ldData", "ldData_valid", "ldData_ready"], j as u32, data),
            PortRef::Global => match kind {
                SigKind::Clk => Some(("clk".to_string(), 0)),
                SigKind::Rst => Some(("rst".to_string(), 0)),
                _ => None,
            },
        }
    };
    ports.insert(0, ("rst", 1, false));
    ports.insert(0, ("clk", 1, false));
    Some(Binding {
        module,
        files,
        params,
        ports: (ports.into_iter())
            .map(|(p, w, o)| (p.to_string(), w, o))
            .collect(),
        bit: Box::new(bit),
        tie: true,
    })
}

/// A Verilog escaped identifier (`\ins[3] `): any printable text but spaces.
fn esc(name: &str) -> String {
    format!("\\{name} ")
}

/// The wrapper of `b` for `node`: a module whose ports are the op's 1-bit pins (the
/// template's outputs that no pin takes are further outputs, `name[b]`), instantiating
/// the template with its parameters.
fn instantiate(node: &OpNode, b: Binding) -> Template {
    let mut model = format!("kiln_rtl_{}", b.module);
    let values: Vec<String> = b.params.iter().map(|(_, v)| v.to_string()).collect();
    let _ = write!(model, "__{}", values.join("_"));
    let (ins, outs) = signals(&node.inputs, &node.outputs, true);
    let wire = |p: &str| format!("t_{p}");
    let mut ports = Vec::new();
    let mut decls = String::new();
    let mut body = String::new();
    let mut taken = std::collections::BTreeSet::new();
    for s in &ins {
        ports.push(esc(&s.name));
        let _ = writeln!(decls, "  input {};", esc(&s.name));
    }
    let mut driven = std::collections::BTreeSet::new();
    for s in &ins {
        if let Some((p, bit)) = (b.bit)(s.port, s.kind) {
            let line = format!("  assign {}[{bit}] = {};", wire(&p), esc(&s.name));
            if driven.insert((p, bit)) {
                let _ = writeln!(body, "{line}");
            }
        }
    }
    for s in &outs {
        ports.push(esc(&s.name));
        let _ = writeln!(decls, "  output {};", esc(&s.name));
        let src = match (b.bit)(s.port, s.kind) {
            Some((p, bit)) => {
                let src = format!("{}[{bit}]", wire(&p));
                taken.insert((p, bit));
                src
            }
            None => format!("1'b{}", u8::from(b.tie)),
        };
        let _ = writeln!(body, "  assign {} = {src};", esc(&s.name));
    }
    let mut conns = Vec::new();
    for (p, w, out) in &b.ports {
        let (w, out) = (*w, *out);
        let _ = writeln!(decls, "  wire [{}:0] {};", w.saturating_sub(1), wire(p));
        conns.push(format!(".{p}({})", wire(p)));
        for bit in 0..w {
            let here = (p.clone(), bit);
            if out && !taken.contains(&here) {
                let name = if w == 1 {
                    p.to_string()
                } else {
                    format!("{p}[{bit}]")
                };
                ports.push(esc(&name));
                let _ = writeln!(decls, "  output {};", esc(&name));
                let _ = writeln!(body, "  assign {} = {}[{bit}];", esc(&name), wire(p));
            } else if !out && !driven.contains(&here) {
                let _ = writeln!(body, "  assign {}[{bit}] = 1'b0;", wire(p));
            }
        }
    }
    let params: Vec<String> = (b.params.iter())
        .map(|(k, v)| format!(".{k}({v})"))
        .collect();
    let mut wrapper = String::new();
    let _ = writeln!(wrapper, "module {model} (");
    let _ = writeln!(wrapper, "  {}", ports.join(",\n  "));
    let _ = writeln!(wrapper, ");");
    wrapper.push_str(&decls);
    wrapper.push_str(&body);
    let _ = writeln!(
        wrapper,
        "  {} #({}) inst (\n    {}\n  );",
        b.module,
        params.join(", "),
        conns.join(",\n    ")
    );
    wrapper.push_str("endmodule\n");
    Template {
        module: b.module.to_string(),
        files: b.files.iter().map(|f| f.to_string()).collect(),
        params: b.params,
        model,
        wrapper,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::handshake::circuit::Naming;

    fn circuit(text: &str) -> Circuit {
        let m = crate::mlir::parse(text).unwrap();
        let f = crate::handshake::find_func(&m.ops).unwrap();
        crate::handshake::analyze(f, Naming::ArgNames).unwrap()
    }

    /// A controller with a block's store count, two loads and a store, whose accesses come
    /// in mixed order: each lane is bound by its producer, in order.
    #[test]
    fn mem_controller_binds_accesses_by_their_producers() {
        let text = include_str!("../../../tests/data/rtl/mem_controller.mlir");
        let ts = templates(&circuit(text));
        let t = ts[0].as_ref().expect("the controller has a template");
        assert!(
            ts[1..].iter().all(Option::is_none),
            "loads and stores have none"
        );
        assert_eq!(t.module, "mem_controller");
        assert_eq!(t.key(), "mem_controller/1/2/1/32/4/mem_controller.v");
        assert_eq!(
            t.files,
            [
                "support/mc_support.v",
                "handshake/mem_controller_loadless.v",
                "handshake/mem_controller.v"
            ]
        );
        for line in [
            "assign t_loadData[7] = \\ins_0[7] ;",
            "assign t_memStart_valid[0] = \\ins_1_valid ;",
            "assign t_ctrl[5] = \\ins_2[5] ;",
            "assign t_ldAddr[0] = \\ins_3[0] ;",
            "assign t_stAddr[3] = \\ins_4[3] ;",
            "assign t_stData[31] = \\ins_5[31] ;",
            "assign t_ldAddr[4] = \\ins_6[0] ;",
            "assign t_ctrlEnd_valid[0] = \\ins_7_valid ;",
            "assign t_ldData_ready[1] = \\outs_1_ready ;",
            "assign \\ins_0_ready  = 1'b1;",
            "assign \\ins_6_ready  = t_ldAddr_ready[1];",
            "assign \\outs_1[2]  = t_ldData[34];",
            "assign \\outs_2_valid  = t_memEnd_valid[0];",
            "assign \\storeEn  = t_storeEn[0];",
            "mem_controller #(.NUM_CONTROLS(1), .NUM_LOADS(2), .NUM_STORES(1), .DATA_TYPE(32), .ADDR_TYPE(4)) inst (",
        ] {
            assert!(t.wrapper.contains(line), "no `{line}` in\n{}", t.wrapper);
        }
        assert!(
            !t.wrapper.contains("1'b0;"),
            "every template input is bound"
        );
    }

    #[test]
    fn join_binds_valid_and_ready_by_index() {
        let c = circuit(
            "handshake.func @f(%a: !handshake.control<>, %b: !handshake.control<>, %c: !handshake.control<>) -> (!handshake.control<>) {\n  %0 = join %a, %b, %c : <>, <>, <>\n  end %0 : <>\n}\n",
        );
        let t = templates(&c).remove(0).expect("join has a template");
        assert_eq!(t.module, "join_type");
        assert_eq!(t.params, [("SIZE".to_string(), 3)]);
        assert_eq!(t.key(), "join_type/3/join_type.v");
        assert!(
            t.wrapper
                .contains("assign t_ins_valid[2] = \\ins_valid[2] ;")
        );
        assert!(
            t.wrapper
                .contains("assign \\outs_valid  = t_outs_valid[0];")
        );
    }
}
