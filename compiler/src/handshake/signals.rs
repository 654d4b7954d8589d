//! Signal rewriting: bundled ports → ordered lists of 1-bit signals (notes §3).
//!
//! Ready flows against data: an input channel has data bits and valid coming in and its
//! ready going out; an output channel the reverse. Order, inputs: for each bundled port in
//! order (inputs first, then outputs), the data bits and valid of an input port, or the ready
//! of an output port; then `clk`, `rst`. Outputs: the ready of each input port, then the data
//! bits and valid of each output port, in port order. Extra signals follow the valid (downstream
//! extras) or the ready (upstream extras) of their port, named `<port>_<extra>`.

use super::circuit::PortSpec;
use super::names::{bit_name, bit_names, ready_name, valid_name, with_suffix};
use serde::{Deserialize, Serialize};

/// Which bundled port a signal belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub(crate) enum PortRef {
    Input(usize),
    Output(usize),
    /// `clk` and `rst`.
    Global,
}

/// What a signal carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub(crate) enum SigKind {
    Data(u32),
    Valid,
    Ready,
    /// Bit `b` of extra signal `e` (index into `extra_down`).
    ExtraDown(usize, u32),
    /// Bit `b` of extra signal `e` (index into `extra_up`).
    ExtraUp(usize, u32),
    Clk,
    Rst,
}

/// One 1-bit port of a rewritten module.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub(crate) struct Signal {
    pub name: String,
    pub(crate) port: PortRef,
    pub kind: SigKind,
}

/// The 1-bit input and output signals of a module with bundled `inputs` and `outputs`.
/// `clocked` appends `clk` and `rst` to the inputs.
pub(crate) fn signals(
    inputs: &[PortSpec],
    outputs: &[PortSpec],
    clocked: bool,
) -> (Vec<Signal>, Vec<Signal>) {
    let mut ins = Vec::new();
    let mut outs = Vec::new();
    for (i, p) in inputs.iter().enumerate() {
        forward(p, PortRef::Input(i), &mut ins);
    }
    for (j, p) in outputs.iter().enumerate() {
        backward(p, PortRef::Output(j), &mut ins);
    }
    for (i, p) in inputs.iter().enumerate() {
        backward(p, PortRef::Input(i), &mut outs);
    }
    for (j, p) in outputs.iter().enumerate() {
        forward(p, PortRef::Output(j), &mut outs);
    }
    if clocked {
        for (name, kind) in [("clk", SigKind::Clk), ("rst", SigKind::Rst)] {
            ins.push(Signal {
                name: name.to_string(),
                port: PortRef::Global,
                kind,
            });
        }
    }
    (ins, outs)
}

/// The name of the signal of `kind` of bundled port `p`, as [`signals`] names it (else the
/// port's name): one signal's name without listing the port's others.
pub(crate) fn signal_name(p: &PortSpec, kind: SigKind) -> String {
    let ty = &p.ty;
    let extra = |list: &[(String, u32)], e: usize, b: u32| {
        let (x, w) = list.get(e).filter(|(_, w)| b < *w)?;
        Some(bit_name(&with_suffix(&p.name, &format!("_{x}")), *w, b))
    };
    let name = match kind {
        SigKind::Data(b) if b < ty.width => Some(bit_name(&p.name, ty.width, b)),
        SigKind::Valid if ty.handshake => Some(valid_name(&p.name)),
        SigKind::Ready if ty.handshake => Some(ready_name(&p.name)),
        SigKind::ExtraDown(e, b) if ty.handshake => extra(&ty.extra_down, e, b),
        SigKind::ExtraUp(e, b) if ty.handshake => extra(&ty.extra_up, e, b),
        _ => None,
    };
    name.unwrap_or_else(|| p.name.clone())
}

/// Data bits, valid and downstream extras of `p`.
fn forward(p: &PortSpec, port: PortRef, out: &mut Vec<Signal>) {
    for (b, name) in bit_names(&p.name, p.ty.width).into_iter().enumerate() {
        out.push(Signal {
            name,
            port,
            kind: SigKind::Data(b as u32),
        });
    }
    handshake(
        p,
        port,
        (valid_name, SigKind::Valid),
        &p.ty.extra_down,
        SigKind::ExtraDown,
        out,
    );
}

/// Ready and upstream extras of `p`.
fn backward(p: &PortSpec, port: PortRef, out: &mut Vec<Signal>) {
    handshake(
        p,
        port,
        (ready_name, SigKind::Ready),
        &p.ty.extra_up,
        SigKind::ExtraUp,
        out,
    );
}

/// For a handshake port `p`: its valid or ready signal (`signal`: its name from the port's
/// and its kind), then the bits of its extras `extras` of one direction (`extra_kind` of
/// the extra's index and the bit). Nothing for a port without handshake.
fn handshake(
    p: &PortSpec,
    port: PortRef,
    signal: (fn(&str) -> String, SigKind),
    extras: &[(String, u32)],
    extra_kind: fn(usize, u32) -> SigKind,
    out: &mut Vec<Signal>,
) {
    if !p.ty.handshake {
        return;
    }
    out.push(Signal {
        name: signal.0(&p.name),
        port,
        kind: signal.1,
    });
    for (e, (extra, w)) in extras.iter().enumerate() {
        let base = with_suffix(&p.name, &format!("_{extra}"));
        for (b, name) in bit_names(&base, *w).into_iter().enumerate() {
            out.push(Signal {
                name,
                port,
                kind: extra_kind(e, b as u32),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::handshake::circuit::PortType;

    fn port(name: &str, w: u32) -> PortSpec {
        PortSpec {
            name: name.to_string(),
            ty: PortType::channel(w),
        }
    }

    fn names(s: &[Signal]) -> Vec<&str> {
        s.iter().map(|s| s.name.as_str()).collect()
    }

    #[test]
    fn addi_order_of_the_notes() {
        let (i, o) = signals(
            &[port("lhs", 2), port("rhs", 2)],
            &[port("result", 2)],
            true,
        );
        assert_eq!(
            names(&i),
            [
                "lhs[0]",
                "lhs[1]",
                "lhs_valid",
                "rhs[0]",
                "rhs[1]",
                "rhs_valid",
                "result_ready",
                "clk",
                "rst"
            ]
        );
        assert_eq!(
            names(&o),
            [
                "lhs_ready",
                "rhs_ready",
                "result[0]",
                "result[1]",
                "result_valid"
            ]
        );
    }

    #[test]
    fn fork_outputs_linearise() {
        let (i, o) = signals(
            &[port("ins", 2)],
            &[port("outs[0]", 2), port("outs[1]", 2)],
            false,
        );
        assert_eq!(
            names(&i),
            [
                "ins[0]",
                "ins[1]",
                "ins_valid",
                "outs_ready[0]",
                "outs_ready[1]"
            ]
        );
        assert_eq!(
            names(&o),
            [
                "ins_ready",
                "outs[0]",
                "outs[1]",
                "outs_valid[0]",
                "outs[2]",
                "outs[3]",
                "outs_valid[1]"
            ]
        );
    }

    #[test]
    fn one_signal_is_named_as_in_the_list() {
        let mut spec = port("outs[1]", 3);
        spec.ty.extra_down.push(("spec".into(), 1));
        spec.ty.extra_up.push(("tag".into(), 2));
        let plain = PortSpec {
            name: "d".into(),
            ty: PortType {
                handshake: false,
                ..PortType::channel(2)
            },
        };
        for p in [spec, port("ctrl", 0), port("x", 1), plain] {
            let (i, o) = signals(std::slice::from_ref(&p), &[], false);
            for s in i.iter().chain(&o) {
                assert_eq!(signal_name(&p, s.kind), s.name);
            }
            for kind in [SigKind::Data(9), SigKind::Valid, SigKind::ExtraUp(3, 0)] {
                if !i.iter().chain(&o).any(|s| s.kind == kind) {
                    assert_eq!(signal_name(&p, kind), p.name);
                }
            }
        }
    }

    #[test]
    fn control_and_extras() {
        let mut spec = port("x", 1);
        spec.ty.extra_down.push(("spec".into(), 1));
        spec.ty.extra_up.push(("tag".into(), 2));
        let (i, o) = signals(&[port("ctrl", 0), spec], &[], false);
        assert_eq!(names(&i), ["ctrl_valid", "x", "x_valid", "x_spec"]);
        assert_eq!(names(&o), ["ctrl_ready", "x_ready", "x_tag[0]", "x_tag[1]"]);
    }
}
