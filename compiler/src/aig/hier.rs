//! A hierarchy of per-model AIGs ([`BoxModel`]s, instances as boxes) flattened into one AIG,
//! top-down with explicit stacks: each instance's own logic is copied once, on demand, so
//! the cost is linear in the flattened output whatever the depth.

use super::lower::{BoxModel, Marks, cone_inputs};
use super::{Aig, Lit, Node};
use crate::diag::{Diagnostic, Span};

const UNVISITED: u32 = u32::MAX;
const IN_PROGRESS: u32 = u32::MAX - 1;

/// Fill `b.out_support` and `b.latch_support` (model inputs, through instances), given the
/// boxes of its children. Iterative: an instance input's support is computed before the
/// outputs that read the instance.
pub(super) fn supports(b: &mut BoxModel, boxes: &[BoxModel]) {
    let mut memo: Vec<Option<Vec<u32>>> = vec![None; b.aig.outputs().len()];
    let mut marks = Marks::default();
    let mut on = vec![false; memo.len()];
    for o in 0..b.n_out {
        solve(b, boxes, o, &mut memo, &mut on, &mut marks);
    }
    // Latches: the model's own next states, and the latch supports of its instances.
    let nexts: Vec<Lit> = b.aig.latches().iter().map(|l| l.next).collect();
    let direct = cone_inputs(&b.aig, &nexts, &mut marks);
    let mut latch: Vec<u32> = Vec::new();
    for &(c, first, _) in &b.subs {
        for &i in &boxes[c].latch_support {
            let o = first + i as usize;
            solve(b, boxes, o, &mut memo, &mut on, &mut marks);
            latch.extend(memo[o].iter().flatten().copied());
        }
    }
    latch.extend(expand(b, boxes, &direct, &memo).unwrap_or_default());
    latch.sort_unstable();
    latch.dedup();
    b.latch_support = latch;
    b.out_support = memo
        .into_iter()
        .take(b.n_out)
        .map(Option::unwrap_or_default)
        .collect();
}

/// Memoize the support of box output `root` and of the box outputs it reads through
/// instances, with an explicit stack.
fn solve(
    b: &BoxModel,
    boxes: &[BoxModel],
    root: usize,
    memo: &mut [Option<Vec<u32>>],
    on: &mut [bool],
    marks: &mut Marks,
) {
    let mut stack = vec![root];
    while let Some(&o) = stack.last() {
        if memo[o].is_some() {
            on[o] = false;
            stack.pop();
            continue;
        }
        on[o] = true;
        let direct = cone_inputs(&b.aig, &[b.aig.outputs()[o].lit], marks);
        match expand(b, boxes, &direct, memo) {
            Ok(s) => {
                memo[o] = Some(s);
                on[o] = false;
                stack.pop();
            }
            // An instance input read through the instance again would be a combinational
            // loop, which lowering the model has refused: cut it rather than spin.
            Err(missing) if missing.iter().any(|&m| on[m]) => {
                memo[o] = Some(Vec::new());
                on[o] = false;
                stack.pop();
            }
            Err(missing) => stack.extend(missing),
        }
    }
}

/// The model inputs behind `direct` (input indices of `b.aig`): model inputs as they are,
/// instance outputs through the instance's support and the memoized supports of the box
/// outputs feeding it; `Err` lists the box outputs still to compute.
fn expand(
    b: &BoxModel,
    boxes: &[BoxModel],
    direct: &[u32],
    memo: &[Option<Vec<u32>>],
) -> Result<Vec<u32>, Vec<usize>> {
    let mut out = Vec::new();
    let mut missing = Vec::new();
    for &i in direct {
        let i = i as usize;
        if i < b.n_in {
            out.push(i as u32);
            continue;
        }
        if i - b.n_in >= b.pseudo.len() {
            continue;
        }
        let (inst, pin) = b.pseudo[i - b.n_in];
        let (c, first, _) = &b.subs[inst as usize];
        for &ci in &boxes[*c].out_support[pin as usize] {
            let o = first + ci as usize;
            match &memo[o] {
                Some(s) => out.extend_from_slice(s),
                None => missing.push(o),
            }
        }
    }
    if !missing.is_empty() {
        return Err(missing);
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

/// One instance in the flattened hierarchy.
struct Inst {
    model: usize,
    /// Parent instance and this instance's index among the parent's `.subckt`s (root: none).
    parent: Option<(u32, u32)>,
    /// The id of the first child instance (children have consecutive ids).
    first_child: u32,
    /// Box variable → flattened literal (`UNVISITED`, `IN_PROGRESS`).
    map: Vec<u32>,
}

/// The top model `root` flattened: its inputs and outputs, every instance's latches (in
/// hierarchy pre-order, named by the instances' prefixes) and logic, cleaned up.
pub(super) fn flatten(
    mut boxes: Vec<BoxModel>,
    root: usize,
    name: &str,
) -> Result<Aig, Diagnostic> {
    if boxes[root].subs.is_empty() {
        return Ok(boxes.swap_remove(root).aig);
    }
    let boxes = &boxes[..];
    let top = &boxes[root];
    let mut g = Aig::new(name);
    let mut insts: Vec<Inst> = Vec::new();
    let new_inst = |model: usize, parent: Option<(u32, u32)>| {
        let mut map = vec![UNVISITED; boxes[model].aig.nodes().len()];
        map[0] = Lit::FALSE.0;
        Inst {
            model,
            parent,
            first_child: 0,
            map,
        }
    };
    insts.push(new_inst(root, None));
    for p in &top.aig.inputs()[..top.n_in] {
        let lit = g.add_input(p.name.clone());
        insts[0].map[p.lit.var() as usize] = lit.0;
    }
    // Instances and latches in pre-order; `path` holds the latch-name prefix of the
    // instance being visited (a prefix of it is each ancestor's).
    let mut latches: Vec<(u32, usize, Lit)> = Vec::new();
    let mut path = String::new();
    let mut path_len: Vec<u32> = vec![0];
    let mut stack: Vec<u32> = vec![0];
    while let Some(x) = stack.pop() {
        let xi = x as usize;
        let model = insts[xi].model;
        let b = &boxes[model];
        if let Some((p, k)) = insts[xi].parent {
            path.truncate(path_len[p as usize] as usize);
            path.push_str(&boxes[insts[p as usize].model].subs[k as usize].2);
        }
        path_len[xi] = path.len() as u32;
        for (i, l) in b.aig.latches().iter().enumerate() {
            let q = g.add_latch(format!("{path}{}", l.name), l.init);
            insts[xi].map[l.var as usize] = q.0;
            latches.push((x, i, q));
        }
        let first = insts.len() as u32;
        insts[xi].first_child = first;
        for (k, (c, _, _)) in b.subs.iter().enumerate() {
            insts.push(new_inst(*c, Some((x, k as u32))));
            path_len.push(0);
        }
        for k in (0..b.subs.len() as u32).rev() {
            stack.push(first + k);
        }
    }
    let mut f = Flattener {
        boxes,
        insts,
        g,
        stack: Vec::new(),
    };
    for p in &top.aig.outputs()[..top.n_out] {
        let lit = f.eval(0, p.lit)?;
        f.g.add_output(p.name.clone(), lit);
    }
    for (x, i, q) in latches {
        let next = boxes[f.insts[x as usize].model].aig.latches()[i].next;
        let next = f.eval(x, next)?;
        f.g.set_latch_next(q, next);
    }
    Ok(canonical(f.g.into_cleanup()))
}

struct Flattener<'b> {
    boxes: &'b [BoxModel],
    insts: Vec<Inst>,
    g: Aig,
    stack: Vec<(u32, u32)>,
}

impl Flattener<'_> {
    /// Where box input `i` of instance `x` comes from: a box output of its parent, or an
    /// output of one of its own instances (`None`: the top's inputs, mapped already).
    fn source(&self, x: u32, i: u32) -> Option<(u32, Lit)> {
        let inst = &self.insts[x as usize];
        let b = &self.boxes[inst.model];
        let i = i as usize;
        if i < b.n_in {
            let (p, k) = inst.parent?;
            let pb = &self.boxes[self.insts[p as usize].model];
            let o = pb.subs[k as usize].1 + i;
            Some((p, pb.aig.outputs()[o].lit))
        } else {
            let (k, pin) = *b.pseudo.get(i - b.n_in)?;
            let c = inst.first_child + k;
            let cb = &self.boxes[self.insts[c as usize].model];
            Some((c, cb.aig.outputs()[pin as usize].lit))
        }
    }

    /// The flattened literal of box literal `lit` in instance `x`, copying what it needs.
    fn eval(&mut self, x: u32, lit: Lit) -> Result<Lit, Diagnostic> {
        self.stack.clear();
        self.stack.push((x, lit.var()));
        while let Some(&(y, v)) = self.stack.last() {
            let cur = self.insts[y as usize].map[v as usize];
            if cur < IN_PROGRESS {
                self.stack.pop();
                continue;
            }
            let node = self.boxes[self.insts[y as usize].model].aig.node(v);
            let mut deps: [Option<(u32, Lit)>; 2] = [None, None];
            match node {
                Node::And(a, b) => deps = [Some((y, b)), Some((y, a))],
                Node::Input(i) => deps[0] = self.source(y, i),
                Node::Const | Node::Latch(_) => {}
            }
            let mut pending = false;
            for &(dx, dl) in deps.iter().flatten() {
                match self.insts[dx as usize].map[dl.var() as usize] {
                    UNVISITED => {
                        self.stack.push((dx, dl.var()));
                        pending = true;
                    }
                    IN_PROGRESS => {
                        return Err(Diagnostic::error(
                            Span::point(0),
                            "combinational loop through the model hierarchy",
                        ));
                    }
                    _ => {}
                }
            }
            if pending {
                self.insts[y as usize].map[v as usize] = IN_PROGRESS;
                continue;
            }
            let get = |s: &Self, (dx, dl): (u32, Lit)| {
                Lit(s.insts[dx as usize].map[dl.var() as usize]).xor(dl.is_complemented())
            };
            let r = match node {
                Node::And(a, b) => {
                    let (fa, fb) = (get(self, (y, a)), get(self, (y, b)));
                    self.g.add_and(fa, fb)
                }
                Node::Input(_) => deps[0].map_or(Lit::FALSE, |d| get(self, d)),
                Node::Const | Node::Latch(_) => Lit::FALSE,
            };
            self.insts[y as usize].map[v as usize] = r.0;
            self.stack.pop();
        }
        let m = self.insts[x as usize].map[lit.var() as usize];
        Ok(Lit(m).xor(lit.is_complemented()))
    }
}

/// `g` (clean: every AND used) renumbered in an order that depends only on its structure:
/// inputs, latches, then the ANDs in depth-first post-order from the outputs and the latch
/// next states, the two fanins of a node taken in the order of a structural hash. A
/// hierarchical model flattened top-down and the same model lowered with its children
/// already flattened give isomorphic AIGs built in different orders; this makes their
/// bytes equal.
pub(super) fn canonical(g: Aig) -> Aig {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    let mix = |x: u64| {
        let x = (x ^ (x >> 31)).wrapping_mul(K);
        x ^ (x >> 29)
    };
    let mut h = vec![0u64; g.nodes.len()];
    let key = |h: &[u64], l: Lit| mix(h[l.var() as usize] ^ u64::from(l.is_complemented()));
    for v in 0..g.nodes.len() {
        h[v] = match g.nodes[v] {
            Node::Const => 1,
            Node::Input(i) => mix(2 << 32 | u64::from(i)),
            Node::Latch(i) => mix(3 << 32 | u64::from(i)),
            Node::And(a, b) => {
                let (ka, kb) = (key(&h, a), key(&h, b));
                mix(ka.min(kb).wrapping_mul(K) ^ ka.max(kb))
            }
        };
    }
    let mut out = Aig::new(g.name.clone());
    out.nodes.reserve(g.nodes.len());
    let mut map = vec![UNVISITED; g.nodes.len()];
    map[0] = Lit::FALSE.0;
    for p in &g.inputs {
        map[p.lit.var() as usize] = out.add_input(p.name.clone()).0;
    }
    for l in &g.latches {
        map[l.var as usize] = out.add_latch(l.name.clone(), l.init).0;
    }
    let roots = (g.outputs.iter().map(|p| p.lit)).chain(g.latches.iter().map(|l| l.next));
    let mut stack: Vec<u32> = Vec::new();
    for root in roots {
        stack.push(root.var());
        while let Some(&v) = stack.last() {
            if map[v as usize] < IN_PROGRESS {
                stack.pop();
                continue;
            }
            let Node::And(a, b) = g.nodes[v as usize] else {
                stack.pop();
                continue;
            };
            let (first, second) = if (key(&h, a), a) <= (key(&h, b), b) {
                (a, b)
            } else {
                (b, a)
            };
            if map[v as usize] == UNVISITED {
                map[v as usize] = IN_PROGRESS;
                // Popped in reverse: `first` is numbered first.
                stack.push(second.var());
                stack.push(first.var());
                continue;
            }
            let f = |l: Lit| Lit(map[l.var() as usize]).xor(l.is_complemented());
            let (fa, fb) = (f(a), f(b));
            let var = out.push(Node::And(fa.max(fb), fa.min(fb)));
            out.ands += 1;
            map[v as usize] = Lit::new(var, false).0;
            stack.pop();
        }
    }
    let f = |l: Lit| Lit(map[l.var() as usize]).xor(l.is_complemented());
    for (i, l) in g.latches.iter().enumerate() {
        out.latches[i].next = f(l.next);
    }
    for p in &g.outputs {
        out.add_output(p.name.clone(), f(p.lit));
    }
    out
}
