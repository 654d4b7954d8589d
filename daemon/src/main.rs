//! `kiln-daemon daemon [--workspace DIR] [--runtime-dir DIR] [--cache-dir DIR]
//! [--idle-timeout SECS]`: the daemon alone, without the rest of the `kiln` command, for
//! the daemon crate's own tests (users run `kiln daemon`, whose flags and remote tier the
//! client owns). It takes the arguments a `Connector` passes when it starts a daemon.

use kiln_daemon::server::{self, Options};
use std::path::PathBuf;
use std::time::Duration;

fn options(mut args: impl Iterator<Item = String>) -> Result<Options, String> {
    if args.next().as_deref() != Some("daemon") {
        return Err("usage: kiln-daemon daemon [--workspace DIR] [--runtime-dir DIR] [--cache-dir DIR] [--idle-timeout SECS]".into());
    }
    let (mut workspace, mut runtime_dir, mut cache_dir, mut idle) = (None, None, None, None);
    while let Some(flag) = args.next() {
        let value = args
            .next()
            .ok_or_else(|| format!("`{flag}` needs a value"))?;
        match flag.as_str() {
            "--workspace" => workspace = Some(PathBuf::from(value)),
            "--runtime-dir" => runtime_dir = Some(PathBuf::from(value)),
            "--cache-dir" => cache_dir = Some(PathBuf::from(value)),
            "--idle-timeout" => {
                let secs = value
                    .parse()
                    .map_err(|_| format!("bad seconds `{value}`"))?;
                idle = Some(Duration::from_secs(secs));
            }
            _ => return Err(format!("unknown flag `{flag}`")),
        }
    }
    let workspace = match workspace {
        Some(w) => w,
        None => std::env::current_dir().map_err(|e| e.to_string())?,
    };
    let mut o = Options::new(workspace);
    o.runtime_dir = runtime_dir;
    o.cache_dir = cache_dir.unwrap_or(o.cache_dir);
    o.idle_timeout = idle.unwrap_or(o.idle_timeout);
    Ok(o)
}

fn main() {
    let o = match options(std::env::args().skip(1)) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("kiln-daemon: error: {e}");
            std::process::exit(2);
        }
    };
    if let Err(e) = server::run(o) {
        eprintln!("kiln daemon: error: {e}");
        std::process::exit(1);
    }
}
