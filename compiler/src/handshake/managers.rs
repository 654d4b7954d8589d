//! Which of Dynamatic's signal managers carries an op's extra signals ([`Manager`], decided
//! when ops are marked: [`manager`]), the ops inside it ([`inner_nodes`]) and the port
//! layouts the managers share. The wrappers themselves are built by [`super::extras`],
//! whose module doc has the table of managers and why each op gets its own.

use super::circuit::{OpNode, PortSpec};
use crate::limits::{Limit, Limits};
use crate::mlir::ast::{Attribute, Operation};
use serde::{Deserialize, Serialize};

/// How the extras of an op's channels are carried ([`super::extras`]'s table).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Manager {
    Concat,
    Normal,
    Buffered {
        latency: u32,
    },
    /// A `load`'s address extras wait in a transparent FIFO of `slots` entries until its
    /// data leaves (Dynamatic's custom load manager: the memory's latency is unknown).
    Load {
        slots: u32,
    },
    NonSpec,
    /// `spec_commit`: Dynamatic's unit (the Speculation 2019 design) built of a `cond_br`
    /// and a `merge` of the library and two one-slot transparent FIFOs: a token whose
    /// `spec` is 0 goes straight on; one whose `spec` is 1 waits for the commit decision
    /// `ctrl` and goes on when it is 0, dropped when it is 1.
    SpecCommit,
    /// `speculating_branch`: a `cond_br` of the library sending `data` (its extras dropped)
    /// by the `spec` bit of `specTag` (Dynamatic's unit).
    SpecBranch,
    /// `spec_save_commit` of `depth` slots (`fifoDepth`): Dynamatic's unit, generated
    /// ([`super::spec_save`]).
    SpecSaveCommit {
        depth: u32,
    },
    /// `speculator` with a FIFO of `depth` predictions (`fifoDepth`): Dynamatic's unit,
    /// generated ([`super::speculator`]).
    Speculator {
        depth: u32,
    },
}

impl Manager {
    /// Dynamatic's name for the manager.
    pub fn name(self) -> &'static str {
        match self {
            Manager::Concat => "concat",
            Manager::Normal => "normal",
            Manager::Buffered { .. } => "buffered",
            Manager::Load { .. } => "load",
            Manager::NonSpec => "non_spec",
            Manager::SpecCommit => "spec_commit",
            Manager::SpecBranch => "speculating_branch",
            Manager::SpecSaveCommit { .. } => "spec_save_commit",
            Manager::Speculator { .. } => "speculator",
        }
    }

    /// The manager and its parameter, for reports.
    pub fn about(self) -> String {
        match self.param() {
            Some((_, said)) => format!("{} ({said})", self.name()),
            None => self.name().to_string(),
        }
    }

    pub(super) fn tag(self) -> String {
        match self.param() {
            Some((n, _)) => format!("{}{n}", self.name()),
            None => self.name().to_string(),
        }
    }

    /// The manager's parameter, and how a report says it.
    fn param(self) -> Option<(u32, String)> {
        match self {
            Manager::Buffered { latency: n } | Manager::Load { slots: n } => {
                Some((n, format!("{n} slots")))
            }
            Manager::SpecSaveCommit { depth: n } | Manager::Speculator { depth: n } => {
                Some((n, format!("fifoDepth {n}")))
            }
            _ => None,
        }
    }
}

/// Entries of a `load`'s extras FIFO: requests in flight between the address leaving and
/// the data arriving. The FIFO's ready holds the address back when it is full, so fewer
/// slots cost throughput, never tokens; four cover a memory controller's read latency and
/// the load's two one-slot buffers.
pub const LOAD_SLOTS: u32 = 4;

/// Whether any port of `node` carries extras.
pub(crate) fn has_extras(node: &OpNode) -> bool {
    (node.inputs.iter().chain(&node.outputs)).any(|p| p.ty.has_extras())
}

/// The manager of `node` (which has extras), given the latency of its op without extras
/// when that op is a float unit (kiln's built-in); why there is none otherwise.
pub(crate) fn manager(
    node: &OpNode,
    latency: Option<u32>,
    op: &Operation,
    limits: &Limits,
) -> Result<Manager, String> {
    if (node.inputs.iter().chain(&node.outputs)).any(|p| !p.ty.extra_up.is_empty()) {
        return Err(
            "its channels carry upstream extra signals (with ready), which no signal manager moves"
                .into(),
        );
    }
    let kind = node.kind.as_str();
    Ok(match kind {
        "fork" | "lazy_fork" | "buffer" | "merge" | "mux" | "control_merge" => Manager::Concat,
        "cond_br" | "sink" | "source" | "constant" | "extsi" | "extui" | "trunci" | "addi"
        | "subi" | "andi" | "ori" | "xori" | "shli" | "shrsi" | "shrui" | "cmpi" | "select"
        | "not" | "noti" | "join" | "br" => Manager::Normal,
        // Dynamatic's `muli`: a 4-stage pipeline (`arith/muli.v` behind a 4-cycle delay).
        "muli" => Manager::Buffered { latency: 4 },
        // The address's extras only: the data from memory and the address to it carry none.
        "load"
            if node.inputs.len() == 2
                && node.outputs.len() == 2
                && !node.inputs[1].ty.has_extras()
                && !node.outputs[0].ty.has_extras() =>
        {
            Manager::Load { slots: LOAD_SLOTS }
        }
        "non_spec" => Manager::NonSpec,
        "spec_commit" if commit_ports(node).is_some() => Manager::SpecCommit,
        "speculating_branch" if spec_branch_ok(node) => Manager::SpecBranch,
        "spec_save_commit" if save_commit_ports(node).is_some() => Manager::SpecSaveCommit {
            depth: fifo_depth(op, kind, 2, limits)?,
        },
        "speculator" => match speculator_ports(node) {
            Some(_) => Manager::Speculator {
                depth: fifo_depth(op, kind, 1, limits)?,
            },
            None => return Err(
                "a `speculator` kiln builds has a data input and output carrying exactly a 1-bit `spec`, a dataless trigger carrying it, and control outputs of 1, 1, 3, 3 and 1 bits without extras (Dynamatic's generator adds a concat signal manager for other extras, which kiln does not build)"
                    .into(),
            ),
        },
        _ => match latency {
            Some(0) => Manager::Normal,
            Some(latency) => Manager::Buffered { latency },
            _ if kind == "spec_save" => {
                return Err(format!(
                    "Dynamatic builds `{kind}` (a speculation unit with its own FIFO and state machine) with its VHDL generator (`speculation/{kind}.py`); there is no Verilog template or BLIF unit of it, and kiln has no generator for it"
                ));
            }
            _ => {
                return Err(format!(
                    "its channels carry extra signals, and kiln has no signal manager for `{kind}`"
                ));
            }
        },
    })
}

/// The extras of the concatenated ports of `node`, in order of first appearance (name,
/// width), and their total width.
pub(super) fn layout(node: &OpNode) -> (Vec<(String, u32)>, u32) {
    let (cin, cout) = concat_ports(node);
    let mut list: Vec<(String, u32)> = Vec::new();
    let ports = (node.outputs.iter().zip(&cout)).chain(node.inputs.iter().zip(&cin));
    for (p, _) in ports.filter(|(_, c)| **c) {
        for (x, w) in &p.ty.extra_down {
            if !list.iter().any(|(y, _)| y == x) {
                list.push((x.clone(), *w));
            }
        }
    }
    let total = list.iter().map(|(_, w)| w).sum();
    (list, total)
}

/// Which input and output ports of a concat op carry the extras through the slice (the
/// `mux` index and the `control_merge` index output do not).
pub(super) fn concat_ports(node: &OpNode) -> (Vec<bool>, Vec<bool>) {
    let mut cin = vec![true; node.inputs.len()];
    let mut cout = vec![true; node.outputs.len()];
    match node.kind.as_str() {
        "mux" => cin.iter_mut().take(1).for_each(|c| *c = false),
        "control_merge" => cout.iter_mut().skip(1).for_each(|c| *c = false),
        _ => {}
    }
    (cin, cout)
}

/// The data width of the concatenated ports (0: dataless).
fn data_width(node: &OpNode) -> u32 {
    let (cin, cout) = concat_ports(node);
    (node.outputs.iter().zip(&cout))
        .chain(node.inputs.iter().zip(&cin))
        .find(|(_, c)| **c)
        .map_or(0, |(p, _)| p.ty.width)
}

fn stripped(p: &PortSpec) -> PortSpec {
    let mut p = p.clone();
    p.ty.extra_down.clear();
    p.ty.extra_up.clear();
    p
}

/// `node` without extras.
pub(crate) fn strip(node: &OpNode) -> OpNode {
    let mut n = node.clone();
    n.inputs = node.inputs.iter().map(stripped).collect();
    n.outputs = node.outputs.iter().map(stripped).collect();
    n
}

/// `node` without extras, its concatenated ports `width` bits wide.
fn slice(node: &OpNode, width: u32) -> OpNode {
    let (cin, cout) = concat_ports(node);
    let widen = |p: &PortSpec, c: bool| {
        let mut p = stripped(p);
        if c {
            p.ty.width = width;
            p.ty.float = false;
        }
        p
    };
    let mut n = node.clone();
    n.inputs = node
        .inputs
        .iter()
        .zip(cin)
        .map(|(p, c)| widen(p, c))
        .collect();
    n.outputs = node
        .outputs
        .iter()
        .zip(cout)
        .map(|(p, c)| widen(p, c))
        .collect();
    n
}

/// The ops of the units inside `node` under `manager`: the op without extras; for concat,
/// that op (when it has data) and then the slice carrying the extras.
pub(crate) fn inner_nodes(node: &OpNode, manager: Manager) -> Vec<OpNode> {
    match manager {
        Manager::Concat => {
            let (_, e) = layout(node);
            if data_width(node) == 0 {
                vec![slice(node, e)]
            } else {
                vec![strip(node), slice(node, e)]
            }
        }
        Manager::Normal | Manager::Buffered { .. } | Manager::Load { .. } => vec![strip(node)],
        Manager::NonSpec | Manager::SpecSaveCommit { .. } | Manager::Speculator { .. } => {
            Vec::new()
        }
        Manager::SpecCommit => {
            let w = commit_ports(node).map_or(0, |(d, _)| node.inputs[d].ty.width);
            let chan = |name: &str, width: u32| PortSpec {
                name: name.to_string(),
                ty: super::circuit::PortType::channel(width),
            };
            let mut cond_br = strip(node);
            cond_br.kind = "cond_br".into();
            cond_br.inputs = vec![chan("condition", 1), chan("data", w)];
            cond_br.outputs = vec![chan("trueOut", w), chan("falseOut", w)];
            let mut merge = strip(node);
            merge.kind = "merge".into();
            merge.inputs = vec![chan("ins[0]", w), chan("ins[1]", w)];
            merge.outputs = vec![chan("outs", w)];
            vec![cond_br, merge]
        }
        Manager::SpecBranch => {
            let mut cond_br = strip(node);
            cond_br.kind = "cond_br".into();
            cond_br.inputs[0].name = "condition".into();
            cond_br.inputs[0].ty = super::circuit::PortType::channel(1);
            cond_br.inputs[1].name = "data".into();
            cond_br.outputs[0].name = "trueOut".into();
            cond_br.outputs[1].name = "falseOut".into();
            vec![cond_br]
        }
    }
}

/// The `fifoDepth` of a speculation unit `kind`: at least `min`, within the limits.
fn fifo_depth(op: &Operation, kind: &str, min: u32, limits: &Limits) -> Result<u32, String> {
    let depth = (op.attr("fifoDepth").and_then(Attribute::as_int))
        .and_then(|d| u32::try_from(d).ok())
        .filter(|d| *d >= min)
        .ok_or_else(|| format!("a `{kind}` without a `fifoDepth` of at least {min}"))?;
    limits
        .check(Limit::Results, u64::from(depth))
        .map_err(|m| format!("fifoDepth: {m}"))?;
    Ok(depth)
}

/// A `speculator`'s (data input, trigger input): the trigger is dataless and the data as
/// wide as `dataOut`, both carrying exactly `spec`, as `dataOut` does; the five control
/// outputs are 1, 1, 3, 3 and 1 bits wide without extras. The written order is
/// `[trigger] data`; a dataless data input is told from the trigger by that order.
pub(super) fn speculator_ports(node: &OpNode) -> Option<(usize, usize)> {
    let ([a, b], [out, rest @ ..]) = (&node.inputs[..], &node.outputs[..]) else {
        return None;
    };
    let controls = rest.iter().map(|p| (p.ty.width, p.ty.has_extras()));
    let ok = spec_only(a)
        && spec_only(b)
        && spec_only(out)
        && controls.eq([1, 1, 3, 3, 1].map(|w| (w, false)));
    let ports = match (a.ty.width, b.ty.width) {
        (0, w) if w == out.ty.width => (1, 0),
        (w, 0) if w == out.ty.width => (0, 1),
        _ => return None,
    };
    ok.then_some(ports)
}

/// A `spec_save_commit`'s (data input, command input): the data carries exactly `spec`,
/// the command is a 3-bit channel without extras, the output is the data's type.
pub(super) fn save_commit_ports(node: &OpNode) -> Option<(usize, usize)> {
    let (ports, out) = spec_and_command(node, 3)?;
    (spec_only(out) && out.ty.width == node.inputs[ports.0].ty.width).then_some(ports)
}

/// Whether `p` carries exactly one extra, a 1-bit downstream `spec`.
fn spec_only(p: &PortSpec) -> bool {
    p.ty.extra_up.is_empty()
        && (p.ty.extra_down.iter().map(|(x, w)| (x.as_str(), *w))).eq([("spec", 1)])
}

/// For an op of two inputs and one output: (the input carrying only `spec`, the
/// `width`-bit command input without extras), and the output.
fn spec_and_command(node: &OpNode, width: u32) -> Option<((usize, usize), &PortSpec)> {
    let ([a, b], [out]) = (&node.inputs[..], &node.outputs[..]) else {
        return None;
    };
    let command = |p: &PortSpec| p.ty.width == width && !p.ty.has_extras();
    let ports = match (spec_only(a), spec_only(b)) {
        (true, false) if command(b) => (0, 1),
        (false, true) if command(a) => (1, 0),
        _ => return None,
    };
    Some((ports, out))
}

/// A `speculating_branch` kiln builds: `specTag` (input 0) carries a 1-bit `spec`, `data`
/// (input 1) is as wide as the two outputs, which carry no extras.
fn spec_branch_ok(node: &OpNode) -> bool {
    let ([tag, data], [t, f]) = (&node.inputs[..], &node.outputs[..]) else {
        return false;
    };
    let spec = tag
        .ty
        .extra_down
        .iter()
        .any(|(x, w)| x == "spec" && *w == 1);
    spec && !t.ty.has_extras()
        && !f.ty.has_extras()
        && t.ty.width == data.ty.width
        && f.ty.width == data.ty.width
        && (node.inputs.iter().chain(&node.outputs)).all(|p| p.ty.extra_up.is_empty())
}

/// A `spec_commit`'s (data input, decision input): the data input carries exactly `spec`,
/// the decision is a 1-bit channel without extras, the output carries none.
pub(super) fn commit_ports(node: &OpNode) -> Option<(usize, usize)> {
    let (ports, out) = spec_and_command(node, 1)?;
    (!out.ty.has_extras() && out.ty.width == node.inputs[ports.0].ty.width).then_some(ports)
}
