//! Channels with extra signals (speculation bits, tags): Dynamatic's *signal managers*
//! around the unit that implements an op's data and handshake.
//!
//! An extra signal travels with its channel's data (a downstream extra, `[spec: i1]`); its
//! ports are named `<port>_<extra>` ([`super::signals`]). The library units have no such
//! ports, so an op whose channels carry extras is built as Dynamatic's unit generators
//! build it: the plain unit inside a wrapper that moves the extras. Which wrapper an op
//! gets is its [`Manager`] ([`super::managers::manager`]); the table and its reasons:
//!
//! - **concat** (`fork`, `lazy_fork`, `buffer`, `merge`, `mux`, `control_merge`): the extras
//!   go where the data goes, through the same storage. Dynamatic concatenates them above
//!   the data bits and instantiates the unit at the summed width. These units move data
//!   without looking at it (their handshake depends on valids, readies and the `mux`
//!   index only), so kiln instantiates the unit twice instead: at the data width for data
//!   and handshake, and at the extras' width (the *slice*) fed the same handshake inputs,
//!   whose data outputs are the extras. Both instances see the same control inputs from
//!   the same reset state, so the slice's data is the high part of the summed-width unit's
//!   (a test proves this with ABC where the library has all three widths). This needs
//!   only the widths the library has (a 32-bit channel with a 1-bit `spec` would need a
//!   33-bit unit, which the BLIF library lacks). A dataless unit is instantiated at the
//!   extras' width alone. An input lacking an extra the output has gives it 0 (the
//!   `bbmerge` manager). A `mux` index's extras are ORed into every data input's, so the
//!   slice captures them with the chosen token; a `control_merge`'s index output carries
//!   the extras of its data output.
//! - **normal** (combinational units: `br`, `cond_br`, `sink`, `source`, `constant`, the integer
//!   operators and casts, `select`, `not`, `join`, float units of latency 0): each output
//!   extra is the OR of the inputs' extras of that name (0 when no input has it), as
//!   Dynamatic's normal manager forwards `spec`.
//! - **buffered** (pipelined units: `muli`, float units of latency > 0): that OR, taken
//!   when the first input transfers, waits in a FIFO of `latency` slots and leaves with the
//!   output's transfer (Dynamatic's buffered manager and its `ofifo`).
//! - **load**: the address's extras wait in a transparent FIFO until the data leaves
//!   (Dynamatic's custom load manager); the address is taken only while it has room.
//! - **`non_spec`**: passes its token on and adds `spec` = 0 (Dynamatic's `non_spec`).
//! - **speculation units**: `spec_commit` and `speculating_branch` are built of library
//!   units as Dynamatic's generators build them; `spec_save_commit` and `speculator` are
//!   generated whole ([`super::spec_save`], [`super::speculator`]).
//!
//! Upstream extras (travelling with ready) have no manager; nor do `spec_save`, `store`
//! and units not listed: they stay opaque with the reason.

use super::circuit::{OpNode, PortSpec};
use super::managers::{
    Manager, commit_ports, concat_ports, inner_nodes, layout, save_commit_ports, speculator_ports,
};
use super::mark::Builtin;
use super::net::{CompactError, Init, Lit, Net};
use super::signals::{PortRef, SigKind, Signal, signals};
use std::collections::HashMap;

/// The model name of the wrapper of `node` around the units named `inner`: the manager,
/// the inner models and a digest of the op's signal names (ops with the same inner units
/// but other extras get other models).
pub(crate) fn model_name(node: &OpNode, manager: Manager, inner: &[String]) -> String {
    let (ins, outs) = signals(&node.inputs, &node.outputs, true);
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let names = (ins.iter().map(|s| s.name.as_bytes()))
        .chain([&[0xff][..]])
        .chain(outs.iter().map(|s| s.name.as_bytes()));
    for name in names {
        for &b in name.iter().chain(&[0]) {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    let mut name = format!("kiln_x_{}", manager.tag());
    for m in inner {
        name.push('_');
        name.push_str(m);
    }
    format!("{name}_{:08x}", (h ^ (h >> 32)) as u32)
}

/// The wrapper, its dead logic dropped; why it cannot be a unit (a kiln defect: each
/// wrapper drives every wire it makes and its units' outputs reach their inputs through
/// latches only).
fn finished(net: Net) -> Result<Net, String> {
    net.compact().map_err(|e| match e {
        CompactError::Undriven(_) => "leaves a wire undriven".to_string(),
        CompactError::Loop(_) => "closes a combinational loop".to_string(),
    })
}

/// The wrapper with the op's outputs `outs` driven by `by` (0 where it gives none),
/// finished.
fn driven(
    mut net: Net,
    outs: &[Signal],
    by: impl Fn((PortRef, SigKind)) -> Option<Lit>,
) -> Result<Net, String> {
    for s in outs {
        let l = by((s.port, s.kind)).unwrap_or(Lit::FALSE);
        net.output(s.name.clone(), l);
    }
    finished(net)
}

/// The wrapper of `node` under `manager`: a net with the op's signals (extras included)
/// around `units`, the units of [`inner_nodes`]`(node, manager)` in that order.
pub(crate) fn wrap(node: &OpNode, manager: Manager, units: &[&Net]) -> Result<Net, String> {
    let (ins, outs) = signals(&node.inputs, &node.outputs, true);
    let mut net = Net::new();
    let mut outer: HashMap<(PortRef, SigKind), Lit> = HashMap::new();
    for s in &ins {
        let l = net.input(s.name.clone());
        outer.insert((s.port, s.kind), l);
    }
    let get = |k: (PortRef, SigKind)| outer.get(&k).copied().unwrap_or(Lit::FALSE);
    // The data bits of input `k`.
    let data_in = |k: usize| -> Vec<Lit> {
        (0..node.inputs[k].ty.width)
            .map(|b| get((PortRef::Input(k), SigKind::Data(b))))
            .collect()
    };
    let nodes = inner_nodes(node, manager);
    if let (Manager::SpecSaveCommit { depth }, Some((d, c))) = (manager, save_commit_ports(node)) {
        let ins = data_in(d);
        let ctrl = [0, 1, 2].map(|b| get((PortRef::Input(c), SigKind::Data(b))));
        let o = super::spec_save::build(
            &mut net,
            depth as usize,
            &super::spec_save::Ports {
                ins: &ins,
                ins_valid: get((PortRef::Input(d), SigKind::Valid)),
                ctrl,
                ctrl_valid: get((PortRef::Input(c), SigKind::Valid)),
                outs_ready: get((PortRef::Output(0), SigKind::Ready)),
                rst: get((PortRef::Global, SigKind::Rst)),
            },
        );
        return driven(net, &outs, |key| match key {
            (PortRef::Output(0), SigKind::Data(b)) => Some(o.outs[b as usize]),
            (PortRef::Output(0), SigKind::Valid) => Some(o.outs_valid),
            (PortRef::Output(0), SigKind::ExtraDown(..)) => Some(o.outs_spec),
            (PortRef::Input(k), SigKind::Ready) if k == d => Some(o.ins_ready),
            (PortRef::Input(k), SigKind::Ready) if k == c => Some(o.ctrl_ready),
            _ => None,
        });
    }
    if let (Manager::Speculator { depth }, Some((d, t))) = (manager, speculator_ports(node)) {
        let ins = data_in(d);
        let spec = |k: usize| get((PortRef::Input(k), SigKind::ExtraDown(0, 0)));
        let o = super::speculator::build(
            &mut net,
            depth as usize,
            &super::speculator::Ports {
                ins: &ins,
                ins_valid: get((PortRef::Input(d), SigKind::Valid)),
                ins_spec: spec(d),
                trigger_valid: get((PortRef::Input(t), SigKind::Valid)),
                trigger_spec: spec(t),
                ready: [0, 1, 2, 3, 4, 5].map(|k| get((PortRef::Output(k), SigKind::Ready))),
                rst: get((PortRef::Global, SigKind::Rst)),
            },
        );
        return driven(net, &outs, |key| match key {
            (PortRef::Output(k), SigKind::Data(b)) => Some(o.results[k].data[b as usize]),
            (PortRef::Output(k), SigKind::Valid) => Some(o.results[k].valid),
            (PortRef::Output(0), SigKind::ExtraDown(..)) => Some(o.outs_spec),
            (PortRef::Input(k), SigKind::Ready) if k == d => Some(o.ins_ready),
            (PortRef::Input(k), SigKind::Ready) if k == t => Some(o.trigger_ready),
            _ => None,
        });
    }
    if manager == Manager::SpecCommit {
        spec_commit(&mut net, node, &nodes, units, &get, &outs);
        return finished(net);
    }
    if let (Manager::SpecBranch, [br_node], [br]) = (manager, &nodes[..], units) {
        let e = node.inputs[0]
            .ty
            .extra_down
            .iter()
            .position(|(x, _)| x == "spec");
        let spec = e.map_or(Lit::FALSE, |e| {
            get((PortRef::Input(0), SigKind::ExtraDown(e, 0)))
        });
        let m = instance(&mut net, br, br_node, |k| match k {
            (PortRef::Input(0), SigKind::Data(_)) => spec,
            key => get(key),
        });
        return driven(net, &outs, |key| m.get(&key).copied());
    }
    // The OR of the inputs' extra `name`, bit `b` (0 when no input has it).
    let ored = |net: &mut Net, name: &str, b: u32| {
        let mut acc = Lit::FALSE;
        for (i, p) in node.inputs.iter().enumerate() {
            if let Some(e) = p.ty.extra_down.iter().position(|(x, _)| x == name) {
                let l = get((PortRef::Input(i), SigKind::ExtraDown(e, b)));
                acc = net.or(acc, l);
            }
        }
        acc
    };
    // A load takes an address only when its extras FIFO has room (`room`, driven below).
    let room = matches!(manager, Manager::Load { .. }).then(|| net.wire());
    // Each inner unit's outputs by (port, kind).
    let mut results: Vec<HashMap<(PortRef, SigKind), Lit>> = Vec::new();
    let ((cin, cout), (list, _)) = (concat_ports(node), layout(node));
    for (k, (inner, unit)) in nodes.iter().zip(units).enumerate() {
        let is_slice = manager == Manager::Concat && k + 1 == nodes.len();
        let (iins, iouts) = signals(&inner.inputs, &inner.outputs, true);
        let by_name: HashMap<&str, &Signal> = iins.iter().map(|s| (s.name.as_str(), s)).collect();
        let mut lits = Vec::with_capacity(unit.inputs.len());
        for (pin, _) in &unit.inputs {
            let Some(s) = by_name.get(pin.as_str()) else {
                lits.push(Lit::FALSE);
                continue;
            };
            let l = match (s.port, s.kind) {
                (PortRef::Input(i), SigKind::Data(b)) if is_slice && cin[i] => {
                    let bit = extra_bit(&node.inputs[i], &list, b).map_or(Lit::FALSE, |(e, eb)| {
                        get((s.port, SigKind::ExtraDown(e, eb)))
                    });
                    // A mux index's extras join every data input's (see the module doc).
                    let index = (node.kind == "mux")
                        .then(|| extra_bit(&node.inputs[0], &list, b))
                        .flatten()
                        .map_or(Lit::FALSE, |(e, eb)| {
                            get((PortRef::Input(0), SigKind::ExtraDown(e, eb)))
                        });
                    net.or(bit, index)
                }
                (PortRef::Input(0), SigKind::Valid) if room.is_some() => {
                    let v = get((PortRef::Input(0), SigKind::Valid));
                    net.and(v, room.unwrap_or(Lit::TRUE))
                }
                key => get(key),
            };
            lits.push(l);
        }
        let res = net.instantiate(unit, &lits);
        let by_pin: HashMap<&str, Lit> = (unit.outputs.iter().map(|(n, _)| n.as_str()))
            .zip(res)
            .collect();
        let mut m = HashMap::new();
        for s in &iouts {
            if let Some(&l) = by_pin.get(s.name.as_str()) {
                m.insert((s.port, s.kind), l);
            }
        }
        results.push(m);
    }
    let main = results.first();
    let from_main = |k: (PortRef, SigKind)| main.and_then(|m| m.get(&k).copied());
    // Buffered: the extras' FIFO (its head, bit by bit), moved by the unit's transfers.
    let head = match manager {
        Manager::Buffered { latency } => {
            let mut value = Vec::new();
            for (x, w) in output_extras(node) {
                for b in 0..w {
                    value.push(ored(&mut net, &x, b));
                }
            }
            let at = |k| from_main(k).unwrap_or(Lit::FALSE);
            let push = net.and(
                get((PortRef::Input(0), SigKind::Valid)),
                at((PortRef::Input(0), SigKind::Ready)),
            );
            let pop = net.and(
                at((PortRef::Output(0), SigKind::Valid)),
                get((PortRef::Output(0), SigKind::Ready)),
            );
            let rst = get((PortRef::Global, SigKind::Rst));
            Some(fifo(
                &mut net,
                latency.max(1) as usize,
                &value,
                push,
                pop,
                rst,
            ))
        }
        Manager::Load { slots } => {
            let at = |k| from_main(k).unwrap_or(Lit::FALSE);
            let taken = at((PortRef::Input(0), SigKind::Ready));
            let addr = get((PortRef::Input(0), SigKind::Valid));
            let mut value = Vec::new();
            for (x, w) in output_extras(node) {
                let e = node.inputs[0]
                    .ty
                    .extra_down
                    .iter()
                    .position(|(y, _)| *y == x);
                for b in 0..w {
                    value.push(e.map_or(Lit::FALSE, |e| {
                        get((PortRef::Input(0), SigKind::ExtraDown(e, b)))
                    }));
                }
            }
            let push = net.and(addr, taken);
            let pop = net.and(
                at((PortRef::Output(1), SigKind::Valid)),
                get((PortRef::Output(1), SigKind::Ready)),
            );
            let rst = get((PortRef::Global, SigKind::Rst));
            let f = fifo_unit(&mut net, slots, &value, push, pop, rst);
            if let Some(w) = room {
                net.drive(w, f.ready);
            }
            Some(f.head)
        }
        _ => None,
    };
    for s in &outs {
        let l = match (manager, s.port, s.kind) {
            (Manager::NonSpec, PortRef::Output(o), SigKind::Data(b)) => {
                get((PortRef::Input(o), SigKind::Data(b)))
            }
            (Manager::NonSpec, PortRef::Output(o), SigKind::Valid) => {
                get((PortRef::Input(o), SigKind::Valid))
            }
            (Manager::NonSpec, PortRef::Input(i), SigKind::Ready) => {
                get((PortRef::Output(i), SigKind::Ready))
            }
            (Manager::Concat, PortRef::Output(o), SigKind::ExtraDown(e, b)) => {
                let slice = results.last().expect("concat has a slice");
                let name = &node.outputs[o].ty.extra_down[e].0;
                let offset = offset_of(&list, name) + b;
                // The control_merge index output: its data output's extras.
                let port = if cout[o] {
                    PortRef::Output(o)
                } else {
                    PortRef::Output(0)
                };
                slice
                    .get(&(port, SigKind::Data(offset)))
                    .copied()
                    .unwrap_or(Lit::FALSE)
            }
            (Manager::Normal, PortRef::Output(o), SigKind::ExtraDown(e, b)) => {
                let name = node.outputs[o].ty.extra_down[e].0.clone();
                ored(&mut net, &name, b)
            }
            (Manager::Load { .. }, PortRef::Input(0), SigKind::Ready) => {
                let inner = from_main((PortRef::Input(0), SigKind::Ready));
                net.and(inner.unwrap_or(Lit::FALSE), room.unwrap_or(Lit::TRUE))
            }
            (
                Manager::Buffered { .. } | Manager::Load { .. },
                PortRef::Output(o),
                SigKind::ExtraDown(e, b),
            ) => {
                let name = &node.outputs[o].ty.extra_down[e].0;
                let at = (offset_of(&output_extras(node), name) + b) as usize;
                head.as_ref()
                    .and_then(|h| h.get(at).copied())
                    .unwrap_or(Lit::FALSE)
            }
            (_, port, kind) => from_main((port, kind)).unwrap_or(Lit::FALSE),
        };
        net.output(s.name.clone(), l);
    }
    finished(net)
}

/// The bit of the concatenated extras that data bit `b` of the slice carries for port
/// `p`: (index of the extra in `p`, its bit), or `None` when `p` lacks that extra.
fn extra_bit(p: &PortSpec, list: &[(String, u32)], b: u32) -> Option<(usize, u32)> {
    let mut at = 0;
    for (x, w) in list {
        if b < at + w {
            let e = p.ty.extra_down.iter().position(|(y, _)| y == x)?;
            return Some((e, b - at)).filter(|(e, eb)| p.ty.extra_down[*e].1 > *eb);
        }
        at += w;
    }
    None
}

fn offset_of(list: &[(String, u32)], name: &str) -> u32 {
    let mut at = 0;
    for (x, w) in list {
        if x == name {
            return at;
        }
        at += w;
    }
    at
}

/// The extras of the outputs of `node`, in order of first appearance: what a buffered
/// manager stores.
fn output_extras(node: &OpNode) -> Vec<(String, u32)> {
    let mut list: Vec<(String, u32)> = Vec::new();
    for p in &node.outputs {
        for (x, w) in &p.ty.extra_down {
            if !list.iter().any(|(y, _)| y == x) {
                list.push((x.clone(), *w));
            }
        }
    }
    list
}

/// The outputs of `unit` (the unit of op `node`) instantiated in `net`, by (port, kind),
/// its inputs given by `feed`.
fn instance(
    net: &mut Net,
    unit: &Net,
    node: &OpNode,
    feed: impl Fn((PortRef, SigKind)) -> Lit,
) -> HashMap<(PortRef, SigKind), Lit> {
    let (ins, outs) = signals(&node.inputs, &node.outputs, true);
    let by_name: HashMap<&str, &Signal> = ins.iter().map(|s| (s.name.as_str(), s)).collect();
    let lits: Vec<Lit> = (unit.inputs.iter())
        .map(|(pin, _)| {
            by_name
                .get(pin.as_str())
                .map_or(Lit::FALSE, |s| feed((s.port, s.kind)))
        })
        .collect();
    let res = net.instantiate(unit, &lits);
    let by_pin: HashMap<&str, Lit> = (unit.outputs.iter().map(|(n, _)| n.as_str()))
        .zip(res)
        .collect();
    (outs.iter())
        .filter_map(|s| Some(((s.port, s.kind), *by_pin.get(s.name.as_str())?)))
        .collect()
}

/// Dynamatic's `spec_commit` in `net` (the module doc's [`Manager::SpecCommit`]): the
/// decision waits in a one-slot FIFO; a branch on the token's `spec` sends it either
/// straight to a merge or through a one-slot FIFO to a second branch on the decision,
/// whose `true` side is dropped and whose `false` side is the merge's other input.
/// `units`: the `cond_br` and the `merge` of [`inner_nodes`].
fn spec_commit(
    net: &mut Net,
    node: &OpNode,
    nodes: &[OpNode],
    units: &[&Net],
    get: &dyn Fn((PortRef, SigKind)) -> Lit,
    outs: &[Signal],
) {
    let (Some((d, c)), [br_node, merge_node], [br, merge]) = (commit_ports(node), nodes, units)
    else {
        return;
    };
    let w = node.inputs[d].ty.width;
    let rst = get((PortRef::Global, SigKind::Rst));
    // Readies flowing back, driven once their unit is built.
    let [
        disc_taken,
        buff_room,
        merge0_ready,
        buff_taken,
        merge1_ready,
    ] = [(); 5].map(|_| net.wire());
    let ctrl = get((PortRef::Input(c), SigKind::Data(0)));
    let ctrl_valid = get((PortRef::Input(c), SigKind::Valid));
    let disc = fifo_unit(net, 1, &[ctrl], ctrl_valid, disc_taken, rst);
    let spec = get((PortRef::Input(d), SigKind::ExtraDown(0, 0)));
    let branch_in = instance(net, br, br_node, |k| match k {
        (PortRef::Input(0), SigKind::Data(_)) => spec,
        (PortRef::Input(0), SigKind::Valid) => Lit::TRUE,
        (PortRef::Input(1), kind) => get((PortRef::Input(d), kind)),
        (PortRef::Output(0), SigKind::Ready) => buff_room,
        (PortRef::Output(1), SigKind::Ready) => merge0_ready,
        key => get(key),
    });
    let at = |m: &HashMap<(PortRef, SigKind), Lit>, k| m.get(&k).copied().unwrap_or(Lit::FALSE);
    let kept: Vec<Lit> = (0..w)
        .map(|b| at(&branch_in, (PortRef::Output(0), SigKind::Data(b))))
        .collect();
    let kept_valid = at(&branch_in, (PortRef::Output(0), SigKind::Valid));
    let buff = fifo_unit(net, 1, &kept, kept_valid, buff_taken, rst);
    net.drive(buff_room, buff.ready);
    let branch_disc = instance(net, br, br_node, |k| match k {
        (PortRef::Input(0), SigKind::Data(_)) => disc.head.first().copied().unwrap_or(Lit::FALSE),
        (PortRef::Input(0), SigKind::Valid) => disc.valid,
        (PortRef::Input(1), SigKind::Data(b)) => buff.head[b as usize],
        (PortRef::Input(1), SigKind::Valid) => buff.valid,
        (PortRef::Output(0), SigKind::Ready) => Lit::TRUE,
        (PortRef::Output(1), SigKind::Ready) => merge1_ready,
        key => get(key),
    });
    net.drive(
        disc_taken,
        at(&branch_disc, (PortRef::Input(0), SigKind::Ready)),
    );
    net.drive(
        buff_taken,
        at(&branch_disc, (PortRef::Input(1), SigKind::Ready)),
    );
    let out = instance(net, merge, merge_node, |k| match k {
        (PortRef::Input(0), kind) => at(&branch_in, (PortRef::Output(1), kind)),
        (PortRef::Input(1), kind) => at(&branch_disc, (PortRef::Output(1), kind)),
        key => get(key),
    });
    net.drive(merge0_ready, at(&out, (PortRef::Input(0), SigKind::Ready)));
    net.drive(merge1_ready, at(&out, (PortRef::Input(1), SigKind::Ready)));
    for s in outs {
        let l = match (s.port, s.kind) {
            (PortRef::Input(k), SigKind::Ready) if k == d => {
                at(&branch_in, (PortRef::Input(1), SigKind::Ready))
            }
            (PortRef::Input(k), SigKind::Ready) if k == c => disc.ready,
            (PortRef::Output(0), kind) => at(&out, (PortRef::Output(0), kind)),
            _ => Lit::FALSE,
        };
        net.output(s.name.clone(), l);
    }
}

/// A transparent FIFO's ports in a net.
struct Fifo {
    ready: Lit,
    valid: Lit,
    head: Vec<Lit>,
}

/// The transparent FIFO (Dynamatic's `tfifo`, the built-in [`Builtin::Fifo`]) of `slots`
/// entries of `value`'s bits, offered with `valid`, taken with `ready`.
fn fifo_unit(net: &mut Net, slots: u32, value: &[Lit], valid: Lit, ready: Lit, rst: Lit) -> Fifo {
    let b = Builtin::Fifo {
        slots,
        width: value.len() as u32,
        transparent: true,
    };
    let unit = super::builtin::generate(&b);
    let (ins, outs) = super::mark::ports(&b);
    let node = OpNode {
        kind: "buffer".into(),
        name: String::new(),
        operands: Vec::new(),
        inputs: ins,
        outputs: outs,
        span: Default::default(),
        operand_spans: Vec::new(),
    };
    let m = instance(net, &unit, &node, |k| match k {
        (PortRef::Input(0), SigKind::Data(b)) => value[b as usize],
        (PortRef::Input(0), SigKind::Valid) => valid,
        (PortRef::Output(0), SigKind::Ready) => ready,
        (PortRef::Global, SigKind::Rst) => rst,
        _ => Lit::FALSE,
    });
    let at = |k| m.get(&k).copied().unwrap_or(Lit::FALSE);
    Fifo {
        ready: at((PortRef::Input(0), SigKind::Ready)),
        valid: at((PortRef::Output(0), SigKind::Valid)),
        head: (0..value.len() as u32)
            .map(|b| at((PortRef::Output(0), SigKind::Data(b))))
            .collect(),
    }
}

/// A FIFO of `slots` entries of `value`'s bits, written on `push` and read on `pop`, with
/// one-hot write and read pointers that `rst` returns to slot 0 (it never refuses: the
/// unit around it holds at most `slots` tokens). Its head, bit by bit.
fn fifo(net: &mut Net, slots: usize, value: &[Lit], push: Lit, pop: Lit, rst: Lit) -> Vec<Lit> {
    let pointer = |net: &mut Net, step: Lit| {
        let bits: Vec<Lit> = (0..slots)
            .map(|k| net.latch(if k == 0 { Init::One } else { Init::Zero }))
            .collect();
        for k in 0..slots {
            let prev = bits[(k + slots - 1) % slots];
            let next = net.mux(step, prev, bits[k]);
            let reset = if k == 0 { Lit::TRUE } else { Lit::FALSE };
            let next = net.mux(rst, reset, next);
            net.set_next(bits[k], next);
        }
        bits
    };
    let wp = pointer(net, push);
    let rp = pointer(net, pop);
    let mut head = vec![Lit::FALSE; value.len()];
    for k in 0..slots {
        let we = net.and(push, wp[k]);
        for (b, &v) in value.iter().enumerate() {
            let cell = net.latch(Init::Zero);
            let next = net.mux(we, v, cell);
            net.set_next(cell, next);
            let read = net.and(rp[k], cell);
            head[b] = net.or(head[b], read);
        }
    }
    head
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A wrapper that is not a unit is an error, never an empty unit standing in for it.
    #[test]
    fn a_broken_wrapper_is_an_error_not_an_empty_unit() {
        let mut net = Net::new();
        let w = net.wire();
        net.output("o", w);
        assert_eq!(
            finished(net).err().as_deref(),
            Some("leaves a wire undriven")
        );
        let mut net = Net::new();
        let (a, b) = (net.wire(), net.wire());
        let x = net.and(a, b);
        net.drive(a, x);
        let i = net.input("i");
        net.drive(b, i);
        net.output("o", x);
        assert_eq!(
            finished(net).err().as_deref(),
            Some("closes a combinational loop")
        );
    }
}
