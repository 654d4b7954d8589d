//! The APS flow: scheduled TOR/APS MLIR (one `tor.func` per RISC-V custom instruction) to
//! the rule IR of [`crate::rules`].
//!
//! The flow is split at the granularities a build daemon caches:
//! - [`design_context`]: design-level facts (memory map, globals, hoisted constants);
//! - [`segment_function`]: one function's block tree (BlockHandler): straight-line blocks,
//!   `tor.for` loops and `tor.if` conditionals, cross-block FIFOs, the token chain and the
//!   per-block input/output ports, input distribution per container (seed 003);
//! - [`handle_block`]: one block's rules (BBHandler, LoopHandler, IfHandler);
//! - [`assemble`]: the function's [`rules::Circuit`].
//!
//! [`interp`] is the untimed reference semantics (TOR interpreter) and [`workload`] writes random
//! valid scheduled modules for differential testing against [`rules::sim`].
//!
//! Assumptions: values are named by their SSA names (unique within a function); constants,
//! `memref.get_global` results, function arguments (register indices) and request tokens are
//! *virtual* (materialised where used, never carried by FIFOs).

pub mod context;
pub mod handlers;
pub mod interp;
pub mod memory;
mod ops;
pub mod segment;
pub mod workload;

pub use context::{DesignContext, design_context, function_named, functions};
pub use handlers::{BlockRules, handle_block};
pub use segment::{BlockId, Segmentation, segment_function};

use crate::diag::Diagnostic;
use crate::mlir::ast::{ModuleAst, Operation};
use crate::rules::{self, Circuit};

/// Assemble one function's circuit from its segmentation and per-block handler outputs.
pub fn assemble(ctx: &DesignContext, seg: &Segmentation, blocks: &[BlockRules]) -> Circuit {
    assemble_owned(ctx, seg, blocks.to_vec())
}

/// [`assemble`] taking the handler outputs by value (no copies of the rule bodies).
fn assemble_owned(ctx: &DesignContext, seg: &Segmentation, blocks: Vec<BlockRules>) -> Circuit {
    let mut c = Circuit {
        name: seg.func.clone(),
        ..Circuit::default()
    };
    c.instances.extend(ctx.shared_instances());
    c.instances.push(rules::Instance {
        name: seg.reg_rd.clone(),
        kind: rules::InstanceKind::Reg { width: 5, init: 0 },
    });
    for f in &seg.fifos {
        c.instances.push(rules::Instance {
            name: f.name.clone(),
            kind: rules::InstanceKind::Fifo {
                width: f.width,
                depth: f.depth,
            },
        });
    }
    for b in blocks {
        c.instances.extend(b.instances);
        c.rules.extend(b.rules);
        c.precedence.extend(b.precedence);
    }
    // Consumers before producers: later-generated rules (later segments, later slots) are
    // tried first, so a FIFO drained in a cycle can be refilled in the same cycle.
    c.schedule = c.rules.iter().rev().map(|r| r.name.clone()).collect();
    c
}

/// The whole flow for one function.
pub fn build_function(ctx: &DesignContext, func: &Operation) -> Result<Circuit, Diagnostic> {
    let seg = segment_function(ctx, func)?;
    let mut blocks = Vec::with_capacity(seg.blocks.len());
    for id in 0..seg.blocks.len() {
        blocks.push(handle_block(ctx, &seg, id)?);
    }
    Ok(assemble_owned(ctx, &seg, blocks))
}

/// The whole flow for a module: one circuit per function, in source order.
pub fn build_module(module: &ModuleAst) -> Result<Vec<Circuit>, Diagnostic> {
    let ctx = design_context(module)?;
    functions(module)
        .into_iter()
        .map(|f| build_function(&ctx, f))
        .collect()
}

/// All functions merged into one circuit (shared instances once), as `kiln build` writes it.
pub fn build_file_circuit(name: &str, circuits: Vec<Circuit>) -> Circuit {
    let mut all = Circuit {
        name: name.to_string(),
        ..Circuit::default()
    };
    let mut known = std::collections::HashSet::new();
    for c in circuits {
        let fresh = c
            .instances
            .into_iter()
            .filter(|i| known.insert(i.name.clone()));
        all.instances.extend(fresh);
        all.rules.extend(c.rules);
        all.precedence.extend(c.precedence);
        all.schedule.extend(c.schedule);
    }
    all
}

/// The files `kiln build` writes for one module.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct FileOutputs {
    /// `<stem>.cmt2.mlir`: equal to `rules::emit_cmt2` of the merged circuit.
    pub cmt2: String,
    /// `<stem>.rules.json`: equal to `rules::to_json` of the merged circuit.
    pub json: String,
}

/// Per-function part of [`build_file`]: the circuit without its rules, plus the rules'
/// CMT2 and JSON text.
struct FunctionParts {
    circuit: Circuit,
    cmt2: String,
    json: String,
}

fn function_parts(ctx: &DesignContext, func: &Operation) -> Result<FunctionParts, Diagnostic> {
    let mut circuit = build_function(ctx, func)?;
    let cmt2 = rules::emit::cmt2_rules(&circuit.rules);
    let json = rules::emit::rules_json(&circuit.rules);
    circuit.rules.clear();
    Ok(FunctionParts {
        circuit,
        cmt2,
        json,
    })
}

/// Build every function and emit the file outputs. Functions are built and emitted in
/// parallel (scoped threads, one contiguous chunk each) and assembled in source order, so
/// the result is identical to the sequential `build_file_circuit` + emitters.
pub fn build_file(module: &ModuleAst, name: &str) -> Result<FileOutputs, Diagnostic> {
    let ctx = design_context(module)?;
    let funcs = functions(module);
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(funcs.len().max(1));
    let chunk = funcs.len().div_ceil(threads).max(1);
    let parts: Vec<Result<Vec<FunctionParts>, Diagnostic>> = std::thread::scope(|s| {
        let handles: Vec<_> = funcs
            .chunks(chunk)
            .map(|fs| {
                let ctx = &ctx;
                s.spawn(move || fs.iter().map(|f| function_parts(ctx, f)).collect())
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join().unwrap_or_else(|_| {
                    Err(Diagnostic::global_error(
                        "internal error: a build thread panicked",
                    ))
                })
            })
            .collect()
    });
    let mut all = Circuit {
        name: name.to_string(),
        ..Circuit::default()
    };
    let mut known = std::collections::HashSet::new();
    let (mut cmt2_parts, mut json_parts) = (Vec::new(), Vec::new());
    for p in parts {
        for f in p? {
            let fresh = f
                .circuit
                .instances
                .into_iter()
                .filter(|i| known.insert(i.name.clone()));
            all.instances.extend(fresh);
            all.precedence.extend(f.circuit.precedence);
            all.schedule.extend(f.circuit.schedule);
            cmt2_parts.push(f.cmt2);
            if !f.json.is_empty() {
                json_parts.push(f.json);
            }
        }
    }
    // One allocation per output: the rule texts are large, so avoid re-copying them.
    let header = rules::emit::cmt2_header(name, &all.instances);
    let footer = rules::emit::cmt2_footer(&all.precedence);
    let size = header.len() + footer.len() + cmt2_parts.iter().map(String::len).sum::<usize>();
    let mut cmt2 = String::with_capacity(size);
    cmt2.push_str(&header);
    cmt2_parts.iter().for_each(|p| cmt2.push_str(p));
    cmt2.push_str(&footer);
    let json = rules::emit::json_from_parts(&all, &json_parts);
    Ok(FileOutputs { cmt2, json })
}

/// Whether a module belongs to the APS flow (it contains a `tor.design`).
pub fn is_aps_module(module: &ModuleAst) -> bool {
    context::design_op(module).is_some()
}
