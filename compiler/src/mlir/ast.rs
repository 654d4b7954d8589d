//! The generic MLIR operation tree.
//!
//! Every op, whether it was written in generic form (`"dialect.op"(%a) {..} : (T) -> T`) or in
//! one of the custom assembly formats the parser knows, ends up in the same shape: a name,
//! result definitions with types, operands (with types where the syntax states them),
//! attributes, regions of blocks, and successors. Custom formats map their keywords onto
//! attributes and operands so that the generic printer can write any tree back and the parser
//! reads it to an equal tree.
//!
//! Architecture invariant: this tree is plain owned data (`Eq + Hash + serde`), so it can be a
//! cached query result. Every node carries a byte [`Span`] into the text it was parsed from;
//! [`Operation::without_spans`] gives the span-free tree for structural comparisons.

use crate::diag::Span;
use serde::{Deserialize, Serialize};

/// The text of op names, SSA names, attribute names and string/keyword attributes: a
/// string stored inline up to 24 bytes (almost every such name), on the heap beyond. Parsing
/// makes one per name, so keeping them off the heap is most of the parser's allocation
/// savings. Compares, hashes and serializes as its `str`.
pub type Name = compact_str::CompactString;

/// A parsed file: the top-level operations in source order (usually one `builtin.module`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ModuleAst {
    pub ops: Vec<Operation>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Operation {
    /// Fully-qualified name, e.g. `tor.func`, `handshake.fork`, `builtin.module`.
    pub name: Name,
    /// Result groups in source order: `%a, %b:2 = ...` gives two groups.
    pub results: Vec<ResultDef>,
    /// Result types, one per result value (sum of group counts).
    pub result_types: Vec<Type>,
    pub operands: Vec<Operand>,
    /// Operand types, one per operand, where the syntax states them; empty when it does not.
    pub operand_types: Vec<Type>,
    /// Attributes in source order (the attribute dictionary, plus keywords a custom format
    /// carries, such as `predicate`, `starttime`/`endtime`, `sym_name`).
    pub attrs: Vec<NamedAttr>,
    pub regions: Vec<Region>,
    pub successors: Vec<Successor>,
    pub span: Span,
}

/// `%name` or `%name:N` on the left of `=`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ResultDef {
    /// Including the `%` sigil.
    pub name: Name,
    pub count: u32,
    pub span: Span,
}

/// A use of an SSA value: `%name` or `%name#N`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Operand {
    /// Including the `%` sigil.
    pub name: Name,
    /// The `#N` suffix selecting one result of a multi-result group.
    pub index: Option<u32>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Region {
    pub blocks: Vec<Block>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Block {
    /// `^bb0`, or `None` for the implicit entry block.
    pub label: Option<String>,
    pub args: Vec<BlockArg>,
    pub ops: Vec<Operation>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct BlockArg {
    /// Including the `%` sigil.
    pub name: Name,
    pub ty: Type,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Successor {
    /// Including the `^` sigil.
    pub label: String,
    pub args: Vec<Operand>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct NamedAttr {
    pub name: Name,
    pub value: Attribute,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Signedness {
    Signless,
    Signed,
    Unsigned,
}

/// A Handshake extra signal: `spec: i1`, `tag: i2 (U)`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ExtraSignal {
    pub name: String,
    pub ty: Type,
    /// `(U)`: the signal travels upstream, with ready.
    pub upstream: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Type {
    Integer {
        width: u32,
        signedness: Signedness,
    },
    /// `f16`, `f32`, `f64`, `bf16`, ...: the bit width.
    Float(u32),
    Index,
    None,
    MemRef {
        /// `None` for a dynamic dimension `?`.
        shape: Vec<Option<u64>>,
        elem: Box<Type>,
        /// Layout and memory-space parameters after the element type, kept as text.
        rest: Vec<String>,
    },
    Function {
        inputs: Vec<Type>,
        results: Vec<Type>,
    },
    /// `!handshake.channel<T, [extra...]>` or the short form `<T>`.
    Channel {
        data: Box<Type>,
        extra: Vec<ExtraSignal>,
    },
    /// `!handshake.control<>` or the short form `<>`, with optional extra signals.
    Control {
        extra: Vec<ExtraSignal>,
    },
    Tuple(Vec<Type>),
    /// Any other dialect type (`!seq.clock`, `!hw.modty<...>`), kept as its full text.
    Opaque(String),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Attribute {
    /// `42 : i32`, or a bare `42` (type `None`).
    Integer {
        value: i128,
        ty: Option<Type>,
    },
    /// The literal as written (`1.000000e+01`), so printing is exact; type if given.
    Float {
        text: String,
        ty: Option<Type>,
    },
    Bool(bool),
    String(Name),
    Unit,
    Array(Vec<Attribute>),
    Dict(Vec<NamedAttr>),
    /// `dense<[...]>` / `dense<v>` with its element literals (flattened) and type if given.
    Dense {
        elems: Vec<Attribute>,
        ty: Option<Type>,
    },
    /// `uninitialized` (a `memref.global` without initial value).
    Uninitialized,
    /// `@a` or `@a::@b`: the path without sigils.
    SymbolRef(Vec<String>),
    Type(Type),
    /// A bare keyword used as an enum value (`sle`, `ONE_SLOT_BREAK_DV`).
    Keyword(Name),
    /// An opaque dialect attribute (`#handshake<timing {R: 1}>`, `#arith.fastmath<none>`),
    /// kept as its full text.
    Opaque(String),
}

impl Operation {
    pub fn attr(&self, name: &str) -> Option<&Attribute> {
        self.attrs.iter().find(|a| a.name == name).map(|a| &a.value)
    }

    /// The dialect prefix (`tor` for `tor.addi`).
    pub fn dialect(&self) -> &str {
        self.name.split_once('.').map_or("builtin", |(d, _)| d)
    }

    /// The number of result values (sum of result group counts).
    pub(crate) fn num_results(&self) -> usize {
        self.results.iter().map(|r| r.count as usize).sum()
    }

    /// A copy of this op with every span set to the default, for structural comparison.
    pub fn without_spans(&self) -> Operation {
        let mut op = self.clone();
        op.clear_spans();
        op
    }

    fn clear_spans(&mut self) {
        self.span = Span::default();
        self.results
            .iter_mut()
            .for_each(|r| r.span = Span::default());
        self.operands
            .iter_mut()
            .for_each(|o| o.span = Span::default());
        self.attrs.iter_mut().for_each(|a| a.clear_spans());
        for region in &mut self.regions {
            region.span = Span::default();
            for block in &mut region.blocks {
                block.span = Span::default();
                block.args.iter_mut().for_each(|a| a.span = Span::default());
                block.ops.iter_mut().for_each(Operation::clear_spans);
            }
        }
        for succ in &mut self.successors {
            succ.span = Span::default();
            succ.args.iter_mut().for_each(|o| o.span = Span::default());
        }
    }
}

impl NamedAttr {
    fn clear_spans(&mut self) {
        self.span = Span::default();
        self.value.clear_spans();
    }
}

impl Attribute {
    fn clear_spans(&mut self) {
        match self {
            Attribute::Array(items) => items.iter_mut().for_each(Attribute::clear_spans),
            Attribute::Dict(entries) => entries.iter_mut().for_each(NamedAttr::clear_spans),
            Attribute::Dense { elems, .. } => elems.iter_mut().for_each(Attribute::clear_spans),
            _ => {}
        }
    }

    pub fn as_int(&self) -> Option<i128> {
        match self {
            Attribute::Integer { value, .. } => Some(*value),
            Attribute::Bool(b) => Some(*b as i128),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Attribute::String(s) | Attribute::Keyword(s) => Some(s),
            _ => None,
        }
    }
}

impl ModuleAst {
    pub fn without_spans(&self) -> ModuleAst {
        ModuleAst {
            ops: self.ops.iter().map(Operation::without_spans).collect(),
            span: Span::default(),
        }
    }
}

impl Type {
    pub fn int(width: u32) -> Type {
        Type::Integer {
            width,
            signedness: Signedness::Signless,
        }
    }
}
