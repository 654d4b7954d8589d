//! `kiln cache stats [--json]`, `kiln cache gc [--max-bytes N]`: the persistent cache
//! (`$KILN_CACHE_DIR`, else `$XDG_CACHE_HOME/kiln`, else `~/.cache/kiln`).

use crate::daemon_client::fail;
use crate::io::Failure;
use crate::size;

pub const EXAMPLES: &str = "Examples:
  kiln cache stats                 entries and size of the persistent cache
  kiln cache gc --max-bytes 512M   evict least-recently-used entries down to 512 MiB";

#[derive(clap::Subcommand)]
pub enum Cache {
    /// Entries and bytes on disk.
    Stats {
        #[arg(long)]
        json: bool,
    },
    /// Evict least-recently-used entries down to the size cap.
    Gc {
        /// Target size (bytes, or 512M, 2G, ...).
        #[arg(long, value_name = "SIZE", value_parser = size::parse, default_value = "1G")]
        max_bytes: u64,
    },
}

pub fn run(cmd: Cache) -> Result<(), Failure> {
    let dir = kiln_daemon::paths::cache_dir();
    match cmd {
        Cache::Stats { json } => {
            let store =
                kiln_cache::Store::open(&dir, kiln_cache::DEFAULT_CAP_BYTES).map_err(fail)?;
            let s = store.stats().map_err(fail)?;
            if json {
                let v = serde_json::json!({"dir": dir, "entries": s.entries, "bytes": s.bytes, "cap_bytes": s.cap_bytes});
                outln!("{v}");
            } else {
                outln!(
                    "{}: {} entries, {} (cap {})",
                    dir.display(),
                    s.entries,
                    size::show(s.bytes),
                    size::show(s.cap_bytes)
                );
            }
        }
        Cache::Gc { max_bytes } => {
            let store = kiln_cache::Store::open(&dir, max_bytes).map_err(fail)?;
            let r = store.gc().map_err(fail)?;
            outln!(
                "removed {} entries ({}); {} entries, {} remain",
                r.removed,
                size::show(r.freed_bytes),
                r.remaining.entries,
                size::show(r.remaining.bytes)
            );
        }
    }
    Ok(())
}
