//! `kiln parse FILE... [--emit summary|mlir|json]`.

use crate::io::{self, Failure};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// MLIR files to parse.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
}

pub fn run(args: Args) -> Result<(), Failure> {
    for f in &args.files {
        let text = io::read_source(f)?;
        println!("{}: {} bytes", f.display(), text.len());
    }
    Ok(())
}
