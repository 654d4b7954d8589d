//! And-Inverter Graphs: the compact AIG, BLIF lowering, and AIGER/BLIF writers.
//!
//! An [`Aig`] is a vector of nodes indexed by variable; variable 0 is the constant false.
//! A [`Lit`] is `2 * var + complemented`. Nodes are only ever appended, and an AND node's
//! fanins always refer to earlier variables, so the node vector is a topological order.
//!
//! Architecture invariant: every AND node is created through [`Aig::add_and`], which
//! propagates constants, folds `x & x` / `x & !x`, and hash-conses on the ordered fanin pair,
//! so no two AND nodes have the same fanins. The hash table is a cache, excluded from
//! equality, hashing and serialization, and rebuilt on demand.
//!
//! Sub-modules: [`lower`] (BLIF model → AIG, per model, instances as boxes), `hier` (boxes
//! flattened into one AIG), [`sop`] (cover → factored AND/OR logic), [`aiger`] (AIGER 1.9
//! binary/ASCII writer and reader), [`blif_out`] (2-input BLIF writer).

pub(crate) mod aiger;
pub(crate) mod blif_out;
mod hier;
pub(crate) mod lower;
pub(crate) mod sop;

pub use aiger::{read_aiger, write_aag, write_aiger_binary};
pub use blif_out::write_blif;
pub use hier::{Interface, ModelBox, flatten};
pub(crate) use lower::lower_box;
pub use lower::{
    BoxLowered, Children, Lowered, LoweredFile, check_size, interface, lower_file,
    lower_file_owned, lower_file_with,
};

use crate::blif::Init;
use serde::{Deserialize, Serialize};
use std::hash::{Hash, Hasher};

/// A literal: `2 * variable + complemented`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Lit(pub u32);

impl Lit {
    pub const FALSE: Lit = Lit(0);
    pub const TRUE: Lit = Lit(1);

    pub fn new(var: u32, complemented: bool) -> Lit {
        Lit(var << 1 | complemented as u32)
    }
    pub(crate) fn var(self) -> u32 {
        self.0 >> 1
    }
    pub(crate) fn is_complemented(self) -> bool {
        self.0 & 1 == 1
    }
    pub(crate) fn is_const(self) -> bool {
        self.0 < 2
    }
    /// The same variable, complemented if `c`.
    pub(crate) fn xor(self, c: bool) -> Lit {
        Lit(self.0 ^ c as u32)
    }
    pub(crate) fn regular(self) -> Lit {
        Lit(self.0 & !1)
    }
}

impl std::ops::Not for Lit {
    type Output = Lit;
    fn not(self) -> Lit {
        Lit(self.0 ^ 1)
    }
}

/// What drives one variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub(crate) enum Node {
    Const,
    /// The `i`-th primary input.
    Input(u32),
    /// The `i`-th latch output.
    Latch(u32),
    /// An AND of two earlier literals (`a >= b`).
    And(Lit, Lit),
}

/// A latch: current-state variable, next-state function, init value, name.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Latch {
    pub(crate) var: u32,
    pub next: Lit,
    pub init: Init,
    pub name: String,
}

/// A primary input or output.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Port {
    pub name: String,
    pub lit: Lit,
}

/// The structural hash table: a cache of `add_and` results, not part of the AIG's value.
///
/// Open addressing with linear probing over the AND variables themselves (4 bytes a slot,
/// at most half full; 0 = empty, as variable 0 is the constant): the fanin pair of a slot is
/// read from the node vector, so the table stores no keys.
#[derive(Clone, Debug, Default)]
struct Strash {
    slots: Vec<u32>,
    len: usize,
}

fn slot_of(a: Lit, b: Lit, mask: usize) -> usize {
    let k = ((a.0 as u64) << 32 | b.0 as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    (k >> 32) as usize & mask
}

impl Strash {
    /// Room for `n` entries without growing.
    fn with_capacity(n: usize) -> Strash {
        Strash {
            slots: vec![0; (n.max(8) * 2).next_power_of_two()],
            len: 0,
        }
    }

    /// The AND variable with fanins `(a, b)`, or the free slot where it goes.
    fn find(&self, nodes: &[Node], a: Lit, b: Lit) -> Result<u32, usize> {
        let mask = self.slots.len() - 1;
        let mut i = slot_of(a, b, mask);
        loop {
            match self.slots[i] {
                0 => return Err(i),
                v if nodes[v as usize] == Node::And(a, b) => return Ok(v),
                _ => i = (i + 1) & mask,
            }
        }
    }

    /// Record AND variable `var` (fanins `a`, `b`) in free slot `slot` from [`Strash::find`].
    fn insert(&mut self, slot: usize, var: u32) {
        self.slots[slot] = var;
        self.len += 1;
    }

    /// Whether one more entry would make the table more than half full.
    fn full(&self) -> bool {
        (self.len + 1) * 2 > self.slots.len()
    }

    /// A table of every AND node of `nodes`, with room for `extra` more.
    fn of(nodes: &[Node], extra: usize) -> Strash {
        let ands = nodes.iter().filter(|n| matches!(n, Node::And(..))).count();
        let mut t = Strash::with_capacity(ands + extra);
        for (v, n) in nodes.iter().enumerate() {
            if let Node::And(a, b) = *n
                && let Err(slot) = t.find(nodes, a, b)
            {
                t.insert(slot, v as u32);
            }
        }
        t
    }
}

impl PartialEq for Strash {
    fn eq(&self, _: &Strash) -> bool {
        true
    }
}
impl Eq for Strash {}
impl Hash for Strash {
    fn hash<H: Hasher>(&self, _: &mut H) {}
}

/// An And-Inverter Graph with named inputs, outputs and latches.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Aig {
    /// The model name (written into AIGER comments and BLIF `.model`).
    pub name: String,
    nodes: Vec<Node>,
    inputs: Vec<Port>,
    latches: Vec<Latch>,
    outputs: Vec<Port>,
    ands: u32,
    #[serde(skip)]
    strash: Strash,
}

/// The figures of an AIG a user asks for (`kiln aig --stats`): primary inputs and outputs,
/// latches, AND nodes and logic levels (ABC's `print_stats` `i/o`, `lat`, `and`, `lev`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stats {
    pub pi: usize,
    pub po: usize,
    pub latches: usize,
    pub ands: usize,
    pub levels: u32,
}

impl Stats {
    pub fn of(g: &Aig) -> Stats {
        Stats {
            pi: g.inputs().len(),
            po: g.outputs().len(),
            latches: g.latches().len(),
            ands: g.and_count(),
            levels: g.depth(),
        }
    }
}

impl Default for Aig {
    fn default() -> Aig {
        Aig::new("")
    }
}

impl Aig {
    pub fn new(name: impl Into<String>) -> Aig {
        Aig {
            name: name.into(),
            nodes: vec![Node::Const],
            inputs: Vec::new(),
            latches: Vec::new(),
            outputs: Vec::new(),
            ands: 0,
            strash: Strash::default(),
        }
    }

    pub fn inputs(&self) -> &[Port] {
        &self.inputs
    }
    pub fn outputs(&self) -> &[Port] {
        &self.outputs
    }
    pub fn latches(&self) -> &[Latch] {
        &self.latches
    }
    pub(crate) fn nodes(&self) -> &[Node] {
        &self.nodes
    }
    pub(crate) fn node(&self, var: u32) -> Node {
        self.nodes[var as usize]
    }
    /// Number of AND nodes (including ones no output uses; see [`Aig::cleanup`]).
    pub fn and_count(&self) -> usize {
        self.ands as usize
    }
    /// Largest variable index.
    pub(crate) fn max_var(&self) -> u32 {
        (self.nodes.len() - 1) as u32
    }

    pub(crate) fn add_input(&mut self, name: impl Into<String>) -> Lit {
        let var = self.push(Node::Input(self.inputs.len() as u32));
        let lit = Lit::new(var, false);
        self.inputs.push(Port {
            name: name.into(),
            lit,
        });
        lit
    }

    /// Add a latch whose next-state function is set later with [`Aig::set_latch_next`]
    /// (initially constant 0). Returns the latch output literal.
    pub(crate) fn add_latch(&mut self, name: impl Into<String>, init: Init) -> Lit {
        let var = self.push(Node::Latch(self.latches.len() as u32));
        self.latches.push(Latch {
            var,
            next: Lit::FALSE,
            init,
            name: name.into(),
        });
        Lit::new(var, false)
    }

    /// Set the next-state function of the latch whose output literal is `latch`.
    pub(crate) fn set_latch_next(&mut self, latch: Lit, next: Lit) {
        if let Node::Latch(i) = self.node(latch.var()) {
            self.latches[i as usize].next = next;
        }
    }

    pub(crate) fn add_output(&mut self, name: impl Into<String>, lit: Lit) {
        self.outputs.push(Port {
            name: name.into(),
            lit,
        });
    }

    fn push(&mut self, node: Node) -> u32 {
        self.nodes.push(node);
        (self.nodes.len() - 1) as u32
    }

    /// `a & b`, with constant propagation, trivial folding and structural hashing.
    pub(crate) fn add_and(&mut self, a: Lit, b: Lit) -> Lit {
        let (a, b) = if a >= b { (a, b) } else { (b, a) };
        if b == Lit::FALSE || a == !b {
            return Lit::FALSE;
        }
        if b == Lit::TRUE || a == b {
            return a;
        }
        if self.strash.len != self.ands as usize || self.strash.full() {
            // Absent (after deserializing or a cleanup), or half full: (re)built, doubled.
            self.strash = Strash::of(&self.nodes, self.ands as usize + 1);
        }
        match self.strash.find(&self.nodes, a, b) {
            Ok(v) => Lit::new(v, false),
            Err(slot) => {
                let v = self.push(Node::And(a, b));
                self.ands += 1;
                self.strash.insert(slot, v);
                Lit::new(v, false)
            }
        }
    }

    pub(crate) fn add_or(&mut self, a: Lit, b: Lit) -> Lit {
        !self.add_and(!a, !b)
    }

    /// Balanced AND of many literals (true for none).
    pub(crate) fn add_and_many(&mut self, lits: &[Lit]) -> Lit {
        self.add_balanced(lits, Lit::TRUE, Self::add_and)
    }

    /// Balanced OR of many literals (false for none).
    pub(crate) fn add_or_many(&mut self, lits: &[Lit]) -> Lit {
        self.add_balanced(lits, Lit::FALSE, Self::add_or)
    }

    /// `op` over `lits` as a balanced tree (`unit` for none).
    fn add_balanced(&mut self, lits: &[Lit], unit: Lit, op: fn(&mut Self, Lit, Lit) -> Lit) -> Lit {
        match lits {
            [] => unit,
            [a] => *a,
            _ => {
                let (l, r) = lits.split_at(lits.len() / 2);
                let a = self.add_balanced(l, unit, op);
                let b = self.add_balanced(r, unit, op);
                op(self, a, b)
            }
        }
    }

    /// Logic level of every variable (inputs, latches and constants are level 0).
    pub(crate) fn levels(&self) -> Vec<u32> {
        let mut lev = vec![0u32; self.nodes.len()];
        for (v, n) in self.nodes.iter().enumerate() {
            if let Node::And(a, b) = n {
                lev[v] = 1 + lev[a.var() as usize].max(lev[b.var() as usize]);
            }
        }
        lev
    }

    /// The largest level of any output or latch next-state function.
    pub fn depth(&self) -> u32 {
        let lev = self.levels();
        let roots = self.outputs.iter().map(|p| p.lit);
        let roots = roots.chain(self.latches.iter().map(|l| l.next));
        roots.map(|l| lev[l.var() as usize]).max().unwrap_or(0)
    }

    /// Copy `child` into `self`: its inputs are replaced by `inputs` (in order), its latches
    /// are copied with their inits and the name prefix `prefix`. Returns the literals of the
    /// child's outputs, in order. Only the unit tests build AIGs by instantiation.
    #[cfg(test)]
    pub(crate) fn instantiate_named(
        &mut self,
        child: &Aig,
        inputs: &[Lit],
        prefix: &str,
    ) -> Vec<Lit> {
        let mut map = vec![Lit::FALSE; child.nodes.len()];
        for (port, &lit) in child.inputs.iter().zip(inputs) {
            map[port.lit.var() as usize] = lit;
        }
        let mut new_latches = Vec::with_capacity(child.latches.len());
        for l in &child.latches {
            let lit = self.add_latch(format!("{prefix}{}", l.name), l.init);
            map[l.var as usize] = lit;
            new_latches.push(lit);
        }
        for (v, n) in child.nodes.iter().enumerate() {
            if let Node::And(a, b) = *n {
                let fa = map[a.var() as usize].xor(a.is_complemented());
                let fb = map[b.var() as usize].xor(b.is_complemented());
                map[v] = self.add_and(fa, fb);
            }
        }
        let m = |l: Lit| map[l.var() as usize].xor(l.is_complemented());
        for (lit, l) in new_latches.into_iter().zip(&child.latches) {
            self.set_latch_next(lit, m(l.next));
        }
        child.outputs.iter().map(|p| m(p.lit)).collect()
    }

    /// [`Aig::instantiate_named`] with latch names prefixed by `<child name>.`.
    #[cfg(test)]
    pub(crate) fn instantiate(&mut self, child: &Aig, inputs: &[Lit]) -> Vec<Lit> {
        let prefix = format!("{}.", child.name);
        self.instantiate_named(child, inputs, &prefix)
    }

    /// A copy without the AND nodes that no output or latch uses, renumbered so that the
    /// variables are inputs, then latches, then ANDs in topological order (the AIGER order).
    pub(crate) fn cleanup(&self) -> Aig {
        self.clone().into_cleanup()
    }

    /// [`Aig::cleanup`], consuming `self` (names are moved, not copied). An AIG that is
    /// already clean (every AND used, AIGER order) is returned as it is, without its hash table.
    pub(crate) fn into_cleanup(mut self) -> Aig {
        // Fanins are earlier variables: one sweep from the last variable down marks every
        // node some root uses.
        let mut used = vec![false; self.nodes.len()];
        for p in &self.outputs {
            used[p.lit.var() as usize] = true;
        }
        for l in &self.latches {
            used[l.next.var() as usize] = true;
        }
        let mut live = 0;
        for v in (0..self.nodes.len()).rev() {
            if let (Node::And(a, b), true) = (self.nodes[v], used[v]) {
                used[a.var() as usize] = true;
                used[b.var() as usize] = true;
                live += 1;
            }
        }
        if live == self.ands as usize && self.is_aiger_ordered() {
            self.strash = Strash::default();
            return self;
        }
        let mut out = Aig::new(self.name);
        out.nodes
            .reserve(self.inputs.len() + self.latches.len() + live);
        let mut map = vec![Lit::FALSE; self.nodes.len()];
        for p in self.inputs {
            map[p.lit.var() as usize] = out.add_input(p.name);
        }
        let nexts: Vec<Lit> = self.latches.iter().map(|l| l.next).collect();
        for l in self.latches {
            map[l.var as usize] = out.add_latch(l.name, l.init);
        }
        // The map is injective and keeps constants, so the nodes stay normalized and
        // distinct: push them directly (the hash table is rebuilt lazily if ever needed).
        for (v, n) in self.nodes.iter().enumerate() {
            if let (Node::And(a, b), true) = (n, used[v]) {
                let fa = map[a.var() as usize].xor(a.is_complemented());
                let fb = map[b.var() as usize].xor(b.is_complemented());
                let var = out.push(Node::And(fa.max(fb), fa.min(fb)));
                out.ands += 1;
                map[v] = Lit::new(var, false);
            }
        }
        let m = |l: Lit| map[l.var() as usize].xor(l.is_complemented());
        for (i, next) in nexts.into_iter().enumerate() {
            out.latches[i].next = m(next);
        }
        for p in self.outputs {
            out.add_output(p.name, m(p.lit));
        }
        out
    }

    /// Reserve room for `n` more AND nodes.
    pub(crate) fn reserve(&mut self, n: usize) {
        self.nodes.reserve(n);
        if self.strash.len == self.ands as usize
            && (self.strash.len + n) * 2 <= self.strash.slots.len()
        {
            return;
        }
        self.strash = Strash::of(&self.nodes, n);
    }

    /// Whether the variables are in AIGER order: inputs, latches, then ANDs.
    pub(crate) fn is_aiger_ordered(&self) -> bool {
        let ni = self.inputs.len();
        let nl = self.latches.len();
        self.nodes.iter().enumerate().all(|(v, n)| match n {
            Node::Const => v == 0,
            Node::Input(i) => v == 1 + *i as usize,
            Node::Latch(i) => v == 1 + ni + *i as usize,
            Node::And(..) => v > ni + nl,
        })
    }

    /// Simulate one combinational step: input values and latch values in, output values and
    /// latch next values out (used by tests).
    pub fn eval(&self, inputs: &[bool], latches: &[bool]) -> (Vec<bool>, Vec<bool>) {
        let mut val = vec![false; self.nodes.len()];
        for (v, n) in self.nodes.iter().enumerate() {
            val[v] = match *n {
                Node::Const => false,
                Node::Input(i) => inputs.get(i as usize).copied().unwrap_or(false),
                Node::Latch(i) => latches.get(i as usize).copied().unwrap_or(false),
                Node::And(a, b) => {
                    (val[a.var() as usize] ^ a.is_complemented())
                        && (val[b.var() as usize] ^ b.is_complemented())
                }
            };
        }
        let get = |l: Lit| val[l.var() as usize] ^ l.is_complemented();
        (
            self.outputs.iter().map(|p| get(p.lit)).collect(),
            self.latches.iter().map(|l| get(l.next)).collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `t` with inputs `a` and `b` and their AND: the graph and the three literals.
    fn and_of_two_inputs() -> (Aig, Lit, Lit, Lit) {
        let mut g = Aig::new("t");
        let a = g.add_input("a");
        let b = g.add_input("b");
        let x = g.add_and(a, b);
        (g, a, b, x)
    }

    #[test]
    fn hashing_and_constants() {
        let (mut g, a, b, x) = and_of_two_inputs();
        assert_eq!(g.add_and(b, a), x);
        assert_eq!(g.add_and(a, !a), Lit::FALSE);
        assert_eq!(g.add_and(a, Lit::TRUE), a);
        assert_eq!(g.add_and(a, a), a);
        assert_eq!(g.and_count(), 1);
    }

    #[test]
    fn instantiate_copies_latches() {
        let mut c = Aig::new("c");
        let i = c.add_input("i");
        let q = c.add_latch("q", Init::One);
        let n = c.add_and(i, !q);
        c.set_latch_next(q, n);
        c.add_output("o", q);
        let mut p = Aig::new("p");
        let x = p.add_input("x");
        let outs = p.instantiate(&c, &[x]);
        assert_eq!(p.latches()[0].name, "c.q");
        assert_eq!(p.latches()[0].init, Init::One);
        assert_eq!(outs[0], Lit::new(p.latches()[0].var, false));
        assert_eq!(p.and_count(), 1);
    }

    #[test]
    fn serde_roundtrip_keeps_hashing() {
        let (g, a, b, x) = and_of_two_inputs();
        let mut h: Aig = serde_json::from_str(&serde_json::to_string(&g).unwrap()).unwrap();
        assert_eq!(h, g);
        assert_eq!(h.add_and(a, b), x);
        assert_eq!(h.and_count(), 1);
    }
}
