//! 2-input BLIF writer: every AND becomes a two-input `.names` cover, readable by ABC.
//!
//! Net names: inputs, latches and outputs keep their AIG names; generated nets (AND nodes
//! `n<var>`, inverters `ninv<var>`, constants `nc0`/`nc1`) use a prefix `n`, `n_`, `n__`, ...
//! that no user name starts with, so they cannot collide. Complemented edges are folded into the
//! cover rows (`01 1`, `10 1`, `00 1`); an output that is not just its own named net gets a
//! buffer or inverter cover; constants are `.names x` with row `1` or no row. Latches are
//! written as `.latch next q init` with init 0..3.

use super::{Aig, Lit, Node};
use std::collections::HashSet;
use std::fmt::Write as _;

/// The netlist as BLIF text (one model named after the AIG).
pub fn write_blif(g: &Aig) -> String {
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
    let mut names: Vec<String> = vec![String::new(); g.nodes().len()];
    for p in g.inputs() {
        names[p.lit.var() as usize] = p.name.clone();
    }
    for l in g.latches() {
        names[l.var as usize] = l.name.clone();
    }
    let model = if g.name.is_empty() {
        "top"
    } else {
        g.name.as_str()
    };
    let mut out = format!(".model {model}\n.inputs");
    for p in g.inputs() {
        let _ = write!(out, " {}", p.name);
    }
    out.push_str("\n.outputs");
    for p in g.outputs() {
        let _ = write!(out, " {}", p.name);
    }
    out.push('\n');
    let mut consts_needed = [false; 2];
    for (v, n) in g.nodes().iter().enumerate() {
        if let Node::And(a, b) = n {
            names[v] = format!("{prefix}{v}");
            let _ = writeln!(
                out,
                ".names {} {} {}\n{}{} 1",
                names[a.var() as usize],
                names[b.var() as usize],
                names[v],
                u8::from(!a.is_complemented()),
                u8::from(!b.is_complemented())
            );
        }
    }
    let mut driven: HashSet<&str> = g.inputs().iter().map(|p| p.name.as_str()).collect();
    driven.extend(g.latches().iter().map(|l| l.name.as_str()));
    let src = |l: Lit, names: &[String], consts: &mut [bool; 2]| -> String {
        if l.is_const() {
            consts[0] = true;
            return format!("{prefix}c0");
        }
        names[l.var() as usize].clone()
    };
    let mut inverters = HashSet::new();
    for l in g.latches() {
        let s = src(l.next, &names, &mut consts_needed);
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
        if !p.lit.is_complemented() && !p.lit.is_const() && names[p.lit.var() as usize] == p.name {
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
                let _ = writeln!(
                    out,
                    ".names {} {}\n{row} 1",
                    names[l.var() as usize],
                    p.name
                );
            }
        }
    }
    if consts_needed[0] {
        let _ = writeln!(out, ".names {prefix}c0");
    }
    if consts_needed[1] {
        let _ = writeln!(out, ".names {prefix}c1\n1");
    }
    out.push_str(".end\n");
    out
}
