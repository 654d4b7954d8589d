//! The run's resource limits: defaults ([`compiler::limits::Limits`]), overridden by
//! `[limits]` in the nearest `kiln.toml` (from the current directory up), overridden by the
//! flags. Set once per process before a command runs ([`kiln_daemon::input::set_limits`]).

use crate::io::Failure;
use compiler::limits::{Limit, Limits};
use std::path::Path;

/// Resource limits (global flags; see `kiln.toml`'s `[limits]` table).
#[derive(clap::Args, Debug, Default, Clone)]
pub struct LimitArgs {
    /// Largest input file read, in bytes [default: 1 GiB; kiln.toml: limits.max_input_size]
    #[arg(long, global = true, value_name = "BYTES")]
    pub max_input_size: Option<u64>,
    /// Widest integer type accepted (iN), in bits [default: 1024; limits.max_int_width]
    #[arg(long, global = true, value_name = "BITS")]
    pub max_int_width: Option<u64>,
    /// Most results (%r:N) or buffer slots of one operation [default: 4096; limits.max_results]
    #[arg(long, global = true, value_name = "N")]
    pub max_results: Option<u64>,
    /// Deepest BLIF model hierarchy [default: 100000; limits.max_depth]
    #[arg(long, global = true, value_name = "N")]
    pub max_depth: Option<u64>,
    /// Most AIG nodes of one lowered model [default: 20000000; limits.max_nodes]
    #[arg(long, global = true, value_name = "N")]
    pub max_nodes: Option<u64>,
    /// Largest remote cache action-result body, in bytes [default: 1 MiB; limits.max_remote_body]
    #[arg(long, global = true, value_name = "BYTES")]
    pub max_remote_body: Option<u64>,
}

impl LimitArgs {
    fn get(&self, l: Limit) -> Option<u64> {
        match l {
            Limit::InputSize => self.max_input_size,
            Limit::IntWidth => self.max_int_width,
            Limit::Results => self.max_results,
            Limit::Depth => self.max_depth,
            Limit::Nodes => self.max_nodes,
            Limit::RemoteBody => self.max_remote_body,
        }
    }
}

/// The limits of this run: defaults, then the nearest `kiln.toml`, then the flags.
pub fn resolve(args: &LimitArgs, cwd: &Path) -> Result<Limits, Failure> {
    let mut limits = Limits::DEFAULT;
    for dir in cwd.ancestors() {
        let toml = dir.join("kiln.toml");
        // A kiln.toml is small; a special file or a huge one is not read.
        let Ok(bytes) = kiln_daemon::input::read_bounded_file(&toml, 1 << 20) else {
            continue;
        };
        let text = String::from_utf8_lossy(&bytes);
        apply_toml(&mut limits, &text).map_err(|m| Failure {
            message: format!("{}: error: {m}", toml.display()),
            code: 2,
        })?;
        break;
    }
    for l in Limit::ALL {
        if let Some(v) = args.get(l) {
            limits.set(l, v);
        }
    }
    Ok(limits)
}

/// Apply the `[limits]` table of a `kiln.toml` (integer values, `_` separators allowed).
fn apply_toml(limits: &mut Limits, text: &str) -> Result<(), String> {
    let mut in_limits = false;
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.starts_with('[') {
            in_limits = line == "[limits]";
            continue;
        }
        let Some((k, v)) = line.split_once('=').filter(|_| in_limits) else {
            continue;
        };
        let (k, v) = (k.trim(), v.trim());
        let limit = Limit::ALL
            .into_iter()
            .find(|l| l.key() == k)
            .ok_or_else(|| format!("line {}: unknown limit `{k}`", n + 1))?;
        let value = v
            .replace('_', "")
            .parse::<u64>()
            .map_err(|_| format!("line {}: `{k}` needs a non-negative integer", n + 1))?;
        limits.set(limit, value);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toml_limits_then_flags() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("kiln.toml"),
            "blif_lib = \"x\"\n[limits]\nmax_int_width = 2_048 # wide\nmax_depth = 7\n[other]\nmax_nodes = 1\n",
        )
        .unwrap();
        let sub = dir.path().join("a/b");
        std::fs::create_dir_all(&sub).unwrap();
        let args = LimitArgs {
            max_depth: Some(9),
            ..Default::default()
        };
        let l = resolve(&args, &sub).unwrap();
        assert_eq!(l.max_int_width, 2048);
        assert_eq!(l.max_depth, 9);
        assert_eq!(l.max_nodes, Limits::DEFAULT.max_nodes);
        std::fs::write(dir.path().join("kiln.toml"), "[limits]\nmax_bogus = 1\n").unwrap();
        let e = resolve(&LimitArgs::default(), &sub).unwrap_err();
        assert!(
            e.message.contains("unknown limit `max_bogus`"),
            "{}",
            e.message
        );
    }
}
