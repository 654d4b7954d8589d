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

pub mod chart;
mod checks;
pub mod context;
pub mod control;
pub mod csr;
pub mod fifo;
pub(crate) mod handlers;
pub mod interp;
mod locks;
pub(crate) mod memory;
mod ops;
pub mod qor;
pub mod segment;
mod style;
#[cfg(any(test, feature = "generators"))]
pub mod workload;

pub use context::{DesignContext, design_context, design_context_with, function_named, functions};
pub use handlers::{BlockRules, handle_block};
pub use segment::{Segmentation, segment_function, segment_function_styled, segment_function_with};
pub use style::Style;

use crate::diag::{Diagnostic, Span};
use crate::limits::Limits;
use crate::mlir::ast::{ModuleAst, Operation};
use crate::rules::{self, Circuit};

/// Assemble one function's circuit from its segmentation and per-block handler outputs.
pub fn assemble(ctx: &DesignContext, seg: &Segmentation, blocks: &[BlockRules]) -> Circuit {
    assemble_owned(ctx, seg, blocks.to_vec())
}

/// [`assemble`] taking the handler outputs by value (no copies of the rule bodies).
pub fn assemble_owned(ctx: &DesignContext, seg: &Segmentation, blocks: Vec<BlockRules>) -> Circuit {
    let shared = ctx.shared_instances();
    // Sized up front: these vectors are large, and growing them re-copies them.
    let instances = shared.len()
        + seg.instances.len()
        + blocks.iter().map(|b| b.instances.len()).sum::<usize>();
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
    c.instructions.push(instruction(seg));
    c.instances.extend(seg.instances.iter().cloned());
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

/// The custom instruction a function's circuit implements (its only entry in
/// [`Circuit::instructions`]): what the identity checks read of it.
pub fn instruction(seg: &Segmentation) -> rules::Instruction {
    rules::Instruction {
        function: seg.func.clone(),
        opcode: seg.opcode,
        funct7: seg.funct7,
    }
}

/// The whole flow for one function, under the default limits.
pub fn build_function(ctx: &DesignContext, func: &Operation) -> Result<Circuit, Diagnostic> {
    build_function_with(ctx, func, &Limits::DEFAULT)
}

/// The whole flow for one function, its slots checked against `limits`.
pub fn build_function_with(
    ctx: &DesignContext,
    func: &Operation,
    limits: &Limits,
) -> Result<Circuit, Diagnostic> {
    build_function_warned(ctx, func, limits).map(|(c, _)| c)
}

/// [`build_function_with`], with the warnings about the function (spans relative to it).
pub fn build_function_warned(
    ctx: &DesignContext,
    func: &Operation,
    limits: &Limits,
) -> Result<(Circuit, Vec<Diagnostic>), Diagnostic> {
    build_function_styled(ctx, func, limits, Style::Fsm)
}

/// [`build_function_warned`] in `style`.
pub fn build_function_styled(
    ctx: &DesignContext,
    func: &Operation,
    limits: &Limits,
    style: Style,
) -> Result<(Circuit, Vec<Diagnostic>), Diagnostic> {
    let mut seg = segment_function_styled(ctx, func, limits, style)?;
    let warnings = std::mem::take(&mut seg.warnings);
    let mut blocks = Vec::with_capacity(seg.blocks.len());
    for id in 0..seg.blocks.len() {
        blocks.push(handle_block(ctx, &seg, id)?);
    }
    Ok((assemble_owned(ctx, &seg, blocks), warnings))
}

/// The whole flow for a module: one circuit per function, in source order. Two functions
/// with one instruction identity are an error (see [`identity_diagnostics`]).
pub fn build_module(module: &ModuleAst) -> Result<Vec<Circuit>, Diagnostic> {
    build_module_styled(
        module,
        &design_context(module)?,
        &Limits::DEFAULT,
        Style::Fsm,
    )
}

/// [`build_module`] in `ctx` (e.g. with an `aps_config.yaml`'s CSR lanes), under
/// `limits`, in `style`.
pub fn build_module_styled(
    module: &ModuleAst,
    ctx: &DesignContext,
    limits: &Limits,
    style: Style,
) -> Result<Vec<Circuit>, Diagnostic> {
    let circuits: Vec<Circuit> = functions(module)
        .into_iter()
        .map(|f| build_function_styled(ctx, f, limits, style).map(|(c, _)| c))
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
pub(crate) fn identity_diagnostics(functions: &[(rules::Instruction, Span)]) -> Vec<Diagnostic> {
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
