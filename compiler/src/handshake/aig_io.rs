//! Bridges to the BLIF/AIG module: a lowered library model as a unit's [`Net`] (the
//! lowering itself is `flow::handshake::unit`'s) and the flat design's AIGER and BLIF
//! outputs (via [`crate::aig`]'s writers).

use super::build::SynthOutput;
use super::net::{Init, Lit, Net, Node};
use crate::aig::{self, Aig};
use crate::blif;
use crate::diag::Diagnostic;
use std::collections::BTreeMap;

/// An [`Aig`] as a [`Net`] (same ports, latches and logic).
pub fn from_aig(g: &Aig) -> Net {
    let mut net = Net::new();
    let mut map = vec![Lit::FALSE; g.nodes().len()];
    for p in g.inputs() {
        map[p.lit.var() as usize] = net.input(p.name.clone());
    }
    for l in g.latches() {
        let init = match l.init {
            blif::Init::Zero => Init::Zero,
            blif::Init::One => Init::One,
            _ => Init::DontCare,
        };
        map[l.var as usize] = net.latch(init);
    }
    let tr = |map: &[Lit], l: aig::Lit| map[l.var() as usize].xor_neg(l.is_complemented());
    for (v, n) in g.nodes().iter().enumerate() {
        if let aig::Node::And(a, b) = *n {
            let (a, b) = (tr(&map, a), tr(&map, b));
            map[v] = net.and(a, b);
        }
    }
    for l in g.latches() {
        let next = tr(&map, l.next);
        net.set_next(map[l.var as usize], next);
    }
    for p in g.outputs() {
        net.output(p.name.clone(), tr(&map, p.lit));
    }
    net
}

/// A compacted [`Net`] (AIGER order) as an [`Aig`] named `name`. The AIG hashes its ANDs
/// structurally, so two equal ANDs of the net are one node, and an AND of one with the
/// other's complement folds to 0; the ANDs only such a fold used are dropped.
pub fn to_aig(net: &Net, name: &str) -> Aig {
    let mut g = Aig::new(name);
    let mut map = vec![aig::Lit::FALSE; net.nodes.len()];
    for (n, node) in &net.inputs {
        map[*node] = g.add_input(n.clone());
    }
    for (k, &node) in net.latches.iter().enumerate() {
        let init = match net.nodes[node] {
            Node::Latch {
                init: Init::One, ..
            } => blif::Init::One,
            Node::Latch {
                init: Init::DontCare,
                ..
            } => blif::Init::DontCare,
            _ => blif::Init::Zero,
        };
        map[node] = g.add_latch(format!("l{k}"), init);
    }
    let tr = |map: &[aig::Lit], l: Lit| map[l.node()].xor(l.is_neg());
    for (v, n) in net.nodes.iter().enumerate() {
        match *n {
            Node::And(a, b) => {
                let (a, b) = (tr(&map, a), tr(&map, b));
                map[v] = g.add_and(a, b);
            }
            Node::Wire(Some(s)) => map[v] = tr(&map, s),
            _ => {}
        }
    }
    for &node in &net.latches {
        if let Node::Latch { next, .. } = net.nodes[node] {
            let n = tr(&map, next);
            g.set_latch_next(map[node], n);
        }
    }
    for (n, l) in &net.outputs {
        g.add_output(n.clone(), tr(&map, *l));
    }
    g.into_cleanup()
}

/// The flat design as binary AIGER (with symbols).
pub fn flat_aiger(out: &SynthOutput) -> Vec<u8> {
    aig::write_aiger_binary(&to_aig(&out.flat, &out.name))
}

/// The flat design as BLIF.
pub fn flat_blif(out: &SynthOutput) -> String {
    aig::write_blif(&to_aig(&out.flat, &out.name))
}

/// The hierarchical BLIF (see [`super::emit::hier_blif`]), generated units written by the
/// AIG module's BLIF writer.
pub fn hier_blif(
    out: &SynthOutput,
    lib_texts: &BTreeMap<String, String>,
) -> Result<String, Diagnostic> {
    super::emit::hier_blif(out, lib_texts, &unit_blif)
}

/// [`hier_blif`] as an output's pieces.
pub(crate) fn hier_blif_pieces(
    out: &SynthOutput,
    lib_texts: &BTreeMap<String, String>,
) -> Result<Vec<crate::flow::Piece>, Diagnostic> {
    super::emit::hier_blif_pieces(out, lib_texts, &unit_blif)
}

/// A generated unit as a BLIF model.
fn unit_blif(net: &Net, model: &str) -> String {
    aig::write_blif(&to_aig(net, model))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two equal ANDs of a net are one node of the AIG: an AND of one with the other's
    /// complement is 0, and the node it used is dropped.
    #[test]
    fn ands_structural_hashing_folds_away_are_dropped() {
        let mut n = Net::new();
        let a = n.input("a");
        let b = n.input("b");
        let x = n.and(a, b);
        let y = n.and(a, b);
        let z = n.and(x, !y);
        let kept = n.and(a, !b);
        n.output("z", z);
        n.output("kept", kept);
        let c = n.compact().unwrap();
        assert_eq!(c.num_ands(), 4);
        let g = to_aig(&c, "t");
        assert_eq!(g.and_count(), 1);
        assert_eq!(g.outputs()[0].lit, aig::Lit::FALSE);
        for (va, vb) in [(false, false), (true, false), (false, true), (true, true)] {
            assert_eq!(g.eval(&[va, vb], &[]).0, c.eval(&[va, vb], &[]).0);
        }
    }
}
