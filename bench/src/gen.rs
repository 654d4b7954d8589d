//! `kiln-bench gen aps --functions N --seed S -o FILE`: write a random valid scheduled TOR/APS
//! module (see `compiler::aps::workload`), at most 512 functions (4 custom opcodes × 128
//! funct7: every function has its own instruction identity). `--slots N` writes one
//! function of N slots instead (`workload::slot_chain`), the input of slot-scaling runs.
//! The file is written through the project's one writer, as `kiln` writes its outputs.

use crate::common::{Failure, write};
use std::io::Write as _;
use std::path::{Path, PathBuf};

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Kind {
    Aps,
}

#[derive(clap::Args)]
#[command(after_help = "Examples:
  kiln-bench gen aps --functions 512 --seed 1 -o big.mlir
  kiln-bench gen aps --functions 3 -o - | kiln parse -
  kiln-bench gen aps --slots 10000 -o long.mlir       one function of 10,000 slots")]
pub struct Args {
    /// What to generate.
    #[arg(value_enum)]
    pub kind: Kind,
    #[arg(long, default_value_t = 10)]
    pub functions: usize,
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// One function `@chain` of this many slots (a chain of ALU ops; 1 to 1,000,000)
    /// instead of random ones.
    #[arg(long, conflicts_with_all = ["functions", "seed"],
          value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub slots: Option<u32>,
    /// The file to write; `-`: standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: PathBuf,
}

pub fn run(args: Args) -> Result<(), Failure> {
    let max = compiler::aps::workload::MAX_FUNCTIONS;
    if args.functions > max {
        return Err(Failure::usage(format!(
            "error: --functions {} is more than a RISC-V design holds ({max}: 4 custom opcodes × 128 funct7)",
            args.functions
        )));
    }
    let text = match (args.kind, args.slots) {
        (Kind::Aps, Some(slots)) => compiler::aps::workload::slot_chain(slots as usize),
        (Kind::Aps, None) => compiler::aps::workload::generate(args.functions, args.seed),
    };
    if args.output == Path::new("-") {
        let mut out = std::io::stdout().lock();
        return match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
            Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(Failure::input(format!(
                "error: writing to standard output: {e}"
            ))),
            _ => Ok(()),
        };
    }
    write(&args.output, text.as_bytes())
}
