//! Editors' unsaved buffers as inputs of their own: an *overlay* per open document, keyed by
//! path and versioned by the editor. An overlay never touches the disk and never writes
//! outputs: builds read files, editors read overlays, and both share the database, so an
//! overlay's functions and models reuse every query result of equal text (a saved file and
//! its open buffer cost one analysis).
//!
//! An edit is applied to the overlay's text as byte ranges (the editor's incremental
//! changes) and the split is redone from the last one in time proportional to the edit,
//! exactly as for a file read again ([`super::Workspace::resync_source`]).

use super::Workspace;
use crate::db::handshake::{HandshakeJob, HandshakeOpts};
use crate::db::{BlifFile, SourceFile};
use crate::spec::{Flow, HandshakeSpec};
use crate::why::{self, Change};
use compiler::limits::Limits;
use compiler::mlir::split::{Common, resplit, split_functions};
use salsa::Setter;
use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

/// An open document's input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Overlay {
    /// An APS file (or MLIR no flow accepts).
    Mlir(SourceFile, i32),
    Handshake(HandshakeJob, i32),
    Blif(BlifFile, i32),
}

impl Overlay {
    pub(crate) fn version(&self) -> i32 {
        match self {
            Overlay::Mlir(_, v) | Overlay::Handshake(_, v) | Overlay::Blif(_, v) => *v,
        }
    }

    fn with_version(self, v: i32) -> Overlay {
        match self {
            Overlay::Mlir(f, _) => Overlay::Mlir(f, v),
            Overlay::Handshake(j, _) => Overlay::Handshake(j, v),
            Overlay::Blif(f, _) => Overlay::Blif(f, v),
        }
    }
}

/// One replacement of bytes `range` of the text by `text`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    pub range: Range<usize>,
    pub text: String,
}

/// What an editor sends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OverlayChange {
    /// The whole text (opening a document, or after `OverlayError::Stale`).
    Full(String),
    /// Edits, applied in order, to the text of version `base`.
    Edits { base: i32, edits: Vec<Edit> },
}

/// Why an overlay change was not applied.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum OverlayError {
    /// The edits are relative to another version than the daemon's (or to a document it
    /// does not have): the editor sends the whole text again.
    #[error("document {0} is not at the version the edits are based on")]
    Stale(String),
    #[error("edit {0:?} is outside the document or not at character boundaries")]
    BadEdit(Range<usize>),
}

impl Workspace {
    /// Apply `change` to the overlay of `path` (created by a full text), now at `version`.
    pub(crate) fn set_overlay(
        &mut self,
        path: &Path,
        version: i32,
        change: OverlayChange,
        handshake: &HandshakeSpec,
    ) -> Result<Overlay, OverlayError> {
        let (text, common) = match change {
            OverlayChange::Full(text) => {
                let old = self.overlay_text(path);
                let common = old.map(|o| Common::of(o.as_bytes(), text.as_bytes()));
                (text, common)
            }
            OverlayChange::Edits { base, edits } => {
                let stale = || OverlayError::Stale(path.display().to_string());
                let current = self.overlays.get(path).ok_or_else(stale)?;
                if current.version() != base {
                    return Err(stale());
                }
                let old = self.overlay_text(path).ok_or_else(stale)?;
                apply(old, &edits)?
            }
        };
        let flow = Flow::detect(path, &text);
        let overlay = match (self.overlays.get(path).copied(), flow) {
            (Some(Overlay::Blif(f, _)), Flow::Blif) => {
                self.record(path, f.text(&self.db), &text, common);
                f.set_text(&mut self.db).to(text);
                Overlay::Blif(f, version)
            }
            (_, Flow::Blif) => {
                Overlay::Blif(BlifFile::new(&self.db, path.to_path_buf(), text), version)
            }
            (existing, flow) => {
                let file = match existing {
                    Some(Overlay::Mlir(f, _)) => Some(f),
                    Some(Overlay::Handshake(j, _)) => Some(*j.file(&self.db)),
                    _ => None,
                };
                let file = self.set_source(path, file, text, common);
                match (existing, flow) {
                    (Some(Overlay::Handshake(j, _)), Flow::Handshake) => {
                        self.update_handshake(j, file, opts(handshake, self.db.limits()));
                        Overlay::Handshake(j, version)
                    }
                    (_, Flow::Handshake) => {
                        let opts = opts(handshake, self.db.limits());
                        let j = HandshakeJob::new(
                            &self.db,
                            file,
                            opts.clone(),
                            Default::default(),
                            Default::default(),
                        );
                        self.update_handshake(j, file, opts);
                        Overlay::Handshake(j, version)
                    }
                    _ => Overlay::Mlir(file, version),
                }
            }
        };
        self.overlays
            .insert(path.to_path_buf(), overlay.with_version(version));
        Ok(overlay)
    }

    /// The overlay of `path`, if an editor has it open.
    pub(crate) fn overlay(&self, path: &Path) -> Option<Overlay> {
        self.overlays.get(path).copied()
    }

    /// The editor closed `path`: its overlay is forgotten (its queries' results stay
    /// memoized while equal texts use them).
    pub(crate) fn close_overlay(&mut self, path: &Path) {
        self.overlays.remove(path);
    }

    fn overlay_text(&self, path: &Path) -> Option<&String> {
        Some(match self.overlays.get(path)? {
            Overlay::Mlir(f, _) => f.text(&self.db),
            Overlay::Handshake(j, _) => j.file(&self.db).text(&self.db),
            Overlay::Blif(f, _) => f.text(&self.db),
        })
    }

    /// The overlay's source file with `text`, re-split from its last split.
    fn set_source(
        &mut self,
        path: &Path,
        file: Option<SourceFile>,
        text: String,
        common: Option<Common>,
    ) -> SourceFile {
        let Some(f) = file else {
            let split = Arc::new(split_functions(&text));
            return SourceFile::new(&self.db, path.to_path_buf(), text, split);
        };
        let split = Arc::new(resplit(f.split(&self.db), &text, common));
        let old_len = f.text(&self.db).len();
        if let Some(c) = common {
            let range = why::changed_range(old_len, text.len(), c);
            self.explain().changed(|| {
                let items = why::touched(&split.functions, &range);
                Change::new(path, &text, range, items)
            });
        }
        f.set_text(&mut self.db).to(text);
        f.set_split(&mut self.db).to(split);
        f
    }

    fn record(&self, path: &Path, old: &str, new: &str, common: Option<Common>) {
        let Some(c) = common else { return };
        let range = why::changed_range(old.len(), new.len(), c);
        self.explain().changed(|| {
            let models = compiler::flow::blif::models(new);
            let items = why::touched(&models, &range);
            Change::new(path, new, range, items)
        });
    }
}

/// The options of an editor's buffer, under the limits of the last build.
fn opts(spec: &HandshakeSpec, limits: Limits) -> HandshakeOpts {
    HandshakeOpts::of(spec, spec.options(limits))
}

/// `old` with `edits` applied in order, and what old and new have in common at each end.
fn apply(old: &str, edits: &[Edit]) -> Result<(String, Option<Common>), OverlayError> {
    let mut text = old.to_string();
    let (mut lo, mut hi_from_end) = (usize::MAX, usize::MAX);
    for e in edits {
        let r = e.range.clone();
        let ok = r.start <= r.end
            && r.end <= text.len()
            && text.is_char_boundary(r.start)
            && text.is_char_boundary(r.end);
        if !ok {
            return Err(OverlayError::BadEdit(r));
        }
        lo = lo.min(r.start);
        hi_from_end = hi_from_end.min(text.len() - r.end);
        text.replace_range(r, &e.text);
        // Earlier edits' untouched ends may have moved: keep what is still common.
        lo = lo.min(text.len());
        hi_from_end = hi_from_end.min(text.len());
    }
    let common = Common {
        prefix: lo.min(old.len()),
        suffix: hi_from_end.min(old.len()),
    };
    Ok((text, Some(common)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_apply_in_order_and_bound_the_change() {
        let edits = vec![
            Edit {
                range: 2..3,
                text: "XY".into(),
            },
            Edit {
                range: 0..1,
                text: String::new(),
            },
        ];
        let (t, c) = apply("abcdef", &edits).unwrap();
        assert_eq!(t, "bXYdef");
        let c = c.unwrap();
        assert_eq!((c.prefix, c.suffix), (0, 3));
        assert!(
            apply(
                "é",
                &[Edit {
                    range: 1..1,
                    text: String::new()
                }]
            )
            .is_err()
        );
        assert!(
            apply(
                "ab",
                &[Edit {
                    range: 1..5,
                    text: String::new()
                }]
            )
            .is_err()
        );
    }
}
