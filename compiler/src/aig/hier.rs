//! A hierarchy of per-model AIGs ([`ModelBox`]es, instances as boxes): the supports a
//! parent needs of a box, and the boxes flattened into one AIG, top-down with explicit
//! stacks: each instance's own logic is copied once, on demand, so the cost is linear in the
//! flattened output whatever the depth.

use super::{Aig, Lit, Node};
use crate::diag::{Code, Diagnostic, Span};
use crate::fxhash::FxHashMap;
use serde::{Deserialize, Serialize};

/// One model lowered on its own, its `.subckt` instances left as boxes. The AIG has the
/// model's inputs followed by one input per instance output the model reads (`pseudo`), and
/// the model's outputs followed by, for each instance from its `first` output, one output
/// per input of the instance's model (constant 0 where unconnected or never needed). A model
/// without instances is its own flattened AIG.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ModelBox {
    pub(super) aig: Aig,
    pub(super) n_in: u32,
    pub(super) n_out: u32,
    /// Extra input `n_in + t` is output `pin` of instance `inst`: `(inst, pin)`.
    pub(super) pseudo: Vec<(u32, u32)>,
    pub(super) subs: Vec<Sub>,
}

/// One `.subckt` instance of a [`ModelBox`].
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub(super) struct Sub {
    /// The instantiated model.
    pub model: String,
    /// The box output that feeds the instance's first input.
    pub(crate) first: u32,
    /// The prefix of the instance's latch names (`<instance>/`).
    pub prefix: String,
}

impl ModelBox {
    /// The model name.
    pub fn name(&self) -> &str {
        &self.aig.name
    }

    /// Whether the model instantiates nothing (its AIG is then the flattened one).
    pub(crate) fn is_flat(&self) -> bool {
        self.subs.is_empty()
    }

    /// The models the instances instantiate, one per instance, in `.subckt` order.
    pub(crate) fn instantiated(&self) -> impl Iterator<Item = &str> {
        self.subs.iter().map(|s| s.model.as_str())
    }

    /// The AIG of a model without instances ([`ModelBox::is_flat`]).
    pub(crate) fn into_flat(self) -> Option<Aig> {
        self.is_flat().then_some(self.aig)
    }
}

/// What lowering a model needs of a model it instantiates: its pins, the combinational
/// support of each output and of the latches (model inputs, through its own instances too,
/// sorted), and an upper bound on its flattened size (every node of every instance box).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Interface {
    pub inputs: Vec<String>,
    pub outputs: Vec<String>,
    pub(crate) out_support: Vec<Vec<u32>>,
    pub(crate) latch_support: Vec<u32>,
    pub flat: u64,
}

const UNVISITED: u32 = u32::MAX;
const IN_PROGRESS: u32 = u32::MAX - 1;

/// Buffers of [`supports`], kept from one box to the next.
#[derive(Default)]
pub(super) struct Scratch {
    /// Visit marks of cone walks (epoch stamps, per box variable).
    stamp: Vec<u32>,
    epoch: u32,
    walk: Vec<u32>,
    /// The box inputs of the cone being expanded.
    direct: Vec<u32>,
    /// Box outputs whose support is being computed.
    on: Vec<bool>,
    todo: Vec<usize>,
    missing: Vec<usize>,
    /// The supports of the box's outputs found so far, back to back in `arena`.
    memo: Memo,
    /// The support being expanded.
    out: Vec<u32>,
}

/// Per box output, its support once known: a range of one shared array (no allocation
/// per output).
#[derive(Default)]
struct Memo {
    /// `(start, len)` in `arena`; `len == UNKNOWN` while not computed.
    at: Vec<(u32, u32)>,
    arena: Vec<u32>,
}

const UNKNOWN: u32 = u32::MAX;

impl Memo {
    fn reset(&mut self, outputs: usize) {
        self.at.clear();
        self.at.resize(outputs, (0, UNKNOWN));
        self.arena.clear();
    }

    fn get(&self, o: usize) -> Option<&[u32]> {
        match self.at[o] {
            (_, UNKNOWN) => None,
            (s, l) => Some(&self.arena[s as usize..][..l as usize]),
        }
    }

    fn set(&mut self, o: usize, support: &[u32]) {
        self.at[o] = (self.arena.len() as u32, support.len() as u32);
        self.arena.extend_from_slice(support);
    }
}

impl Scratch {
    /// The box inputs in the structural support of `roots` in `g` (latches are cut
    /// points), sorted, into `self.direct`.
    fn cone_inputs(&mut self, g: &Aig, roots: impl Iterator<Item = Lit>) {
        if self.stamp.len() < g.nodes().len() {
            self.stamp.resize(g.nodes().len(), 0);
        }
        if self.epoch == u32::MAX {
            self.stamp.fill(0);
            self.epoch = 0;
        }
        self.epoch += 1;
        let epoch = self.epoch;
        self.walk.clear();
        self.walk.extend(roots.map(Lit::var));
        self.direct.clear();
        while let Some(v) = self.walk.pop() {
            if std::mem::replace(&mut self.stamp[v as usize], epoch) == epoch {
                continue;
            }
            match g.node(v) {
                Node::And(a, b) => {
                    self.walk.push(a.var());
                    self.walk.push(b.var());
                }
                Node::Input(i) => self.direct.push(i),
                _ => {}
            }
        }
        self.direct.sort_unstable();
    }

    /// [`expand`] of `self.direct` into `self.out`.
    fn expand(&mut self, b: &ModelBox, kids: &[&Interface]) -> bool {
        expand(
            b,
            kids,
            &self.direct,
            &self.memo,
            &mut self.missing,
            &mut self.out,
        )
    }
}

/// The model inputs each output of `b` depends on combinationally, and those any latch of
/// `b` or of its instances depends on (through instances too, sorted), given the interfaces
/// of its instances' models (`kids`, one per instance). Iterative: an instance input's
/// support is computed before the outputs that read the instance.
pub(super) fn supports(
    b: &ModelBox,
    kids: &[&Interface],
    sc: &mut Scratch,
) -> (Vec<Vec<u32>>, Vec<u32>) {
    let n = b.aig.outputs().len();
    sc.memo.reset(n);
    sc.on.clear();
    sc.on.resize(n, false);
    for o in 0..b.n_out as usize {
        solve(b, kids, o, sc);
    }
    // Latches: the model's own next states, and the latch supports of its instances.
    let mut latch: Vec<u32> = Vec::new();
    for (sub, kid) in b.subs.iter().zip(kids) {
        for &i in &kid.latch_support {
            let o = sub.first as usize + i as usize;
            solve(b, kids, o, sc);
            latch.extend(sc.memo.get(o).into_iter().flatten());
        }
    }
    if !b.aig.latches().is_empty() {
        sc.cone_inputs(&b.aig, b.aig.latches().iter().map(|l| l.next));
        // `solve` walks other cones: this one is kept aside.
        let direct = std::mem::take(&mut sc.direct);
        let mut missing = Vec::new();
        while !expand(b, kids, &direct, &sc.memo, &mut missing, &mut sc.out) {
            for &o in &missing {
                solve(b, kids, o, sc);
            }
        }
        latch.extend_from_slice(&sc.out);
    }
    latch.sort_unstable();
    latch.dedup();
    let outs = (0..b.n_out as usize)
        .map(|o| sc.memo.get(o).map(<[u32]>::to_vec).unwrap_or_default())
        .collect();
    (outs, latch)
}

/// Memoize the support of box output `root` and of the box outputs it reads through
/// instances, with an explicit stack.
fn solve(b: &ModelBox, kids: &[&Interface], root: usize, sc: &mut Scratch) {
    sc.todo.clear();
    sc.todo.push(root);
    while let Some(&o) = sc.todo.last() {
        if sc.memo.get(o).is_some() {
            sc.on[o] = false;
            sc.todo.pop();
            continue;
        }
        sc.on[o] = true;
        sc.cone_inputs(&b.aig, std::iter::once(b.aig.outputs()[o].lit));
        if sc.expand(b, kids) {
            sc.memo.set(o, &sc.out);
            sc.on[o] = false;
            sc.todo.pop();
        } else if sc.missing.iter().any(|&m| sc.on[m]) {
            // An instance input read through the instance again would be a combinational
            // loop, which lowering the model has refused: cut it rather than spin.
            sc.memo.set(o, &[]);
            sc.on[o] = false;
            sc.todo.pop();
        } else {
            sc.todo.extend_from_slice(&sc.missing);
        }
    }
}

/// The model inputs behind `direct` (input indices of `b.aig`), into `out`, sorted: model
/// inputs as they are, instance outputs through the instance's support and the memoized
/// supports of the box outputs feeding it; false when box outputs are still to compute
/// (listed in `missing`).
fn expand(
    b: &ModelBox,
    kids: &[&Interface],
    direct: &[u32],
    memo: &Memo,
    missing: &mut Vec<usize>,
    out: &mut Vec<u32>,
) -> bool {
    let n_in = b.n_in as usize;
    out.clear();
    missing.clear();
    for &i in direct {
        let i = i as usize;
        if i < n_in {
            out.push(i as u32);
            continue;
        }
        let Some(&(inst, pin)) = b.pseudo.get(i - n_in) else {
            continue;
        };
        let first = b.subs[inst as usize].first as usize;
        let support = kids[inst as usize].out_support.get(pin as usize);
        for &ci in support.into_iter().flatten() {
            let o = first + ci as usize;
            match memo.get(o) {
                Some(s) => out.extend_from_slice(s),
                None => missing.push(o),
            }
        }
    }
    if !missing.is_empty() {
        return false;
    }
    out.sort_unstable();
    out.dedup();
    true
}

/// One instance in the flattened hierarchy.
struct Inst {
    /// Its model (an index into [`Flattener::boxes`]).
    model: u32,
    /// Parent instance and this instance's index among the parent's `.subckt`s (root: the
    /// root itself).
    parent: u32,
    k: u32,
    /// The id of the first child instance (children have consecutive ids).
    first_child: u32,
    /// Where the instance's box variables start in [`Flattener::map`].
    base: u32,
}

/// The model of `top` flattened: its inputs and outputs, every instance's latches (in
/// hierarchy pre-order, named by the instances' prefixes) and logic, cleaned up. `boxes`
/// gives the box of each model an instance names (all of them lowered: a missing one is an
/// error).
pub fn flatten<'b>(
    top: &'b ModelBox,
    boxes: &dyn Fn(&str) -> Option<&'b ModelBox>,
) -> Result<Aig, Diagnostic> {
    flatten_tree(resolve(top, boxes)?)
}

/// [`flatten`], the hierarchy resolved.
pub(super) fn flatten_tree(tree: Tree) -> Result<Aig, Diagnostic> {
    let Tree {
        top: top_index,
        boxes: table,
        kids,
        first: kid_start,
    } = tree;
    let top = table[top_index as usize];
    // Instances in pre-order, with their latches; `path` holds the latch-name prefix of
    // the instance being visited (a prefix of it is each ancestor's).
    let mut insts: Vec<Inst> = vec![Inst {
        model: top_index,
        parent: 0,
        k: 0,
        first_child: 0,
        base: 0,
    }];
    let mut cells: u64 = 0;
    let mut latches: Vec<(u32, u32, String)> = Vec::new();
    let mut path = String::new();
    let mut path_len: Vec<u32> = vec![0];
    let mut stack: Vec<u32> = vec![0];
    while let Some(x) = stack.pop() {
        let xi = x as usize;
        let model = insts[xi].model as usize;
        let b = table[model];
        if x != 0 {
            let (p, k) = (insts[xi].parent as usize, insts[xi].k as usize);
            path.truncate(path_len[p] as usize);
            path.push_str(&table[insts[p].model as usize].subs[k].prefix);
        }
        path_len[xi] = path.len() as u32;
        insts[xi].base = u32::try_from(cells).map_err(|_| too_large(top))?;
        cells += b.aig.nodes().len() as u64;
        for (i, l) in b.aig.latches().iter().enumerate() {
            latches.push((x, i as u32, format!("{path}{}", l.name)));
        }
        let first = insts.len() as u32;
        insts[xi].first_child = first;
        let first_kid = kid_start[model] as usize;
        for k in 0..b.subs.len() {
            insts.push(Inst {
                model: kids[first_kid + k],
                parent: x,
                k: k as u32,
                first_child: 0,
                base: 0,
            });
            path_len.push(0);
        }
        for k in (0..b.subs.len() as u32).rev() {
            stack.push(first + k);
        }
    }
    drop(path_len);
    let cells = u32::try_from(cells).map_err(|_| too_large(top))?;
    let mut f = Flattener {
        boxes: table,
        insts,
        map: vec![UNVISITED; cells as usize],
        g: Aig::new(top.aig.name.clone()),
        stack: Vec::new(),
    };
    for x in 0..f.insts.len() as u32 {
        let s = f.slot(x, 0);
        f.map[s] = Lit::FALSE.0;
    }
    for p in &top.aig.inputs()[..top.n_in as usize] {
        let lit = f.g.add_input(p.name.clone());
        f.map[p.lit.var() as usize] = lit.0;
    }
    let mut qs = Vec::with_capacity(latches.len());
    for (x, i, name) in latches {
        let l = &f.boxes[f.insts[x as usize].model as usize].aig.latches()[i as usize];
        let (var, init) = (l.var, l.init);
        let q = f.g.add_latch(name, init);
        let s = f.slot(x, var);
        f.map[s] = q.0;
        qs.push((x, i, q));
    }
    for p in &top.aig.outputs()[..top.n_out as usize] {
        let lit = f.eval(0, p.lit)?;
        f.g.add_output(p.name.clone(), lit);
    }
    for (x, i, q) in qs {
        let next = f.boxes[f.insts[x as usize].model as usize].aig.latches()[i as usize].next;
        let next = f.eval(x, next)?;
        f.g.set_latch_next(q, next);
    }
    Ok(f.g.into_cleanup())
}

fn too_large(top: &ModelBox) -> Diagnostic {
    Diagnostic::error(
        Span::point(0),
        format!("model `{}` is too large to flatten", top.aig.name),
    )
}

/// The boxes of a hierarchy: the top's first, and per box its instances' boxes (box `b`'s
/// from `first[b]` in `kids`).
pub(super) struct Tree<'b> {
    /// The index of the top box.
    pub(crate) top: u32,
    pub(crate) boxes: Vec<&'b ModelBox>,
    pub(crate) kids: Vec<u32>,
    pub(crate) first: Vec<u32>,
}

/// The distinct boxes of the hierarchy under `top`, found by name.
fn resolve<'b>(
    top: &'b ModelBox,
    boxes: &dyn Fn(&str) -> Option<&'b ModelBox>,
) -> Result<Tree<'b>, Diagnostic> {
    let mut table = vec![top];
    let mut index: FxHashMap<&'b str, u32> = FxHashMap::default();
    index.insert(&top.aig.name, 0);
    let mut kids = Vec::new();
    let mut first = Vec::new();
    let mut t = 0;
    while let Some(&b) = table.get(t) {
        first.push(kids.len() as u32);
        for s in &b.subs {
            let k = match index.get(s.model.as_str()) {
                Some(&k) => k,
                None => {
                    let Some(child) = boxes(&s.model) else {
                        return Err(Diagnostic::error(
                            Span::point(0),
                            format!("unknown model `{}`", s.model),
                        )
                        .with_code(Code::UnknownModel));
                    };
                    table.push(child);
                    index.insert(&s.model, table.len() as u32 - 1);
                    table.len() as u32 - 1
                }
            };
            kids.push(k);
        }
        t += 1;
    }
    Ok(Tree {
        top: 0,
        boxes: table,
        kids,
        first,
    })
}

struct Flattener<'b> {
    boxes: Vec<&'b ModelBox>,
    insts: Vec<Inst>,
    /// Per instance from its `base`: box variable → flattened literal (`UNVISITED`,
    /// `IN_PROGRESS`).
    map: Vec<u32>,
    g: Aig,
    stack: Vec<(u32, u32)>,
}

impl Flattener<'_> {
    fn slot(&self, x: u32, var: u32) -> usize {
        (self.insts[x as usize].base + var) as usize
    }

    /// Where box input `i` of instance `x` comes from: a box output of its parent, or an
    /// output of one of its own instances (`None`: the top's inputs, mapped already).
    fn source(&self, x: u32, i: u32) -> Option<(u32, Lit)> {
        let inst = &self.insts[x as usize];
        let b = self.boxes[inst.model as usize];
        let i = i as usize;
        if i < b.n_in as usize {
            if x == 0 {
                return None;
            }
            let p = inst.parent;
            let pb = self.boxes[self.insts[p as usize].model as usize];
            let o = pb.subs[inst.k as usize].first as usize + i;
            Some((p, pb.aig.outputs()[o].lit))
        } else {
            let (k, pin) = *b.pseudo.get(i - b.n_in as usize)?;
            let c = inst.first_child + k;
            let cb = self.boxes[self.insts[c as usize].model as usize];
            Some((c, cb.aig.outputs()[pin as usize].lit))
        }
    }

    /// The flattened literal of box literal `lit` in instance `x`, copying what it needs.
    fn eval(&mut self, x: u32, lit: Lit) -> Result<Lit, Diagnostic> {
        self.stack.clear();
        self.stack.push((x, lit.var()));
        while let Some(&(y, v)) = self.stack.last() {
            let cur = self.map[self.slot(y, v)];
            if cur < IN_PROGRESS {
                self.stack.pop();
                continue;
            }
            let node = self.boxes[self.insts[y as usize].model as usize]
                .aig
                .node(v);
            let mut deps: [Option<(u32, Lit)>; 2] = [None, None];
            match node {
                Node::And(a, b) => deps = [Some((y, b)), Some((y, a))],
                Node::Input(i) => deps[0] = self.source(y, i),
                Node::Const | Node::Latch(_) => {}
            }
            let mut pending = false;
            for &(dx, dl) in deps.iter().flatten() {
                match self.map[self.slot(dx, dl.var())] {
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
                let s = self.slot(y, v);
                self.map[s] = IN_PROGRESS;
                continue;
            }
            let get = |s: &Self, (dx, dl): (u32, Lit)| {
                Lit(s.map[s.slot(dx, dl.var())]).xor(dl.is_complemented())
            };
            let r = match node {
                Node::And(a, b) => {
                    let (fa, fb) = (get(self, (y, a)), get(self, (y, b)));
                    self.g.add_and(fa, fb)
                }
                Node::Input(_) => deps[0].map_or(Lit::FALSE, |d| get(self, d)),
                Node::Const | Node::Latch(_) => Lit::FALSE,
            };
            let s = self.slot(y, v);
            self.map[s] = r.0;
            self.stack.pop();
        }
        let m = self.map[self.slot(x, lit.var())];
        Ok(Lit(m).xor(lit.is_complemented()))
    }
}
