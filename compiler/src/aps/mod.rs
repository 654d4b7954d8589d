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

use crate::diag::{Diagnostic, Span};
use crate::mlir::ast::{ModuleAst, Operation};
use crate::rules::{self, Circuit};

/// Assemble one function's circuit from its segmentation and per-block handler outputs.
pub fn assemble(ctx: &DesignContext, seg: &Segmentation, blocks: &[BlockRules]) -> Circuit {
    assemble_owned(ctx, seg, blocks.to_vec())
}

/// [`assemble`] taking the handler outputs by value (no copies of the rule bodies).
fn assemble_owned(ctx: &DesignContext, seg: &Segmentation, blocks: Vec<BlockRules>) -> Circuit {
    let shared = ctx.shared_instances();
    // Sized up front: these vectors are large, and growing them re-copies them.
    let instances =
        shared.len() + seg.fifos.len() + blocks.iter().map(|b| b.instances.len()).sum::<usize>();
    let rule_count = blocks.iter().map(|b| b.rules.len()).sum::<usize>();
    let mut c = Circuit {
        name: seg.func.clone(),
        instructions: Vec::with_capacity(1),
        instances: Vec::with_capacity(instances),
        rules: Vec::with_capacity(rule_count),
        precedence: Vec::with_capacity(blocks.iter().map(|b| b.precedence.len()).sum()),
        schedule: Vec::with_capacity(rule_count),
    };
    c.instances.extend(shared);
    c.instructions.push(rules::Instruction {
        function: seg.func.clone(),
        opcode: seg.opcode,
        funct7: seg.funct7,
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

/// The whole flow for a module: one circuit per function, in source order. Two functions
/// with one instruction identity are an error (see [`identity_diagnostics`]).
pub fn build_module(module: &ModuleAst) -> Result<Vec<Circuit>, Diagnostic> {
    let ctx = design_context(module)?;
    let circuits: Vec<Circuit> = functions(module)
        .into_iter()
        .map(|f| build_function(&ctx, f))
        .collect::<Result<_, _>>()?;
    let spans: Vec<Span> = functions(module).iter().map(|f| f.span).collect();
    let ids = instruction_spans(&circuits, &spans);
    if let Some(e) = identity_diagnostics(&ids)
        .into_iter()
        .find(|d| d.is_error())
    {
        return Err(e);
    }
    Ok(circuits)
}

/// Each circuit's instructions with the span of its function.
fn instruction_spans(circuits: &[Circuit], spans: &[Span]) -> Vec<(rules::Instruction, Span)> {
    circuits
        .iter()
        .zip(spans)
        .flat_map(|(c, s)| c.instructions.iter().map(move |i| (i.clone(), *s)))
        .collect()
}

/// Checks of the instruction identities of a design, in source order: a second function
/// with the `(opcode, funct7)` of an earlier one is an error at the second, with a note at
/// the first (they would share the command route and every name); an opcode outside the
/// custom opcodes (custom-0..3: 0x0b, 0x2b, 0x5b, 0x7b) is a warning, as no standard
/// RISC-V core hands such an instruction to a RoCC accelerator.
pub fn identity_diagnostics(functions: &[(rules::Instruction, Span)]) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let mut seen: std::collections::HashMap<(u32, u32), (&str, Span)> =
        std::collections::HashMap::with_capacity(functions.len());
    for (i, span) in functions {
        if !rules::CUSTOM_OPCODES.contains(&i.opcode) {
            out.push(Diagnostic::warning(
                *span,
                format!(
                    "function `@{}`: opcode {:#04x} is not a custom opcode (custom-0..3: 0x0b, 0x2b, 0x5b, 0x7b)",
                    i.function, i.opcode
                ),
            ));
        }
        match seen.get(&(i.opcode, i.funct7)) {
            Some((first, at)) => out.push(
                Diagnostic::error(
                    *span,
                    format!(
                        "functions `@{first}` and `@{}` have the same instruction identity (opcode {:#04x}, funct7 {})",
                        i.function, i.opcode, i.funct7
                    ),
                )
                .with_related(*at, format!("`@{first}` is defined here")),
            ),
            None => {
                seen.insert((i.opcode, i.funct7), (&i.function, *span));
            }
        }
    }
    out
}

/// All functions merged into one circuit (shared instances once), as `kiln build` writes it.
pub fn build_file_circuit(name: &str, circuits: Vec<Circuit>) -> Circuit {
    let count = |f: fn(&Circuit) -> usize| circuits.iter().map(f).sum::<usize>();
    let mut all = Circuit {
        name: name.to_string(),
        instructions: Vec::with_capacity(count(|c| c.instructions.len())),
        instances: Vec::with_capacity(count(|c| c.instances.len())),
        rules: Vec::with_capacity(count(|c| c.rules.len())),
        precedence: Vec::with_capacity(count(|c| c.precedence.len())),
        schedule: Vec::with_capacity(count(|c| c.schedule.len())),
    };
    let mut known = crate::fxhash::FxHashSet::<String>::default();
    known.reserve(all.instances.capacity());
    for c in circuits {
        let fresh = c
            .instances
            .into_iter()
            .filter(|i| known.insert(i.name.clone()));
        all.instances.extend(fresh);
        all.instructions.extend(c.instructions);
        all.rules.extend(c.rules);
        all.precedence.extend(c.precedence);
        all.schedule.extend(c.schedule);
    }
    all
}

/// The files `kiln build` writes for one module, each as consecutive pieces (large texts
/// are not re-copied into one buffer; writers write the pieces in order).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct FileOutputs {
    /// `<stem>.cmt2.mlir`: concatenated, equal to `rules::emit_cmt2` of the merged circuit.
    pub cmt2: Vec<String>,
    /// `<stem>.rules.json`: concatenated, equal to `rules::to_json` of the merged circuit.
    pub json: Vec<String>,
    /// Warnings about the design (the outputs are written nonetheless).
    pub warnings: Vec<Diagnostic>,
}

impl FileOutputs {
    /// The whole `<stem>.cmt2.mlir` text.
    pub fn cmt2_text(&self) -> String {
        self.cmt2.concat()
    }

    /// The whole `<stem>.rules.json` text.
    pub fn json_text(&self) -> String {
        self.json.concat()
    }
}

/// A new text piece of the parallel build reserves at least this much: capacity that is
/// never written is never touched, so large pieces cost no memory traffic, and the few
/// functions that do not fit start the next piece instead of re-copying a grown buffer.
const PIECE: usize = 32 << 20;

/// What one build thread produces for its contiguous run of functions: their circuits
/// without rules, and the rules' CMT2 and JSON text (each rule's JSON followed by a comma).
#[derive(Default)]
struct ThreadOutput {
    circuits: Vec<Circuit>,
    cmt2: Vec<String>,
    json: Vec<Vec<u8>>,
}

impl ThreadOutput {
    /// Emit `circuit`'s rules into the current pieces, starting new ones when the rules'
    /// estimated size does not fit.
    fn emit(&mut self, mut circuit: Circuit) {
        let need: usize = circuit.rules.iter().map(rules::emit::rule_capacity).sum();
        if self
            .cmt2
            .last()
            .is_none_or(|p| p.capacity() - p.len() < need)
        {
            self.cmt2.push(String::with_capacity(need.max(PIECE)));
        }
        if self
            .json
            .last()
            .is_none_or(|p| p.capacity() - p.len() < need)
        {
            self.json.push(Vec::with_capacity(need.max(PIECE)));
        }
        if let (Some(cmt2), Some(json)) = (self.cmt2.last_mut(), self.json.last_mut()) {
            rules::emit::write_cmt2_rules(cmt2, &circuit.rules);
            for r in &circuit.rules {
                rules::emit::write_rules_json(json, std::slice::from_ref(r));
                json.push(b',');
            }
        }
        circuit.rules = Vec::new();
        self.circuits.push(circuit);
    }
}

/// Build every function and emit the file outputs. Functions are built and emitted in
/// parallel (scoped threads, one contiguous run of functions each, each function's rule IR
/// dropped as soon as its text is written) and assembled in source order, so the result
/// is identical to the sequential `build_file_circuit` + emitters.
pub fn build_file(module: &ModuleAst, name: &str) -> Result<FileOutputs, Diagnostic> {
    let ctx = design_context(module)?;
    let funcs = functions(module);
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(funcs.len().max(1));
    let chunk = funcs.len().div_ceil(threads).max(1);
    let parts: Vec<Result<ThreadOutput, Diagnostic>> = std::thread::scope(|s| {
        let handles: Vec<_> = funcs
            .chunks(chunk)
            .map(|fs| {
                let ctx = &ctx;
                s.spawn(move || {
                    let mut out = ThreadOutput::default();
                    for f in fs {
                        out.emit(build_function(ctx, f)?);
                    }
                    Ok(out)
                })
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
    let mut known = crate::fxhash::FxHashSet::<String>::default();
    let (instances, rules) = parts
        .iter()
        .flatten()
        .flat_map(|p| &p.circuits)
        .fold((0, 0), |(i, r), c| {
            (i + c.instances.len(), r + c.schedule.len())
        });
    known.reserve(instances);
    all.instances.reserve(instances);
    all.schedule.reserve(rules);
    let mut out = FileOutputs::default();
    let (mut cmt2_rules, mut json_rules) = (Vec::new(), Vec::new());
    for p in parts {
        let p = p?;
        for c in p.circuits {
            let fresh = c
                .instances
                .into_iter()
                .filter(|i| known.insert(i.name.clone()));
            all.instances.extend(fresh);
            all.instructions.extend(c.instructions);
            all.precedence.extend(c.precedence);
            all.schedule.extend(c.schedule);
        }
        cmt2_rules.extend(p.cmt2.into_iter().filter(|t| !t.is_empty()));
        let json = p.json.into_iter().filter(|t| !t.is_empty());
        json_rules.extend(json.map(|t| String::from_utf8(t).unwrap_or_default()));
    }
    let spans: Vec<Span> = funcs.iter().map(|f| f.span).collect();
    let ids: Vec<(rules::Instruction, Span)> =
        all.instructions.iter().cloned().zip(spans).collect();
    for d in identity_diagnostics(&ids) {
        if d.is_error() {
            return Err(d);
        }
        out.warnings.push(d);
    }
    // Every rule's JSON is followed by a comma; the last one is not.
    if let Some(last) = json_rules.last_mut() {
        last.pop();
    }
    out.cmt2
        .push(rules::emit::cmt2_header(name, &all.instances));
    out.cmt2.extend(cmt2_rules);
    out.cmt2.push(rules::emit::cmt2_footer(&all));
    let (head, tail) = rules::emit::json_head_tail(&all);
    out.json.push(head);
    out.json.extend(json_rules);
    out.json.push(tail);
    Ok(out)
}

/// Whether a module belongs to the APS flow (it contains a `tor.design`).
pub fn is_aps_module(module: &ModuleAst) -> bool {
    context::design_op(module).is_some()
}
