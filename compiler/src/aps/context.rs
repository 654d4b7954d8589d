//! Design-level facts of an APS module: the memory map (`aps.memorymap`), the
//! `memref.global`s (scratchpad banks and global registers) and the constants hoisted into
//! `tor.design`. Functions read these but never change them.

use crate::diag::{Diagnostic, Span};
use crate::mlir::ast::{Attribute, ModuleAst, Operation, Type};
use crate::rules::{DmaEntry, Instance, InstanceKind};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Largest scratchpad bank (elements) accepted: larger ones are input errors, not allocations.
pub(crate) const MAX_BANK_DEPTH: u64 = 1 << 20;

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct MemEntry {
    pub name: String,
    pub banks: Vec<String>,
    pub base: u32,
    pub size: u32,
    pub count: u32,
    pub cyclic: bool,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Global {
    pub name: String,
    /// Static shape; empty for a rank-0 global (a global register).
    pub(crate) shape: Vec<u64>,
    pub width: u32,
    /// Initial elements (missing ones and `uninitialized` read as 0).
    pub init: Vec<u128>,
    /// The Rocket CSR address of a CSR global (`csr_address`): read by `aps.readcsr`,
    /// written by `aps.writecsr`, never a register of the design.
    pub(crate) csr_address: Option<u32>,
    pub span: Span,
}

impl Global {
    pub fn depth(&self) -> u64 {
        self.shape.iter().product::<u64>().max(1)
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct DesignContext {
    pub(crate) design: String,
    pub(crate) entries: Vec<MemEntry>,
    pub globals: BTreeMap<String, Global>,
    /// Design-level SSA constants: name → (value masked to width, width).
    pub(crate) constants: BTreeMap<String, (u128, u32)>,
    /// The CSR lanes of the top, in lane order ([`super::csr`]).
    pub csrs: Vec<super::csr::CsrLane>,
}

/// The ops at module level: the body of a single `builtin.module`, or the top ops.
pub(crate) fn top_ops(module: &ModuleAst) -> Vec<&Operation> {
    if let [m] = module.ops.as_slice()
        && (m.name == "builtin.module" || m.name == "module")
    {
        return m
            .regions
            .iter()
            .flat_map(|r| &r.blocks)
            .flat_map(|b| &b.ops)
            .collect();
    }
    module.ops.iter().collect()
}

pub(crate) fn design_op(module: &ModuleAst) -> Option<&Operation> {
    top_ops(module).into_iter().find(|o| o.name == "tor.design")
}

pub(crate) fn region_ops(op: &Operation) -> impl Iterator<Item = &Operation> {
    op.regions
        .iter()
        .flat_map(|r| &r.blocks)
        .flat_map(|b| &b.ops)
}

/// The `tor.func`s of the design, in source order.
pub fn functions(module: &ModuleAst) -> Vec<&Operation> {
    design_op(module)
        .map(|d| region_ops(d).filter(|o| o.name == "tor.func").collect())
        .unwrap_or_default()
}

/// The `tor.func` named `@name` (its `sym_name`), if the design has one.
pub fn function_named<'m>(module: &'m ModuleAst, name: &str) -> Option<&'m Operation> {
    functions(module)
        .into_iter()
        .find(|f| matches!(f.attr("sym_name"), Some(Attribute::String(s)) if s == name))
}

pub(crate) fn type_width(t: &Type) -> u32 {
    match t {
        Type::Integer { width, .. } => *width,
        Type::Index => 64,
        Type::Float(w) => *w,
        _ => 0,
    }
}

/// The integer value of an `arith.constant` (its `value` attribute, or the first integer).
pub(crate) fn const_value(op: &Operation) -> Option<i128> {
    if let Some(v) = op.attr("value").and_then(Attribute::as_int) {
        return Some(v);
    }
    op.attrs
        .iter()
        .filter(|a| a.name != "dump")
        .find_map(|a| a.value.as_int())
}

fn int_attr(op: &Operation, name: &str) -> Result<i128, Diagnostic> {
    op.attr(name).and_then(Attribute::as_int).ok_or_else(|| {
        Diagnostic::error(op.span, format!("`{}` needs an integer `{name}`", op.name))
    })
}

fn mem_entry(op: &Operation) -> Result<MemEntry, Diagnostic> {
    let name = match op.attr("name") {
        Some(Attribute::String(s)) => s.to_string(),
        _ => return Err(Diagnostic::error(op.span, "`aps.mem_entry` needs a name")),
    };
    let banks = match op.attr("banks") {
        Some(Attribute::Array(items)) => items
            .iter()
            .map(|a| match a {
                Attribute::SymbolRef(p) => p.last().cloned().unwrap_or_default(),
                _ => String::new(),
            })
            .collect(),
        _ => {
            return Err(Diagnostic::error(
                op.span,
                "`aps.mem_entry` needs `banks([...])`",
            ));
        }
    };
    let u32_of = |v: i128| {
        u32::try_from(v).map_err(|_| Diagnostic::error(op.span, "memory map value out of range"))
    };
    Ok(MemEntry {
        name,
        banks,
        base: u32_of(int_attr(op, "base")?)?,
        size: u32_of(int_attr(op, "size")?)?,
        count: u32_of(int_attr(op, "count")?)?,
        cyclic: int_attr(op, "cyclic")? != 0,
        span: op.span,
    })
}

fn global(op: &Operation) -> Result<Global, Diagnostic> {
    let name = match op.attr("sym_name") {
        Some(Attribute::String(s)) => s.to_string(),
        Some(Attribute::SymbolRef(p)) => p.last().cloned().unwrap_or_default(),
        _ => {
            return Err(Diagnostic::error(
                op.span,
                "`memref.global` needs a symbol name",
            ));
        }
    };
    let (shape, elem) = match op.attr("type") {
        Some(Attribute::Type(Type::MemRef { shape, elem, .. })) => (shape.clone(), elem.clone()),
        _ => {
            return Err(Diagnostic::error(
                op.span,
                "`memref.global` needs a memref type",
            ));
        }
    };
    let shape: Vec<u64> = shape
        .into_iter()
        .map(|d| {
            d.ok_or_else(|| Diagnostic::error(op.span, "dynamic global shapes are not supported"))
        })
        .collect::<Result<_, _>>()?;
    let depth = shape.iter().try_fold(1u64, |acc, d| acc.checked_mul(*d));
    if depth.is_none_or(|d| d > MAX_BANK_DEPTH) {
        return Err(Diagnostic::error(
            op.span,
            format!("global `@{name}` is too large (more than {MAX_BANK_DEPTH} elements)"),
        ));
    }
    let width = type_width(&elem);
    if width == 0 || width > 64 {
        return Err(Diagnostic::error(
            op.span,
            format!("global `@{name}` needs an integer element type of at most 64 bits"),
        ));
    }
    let init = match op.attr("initial_value") {
        Some(Attribute::Dense { elems, .. }) => {
            let vals: Vec<u128> = elems
                .iter()
                .map(|e| crate::rules::mask(e.as_int().unwrap_or(0) as u128, width))
                .collect();
            let depth = shape.iter().product::<u64>().max(1) as usize;
            if vals.len() == 1 && depth > 1 {
                vec![vals[0]; depth]
            } else {
                vals
            }
        }
        _ => Vec::new(),
    };
    let csr_address = match op.attr("csr_address") {
        None => None,
        Some(a) => match a.as_int().and_then(|v| u32::try_from(v).ok()) {
            Some(v) if v <= 0xfff && shape.is_empty() && width <= 32 => Some(v),
            _ => {
                return Err(Diagnostic::error(
                    op.span,
                    format!(
                        "CSR global `@{name}` needs a rank-0 type of at most 32 bits and a `csr_address` in 0..=0xfff"
                    ),
                ));
            }
        },
    };
    Ok(Global {
        name,
        shape,
        width,
        init,
        csr_address,
        span: op.span,
    })
}

/// Collect the design-level facts; errors carry the span of the offending op. CSR lanes
/// come from the CSR globals.
pub fn design_context(module: &ModuleAst) -> Result<DesignContext, Diagnostic> {
    design_context_with(module, None)
}

/// [`design_context`] under the SoC's CSR configuration (`aps_config.yaml`), when there is
/// one: its lanes, in its order.
pub fn design_context_with(
    module: &ModuleAst,
    csr_config: Option<&super::csr::CsrConfig>,
) -> Result<DesignContext, Diagnostic> {
    let design = design_op(module)
        .ok_or_else(|| Diagnostic::error(module.span, "no `tor.design` in module"))?;
    let mut ctx = DesignContext {
        design: match design.attr("sym_name") {
            Some(Attribute::String(s)) => s.to_string(),
            _ => String::new(),
        },
        entries: Vec::new(),
        globals: BTreeMap::new(),
        constants: BTreeMap::new(),
        csrs: Vec::new(),
    };
    for op in top_ops(module) {
        if op.name == "aps.memorymap" {
            for e in region_ops(op).filter(|o| o.name == "aps.mem_entry") {
                ctx.entries.push(mem_entry(e)?);
            }
        }
    }
    for op in region_ops(design) {
        match op.name.as_str() {
            "memref.global" => {
                let g = global(op)?;
                ctx.globals.insert(g.name.clone(), g);
            }
            "arith.constant" => {
                let (Some(r), Some(t)) = (op.results.first(), op.result_types.first()) else {
                    continue;
                };
                let w = type_width(t).max(1);
                let v = const_value(op)
                    .ok_or_else(|| Diagnostic::error(op.span, "unsupported constant value"))?;
                ctx.constants
                    .insert(r.name.to_string(), (crate::rules::mask(v as u128, w), w));
            }
            _ => {}
        }
    }
    for e in &ctx.entries {
        if e.banks.is_empty() {
            return Err(Diagnostic::error(
                e.span,
                format!("memory map entry `{}` has no banks", e.name),
            ));
        }
        for b in &e.banks {
            if !ctx.globals.contains_key(b) {
                return Err(Diagnostic::error(
                    e.span,
                    format!("memory map bank `@{b}` is not a global"),
                ));
            }
        }
    }
    let csr_globals: Vec<super::csr::CsrGlobal<'_>> = (ctx.globals.values())
        .filter_map(|g| {
            Some(super::csr::CsrGlobal {
                name: &g.name,
                id: g.csr_address?,
                init: g.init.first().copied().unwrap_or(0) as u32,
                span: g.span,
            })
        })
        .collect();
    let csrs = match csr_config {
        Some(c) => super::csr::lanes_with_config(&csr_globals, c)?,
        None => super::csr::lanes_of_globals(&csr_globals)?,
    };
    ctx.csrs = csrs;
    Ok(ctx)
}

impl DesignContext {
    /// The memory entry a bank belongs to (exact bank membership, else `<entry>_` prefix).
    pub(crate) fn entry_of_bank(&self, bank: &str) -> Option<&MemEntry> {
        self.entries
            .iter()
            .find(|e| e.banks.iter().any(|b| b == bank))
            .or_else(|| {
                self.entries
                    .iter()
                    .find(|e| bank.starts_with(&format!("{}_", e.name)))
            })
    }

    pub fn elem_bytes(&self, e: &MemEntry) -> u32 {
        let w = e
            .banks
            .first()
            .and_then(|b| self.globals.get(b))
            .map(|g| g.width)
            .unwrap_or(32);
        w.div_ceil(8).max(1)
    }

    /// Whether a global is a scratchpad bank (rank ≥ 1) rather than a global register.
    pub(crate) fn is_bank(&self, name: &str) -> bool {
        self.globals.get(name).is_some_and(|g| !g.shape.is_empty())
    }

    /// The memory map as the scratchpad burst ports decode it.
    pub(crate) fn dma_entries(&self) -> Vec<DmaEntry> {
        self.entries
            .iter()
            .map(|e| DmaEntry {
                name: e.name.clone(),
                base: e.base,
                size: e.size,
                elem_bytes: self.elem_bytes(e),
                banks: e.banks.clone(),
                cyclic: e.cyclic,
            })
            .collect()
    }

    /// Instances every function of the design shares: RoCC adapter, DMA, CPU memory port,
    /// one bank per rank-1 global and one register per rank-0 global.
    pub(crate) fn shared_instances(&self) -> Vec<Instance> {
        let mut out = vec![
            Instance {
                name: "rocc_adapter".into(),
                kind: InstanceKind::Rocc,
            },
            Instance {
                name: "dma".into(),
                kind: InstanceKind::Dma {
                    entries: self.dma_entries(),
                },
            },
            Instance {
                name: "hellacache_adapter".into(),
                kind: InstanceKind::MemPort,
            },
        ];
        for lane in &self.csrs {
            out.push(Instance {
                name: lane.instance(),
                kind: InstanceKind::Csr {
                    id: lane.id,
                    mask: lane.mask,
                    init: lane.init,
                },
            });
        }
        for g in self.globals.values().filter(|g| g.csr_address.is_none()) {
            let kind = if g.shape.is_empty() {
                InstanceKind::Reg {
                    width: g.width,
                    init: g.init.first().copied().unwrap_or(0),
                }
            } else {
                InstanceKind::Bank {
                    width: g.width,
                    depth: g.depth() as u32,
                    init: g.init.clone(),
                }
            };
            let name = if g.shape.is_empty() {
                format!("glbl_reg_{}", g.name)
            } else {
                g.name.clone()
            };
            out.push(Instance { name, kind });
        }
        out
    }
}
