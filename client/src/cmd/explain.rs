//! `kiln explain CODE`: what a diagnostic code means, its usual cause and fix (the one table
//! is [`compiler::diag::codes`]); without a code, every code with its summary.

use crate::io::Failure;
use compiler::diag::Code;

#[derive(clap::Args)]
#[command(after_help = "Examples:
  kiln explain E0403      why a Handshake build says none of its units is in the library
  kiln explain            every code, one line each")]
pub struct Args {
    /// A code as diagnostics show it (`E0101`, `w0404`); none: list every code.
    pub code: Option<String>,
}

pub fn run(args: Args) -> Result<(), Failure> {
    let Some(name) = args.code else {
        for c in Code::ALL {
            outln!("{c}  {}", c.summary());
        }
        return Ok(());
    };
    let Some(code) = Code::parse(&name) else {
        return Err(Failure::usage(format!(
            "error: no diagnostic code `{name}` (`kiln explain` lists them)"
        )));
    };
    outln!(
        "{code}: {}\n\n{}",
        code.summary(),
        wrap(code.explanation(), 80)
    );
    Ok(())
}

/// `text` broken into lines of at most `width` characters at spaces.
fn wrap(text: &str, width: usize) -> String {
    let mut out = String::new();
    let mut line = 0;
    for word in text.split_whitespace() {
        if line > 0 && line + 1 + word.len() > width {
            out.push('\n');
            line = 0;
        } else if line > 0 {
            out.push(' ');
            line += 1;
        }
        out.push_str(word);
        line += word.chars().count();
    }
    out
}
