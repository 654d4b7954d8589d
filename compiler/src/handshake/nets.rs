//! The nets of the flat design and their names, kept small: a design of N ops has about
//! N times its units' pin count of them, so a net is named by its driver as a few numbers
//! (an op's index, an interned pin or port name), not as text. An op's name is then held
//! once however many pins it has, and the text `<op>.<pin>` exists only where it is
//! written out.
//!
//! Nets are named by their driver: a top input keeps its port name; an op output pin is
//! `<op>.<pin>`. The forward signals of a value come from its producer, its backward ones
//! (ready) from its one consumer ([`Consumers`], found once for the whole circuit).

use super::circuit::{Circuit, ValueRef};
use super::signals::{PortRef, SigKind, Signal, signal_name};
use crate::diag::Diagnostic;
use crate::fxhash::FxHashMap;
use serde::{Deserialize, Serialize};
use std::fmt;

/// A pin or port name of the design, interned: the same few names (`ins[3]`,
/// `outs_valid`, `clk`) recur on every op. Its text is [`Syms::text`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Sym(u32);

/// The interned names of a design (compared, hashed and kept by their texts: the look-up
/// table only serves interning).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Syms {
    texts: Vec<String>,
    #[serde(skip)]
    ids: FxHashMap<String, u32>,
}

impl PartialEq for Syms {
    fn eq(&self, other: &Syms) -> bool {
        self.texts == other.texts
    }
}

impl Eq for Syms {}

impl std::hash::Hash for Syms {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.texts.hash(h);
    }
}

impl Syms {
    /// The symbol of `text`, interned on first use.
    pub(crate) fn sym(&mut self, text: &str) -> Sym {
        if let Some(&id) = self.ids.get(text) {
            return Sym(id);
        }
        let id = self.texts.len() as u32;
        self.texts.push(text.to_string());
        self.ids.insert(text.to_string(), id);
        Sym(id)
    }

    /// The text of `s`.
    pub fn text(&self, s: Sym) -> &str {
        self.texts.get(s.0 as usize).map_or("?", String::as_str)
    }
}

/// A net of the flat design, named by its driver: a top-level input port, or output pin
/// `pin` of op `op` (an index into the circuit's ops), shown `<op>.<pin>` with the op's
/// instance name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum NetName {
    Port(Sym),
    Pin { op: u32, pin: Sym },
}

impl NetName {
    /// The net's name, given each op's instance name and the interned names.
    pub fn show<'a, S: AsRef<str>>(self, ops: &'a [S], syms: &'a Syms) -> impl fmt::Display + 'a {
        Shown {
            net: self,
            ops,
            syms,
        }
    }

    /// Whether the net's name is `text` (without writing the name out).
    pub(crate) fn is(self, text: &str, ops: &[impl AsRef<str>], syms: &Syms) -> bool {
        match self {
            NetName::Port(p) => syms.text(p) == text,
            NetName::Pin { op, pin } => ops.get(op as usize).is_some_and(|op| {
                let rest = text.strip_prefix(op.as_ref());
                rest.and_then(|r| r.strip_prefix('.')) == Some(syms.text(pin))
            }),
        }
    }
}

struct Shown<'a, S> {
    net: NetName,
    ops: &'a [S],
    syms: &'a Syms,
}

impl<S: AsRef<str>> fmt::Display for Shown<'_, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.net {
            NetName::Port(p) => f.write_str(self.syms.text(p)),
            NetName::Pin { op, pin } => {
                let op = self.ops.get(op as usize).map_or("?", AsRef::as_ref);
                write!(f, "{op}.{}", self.syms.text(pin))
            }
        }
    }
}

/// Where a value goes: operand `port` of op `op`, or result `j` of the function.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Use {
    Op { op: usize, port: usize },
    End(usize),
}

/// The one consumer of every value of a circuit (each value has exactly one).
pub(crate) struct Consumers {
    /// Index of op `i`'s first result among all values (the arguments come first).
    first: Vec<usize>,
    of: Vec<Option<Use>>,
}

impl Consumers {
    /// Every value's consumer; a value with none or several is an error.
    pub(crate) fn of(circuit: &Circuit) -> Result<Consumers, Diagnostic> {
        let mut first = Vec::with_capacity(circuit.ops.len());
        let mut n = circuit.args.len();
        for op in &circuit.ops {
            first.push(n);
            n += op.outputs.len();
        }
        let mut c = Consumers {
            first,
            of: vec![None; n],
        };
        let mut count = vec![0u32; n];
        let uses = (circuit.ops.iter().enumerate())
            .flat_map(|(op, o)| {
                let used = o.operands.iter().enumerate();
                used.map(move |(port, &v)| (v, Use::Op { op, port }))
            })
            .chain((circuit.end_operands.iter().enumerate()).map(|(j, &v)| (v, Use::End(j))));
        for (v, u) in uses {
            let Some(k) = c.index(v) else { continue };
            count[k] = count[k].saturating_add(1);
            c.of[k].get_or_insert(u);
        }
        if let Some(k) = count.iter().position(|&n| n != 1) {
            return Err(consumer_error(circuit, c.value(k)));
        }
        Ok(c)
    }

    /// The index of value `v` (`None` for a value the circuit does not define).
    fn index(&self, v: ValueRef) -> Option<usize> {
        let k = match v {
            ValueRef::Arg(a) => a,
            ValueRef::Result { op, index } => self.first.get(op)?.checked_add(index)?,
        };
        (k < self.of.len()).then_some(k)
    }

    /// The value of index `k`.
    fn value(&self, k: usize) -> ValueRef {
        match self.first.partition_point(|&f| f <= k) {
            0 => ValueRef::Arg(k),
            op => ValueRef::Result {
                op: op - 1,
                index: k - self.first[op - 1],
            },
        }
    }

    fn get(&self, v: ValueRef) -> Option<Use> {
        self.of.get(self.index(v)?).copied().flatten()
    }
}

/// The error of value `v`, which has no consumer or several (the users listed in order).
fn consumer_error(circuit: &Circuit, v: ValueRef) -> Diagnostic {
    let mut users: Vec<String> = (circuit.ops.iter())
        .flat_map(|op| {
            let n = op.operands.iter().filter(|&&o| o == v).count();
            std::iter::repeat_n(format!("`{}`", op.name), n)
        })
        .collect();
    let ends = circuit.end_operands.iter().filter(|&&o| o == v).count();
    users.extend(std::iter::repeat_n("the terminator".to_string(), ends));
    let (what, span) = match v {
        ValueRef::Arg(a) => (
            format!("argument {a} of `{}`", circuit.name),
            circuit.end_span,
        ),
        ValueRef::Result { op, index } => (
            format!("result {index} of op `{}`", circuit.ops[op].name),
            circuit.ops[op].span,
        ),
    };
    let msg = if users.is_empty() {
        format!("{what} has no consumer; every channel needs exactly one (add a sink)")
    } else {
        format!(
            "{what} has {} consumers ({}); every channel needs exactly one (add a fork)",
            users.len(),
            users.join(", ")
        )
    };
    Diagnostic::error(span, msg)
}

/// The nets of a circuit's signals, their names interned in `syms`.
pub(crate) struct Nets<'c> {
    pub(crate) circuit: &'c Circuit,
    pub(crate) consumers: Consumers,
    pub(crate) syms: Syms,
}

impl Nets<'_> {
    /// The net of input signal `s` of op `i`: forward signals come from the operand's
    /// producer, backward ones (ready of an output port) from the result's consumer.
    pub(crate) fn input(&mut self, i: usize, s: &Signal) -> NetName {
        match (s.port, s.kind) {
            (PortRef::Global, _) => NetName::Port(self.syms.sym(&s.name)),
            (PortRef::Input(p), kind) => self.producer(self.circuit.ops[i].operands[p], kind),
            (PortRef::Output(p), kind) => self.consumer(ValueRef::Result { op: i, index: p }, kind),
        }
    }

    /// The net driven by output pin `pin` of op `i`.
    pub(crate) fn pin(&mut self, i: usize, pin: &str) -> NetName {
        NetName::Pin {
            op: i as u32,
            pin: self.syms.sym(pin),
        }
    }

    /// The net of top input `name`.
    pub(crate) fn port(&mut self, name: &str) -> NetName {
        NetName::Port(self.syms.sym(name))
    }

    /// Net of a forward signal of value `v`.
    fn producer(&mut self, v: ValueRef, kind: SigKind) -> NetName {
        let c = self.circuit;
        match v {
            ValueRef::Arg(a) => self.port(&signal_name(&c.args[a], kind)),
            ValueRef::Result { op, index } => {
                self.pin(op, &signal_name(&c.ops[op].outputs[index], kind))
            }
        }
    }

    /// Net of a backward signal of value `v` (driven by its single consumer).
    fn consumer(&mut self, v: ValueRef, kind: SigKind) -> NetName {
        let c = self.circuit;
        match self.consumers.get(v) {
            Some(Use::Op { op, port }) => self.pin(op, &signal_name(&c.ops[op].inputs[port], kind)),
            Some(Use::End(j)) => self.port(&signal_name(&c.results[j], kind)),
            None => self.port(""),
        }
    }

    /// The net that drives top output `s`.
    pub(crate) fn top_output(&mut self, s: &Signal) -> NetName {
        match s.port {
            PortRef::Input(a) => self.consumer(ValueRef::Arg(a), s.kind),
            PortRef::Output(j) => self.producer(self.circuit.end_operands[j], s.kind),
            PortRef::Global => self.port(&s.name),
        }
    }
}
