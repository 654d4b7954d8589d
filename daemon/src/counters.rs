//! Per-kind counters: how often each query body executed, and how often its result came
//! from the persistent cache instead; also the input layer's shortcuts. Shared by all clones
//! of a database; reported per build and by `kiln stats`.
//!
//! The kinds are one table ([`kinds!`]): the enum, the names and the list `kiln stats`
//! prints all come from it, so a counted kind cannot be missing from the report.

use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};

macro_rules! kinds {
    ($($kind:ident = $name:literal: $doc:literal,)*) => {
        /// What a counter counts.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub(crate) enum Kind {
            $(#[doc = $doc] $kind,)*
        }

        impl Kind {
            /// Every kind, in report order.
            pub(crate) const ALL: &[Kind] = &[$(Kind::$kind,)*];

            /// The kind's name in reports.
            pub(crate) fn name(self) -> &'static str {
                match self {
                    $(Kind::$kind => $name,)*
                }
            }
        }
    };
}

kinds! {
    MlirItems = "mlir_items": "An MLIR file split into its functions and design context.",
    Context = "context": "An APS design context parsed.",
    FunctionText = "function_text": "A function's text looked up by symbol.",
    Parse = "parse": "A function parsed on its own.",
    Segmentation = "segmentation": "A function segmented into blocks (cached).",
    Handler = "handler": "One block's rules (cached).",
    Assemble = "assemble": "A function's circuit assembled from its blocks.",
    EmitFunction = "emit_function": "A function's rules emitted as CMT2 and JSON.",
    Emit = "emit": "An APS file's outputs assembled through the database.",
    EmitFrame = "emit_frame": "An APS file's header and footer computed.",
    EmitSv = "emit_sv": "An APS file's SystemVerilog emitted.",
    HandshakeFront = "handshake_front": "A Handshake circuit parsed, analysed and marked.",
    LibUnit = "lib_unit": "A library file's unit built from its model's AIG.",
    TemplateUnit = "template_unit": "A Verilog template's unit synthesized by yosys (cached) and lowered.",
    HandshakeEmit = "handshake_emit": "A Handshake design built and emitted.",
    BlifModels = "blif_models": "A BLIF file split into its models.",
    ModelText = "model_text": "A model's text looked up by name.",
    BlifParse = "blif_parse": "A BLIF model parsed on its own.",
    Aig = "aig": "A BLIF model lowered to an AIG (cached).",
    EmitAig = "emit_aig": "A BLIF file's AIGER outputs written.",
    DirScan = "dir_scan": "An input directory walked and every file stat'ed.",
    DirResync = "dir_resync": "An input directory's marked files re-read.",
    InputDigestReused = "input_digest_reused": "An input skipped because its given digest was verified before.",
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Count {
    pub executions: u64,
    pub cache_hits: u64,
}

/// Counts per kind; cheap to snapshot and diff.
#[derive(Debug)]
pub(crate) struct Counters {
    executions: [AtomicU64; Kind::ALL.len()],
    cache_hits: [AtomicU64; Kind::ALL.len()],
}

impl Default for Counters {
    fn default() -> Counters {
        Counters {
            executions: std::array::from_fn(|_| AtomicU64::new(0)),
            cache_hits: std::array::from_fn(|_| AtomicU64::new(0)),
        }
    }
}

/// Counts by kind name, every kind present.
pub type Snapshot = BTreeMap<&'static str, Count>;

impl Counters {
    pub(crate) fn executed(&self, kind: Kind) {
        self.executions[kind as usize].fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn cache_hit(&self, kind: Kind) {
        self.cache_hits[kind as usize].fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn snapshot(&self) -> Snapshot {
        Kind::ALL
            .iter()
            .map(|&k| {
                let count = Count {
                    executions: self.executions[k as usize].load(Ordering::Relaxed),
                    cache_hits: self.cache_hits[k as usize].load(Ordering::Relaxed),
                };
                (k.name(), count)
            })
            .collect()
    }
}

/// `after - before`, per kind.
pub(crate) fn diff(before: &Snapshot, after: &Snapshot) -> Snapshot {
    after
        .iter()
        .map(|(k, a)| {
            let b = before.get(k).copied().unwrap_or_default();
            (
                *k,
                Count {
                    executions: a.executions - b.executions,
                    cache_hits: a.cache_hits - b.cache_hits,
                },
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_is_reported_once() {
        let c = Counters::default();
        c.executed(Kind::InputDigestReused);
        c.cache_hit(Kind::Aig);
        let s = c.snapshot();
        assert_eq!(s.len(), Kind::ALL.len());
        assert_eq!(s["input_digest_reused"].executions, 1);
        assert_eq!(s["aig"].cache_hits, 1);
    }
}
