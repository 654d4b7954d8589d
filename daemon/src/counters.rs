//! Per-query-kind counters: how often each query body executed, and how often its result
//! came from the persistent cache instead. Shared by all clones of a database.

use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::Mutex;

/// Query kinds, as reported by `kiln stats`.
pub const KINDS: &[&str] = &[
    "mlir_items",
    "context",
    "function_text",
    "parse",
    "segmentation",
    "handler",
    "assemble",
    "emit",
    "blif_models",
    "model_text",
    "blif_parse",
    "aig",
    "emit_aig",
];

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Count {
    pub executions: u64,
    pub cache_hits: u64,
}

/// Counts per kind; cheap to snapshot and diff.
#[derive(Debug, Default)]
pub struct Counters {
    map: Mutex<BTreeMap<&'static str, Count>>,
}

pub type Snapshot = BTreeMap<&'static str, Count>;

impl Counters {
    pub fn executed(&self, kind: &'static str) {
        self.lock().entry(kind).or_default().executions += 1;
    }

    pub fn cache_hit(&self, kind: &'static str) {
        self.lock().entry(kind).or_default().cache_hits += 1;
    }

    pub fn snapshot(&self) -> Snapshot {
        let mut snap: Snapshot = KINDS.iter().map(|k| (*k, Count::default())).collect();
        snap.extend(self.lock().iter().map(|(k, v)| (*k, *v)));
        snap
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<&'static str, Count>> {
        self.map.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// `after - before`, per kind.
pub fn diff(before: &Snapshot, after: &Snapshot) -> Snapshot {
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
