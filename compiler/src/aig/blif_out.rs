//! 2-input BLIF writer: every AND becomes a two-input `.names` cover, readable by ABC.
//!
//! Net names: inputs, latches and outputs keep their AIG names; generated nets (AND nodes
//! `n<var>`, inverters `ninv<var>`, constants `nc0`/`nc1`) use a prefix `n`, `n_`, `n__`, ...
//! that no user name starts with, so they cannot collide. Complemented edges are folded into the
//! cover rows (`01 1`, `10 1`, `00 1`); an output that is not just its own named net gets a
//! buffer or inverter cover; constants are `.names x` with row `1` or no row. Latches are
//! written as `.latch next q init` with init 0..3.

use super::{Aig, Lit, Node};
use crate::fxhash::FxHashSet as HashSet;

/// The name of node `var`: its own (an input's, a latch's), `{prefix}{var}` for an AND,
/// else empty.
struct NetName<'a> {
    prefix: &'a str,
    var: u32,
    named: &'a str,
    and: bool,
}

impl NetName<'_> {
    /// Whether the name is `text`.
    fn is(&self, text: &str) -> bool {
        match self.and {
            true => text.strip_prefix(self.prefix) == Some(self.var.to_string().as_str()),
            false => self.named == text,
        }
    }
}

impl std::fmt::Display for NetName<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.and {
            true => write!(f, "{}{}", self.prefix, self.var),
            false => f.write_str(self.named),
        }
    }
}

/// The netlist as BLIF text (one model named after the AIG).
pub fn write_blif(g: &Aig) -> String {
    let ands = (g.nodes().len()).saturating_sub(g.inputs().len() + g.latches().len());
    let mut out = String::with_capacity(32 * ands + 64 * (g.inputs().len() + g.outputs().len()));
    write_blif_to(g, &mut out);
    out
}

/// [`write_blif`] as an output's pieces (a large netlist is never one growing buffer).
pub(crate) fn write_blif_pieces(g: &Aig) -> Vec<crate::flow::Piece> {
    let mut out = crate::chunks::Chunks::new();
    write_blif_to(g, &mut out);
    out.into_pieces()
}

/// [`write_blif`] written to `out`.
fn write_blif_to(g: &Aig, out: &mut impl std::fmt::Write) {
    let used: HashSet<&str> = g
        .inputs()
        .iter()
        .map(|p| p.name.as_str())
        .chain(g.latches().iter().map(|l| l.name.as_str()))
        .chain(g.outputs().iter().map(|p| p.name.as_str()))
        .collect();
    let mut prefix = String::from("n");
    while used.iter().any(|u| u.starts_with(prefix.as_str())) {
        prefix.push('_');
    }
    // Inputs and latches by their names; ANDs are `{prefix}{var}`, written when used (a
    // string per node would be most of the writer's memory).
    let mut names: Vec<&str> = vec![""; g.nodes().len()];
    for p in g.inputs() {
        names[p.lit.var() as usize] = &p.name;
    }
    for l in g.latches() {
        names[l.var as usize] = &l.name;
    }
    let name = |v: u32| NetName {
        prefix: &prefix,
        var: v,
        named: names[v as usize],
        and: matches!(g.nodes()[v as usize], Node::And(..)),
    };
    let model = if g.name.is_empty() {
        "top"
    } else {
        g.name.as_str()
    };
    let _ = write!(out, ".model {model}\n.inputs");
    for p in g.inputs() {
        let _ = write!(out, " {}", p.name);
    }
    let _ = out.write_str("\n.outputs");
    for p in g.outputs() {
        let _ = write!(out, " {}", p.name);
    }
    let _ = out.write_char('\n');
    let mut consts_needed = [false; 2];
    for (v, n) in g.nodes().iter().enumerate() {
        if let Node::And(a, b) = n {
            let _ = writeln!(
                out,
                ".names {} {} {}\n{}{} 1",
                name(a.var()),
                name(b.var()),
                name(v as u32),
                u8::from(!a.is_complemented()),
                u8::from(!b.is_complemented())
            );
        }
    }
    let mut driven: HashSet<&str> = g.inputs().iter().map(|p| p.name.as_str()).collect();
    driven.extend(g.latches().iter().map(|l| l.name.as_str()));
    let src = |l: Lit, consts: &mut [bool; 2]| -> String {
        if l.is_const() {
            consts[0] = true;
            return format!("{prefix}c0");
        }
        name(l.var()).to_string()
    };
    let mut inverters = HashSet::default();
    for l in g.latches() {
        let s = src(l.next, &mut consts_needed);
        let next = if l.next.is_complemented() && !l.next.is_const() {
            let inv = format!("{prefix}inv{}", l.next.var());
            if inverters.insert(l.next.var()) {
                let _ = writeln!(out, ".names {s} {inv}\n0 1");
            }
            inv
        } else if l.next == Lit::TRUE {
            consts_needed[1] = true;
            format!("{prefix}c1")
        } else {
            s
        };
        let _ = writeln!(out, ".latch {next} {} {}", l.name, l.init.digit());
    }
    for p in g.outputs() {
        if !p.lit.is_complemented() && !p.lit.is_const() && name(p.lit.var()).is(&p.name) {
            continue;
        }
        if !driven.insert(p.name.as_str()) {
            continue; // a second output of the same name
        }
        match p.lit {
            Lit::FALSE => {
                let _ = writeln!(out, ".names {}", p.name);
            }
            Lit::TRUE => {
                let _ = writeln!(out, ".names {}\n1", p.name);
            }
            l => {
                let row = if l.is_complemented() { 0 } else { 1 };
                let _ = writeln!(out, ".names {} {}\n{row} 1", name(l.var()), p.name);
            }
        }
    }
    if consts_needed[0] {
        let _ = writeln!(out, ".names {prefix}c0");
    }
    if consts_needed[1] {
        let _ = writeln!(out, ".names {prefix}c1\n1");
    }
    let _ = out.write_str(".end\n");
}
