//! A small AIG with named ports, late-bound wires and latches, used to stitch units together.
//!
//! Units (library AIGs and built-in generators) are copied into one [`Net`]. Channels between
//! units can form cycles at the unit level (valid flows forward, ready backward), so a unit's
//! inputs are [`Node::Wire`]s whose driver is set when the driving unit is copied in.
//! [`Net::compact`] then resolves wires, orders the AND nodes topologically (AIGER order:
//! inputs, latches, ANDs) and reports a combinational loop instead of looping.
//!
//! Literals are `2 * node + complement`; node 0 is constant false, so literal 0 is false and
//! literal 1 is true.

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Lit(pub u32);

impl Lit {
    pub const FALSE: Lit = Lit(0);
    pub const TRUE: Lit = Lit(1);

    pub(crate) fn node(self) -> usize {
        (self.0 >> 1) as usize
    }

    pub(crate) fn is_neg(self) -> bool {
        self.0 & 1 == 1
    }

    pub(crate) fn from_node(node: usize, neg: bool) -> Lit {
        Lit(((node as u32) << 1) | u32::from(neg))
    }

    /// Complement when `c` is true.
    pub(crate) fn xor_neg(self, c: bool) -> Lit {
        Lit(self.0 ^ u32::from(c))
    }
}

impl std::ops::Not for Lit {
    type Output = Lit;
    fn not(self) -> Lit {
        Lit(self.0 ^ 1)
    }
}

/// Latch initial value: 0, 1 or don't care (BLIF `2`/`3`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Init {
    Zero,
    One,
    DontCare,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub(crate) enum Node {
    Const0,
    Input,
    Latch {
        next: Lit,
        init: Init,
    },
    And(Lit, Lit),
    /// A placeholder for a signal driven later (`None` until then).
    Wire(Option<Lit>),
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Net {
    pub(crate) nodes: Vec<Node>,
    /// Primary inputs in port order: (name, node).
    pub inputs: Vec<(String, usize)>,
    /// Latch nodes in creation order (with optional names).
    pub latches: Vec<usize>,
    pub outputs: Vec<(String, Lit)>,
}

impl Net {
    pub fn new() -> Net {
        Net {
            nodes: vec![Node::Const0],
            ..Net::default()
        }
    }

    fn push(&mut self, n: Node) -> Lit {
        self.nodes.push(n);
        Lit::from_node(self.nodes.len() - 1, false)
    }

    pub fn input(&mut self, name: impl Into<String>) -> Lit {
        let l = self.push(Node::Input);
        self.inputs.push((name.into(), l.node()));
        l
    }

    pub fn output(&mut self, name: impl Into<String>, l: Lit) {
        self.outputs.push((name.into(), l));
    }

    /// A latch whose next-state is set later with [`Net::set_next`].
    pub fn latch(&mut self, init: Init) -> Lit {
        let l = self.push(Node::Latch {
            next: Lit::FALSE,
            init,
        });
        self.latches.push(l.node());
        l
    }

    pub fn set_next(&mut self, latch: Lit, next: Lit) {
        if let Node::Latch { next: n, .. } = &mut self.nodes[latch.node()] {
            *n = next;
        }
    }

    pub(crate) fn wire(&mut self) -> Lit {
        self.push(Node::Wire(None))
    }

    /// Drives wire `w`; false if it already had a driver.
    pub(crate) fn drive(&mut self, w: Lit, src: Lit) -> bool {
        match &mut self.nodes[w.node()] {
            Node::Wire(slot @ None) => {
                *slot = Some(src.xor_neg(w.is_neg()));
                true
            }
            _ => false,
        }
    }

    pub(crate) fn and(&mut self, a: Lit, b: Lit) -> Lit {
        if a == Lit::FALSE || b == Lit::FALSE || a == !b {
            return Lit::FALSE;
        }
        if a == Lit::TRUE || a == b {
            return b;
        }
        if b == Lit::TRUE {
            return a;
        }
        let (a, b) = if a.0 > b.0 { (a, b) } else { (b, a) };
        self.push(Node::And(a, b))
    }

    pub(crate) fn or(&mut self, a: Lit, b: Lit) -> Lit {
        !self.and(!a, !b)
    }

    pub(crate) fn xor(&mut self, a: Lit, b: Lit) -> Lit {
        let x = self.and(a, !b);
        let y = self.and(!a, b);
        self.or(x, y)
    }

    /// `s ? t : f`
    pub(crate) fn mux(&mut self, s: Lit, t: Lit, f: Lit) -> Lit {
        let x = self.and(s, t);
        let y = self.and(!s, f);
        self.or(x, y)
    }

    pub(crate) fn and_all(&mut self, lits: &[Lit]) -> Lit {
        lits.iter().fold(Lit::TRUE, |acc, &l| self.and(acc, l))
    }

    pub fn num_ands(&self) -> usize {
        self.nodes
            .iter()
            .filter(|n| matches!(n, Node::And(..)))
            .count()
    }

    /// Copies `unit` into `self`, its inputs replaced by `inputs` (in `unit.inputs` order);
    /// returns its output literals (in `unit.outputs` order). Wires of `unit` must be resolved.
    /// An AND whose fanins come before it (every AND of a unit in AIGER order) is copied at
    /// once; others go through a wire, driven once every node is copied.
    pub(crate) fn instantiate(&mut self, unit: &Net, inputs: &[Lit]) -> Vec<Lit> {
        let mut map = vec![Lit::FALSE; unit.nodes.len()];
        for ((_, node), &l) in unit.inputs.iter().zip(inputs) {
            map[*node] = l;
        }
        let tr = |map: &[Lit], l: Lit| map[l.node()].xor_neg(l.is_neg());
        let mut pending = Vec::new();
        for &i in &unit.latches {
            if let Node::Latch { next, init } = unit.nodes[i] {
                map[i] = self.latch(init);
                pending.push((map[i], next));
            }
        }
        // Copied already: inputs, latches and the nodes before `i`.
        let before = |l: Lit, i: usize| {
            l.node() < i || matches!(unit.nodes[l.node()], Node::Input | Node::Latch { .. })
        };
        let mut late = Vec::new();
        for (i, node) in unit.nodes.iter().enumerate() {
            match *node {
                Node::And(a, b) if before(a, i) && before(b, i) => {
                    map[i] = self.and(tr(&map, a), tr(&map, b));
                }
                Node::And(..) | Node::Wire(_) => {
                    map[i] = self.wire();
                    late.push(i);
                }
                Node::Const0 | Node::Input | Node::Latch { .. } => {}
            }
        }
        for i in late {
            match unit.nodes[i] {
                Node::And(a, b) => {
                    let g = self.and(tr(&map, a), tr(&map, b));
                    self.drive(map[i], g);
                }
                Node::Wire(Some(s)) => {
                    let s = tr(&map, s);
                    self.drive(map[i], s);
                }
                _ => {}
            }
        }
        for (l, next) in pending {
            let n = tr(&map, next);
            self.set_next(l, n);
        }
        unit.outputs.iter().map(|(_, l)| tr(&map, *l)).collect()
    }

    /// Resolves wires and renumbers in AIGER order: constant, inputs, latches, then ANDs in
    /// topological order (only those reachable from outputs and latch next-states: an AND
    /// that a resolved constant folds away leaves none behind).
    /// `Err(node)` names a wire that is undriven or on a combinational loop.
    pub(crate) fn compact(&self) -> Result<Net, CompactError> {
        let mut out = Net::new();
        let mut map: Vec<Option<Lit>> = vec![None; self.nodes.len()];
        map[0] = Some(Lit::FALSE);
        for (name, node) in &self.inputs {
            map[*node] = Some(out.input(name.clone()));
        }
        for &l in &self.latches {
            if let Node::Latch { init, .. } = self.nodes[l] {
                map[l] = Some(out.latch(init));
            }
        }
        let mut state = vec![0u8; self.nodes.len()];
        let roots: Vec<Lit> = self
            .outputs
            .iter()
            .map(|(_, l)| *l)
            .chain(self.latches.iter().filter_map(|&l| match self.nodes[l] {
                Node::Latch { next, .. } => Some(next),
                _ => None,
            }))
            .collect();
        for root in roots {
            self.visit(root.node(), &mut map, &mut state, &mut out)?;
        }
        for (name, l) in &self.outputs {
            let m = resolve(&map, *l);
            out.output(name.clone(), m);
        }
        for (k, &l) in self.latches.iter().enumerate() {
            if let Node::Latch { next, .. } = self.nodes[l] {
                let n = resolve(&map, next);
                let new = Lit::from_node(out.latches[k], false);
                out.set_next(new, n);
            }
        }
        Ok(out.sweep())
    }

    /// `self` (fanins before their ANDs, as [`Net::compact`] builds it) without the ANDs that
    /// no output or latch next-state uses, the others kept in their order. A wire resolved
    /// to a constant folds the ANDs it feeds (`x & 0` is 0) after their other fanins were
    /// built: those fanins are used by nothing. A net without such ANDs is returned as it is.
    fn sweep(mut self) -> Net {
        let mut used = vec![false; self.nodes.len()];
        let nexts = self.latches.iter().filter_map(|&l| match self.nodes[l] {
            Node::Latch { next, .. } => Some(next),
            _ => None,
        });
        for l in self.outputs.iter().map(|(_, l)| *l).chain(nexts) {
            used[l.node()] = true;
        }
        let mut dead = 0;
        for v in (0..self.nodes.len()).rev() {
            if let Node::And(a, b) = self.nodes[v] {
                if used[v] {
                    used[a.node()] = true;
                    used[b.node()] = true;
                } else {
                    dead += 1;
                }
            }
        }
        if dead == 0 {
            return self;
        }
        // Renumbering keeps the order, so fanins stay before their ANDs and each AND's
        // fanins stay in their order.
        let mut map = vec![0usize; self.nodes.len()];
        let mut nodes = Vec::with_capacity(self.nodes.len() - dead);
        let tr = |map: &[usize], l: Lit| Lit::from_node(map[l.node()], l.is_neg());
        for (v, &n) in self.nodes.iter().enumerate() {
            let n = match n {
                Node::And(..) if !used[v] => continue,
                Node::And(a, b) => Node::And(tr(&map, a), tr(&map, b)),
                n => n,
            };
            map[v] = nodes.len();
            nodes.push(n);
        }
        for n in &mut nodes {
            if let Node::Latch { next, .. } = n {
                *next = tr(&map, *next);
            }
        }
        self.nodes = nodes;
        for (_, node) in &mut self.inputs {
            *node = map[*node];
        }
        for node in &mut self.latches {
            *node = map[*node];
        }
        for (_, l) in &mut self.outputs {
            *l = tr(&map, *l);
        }
        self
    }

    /// Iterative post-order DFS giving `map[root]`.
    fn visit(
        &self,
        root: usize,
        map: &mut [Option<Lit>],
        state: &mut [u8],
        out: &mut Net,
    ) -> Result<(), CompactError> {
        if map[root].is_some() {
            return Ok(());
        }
        let mut stack = vec![root];
        while let Some(&n) = stack.last() {
            if map[n].is_some() {
                stack.pop();
                continue;
            }
            let (fanins, count) = match self.nodes[n] {
                Node::And(a, b) => ([a, b], 2),
                Node::Wire(Some(s)) => ([s, s], 1),
                Node::Wire(None) => return Err(CompactError::Undriven(n)),
                _ => unreachable!("inputs, latches and constant are mapped first"),
            };
            let fanins = &fanins[..count];
            if state[n] == 0 {
                state[n] = 1;
                for f in fanins.iter().rev() {
                    if map[f.node()].is_none() {
                        if state[f.node()] == 1 {
                            // The nodes in progress from `f` to the top form the cycle.
                            let from = stack.iter().position(|&x| x == f.node()).unwrap_or(0);
                            let cycle = stack[from..]
                                .iter()
                                .copied()
                                .filter(|&x| state[x] == 1)
                                .collect();
                            return Err(CompactError::Loop(cycle));
                        }
                        stack.push(f.node());
                    }
                }
                continue;
            }
            stack.pop();
            let l = match self.nodes[n] {
                Node::And(a, b) => {
                    let (a, b) = (resolve(map, a), resolve(map, b));
                    out.and(a, b)
                }
                _ => resolve(map, fanins[0]),
            };
            map[n] = Some(l);
            state[n] = 2;
        }
        Ok(())
    }

    /// Evaluates the outputs for `inputs` (in input order) and the latch values `state`
    /// (in latch order); returns (outputs, next state). For tests and generator checks.
    pub fn eval(&self, inputs: &[bool], state: &[bool]) -> (Vec<bool>, Vec<bool>) {
        let mut val = vec![false; self.nodes.len()];
        for ((_, node), &v) in self.inputs.iter().zip(inputs) {
            val[*node] = v;
        }
        for (&l, &v) in self.latches.iter().zip(state) {
            val[l] = v;
        }
        let get = |val: &[bool], l: Lit| val[l.node()] ^ l.is_neg();
        for (i, node) in self.nodes.iter().enumerate() {
            match *node {
                Node::And(a, b) => val[i] = get(&val, a) && get(&val, b),
                Node::Wire(Some(s)) => val[i] = get(&val, s),
                _ => {}
            }
        }
        let outs = self.outputs.iter().map(|(_, l)| get(&val, *l)).collect();
        let next = self
            .latches
            .iter()
            .map(|&l| match self.nodes[l] {
                Node::Latch { next, .. } => get(&val, next),
                _ => false,
            })
            .collect();
        (outs, next)
    }

    /// [`Net::eval`] on 64 vectors at once: bit `k` of every word belongs to vector `k`.
    pub fn eval64(&self, inputs: &[u64], state: &[u64]) -> (Vec<u64>, Vec<u64>) {
        let mut val = vec![0u64; self.nodes.len()];
        for ((_, node), &v) in self.inputs.iter().zip(inputs) {
            val[*node] = v;
        }
        for (&l, &v) in self.latches.iter().zip(state) {
            val[l] = v;
        }
        let get = |val: &[u64], l: Lit| val[l.node()] ^ if l.is_neg() { u64::MAX } else { 0 };
        for (i, node) in self.nodes.iter().enumerate() {
            match *node {
                Node::And(a, b) => val[i] = get(&val, a) & get(&val, b),
                Node::Wire(Some(s)) => val[i] = get(&val, s),
                _ => {}
            }
        }
        let outs = self.outputs.iter().map(|(_, l)| get(&val, *l)).collect();
        let next = (self.latches.iter())
            .map(|&l| match self.nodes[l] {
                Node::Latch { next, .. } => get(&val, next),
                _ => 0,
            })
            .collect();
        (outs, next)
    }

    pub(crate) fn input_index(&self, name: &str) -> Option<usize> {
        self.inputs.iter().position(|(n, _)| n == name)
    }
}

fn resolve(map: &[Option<Lit>], l: Lit) -> Lit {
    map[l.node()].unwrap_or(Lit::FALSE).xor_neg(l.is_neg())
}

/// `a + b + cin`, ripple carry; returns (sum bits, carry out). Also the float units'.
pub(crate) fn add(net: &mut Net, a: &[Lit], b: &[Lit], cin: Lit) -> (Vec<Lit>, Lit) {
    let mut carry = cin;
    let mut sum = Vec::with_capacity(a.len());
    for (&x, &y) in a.iter().zip(b) {
        let p = net.xor(x, y);
        sum.push(net.xor(p, carry));
        let g = net.and(x, y);
        let t = net.and(p, carry);
        carry = net.or(g, t);
    }
    (sum, carry)
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum CompactError {
    /// A wire nobody drives.
    Undriven(usize),
    /// A combinational loop through these nodes (in fanin order).
    Loop(Vec<usize>),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wires_resolve_out_of_order() {
        let mut n = Net::new();
        let a = n.input("a");
        let b = n.input("b");
        let w = n.wire();
        let g = n.and(w, a);
        n.output("y", !g);
        assert!(n.drive(w, !b));
        assert!(!n.drive(w, b));
        let c = n.compact().unwrap();
        assert_eq!(c.num_ands(), 1);
        for (va, vb) in [(false, false), (true, false), (true, true)] {
            assert_eq!(c.eval(&[va, vb], &[]).0, vec![!va || vb]);
        }
    }

    #[test]
    fn loops_and_undriven_are_errors() {
        let mut n = Net::new();
        let a = n.input("a");
        let w = n.wire();
        let g = n.and(w, a);
        n.drive(w, g);
        n.output("y", g);
        assert!(matches!(n.compact(), Err(CompactError::Loop(_))));
        let mut m = Net::new();
        let w = m.wire();
        m.output("y", w);
        assert!(matches!(m.compact(), Err(CompactError::Undriven(_))));
    }

    /// A wire resolved to a constant folds the ANDs it feeds; the ANDs only they used
    /// (built first, as fanins are) are swept, the others keep their order.
    #[test]
    fn ands_a_constant_folds_away_leave_nothing_behind() {
        let mut n = Net::new();
        let a = n.input("a");
        let b = n.input("b");
        let zero = n.wire();
        let one = n.wire();
        let x = n.and(a, b);
        let y = n.and(x, !a);
        let dead = n.and(y, zero);
        let kept = n.and(a, !b);
        let through = n.and(kept, one);
        let q = n.latch(Init::Zero);
        let ab = n.or(a, b);
        let next = n.and(ab, zero);
        n.set_next(q, next);
        n.output("dead", dead);
        n.output("kept", through);
        n.output("q", q);
        n.drive(zero, Lit::FALSE);
        n.drive(one, Lit::TRUE);
        let c = n.compact().unwrap();
        assert_eq!(c.num_ands(), 1, "{:?}", c.nodes);
        assert_eq!(c.outputs[0].1, Lit::FALSE);
        assert_eq!(c.nodes.len(), 1 + 2 + 1 + 1);
        for (va, vb) in [(false, false), (true, false), (false, true), (true, true)] {
            let (outs, next) = c.eval(&[va, vb], &[true]);
            assert_eq!(outs, vec![false, va && !vb, true]);
            assert_eq!(next, vec![false]);
        }
        // Without a fold, compacting keeps every AND it reaches.
        let mut m = Net::new();
        let a = m.input("a");
        let b = m.input("b");
        let x = m.and(a, b);
        let y = m.and(x, !a);
        m.output("y", y);
        m.output("x", x);
        assert_eq!(m.compact().unwrap(), m);
    }

    #[test]
    fn latches_break_cycles() {
        let mut n = Net::new();
        let en = n.input("en");
        let q = n.latch(Init::Zero);
        let d = n.xor(q, en);
        n.set_next(q, d);
        n.output("q", q);
        let c = n.compact().unwrap();
        assert_eq!(c.eval(&[true], &[false]).1, vec![true]);
        let mut top = Net::new();
        let e = top.input("e");
        let outs = top.instantiate(&c, &[e]);
        top.output("q", outs[0]);
        let t = top.compact().unwrap();
        assert_eq!(t.latches.len(), 1);
        assert_eq!(t.eval(&[true], &[true]), (vec![true], vec![false]));
    }
}
