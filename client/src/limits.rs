//! The run's resource limits: defaults ([`compiler::limits::Limits`]), overridden by
//! `[limits]` in the nearest `kiln.toml` ([`crate::config`]), overridden by the flags. Set
//! once per process before a command runs ([`kiln_daemon::input::set_limits`]).

use crate::config::Found;
use compiler::limits::{Limit, Limits};

/// Resource limits (global flags; see `kiln.toml`'s `[limits]` table).
#[derive(clap::Args, Debug, Default, Clone)]
#[command(next_help_heading = "Limits")]
pub struct LimitArgs {
    /// Largest input file read (512K, 1G, ...) [default: 1G; kiln.toml: limits.max_input_size]
    #[arg(long, global = true, value_name = "SIZE", value_parser = crate::size::parse)]
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
    /// Largest remote cache action-result body [default: 1M; limits.max_remote_body]
    #[arg(long, global = true, value_name = "SIZE", value_parser = crate::size::parse)]
    pub max_remote_body: Option<u64>,
    /// Most operations of one handshake.func [default: 50000; limits.max_ops]
    #[arg(long, global = true, value_name = "N")]
    pub max_ops: Option<u64>,
    /// Longest op, port or function name of a Handshake design, in bytes [default: 1024; limits.max_name_len]
    #[arg(long, global = true, value_name = "BYTES")]
    pub max_name_len: Option<u64>,
    /// Most slots (time steps) of one APS function [default: 100000; limits.max_slots]
    #[arg(long, global = true, value_name = "N")]
    pub max_slots: Option<u64>,
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
            Limit::Ops => self.max_ops,
            Limit::NameLen => self.max_name_len,
            Limit::Slots => self.max_slots,
        }
    }
}

/// The limits of this run: defaults, then the configuration's `[limits]`, then the flags.
pub fn resolve(args: &LimitArgs, config: &Found) -> Limits {
    let mut limits = config.limits();
    for l in Limit::ALL {
        if let Some(v) = args.get(l) {
            limits.set(l, v);
        }
    }
    limits
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toml_limits_then_flags() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("kiln.toml"),
            "blif_lib = \"x\"\n[limits]\nmax_int_width = 2_048 # wide\nmax_depth = 7\nmax_input_size = \"1M\"\n",
        )
        .unwrap();
        let sub = dir.path().join("a/b");
        std::fs::create_dir_all(&sub).unwrap();
        let args = LimitArgs {
            max_depth: Some(9),
            ..Default::default()
        };
        let l = resolve(&args, &crate::config::find(&sub).unwrap());
        assert_eq!(l.max_int_width, 2048);
        assert_eq!(l.max_depth, 9);
        assert_eq!(l.max_input_size, 1 << 20);
        assert_eq!(l.max_nodes, Limits::DEFAULT.max_nodes);
        std::fs::write(dir.path().join("kiln.toml"), "[limits]\nmax_bogus = 1\n").unwrap();
        let e = crate::config::find(&sub).unwrap_err();
        assert_eq!(e.code, 2);
        assert!(
            e.located[0].message.contains("max_bogus"),
            "{:?}",
            e.located
        );
    }
}
