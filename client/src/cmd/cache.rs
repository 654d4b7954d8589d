//! `kiln cache stats [--json]`, `kiln cache gc [--max-bytes N]`: the persistent cache
//! (`$KILN_CACHE_DIR`, else `$XDG_CACHE_HOME/kiln`, else `~/.cache/kiln`).

use crate::daemon_client::fail;
use crate::io::Failure;

#[derive(clap::Subcommand)]
pub enum Cache {
    /// Entries and bytes on disk.
    Stats {
        #[arg(long)]
        json: bool,
    },
    /// Evict least-recently-used entries down to the size cap.
    Gc {
        /// Target size in bytes (default: the cap, 1 GiB).
        #[arg(long, default_value_t = kiln_cache::DEFAULT_CAP_BYTES)]
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
                println!("{v}");
            } else {
                println!(
                    "{}: {} entries, {} bytes (cap {})",
                    dir.display(),
                    s.entries,
                    s.bytes,
                    s.cap_bytes
                );
            }
        }
        Cache::Gc { max_bytes } => {
            let store = kiln_cache::Store::open(&dir, max_bytes).map_err(fail)?;
            let r = store.gc().map_err(fail)?;
            println!(
                "removed {} entries ({} bytes); {} entries, {} bytes remain",
                r.removed, r.freed_bytes, r.remaining.entries, r.remaining.bytes
            );
        }
    }
    Ok(())
}
