//! BlockHandler: per-function segmentation into a block tree, with the cross-block FIFOs,
//! the token chain and the input distribution of seed 003.
//!
//! A *container* is an op list run as a unit: the function body, a loop body, an `if`
//! branch. It is split by control flow into sub-blocks (`block_N` straight-line,
//! `loop_N` for `tor.for`, `if_N` for `tor.if`; `tor.while` is rejected), chained by 1-bit
//! token FIFOs `<P>token_fifo_b<i>_b<i+1>`. A value defined in sub-block i and used in
//! sub-block j > i (at any nesting depth) travels in `<P>fifo_b<i>_b<j>_v<k>`, one FIFO per
//! consumer block. Values entering the container from its parent are dequeued once by
//! `<P>input_distribution` and sent to a dedicated `<P>dist_to_block<j>_fifo_v<k>` per
//! consuming sub-block (unused ones are dequeued and discarded); its `<P>dist_token_fifo`
//! starts the first sub-block. `tor.yield` values leave through exit FIFOs named by the
//! parent. The function body is the top container: its first block starts on a RoCC command.
//!
//! The function's arguments are the command's register fields (`%arg0` rs1, `%arg1` rs2,
//! `%arg2` rd): values produced where the command is taken (the first block's first slot,
//! or `<P>start_rule` when the body starts with a loop or `if`) and carried like any other
//! value, so the response's `rd` travels with its command. `aps.readrf %argK` reads the
//! register's *data* from the command and does not use the argument as a value.
//!
//! Every [`BlockInfo`] carries what its handler needs (ops, ports, token FIFOs, names), so
//! [`crate::aps::handle_block`] runs from one block alone.

use super::context::{DesignContext, const_value, type_width};
use crate::diag::{Diagnostic, Span};
use crate::mlir::ast::{Attribute, Operation};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

pub type BlockId = usize;

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Port {
    pub value: String,
    pub fifo: String,
    pub width: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum TokenIn {
    Fifo(String),
    /// The function's first block: a RoCC command starts it.
    Rocc,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct FifoDecl {
    pub name: String,
    pub width: u32,
    pub depth: u32,
}

/// `(value, def block, use block, fifo)`: a value crossing blocks; `from` is `None` when the
/// value enters the container from its parent (distribution).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CrossBlockEdge {
    pub value: String,
    pub from: Option<BlockId>,
    pub to: Option<BlockId>,
    pub fifo: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Exit {
    pub value: String,
    /// `None` for a virtual value (materialised by the exit rule).
    pub fifo: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Distribution {
    pub rule: String,
    pub token_fifo: String,
    /// For each container input (in order), the FIFOs it is copied into (empty: discarded).
    pub routes: Vec<Vec<String>>,
}

/// The rule that takes the RoCC command when the function's first block cannot (it is a
/// loop or an `if`): it starts that block and sends the command's argument values where
/// they are used.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Start {
    pub rule: String,
    pub token_fifo: String,
    pub outputs: Vec<Port>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Container {
    pub prefix: String,
    pub children: Vec<BlockId>,
    pub token_in: TokenIn,
    pub token_out: Option<String>,
    pub inputs: Vec<Port>,
    pub dist: Option<Distribution>,
    pub exits: Vec<Exit>,
    /// When the function's first block cannot take the command itself.
    pub start: Option<Start>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct LoopInfo {
    pub loop_name: String,
    pub iv: String,
    pub width: u32,
    pub lb: String,
    pub ub: String,
    pub step: String,
    pub inits: Vec<String>,
    pub results: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum BlockKind {
    Function {
        body: Container,
    },
    Basic {
        ops: Vec<Operation>,
    },
    Loop {
        info: LoopInfo,
        body: Container,
    },
    If {
        cond: String,
        then_c: Container,
        else_c: Option<Container>,
        results: Vec<String>,
    },
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct BlockInfo {
    pub id: BlockId,
    pub name: String,
    pub parent: Option<BlockId>,
    pub span: Span,
    pub token_in: TokenIn,
    pub token_out: Option<String>,
    pub inputs: Vec<Port>,
    pub outputs: Vec<Port>,
    pub kind: BlockKind,
}

/// Function-wide value facts used by the handlers.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ValueTable {
    pub widths: BTreeMap<String, u32>,
    /// Design-level and function-local constants: (value masked to width, width).
    pub consts: BTreeMap<String, (u128, u32)>,
    /// `memref.get_global` results → global symbol.
    pub globals: BTreeMap<String, String>,
    /// Function arguments (register indices: rs1, rs2, rd), in order.
    pub args: Vec<String>,
    /// `aps.spm.load_req` tokens → bank symbol.
    pub req_banks: BTreeMap<String, String>,
}

impl ValueTable {
    pub fn is_virtual(&self, v: &str) -> bool {
        self.consts.contains_key(v)
            || self.globals.contains_key(v)
            || self.widths.get(v).is_some_and(|w| *w == 0)
    }

    /// The command field argument `v` stands for (`rs1`, `rs2`, `rd`), if it is one.
    pub fn arg_field(&self, v: &str) -> Option<&'static str> {
        let k = self.args.iter().position(|a| a == v)?;
        ["rs1", "rs2", "rd"].get(k).copied()
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Segmentation {
    pub func: String,
    /// The `tor.func` (for diagnostics about the function as a whole).
    pub span: Span,
    /// `inst<id>_` with `id` = [`crate::rules::Instruction::id`], added once at the
    /// outermost level.
    pub prefix: String,
    pub opcode: u32,
    pub funct7: u32,
    pub blocks: Vec<BlockInfo>,
    pub edges: Vec<CrossBlockEdge>,
    /// Every cross-block data and token FIFO (block-internal ones belong to the handlers).
    pub fifos: Vec<FifoDecl>,
    pub values: ValueTable,
}

/// Name of value `k` of a result group.
pub fn result_names(op: &Operation) -> Vec<String> {
    let mut out = Vec::new();
    for r in &op.results {
        if r.count <= 1 {
            out.push(r.name.to_string());
        } else {
            out.extend((0..r.count).map(|i| format!("{}#{i}", r.name)));
        }
    }
    out
}

pub fn operand_name(o: &crate::mlir::ast::Operand) -> String {
    match o.index {
        Some(i) => format!("{}#{i}", o.name),
        None => o.name.to_string(),
    }
}

/// Values used in `op` (operands, and free uses of its regions), minus values it defines
/// inside its regions.
pub fn free_uses(op: &Operation, out: &mut BTreeSet<String>) {
    let mut defined = BTreeSet::new();
    let mut used = BTreeSet::new();
    collect(op, &mut defined, &mut used);
    out.extend(used.into_iter().filter(|v| !defined.contains(v)));
}

/// Free uses of a block's ops taken together (values defined by sibling ops excluded).
pub fn block_free_uses(block: &crate::mlir::ast::Block) -> BTreeSet<String> {
    let mut defined: BTreeSet<String> = block.args.iter().map(|a| a.name.to_string()).collect();
    let mut used = BTreeSet::new();
    for op in &block.ops {
        defined.extend(result_names(op));
        collect(op, &mut defined, &mut used);
    }
    used.into_iter().filter(|v| !defined.contains(v)).collect()
}

fn collect(op: &Operation, defined: &mut BTreeSet<String>, used: &mut BTreeSet<String>) {
    // `aps.readrf %argK` reads register K's data from the command: no value use.
    if op.name != "aps.readrf" {
        used.extend(op.operands.iter().map(operand_name));
    }
    for s in &op.successors {
        used.extend(s.args.iter().map(operand_name));
    }
    for r in &op.regions {
        for b in &r.blocks {
            defined.extend(b.args.iter().map(|a| a.name.to_string()));
            for inner in &b.ops {
                defined.extend(result_names(inner));
                collect(inner, defined, used);
            }
        }
    }
}

fn is_structural(name: &str) -> bool {
    matches!(
        name,
        "arith.constant"
            | "memref.get_global"
            | "tor.timegraph"
            | "tor.succ"
            | "tor.return"
            | "tor.yield"
    )
}

fn int_attr(op: &Operation, name: &str) -> Option<i128> {
    op.attr(name).and_then(Attribute::as_int)
}

struct Builder {
    seg: Segmentation,
}

enum Piece<'a> {
    Basic(Vec<&'a Operation>),
    Ctl(&'a Operation),
}

/// Segment one `tor.func` into its block tree.
pub fn segment_function(ctx: &DesignContext, func: &Operation) -> Result<Segmentation, Diagnostic> {
    if func.name != "tor.func" {
        return Err(Diagnostic::error(
            func.span,
            format!("expected `tor.func`, found `{}`", func.name),
        ));
    }
    let name = match func.attr("sym_name") {
        Some(Attribute::String(s)) => s.to_string(),
        Some(Attribute::SymbolRef(p)) => p.join("::"),
        _ => return Err(Diagnostic::error(func.span, "`tor.func` without a name")),
    };
    let opcode = int_attr(func, "opcode").ok_or_else(|| {
        Diagnostic::error(
            func.span,
            format!("function `@{name}` has no `opcode` attribute"),
        )
    })?;
    let funct7 = int_attr(func, "funct7").unwrap_or(0);
    if !(0..128).contains(&opcode) || !(0..128).contains(&funct7) {
        return Err(Diagnostic::error(
            func.span,
            format!(
                "function `@{name}`: opcode {opcode} / funct7 {funct7} is not a RISC-V instruction identity (both are 7-bit fields)"
            ),
        ));
    }
    let entry = func
        .regions
        .first()
        .and_then(|r| r.blocks.first())
        .ok_or_else(|| Diagnostic::error(func.span, "`tor.func` without a body"))?;
    let prefix = format!(
        "inst{}_",
        crate::rules::Instruction::id(opcode as u32, funct7 as u32)
    );
    let mut values = ValueTable {
        consts: ctx.constants.clone(),
        args: entry.args.iter().map(|a| a.name.to_string()).collect(),
        ..ValueTable::default()
    };
    for a in &entry.args {
        values
            .widths
            .insert(a.name.to_string(), type_width(&a.ty).max(1));
    }
    for op in &entry.ops {
        scan_values(op, &mut values)?;
    }
    let seg = Segmentation {
        func: name,
        span: func.span,
        prefix: prefix.clone(),
        opcode: opcode as u32,
        funct7: funct7 as u32,
        blocks: Vec::new(),
        edges: Vec::new(),
        fifos: Vec::new(),
        values,
    };
    let mut b = Builder { seg };
    let root = b.alloc(None, func.span, prefix.trim_end_matches('_').to_string());
    let body = b.container(
        root,
        prefix,
        &entry.ops,
        Vec::new(),
        TokenIn::Rocc,
        None,
        &[],
        &|_| String::new(),
    )?;
    b.seg.blocks[root].kind = BlockKind::Function { body };
    Ok(b.seg)
}

fn scan_values(op: &Operation, t: &mut ValueTable) -> Result<(), Diagnostic> {
    let names = result_names(op);
    for (n, ty) in names.iter().zip(&op.result_types) {
        t.widths.insert(n.clone(), type_width(ty));
    }
    match op.name.as_str() {
        "arith.constant" => {
            if let (Some(n), Some(ty)) = (names.first(), op.result_types.first()) {
                let w = type_width(ty).max(1);
                let v = const_value(op)
                    .ok_or_else(|| Diagnostic::error(op.span, "unsupported constant value"))?;
                t.consts
                    .insert(n.clone(), (crate::rules::mask(v as u128, w), w));
            }
        }
        "memref.get_global" => {
            let g = match op.attr("name") {
                Some(Attribute::SymbolRef(p)) => p.last().cloned(),
                Some(Attribute::String(s)) => Some(s.to_string()),
                _ => None,
            }
            .ok_or_else(|| Diagnostic::error(op.span, "`memref.get_global` without a symbol"))?;
            if let Some(n) = names.first() {
                t.globals.insert(n.clone(), g);
            }
        }
        "aps.spm.load_req" => {
            if let (Some(n), Some(bank)) = (names.first(), op.operands.first()) {
                let bank = t
                    .globals
                    .get(&operand_name(bank))
                    .cloned()
                    .unwrap_or_default();
                t.req_banks.insert(n.clone(), bank);
            }
        }
        _ => {}
    }
    for r in &op.regions {
        for b in &r.blocks {
            for a in &b.args {
                t.widths.insert(a.name.to_string(), type_width(&a.ty));
            }
            for inner in &b.ops {
                scan_values(inner, t)?;
            }
        }
    }
    Ok(())
}

impl Builder {
    fn alloc(&mut self, parent: Option<BlockId>, span: Span, name: String) -> BlockId {
        let id = self.seg.blocks.len();
        self.seg.blocks.push(BlockInfo {
            id,
            name,
            parent,
            span,
            token_in: TokenIn::Rocc,
            token_out: None,
            inputs: Vec::new(),
            outputs: Vec::new(),
            kind: BlockKind::Basic { ops: Vec::new() },
        });
        id
    }

    fn fifo(&mut self, name: &str, width: u32) {
        self.seg.fifos.push(FifoDecl {
            name: name.to_string(),
            width: width.max(1),
            depth: 1,
        });
    }

    /// Declare `fifo` carrying `v` into block `to` (from block `from`, or from outside the
    /// container): the FIFO, the edge and the consumer's input port; returns the port.
    fn carry(
        &mut self,
        v: &str,
        width: u32,
        fifo: String,
        from: Option<BlockId>,
        to: BlockId,
        inputs: &mut Vec<Port>,
    ) -> Port {
        self.fifo(&fifo, width);
        self.seg.edges.push(CrossBlockEdge {
            value: v.to_string(),
            from,
            to: Some(to),
            fifo: fifo.clone(),
        });
        let port = Port {
            value: v.to_string(),
            fifo,
            width,
        };
        inputs.push(port.clone());
        port
    }

    fn width(&self, v: &str) -> u32 {
        self.seg.values.widths.get(v).copied().unwrap_or(32).max(1)
    }

    fn is_virtual(&self, v: &str) -> bool {
        self.seg.values.is_virtual(v)
    }

    /// Build one container; `inputs` are FIFOs the parent fills, `exit_values` the
    /// `tor.yield` operands with `exit_fifo(k)` naming their exit FIFOs.
    #[allow(clippy::too_many_arguments)]
    fn container(
        &mut self,
        parent: BlockId,
        prefix: String,
        ops: &[Operation],
        inputs: Vec<Port>,
        token_in: TokenIn,
        token_out: Option<String>,
        exit_values: &[(String, Span)],
        exit_fifo: &dyn Fn(usize) -> String,
    ) -> Result<Container, Diagnostic> {
        let pieces = split(ops)?;
        let mut names = Vec::new();
        let mut uses: Vec<BTreeSet<String>> = Vec::new();
        let mut def_of: BTreeMap<String, usize> = BTreeMap::new();
        for (n, p) in pieces.iter().enumerate() {
            let (label, span) = match p {
                Piece::Basic(ops) => ("block", ops[0].span),
                Piece::Ctl(op) if op.name == "tor.for" => ("loop", op.span),
                Piece::Ctl(op) => ("if", op.span),
            };
            names.push((format!("{prefix}{label}_{n}"), span));
            // One pass per piece: values defined and used inside the same piece need no FIFO.
            let list: Vec<&Operation> = match p {
                Piece::Basic(ops) => ops.clone(),
                Piece::Ctl(op) => vec![*op],
            };
            let (mut defined, mut used) = (BTreeSet::new(), BTreeSet::new());
            for op in &list {
                for r in result_names(op) {
                    def_of.insert(r.clone(), n);
                    defined.insert(r);
                }
                collect(op, &mut defined, &mut used);
            }
            let u: BTreeSet<String> = used.into_iter().filter(|v| !defined.contains(v)).collect();
            uses.push(u.into_iter().filter(|v| !self.is_virtual(v)).collect());
        }
        let ids: Vec<BlockId> = names
            .iter()
            .map(|(name, span)| self.alloc(Some(parent), *span, name.clone()))
            .collect();
        let input_index: BTreeMap<String, usize> = inputs
            .iter()
            .enumerate()
            .map(|(i, p)| (p.value.clone(), i))
            .collect();
        let mut routes: Vec<Vec<String>> = vec![Vec::new(); inputs.len()];
        let mut block_in: Vec<Vec<Port>> = vec![Vec::new(); pieces.len()];
        let mut block_out: Vec<Vec<Port>> = vec![Vec::new(); pieces.len()];
        let mut pair_count: BTreeMap<(usize, usize), usize> = BTreeMap::new();
        let mut dist_count: BTreeMap<usize, usize> = BTreeMap::new();
        // The top container's values of the command (the function's arguments) are defined
        // where the command is taken: block 0 when it is straight-line, else the start rule.
        let at_command = token_in == TokenIn::Rocc;
        let first_basic = matches!(pieces.first(), Some(Piece::Basic(_)));
        let mut start_outputs: Vec<Port> = Vec::new();
        let mut start_count: BTreeMap<usize, usize> = BTreeMap::new();
        for (j, used) in uses.iter().enumerate() {
            for v in used {
                let width = self.width(v);
                let command_value = at_command && self.seg.values.arg_field(v).is_some();
                if command_value && !def_of.contains_key(v) && !first_basic {
                    let k = start_count.entry(j).or_default();
                    let fifo = format!("{prefix}fifo_start_b{j}_v{k}");
                    *k += 1;
                    let port = self.carry(v, width, fifo, None, ids[j], &mut block_in[j]);
                    start_outputs.push(port);
                    continue;
                }
                let def = def_of
                    .get(v)
                    .copied()
                    .or_else(|| command_value.then_some(0));
                if let Some(i) = def {
                    if i >= j {
                        continue;
                    }
                    let k = pair_count.entry((i, j)).or_default();
                    let fifo = format!("{prefix}fifo_b{i}_b{j}_v{k}");
                    *k += 1;
                    let port = self.carry(v, width, fifo, Some(ids[i]), ids[j], &mut block_in[j]);
                    block_out[i].push(port);
                } else if let Some(&x) = input_index.get(v) {
                    let k = dist_count.entry(j).or_default();
                    let fifo = format!("{prefix}dist_to_block{j}_fifo_v{k}");
                    *k += 1;
                    let port = self.carry(v, width, fifo, None, ids[j], &mut block_in[j]);
                    routes[x].push(port.fifo);
                } else {
                    let list: &[&Operation] = match &pieces[j] {
                        Piece::Basic(ops) => ops,
                        Piece::Ctl(op) => std::slice::from_ref(op),
                    };
                    let at = list
                        .iter()
                        .find_map(|op| use_span(op, v))
                        .unwrap_or(names[j].1);
                    return Err(Diagnostic::error(
                        at,
                        format!("value `{v}` is not defined before this use"),
                    ));
                }
            }
        }
        let mut exits = Vec::new();
        for (k, (v, span)) in exit_values.iter().enumerate() {
            if self.is_virtual(v) {
                exits.push(Exit {
                    value: v.clone(),
                    fifo: None,
                });
                continue;
            }
            let fifo = exit_fifo(k);
            let width = self.width(v);
            self.fifo(&fifo, width);
            if let Some(&i) = def_of.get(v) {
                block_out[i].push(Port {
                    value: v.clone(),
                    fifo: fifo.clone(),
                    width,
                });
                self.seg.edges.push(CrossBlockEdge {
                    value: v.clone(),
                    from: Some(ids[i]),
                    to: None,
                    fifo: fifo.clone(),
                });
            } else if let Some(&x) = input_index.get(v) {
                routes[x].push(fifo.clone());
            } else {
                return Err(Diagnostic::error(
                    *span,
                    format!("yielded value `{v}` is not available"),
                ));
            }
            exits.push(Exit {
                value: v.clone(),
                fifo: Some(fifo),
            });
        }
        let mut first_token = token_in.clone();
        let mut dist = None;
        let mut start = None;
        if !inputs.is_empty() && !pieces.is_empty() {
            let token_fifo = format!("{prefix}dist_token_fifo");
            self.fifo(&token_fifo, 1);
            first_token = TokenIn::Fifo(token_fifo.clone());
            dist = Some(Distribution {
                rule: format!("{prefix}input_distribution"),
                token_fifo,
                routes,
            });
        }
        if token_in == TokenIn::Rocc && !matches!(pieces.first(), Some(Piece::Basic(_)) | None) {
            let fifo = format!("{prefix}start_token_fifo");
            self.fifo(&fifo, 1);
            first_token = TokenIn::Fifo(fifo.clone());
            start = Some(Start {
                rule: format!("{prefix}start_rule"),
                token_fifo: fifo,
                outputs: start_outputs,
            });
        }
        for (n, piece) in pieces.iter().enumerate() {
            let tin = if n == 0 {
                first_token.clone()
            } else {
                TokenIn::Fifo(format!("{prefix}token_fifo_b{}_b{n}", n - 1))
            };
            let tout = if n + 1 == pieces.len() {
                token_out.clone()
            } else {
                let f = format!("{prefix}token_fifo_b{n}_b{}", n + 1);
                self.fifo(&f, 1);
                Some(f)
            };
            let id = ids[n];
            {
                let b = &mut self.seg.blocks[id];
                b.token_in = tin;
                b.token_out = tout;
                b.inputs = std::mem::take(&mut block_in[n]);
                b.outputs = std::mem::take(&mut block_out[n]);
            }
            let kind = match piece {
                Piece::Basic(ops) => BlockKind::Basic {
                    ops: ops.iter().map(|o| (*o).clone()).collect(),
                },
                Piece::Ctl(op) if op.name == "tor.for" => self.loop_kind(id, op)?,
                Piece::Ctl(op) => self.if_kind(id, op)?,
            };
            self.seg.blocks[id].kind = kind;
        }
        Ok(Container {
            prefix,
            children: ids,
            token_in,
            token_out,
            inputs,
            dist,
            exits,
            start,
        })
    }

    fn body_inputs(
        &mut self,
        id: BlockId,
        first: &[String],
        region_uses: BTreeSet<String>,
        name: &dyn Fn(usize) -> String,
    ) -> Vec<Port> {
        let mut vals: Vec<String> = first.to_vec();
        for v in region_uses {
            if !self.is_virtual(&v) && !vals.contains(&v) {
                vals.push(v);
            }
        }
        let _ = id;
        vals.into_iter()
            .enumerate()
            .map(|(k, v)| {
                let width = self.width(&v);
                let fifo = name(k);
                self.fifo(&fifo, width);
                Port {
                    value: v,
                    fifo,
                    width,
                }
            })
            .collect()
    }

    fn loop_kind(&mut self, id: BlockId, op: &Operation) -> Result<BlockKind, Diagnostic> {
        let loop_name = format!("{}_loop", self.seg.blocks[id].name);
        let body = op
            .regions
            .first()
            .and_then(|r| r.blocks.first())
            .ok_or_else(|| Diagnostic::error(op.span, "`tor.for` without a body"))?;
        if op.operands.len() < 3 {
            return Err(Diagnostic::error(
                op.span,
                "`tor.for` needs lower bound, upper bound and step",
            ));
        }
        let iv = body.args.first().ok_or_else(|| {
            Diagnostic::error(op.span, "`tor.for` body has no induction variable")
        })?;
        let iters: Vec<String> = body
            .args
            .iter()
            .skip(1)
            .map(|a| a.name.to_string())
            .collect();
        let inits: Vec<String> = op.operands[3..].iter().map(operand_name).collect();
        if inits.len() != iters.len() {
            return Err(Diagnostic::error(
                op.span,
                format!(
                    "`tor.for` has {} iter_args but {} initial values",
                    iters.len(),
                    inits.len()
                ),
            ));
        }
        let results = result_names(op);
        let yields = yield_values(body);
        if yields.len() != iters.len() || results.len() != iters.len() {
            return Err(Diagnostic::error(
                op.span,
                "`tor.for` iter_args, yielded values and results must have the same count",
            ));
        }
        let region_uses = block_free_uses(body);
        let mut first = vec![iv.name.to_string()];
        first.extend(iters.iter().cloned());
        let ln = loop_name.clone();
        let inputs = self.body_inputs(id, &first, region_uses, &|k| {
            format!("{ln}_loop_to_body_fifo_{k}")
        });
        let tin = format!("{loop_name}_token_entry_to_body");
        let tout = format!("{loop_name}_token_body_to_next");
        self.fifo(&tin, 1);
        self.fifo(&tout, 1);
        let ln = loop_name.clone();
        let c = self.container(
            id,
            format!("{loop_name}_"),
            &body.ops,
            inputs,
            TokenIn::Fifo(tin),
            Some(tout),
            &yields,
            &|k| format!("{ln}_yield_fifo_{k}"),
        )?;
        let step = &op.operands[2];
        if let Some((v, w)) = self.seg.values.consts.get(&operand_name(step))
            && crate::rules::mask(*v, (*w).min(type_width(&iv.ty).max(1))) == 0
        {
            return Err(Diagnostic::error(
                step.span,
                "loop step is 0: the loop would never end",
            ));
        }
        let info = LoopInfo {
            loop_name,
            iv: iv.name.to_string(),
            width: type_width(&iv.ty).max(1),
            lb: operand_name(&op.operands[0]),
            ub: operand_name(&op.operands[1]),
            step: operand_name(&op.operands[2]),
            inits,
            results,
        };
        Ok(BlockKind::Loop { info, body: c })
    }

    fn if_kind(&mut self, id: BlockId, op: &Operation) -> Result<BlockKind, Diagnostic> {
        let name = self.seg.blocks[id].name.clone();
        let cond = op
            .operands
            .first()
            .map(operand_name)
            .ok_or_else(|| Diagnostic::error(op.span, "`tor.if` without a condition"))?;
        let results = result_names(op);
        if !results.is_empty() && op.regions.len() < 2 {
            return Err(Diagnostic::error(
                op.span,
                "`tor.if` with results needs an else region",
            ));
        }
        let mut branches = Vec::new();
        for (r, tag) in op.regions.iter().zip(["then", "else"]) {
            let empty = crate::mlir::ast::Block {
                label: None,
                args: Vec::new(),
                ops: Vec::new(),
                span: r.span,
            };
            let block = r.blocks.first().unwrap_or(&empty);
            let yields = yield_values(block);
            if yields.len() != results.len() {
                return Err(Diagnostic::error(
                    r.span,
                    format!(
                        "`tor.if` {tag} region yields {} values for {} results",
                        yields.len(),
                        results.len()
                    ),
                ));
            }
            let uses = block_free_uses(block);
            let n2 = name.clone();
            let inputs = self.body_inputs(id, &[], uses, &|k| format!("{n2}_{tag}in{k}"));
            let tin = format!("{name}_{tag}tok");
            let tout = format!("{name}_{tag}done");
            self.fifo(&tin, 1);
            self.fifo(&tout, 1);
            let n3 = name.clone();
            let c = self.container(
                id,
                format!("{name}_{tag}_"),
                &block.ops,
                inputs,
                TokenIn::Fifo(tin),
                Some(tout),
                &yields,
                &|k| format!("{n3}_{tag}res{k}"),
            )?;
            branches.push(Some(c));
        }
        let mut it = branches.into_iter();
        let then_c = it
            .next()
            .flatten()
            .ok_or_else(|| Diagnostic::error(op.span, "`tor.if` without a then region"))?;
        let else_c = it.next().flatten();
        Ok(BlockKind::If {
            cond,
            then_c,
            else_c,
            results,
        })
    }
}

/// The span of the first use of value `v` in `op` (operands, then nested regions).
fn use_span(op: &Operation, v: &str) -> Option<Span> {
    if op.name != "aps.readrf"
        && let Some(o) = op.operands.iter().find(|o| operand_name(o) == v)
    {
        return Some(o.span);
    }
    op.regions
        .iter()
        .flat_map(|r| &r.blocks)
        .flat_map(|b| &b.ops)
        .find_map(|inner| use_span(inner, v))
}

fn yield_values(block: &crate::mlir::ast::Block) -> Vec<(String, Span)> {
    block
        .ops
        .iter()
        .rev()
        .find(|o| o.name == "tor.yield")
        .map(|y| {
            y.operands
                .iter()
                .map(|o| (operand_name(o), o.span))
                .collect()
        })
        .unwrap_or_default()
}

fn split(ops: &[Operation]) -> Result<Vec<Piece<'_>>, Diagnostic> {
    let mut pieces = Vec::new();
    let mut cur: Vec<&Operation> = Vec::new();
    for op in ops {
        match op.name.as_str() {
            "tor.while" => {
                return Err(Diagnostic::error(
                    op.span,
                    "`tor.while` is not supported (only `tor.for` loops with bounds)",
                ));
            }
            "scf.for" | "scf.if" | "scf.while" => {
                return Err(Diagnostic::error(
                    op.span,
                    format!(
                        "`{}` must be lowered to TOR before rule generation",
                        op.name
                    ),
                ));
            }
            "tor.for" | "tor.if" => {
                if !cur.is_empty() {
                    pieces.push(Piece::Basic(std::mem::take(&mut cur)));
                }
                pieces.push(Piece::Ctl(op));
            }
            n if is_structural(n) => {}
            _ => cur.push(op),
        }
    }
    if !cur.is_empty() {
        pieces.push(Piece::Basic(cur));
    }
    Ok(pieces)
}
