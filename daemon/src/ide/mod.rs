//! What an editor asks of the daemon about an open document (`crate::workspace`'s
//! overlays): its diagnostics as it is typed (`Ide::analyze`), the definition and
//! references of the name under the cursor and a hover text (`navigate`), and its outline
//! with code lenses (`outline`). Byte offsets throughout: the language server
//! (`kiln lsp`) converts them to the editor's positions.
//!
//! Diagnostics are a build's, on the buffer's text: the same queries and the same checks in
//! the same order (`db::aps::checked_functions`, `crate::compute::messages`), so an
//! editor shows what `kiln build` would print. For an APS document, `Ide` remembers each
//! function's last result by text, so an edit asks the database about the edited function
//! only (the others are neither re-validated nor re-executed).

mod features;
pub(crate) mod queries;

pub use crate::workspace::{Edit, OverlayChange};
pub use features::{Hint, Hover, Lens, Navigation, Outline, OutlineItem, OutlineKind};
pub(crate) use features::{navigate, outline};

use crate::db::aps::{self, FunctionResult};
use crate::db::handshake::handshake_outputs;
use crate::db::{Db, FileOutputs, SourceFile, blif};
use crate::report::messages;
use crate::workspace::Overlay;
use compiler::aps::DesignContext;
use compiler::aps::Style;
use compiler::diag::Located;
use compiler::flow::Flow;
use compiler::rules::Circuit;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// An editor's change to an open document (`Analyze`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocumentChange {
    pub path: PathBuf,
    pub version: i32,
    pub change: OverlayChange,
    pub handshake: crate::spec::HandshakeSpec,
}

/// The diagnostics of one version of a document.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Analysis {
    pub version: i32,
    pub messages: Vec<Located>,
}

/// Per open APS document, the last result of each function (by symbol), with its text: an
/// edit asks the database about the edited function only, instead of validating every
/// function's queries in the new revision. Measured with it switched off, in the same run
/// (`kiln-bench lsp`, 512 functions, 101 edits, three alternated pairs, load 2–3):
/// `didChange` → diagnostics p50 2.74–3.10 ms with it, 11.50–13.06 ms without (p90
/// 3.80–4.86 / 12.96–14.85 ms).
#[derive(Debug, Default)]
pub(crate) struct Ide {
    last: Mutex<HashMap<PathBuf, Checked>>,
}

#[derive(Debug, Default)]
struct Checked {
    context: Option<DesignContext>,
    functions: HashMap<String, (Arc<str>, FunctionResult)>,
}

impl Ide {
    /// The diagnostics of `overlay` (the document at `path`) as a build reports them.
    pub(crate) fn analyze(&self, db: &Db, path: &Path, overlay: Overlay) -> Analysis {
        let shown = path.display().to_string();
        let (flow, outputs, text) = match overlay {
            Overlay::Mlir(f, _) => (Flow::Aps, self.mlir_outputs(db, path, f), f.text(db)),
            Overlay::Handshake(j, _) => (
                Flow::Handshake,
                handshake_outputs(db, j).clone(),
                j.file(db).text(db),
            ),
            Overlay::Blif(f, _) => (
                Flow::Blif,
                blif::blif_outputs(db, f, None, false).clone(),
                f.text(db),
            ),
        };
        Analysis {
            version: overlay.version(),
            messages: messages(&shown, flow, outputs.elsewhere, &outputs.diagnostics, text),
        }
    }

    /// The editor closed `path`.
    pub(crate) fn close(&self, path: &Path) {
        self.lock().remove(path);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<PathBuf, Checked>> {
        self.last.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// An MLIR document's diagnostics (no outputs are assembled: an editor needs none).
    fn mlir_outputs(&self, db: &Db, path: &Path, file: SourceFile) -> FileOutputs {
        if *aps::mlir_flow(db, file) != compiler::flow::Flow::Aps {
            return aps::unknown_flow_outputs(db, file).clone();
        }
        let context = aps::design_context(db, file).as_ref().ok().cloned();
        let mut last = self.lock().remove(path).unwrap_or_default();
        if last.context != context {
            last = Checked {
                context,
                ..Checked::default()
            };
        }
        // A document opened (or replaced) whole: its functions on every core first.
        let stale: Vec<String> = file
            .split(db)
            .functions
            .iter()
            .filter(|i| {
                !last
                    .functions
                    .get(&i.symbol)
                    .is_some_and(|(t, _)| Arc::ptr_eq(t, &i.text) || *t == i.text)
            })
            .map(|i| i.symbol.clone())
            .collect();
        if stale.len() > 1 {
            crate::prewarm::prewarm_checks(db, file, &stale, checked_behind);
        }
        let mut now = HashMap::with_capacity(last.functions.len());
        let emitted = |item: &compiler::mlir::items::Item| {
            let result = match last.functions.remove(&item.symbol) {
                Some((text, r)) if Arc::ptr_eq(&text, &item.text) || text == item.text => r,
                _ => checked(db, file, item.symbol.clone()),
            };
            now.insert(item.symbol.clone(), (item.text.clone(), result.clone()));
            result
        };
        let checked = aps::checked_functions(db, file, emitted);
        last.functions = now;
        self.lock().insert(path.to_path_buf(), last);
        match checked {
            Ok((_, warnings)) => FileOutputs {
                diagnostics: warnings,
                ..FileOutputs::default()
            },
            Err(errors) => FileOutputs::failed(errors),
        }
    }
}

/// What a build's check of one function reports, without its assembly and emission (an
/// editor writes no outputs): the function's warnings, or its error, and a frame holding
/// only its instruction (all that [`aps::identities`] reads of it). The same queries a build
/// makes up to the block rules, in the same order, so the same diagnostics: assembling a
/// circuit reports nothing.
pub(crate) fn checked(db: &Db, file: SourceFile, symbol: String) -> FunctionResult {
    let seg = match aps::segmentation(db, file, symbol.clone(), Style::Fsm).as_deref()? {
        Ok(s) => s,
        Err(d) => return Some(Err(d.clone())),
    };
    for block in 0..seg.blocks.len() {
        if let Err(d) = &**aps::block_rules(db, file, symbol.clone(), block, Style::Fsm) {
            return Some(Err(d.clone()));
        }
    }
    let frame = Circuit {
        name: seg.func.clone(),
        instructions: vec![compiler::aps::instruction(seg)],
        ..Circuit::default()
    };
    Some(Ok(Arc::new(aps::Emitted {
        frame,
        cmt2: Default::default(),
        json: Default::default(),
        warnings: seg.warnings.clone(),
    })))
}

/// [`checked`], with the persistent store's writes of what it computes left for later
/// ([`crate::db::without_stores`]; done by [`crate::build::Builder::write_behind`]). A
/// document opened whole is checked so ([`crate::prewarm::prewarm_checks`]): its
/// diagnostics wait for every function's checks, not for the encoding of every result. (An
/// edit's one function writes as a build does.)
pub(crate) fn checked_behind(db: &Db, file: SourceFile, symbol: String) {
    crate::db::without_stores(|| checked(db, file, symbol));
}
