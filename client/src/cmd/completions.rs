//! `kiln completions SHELL` (clap_complete) and `kiln man [-o DIR]` (clap_mangen): shell
//! completion scripts and man pages, generated from the grammar itself ([`crate::cli`]), so
//! they cannot drift from it.

use crate::io::{self, Failure};
use std::path::PathBuf;

#[derive(clap::Args)]
#[command(after_help = "Examples:
  kiln completions bash > ~/.local/share/bash-completion/completions/kiln
  kiln completions zsh > ~/.zfunc/_kiln        # with fpath+=~/.zfunc before compinit
  kiln completions fish > ~/.config/fish/completions/kiln.fish")]
pub struct Args {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

pub fn run(args: Args) -> Result<(), Failure> {
    let mut cmd = crate::cli::command();
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "kiln", &mut script);
    io::write_output(std::path::Path::new("-"), &script)
}

#[derive(clap::Args)]
#[command(after_help = "Examples:
  kiln man -o target/man && man -l target/man/kiln.1
  kiln man | man -l -        kiln(1) alone")]
pub struct ManArgs {
    /// Write kiln.1 and one page per command (kiln-build.1, ...) into this directory;
    /// `-` or none: kiln.1 on standard output.
    #[arg(short = 'o', long = "out-dir", value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
}

pub fn man(args: ManArgs) -> Result<(), Failure> {
    let cmd = crate::cli::command();
    let Some(dir) = args.out_dir.filter(|d| !io::is_stdout(d)) else {
        return io::write_output(std::path::Path::new("-"), &page(&cmd)?);
    };
    io::write_atomic(&dir.join("kiln.1"), &page(&cmd)?)?;
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        let name = format!("kiln-{}", sub.get_name());
        let page = titled(sub, &name)?;
        io::write_atomic(&dir.join(format!("{name}.1")), &page)?;
    }
    Ok(())
}

/// The man page of `cmd` (its configuration and environment come from its long help).
fn page(cmd: &clap::Command) -> Result<Vec<u8>, Failure> {
    titled(cmd, cmd.get_name())
}

fn titled(cmd: &clap::Command, title: &str) -> Result<Vec<u8>, Failure> {
    let mut out = Vec::new();
    clap_mangen::Man::new(cmd.clone())
        .title(title)
        .render(&mut out)
        .map_err(|e| Failure::input(format!("error: rendering the man page: {e}")))?;
    Ok(out)
}
