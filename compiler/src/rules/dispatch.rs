//! Which rules the simulator tries in a cycle: the rules whose guard can hold.
//!
//! A function's state machine gives every slot one rule guarded by `pc == code`, so in any
//! cycle at most a few of a function's rules can fire, yet trying each rule of the schedule
//! every cycle makes a run cost cycles × rules: a function of `n` slots runs `n` cycles and
//! costs `n²` guard evaluations. Here each rule's guard is read once for a *key*, a
//! register read that must equal a constant for the guard to hold (`reg.read() == c`,
//! possibly one side of an `and`), and the rules are indexed by it. In a cycle only the
//! rules without a key and those whose key matches the register's value are tried, in the
//! schedule's order. Registers change only at the clock edge, so the set computed at the
//! start of a cycle is exact: a rule left out has a false guard and could not have fired,
//! and a run's results are those of trying every rule ([`Dispatch::every_rule`], which the
//! tests and `kiln-bench aps --slots` compare it with).

use super::{Expr, PrimOp, Rule, Stmt, Var, mask};
use crate::fxhash::FxHashMap;

/// The rules of an order indexed by their guards' keys.
pub(crate) struct Dispatch {
    /// Positions in the order of the rules tried every cycle.
    always: Vec<usize>,
    /// Per register read of some key: the rules by the value their guard needs.
    groups: Vec<Group>,
}

/// The rules keyed by one register read (a register at one read width).
struct Group {
    /// The register's instance, as the caller numbers instances.
    reg: usize,
    width: u32,
    rules: FxHashMap<u128, Vec<usize>>,
}

/// What a guard's variable is known to hold, as far as keys go.
#[derive(Clone, Copy)]
enum Fact {
    /// `reg.read()` at `width` bits.
    Read(usize, u32),
    Const(u128),
    /// 1 only if register `.0` read at `.1` bits equals `.2`.
    Key(usize, u32, u128),
}

impl Dispatch {
    /// Index the rules of `order`; `reg` numbers the register instances (`None`: not a
    /// register).
    pub(crate) fn new(order: &[&Rule], reg: impl Fn(&str) -> Option<usize>) -> Dispatch {
        let mut always = Vec::new();
        let mut groups: Vec<Group> = Vec::new();
        let mut group_of: FxHashMap<(usize, u32), usize> = FxHashMap::default();
        for (p, rule) in order.iter().enumerate() {
            let Some((r, width, value)) = key(rule, &reg) else {
                always.push(p);
                continue;
            };
            let g = *group_of.entry((r, width)).or_insert_with(|| {
                groups.push(Group {
                    reg: r,
                    width,
                    rules: FxHashMap::default(),
                });
                groups.len() - 1
            });
            groups[g].rules.entry(value).or_default().push(p);
        }
        Dispatch { always, groups }
    }

    /// No index: every rule is tried every cycle (what the index is measured against).
    pub(crate) fn every_rule(rules: usize) -> Dispatch {
        Dispatch {
            always: (0..rules).collect(),
            groups: Vec::new(),
        }
    }

    /// The positions of the rules to try in a cycle, in order, into `out`; `value` gives a
    /// register's value at the start of the cycle.
    pub(crate) fn candidates(&self, value: impl Fn(usize) -> u128, out: &mut Vec<usize>) {
        out.clear();
        out.extend_from_slice(&self.always);
        for g in &self.groups {
            if let Some(rules) = g.rules.get(&mask(value(g.reg), g.width)) {
                out.extend_from_slice(rules);
            }
        }
        if !self.groups.is_empty() {
            out.sort_unstable();
        }
    }
}

/// The key of `rule`'s guard: `(register, read width, value)` such that the guard holds
/// only when the register read at that width equals the value. Follows the guard statement
/// by statement as the simulator evaluates it (a later definition of a variable replaces
/// the earlier one); a guard with a conditional has none.
fn key(rule: &Rule, reg: &impl Fn(&str) -> Option<usize>) -> Option<(usize, u32, u128)> {
    let (stmts, result) = rule.guard.as_ref()?;
    let mut facts: FxHashMap<Var, Fact> = FxHashMap::default();
    for s in stmts {
        let (var, fact) = match s {
            Stmt::Let { var, width, expr } => (*var, let_fact(&facts, *width, expr)),
            Stmt::Call {
                result: Some((var, width)),
                inst,
                method,
                args,
            } => {
                let read = (method == "read" && args.is_empty())
                    .then(|| reg(inst))
                    .flatten();
                (*var, read.map(|r| Fact::Read(r, *width)))
            }
            Stmt::Call { result: None, .. } => continue,
            Stmt::If { .. } => return None,
        };
        match fact {
            Some(f) => facts.insert(var, f),
            None => facts.remove(&var),
        };
    }
    match facts.get(result)? {
        Fact::Key(r, w, v) => Some((*r, *w, *v)),
        _ => None,
    }
}

/// The fact of `let v: width = expr` (the simulator's `eval_prim` reads two arguments).
fn let_fact(facts: &FxHashMap<Var, Fact>, width: u32, expr: &Expr) -> Option<Fact> {
    let arg = |args: &[Var], i: usize| args.get(i).and_then(|v| facts.get(v)).copied();
    match expr {
        Expr::Const(c) => Some(Fact::Const(mask(*c, width))),
        // `a == b` is 1 only when the values are equal (0 at width 0: never).
        Expr::Prim(PrimOp::Eq, args) => match (arg(args, 0), arg(args, 1)) {
            (Some(Fact::Read(r, w)), Some(Fact::Const(c)))
            | (Some(Fact::Const(c)), Some(Fact::Read(r, w))) => Some(Fact::Key(r, w, c)),
            _ => None,
        },
        // Bit 0 of `a & b` is 1 only when bit 0 of each is.
        Expr::Prim(PrimOp::And, args) => [arg(args, 0), arg(args, 1)]
            .into_iter()
            .flatten()
            .find(|f| matches!(f, Fact::Key(..))),
        Expr::Prim(..) => None,
    }
}
