//! An APS file's outputs assembled in O(changed functions): the compute step's shortcut past
//! [`db::aps::mlir_outputs`], which validates every function's queries on every build.
//!
//! [`ApsMemo::outputs_styled`] keeps the last assembly of each file. A function whose text and the
//! design context are those of the last assembly keeps its emitted rules (the database is
//! not asked about it, so unchanged functions cost neither validation nor copies); the
//! header and footer are reused while every function's frame is unchanged. The result is
//! byte for byte [`db::aps::mlir_outputs`], which serves every case this does not (errors,
//! repeated symbols, diagnostics about instruction identities, warnings about a function,
//! a file whose emitted function is not available).
//!
//! Why it exists beside salsa: salsa memoizes every function's queries, but a new revision
//! makes it validate each of them again (a walk of their dependencies) before reusing
//! them, and the outputs are copied whole. Measured with the memo switched off, in the same
//! run (`kiln-bench daemon --runs 30`, 1,000-function file; docs/bench.md, "What each
//! shortcut buys"): one-function edit p50 83 ms with it, 512 ms without (p90 121 / 636 ms;
//! the first edit after a cold build 121 / 602 ms).

use crate::counters::Kind;
use crate::db::aps::{self, Emitted, design_context, function_emitted, function_index};
use crate::db::{FileOutputs, KilnDb, OutputBytes, SourceFile};
use bytes::Bytes;
use compiler::aps::{DesignContext, Style};
use compiler::flow::OutputKind;
use compiler::flow::aps::Frame;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// The last assembly of each APS file (by path).
#[derive(Debug, Default)]
pub(crate) struct ApsMemo {
    files: Mutex<HashMap<(PathBuf, Style), Arc<Assembly>>>,
}

type AssembledFunction = (Arc<str>, Arc<str>, Arc<Emitted>);

/// One APS file's outputs as last assembled, with what they were assembled from.
#[derive(Debug)]
struct Assembly {
    context: DesignContext,
    /// Each function in source order: symbol, exact text, emitted rules.
    functions: Vec<AssembledFunction>,
    frame: Frame<Bytes>,
    outputs: Vec<(OutputKind, OutputBytes)>,
}

impl ApsMemo {
    /// [`aps::mlir_outputs`] of `file` in `style`, reusing the last assembly's unchanged
    /// parts (each style's last assembly kept apart).
    pub(crate) fn outputs_styled(
        &self,
        db: &dyn KilnDb,
        file: SourceFile,
        style: Style,
    ) -> FileOutputs {
        let fallback = || aps::mlir_outputs(db, file, style).clone();
        let Ok(context) = design_context(db, file) else {
            return fallback();
        };
        let split = file.split(db);
        if function_index(db, file).len() != split.functions.len() {
            return fallback();
        }
        let path = file.path(db);
        let last = self.lock().get(&(path.clone(), style)).cloned();
        let last = last.filter(|l| l.context == *context);
        let old: HashMap<&str, &AssembledFunction> = last
            .iter()
            .flat_map(|l| l.functions.iter())
            .map(|f| (&*f.0, f))
            .collect();
        let mut functions = Vec::with_capacity(split.functions.len());
        for item in &split.functions {
            if let Some(f) = old.get(item.symbol.as_str())
                && (Arc::ptr_eq(&f.1, &item.text) || f.1 == item.text)
            {
                functions.push((*f).clone());
                continue;
            }
            let Some(Ok(e)) = function_emitted(db, file, item.symbol.clone(), style) else {
                return fallback();
            };
            functions.push((
                Arc::from(item.symbol.as_str()),
                item.text.clone(),
                e.clone(),
            ));
        }
        let parts: Vec<Arc<Emitted>> = functions.iter().map(|(_, _, e)| e.clone()).collect();
        if !aps::identities(&split.functions, &parts).is_empty()
            || parts.iter().any(|e| !e.warnings.is_empty())
        {
            // Repeated identities, warnings about them or about a function: reported by the
            // full path.
            return fallback();
        }
        let same = |l: &Assembly, same_emitted: &dyn Fn(&Arc<Emitted>, &Arc<Emitted>) -> bool| {
            l.functions.len() == parts.len()
                && l.functions
                    .iter()
                    .zip(&parts)
                    .all(|((_, _, a), b)| same_emitted(a, b))
        };
        if let Some(l) = last.as_ref().filter(|l| same(l, &|a, b| Arc::ptr_eq(a, b))) {
            // Edits outside the functions that keep the design context (comments): the last
            // outputs, whose shared parts the writer recognises without comparing bytes.
            return FileOutputs {
                outputs: l.outputs.clone(),
                ..FileOutputs::default()
            };
        }
        let same_frames =
            |a: &Arc<Emitted>, b: &Arc<Emitted>| Arc::ptr_eq(a, b) || a.frame == b.frame;
        let frame = match last.as_ref().filter(|l| same(l, &same_frames)) {
            Some(l) => l.frame.clone(),
            None => {
                db.runtime().counters.executed(Kind::EmitFrame);
                aps::frame(&aps::stem(db, file), &parts)
            }
        };
        let outputs = aps::layout(frame.clone(), &parts);
        let assembly = Assembly {
            context: context.clone(),
            functions,
            frame,
            outputs: outputs.clone(),
        };
        self.lock()
            .insert((path.clone(), style), Arc::new(assembly));
        FileOutputs {
            outputs,
            ..FileOutputs::default()
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<(PathBuf, Style), Arc<Assembly>>> {
        self.files.lock().unwrap_or_else(|e| e.into_inner())
    }
}
