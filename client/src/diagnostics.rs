//! How the CLI shows what it has to say.
//!
//! Diagnostics ([`Located`]) are printed for people on stderr (`--message-format human`:
//! the code after the message, colour on a terminal unless `NO_COLOR` is set, long source
//! lines cut around the span; see [`compiler::diag::render`]) or for tools on stdout
//! (`--message-format json`: one JSON object per diagnostic and line, the schema of
//! [`Located::to_json`]). A command that reads designs counts what it showed ([`Tally`])
//! and ends, when there were errors, with one closing line in the command's own verb
//! (`build`, `parse`, `lower`, `synthesize`, `report on`):
//! `error: could not build `x.mlir` (2 errors, 1 warning)`. `-q` shows errors only;
//! `-v` adds what a command did.

use crate::io::Failure;
use compiler::diag::render::Style;
use compiler::diag::{Located, Severity};
use std::io::IsTerminal;
use std::sync::OnceLock;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum MessageFormat {
    /// Text for people, on stderr.
    #[default]
    Human,
    /// One JSON object per diagnostic and line, on stdout.
    Json,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    /// On a terminal, unless `NO_COLOR` is set.
    #[default]
    Auto,
    Always,
    Never,
}

/// How messages are shown (global flags).
#[derive(clap::Args, Debug, Default, Clone)]
#[command(next_help_heading = "Output")]
pub struct OutputArgs {
    /// Diagnostics as text for people (stderr) or JSON lines for tools (stdout)
    #[arg(
        long,
        global = true,
        value_enum,
        value_name = "FORMAT",
        default_value = "human"
    )]
    pub message_format: MessageFormat,
    /// Colour: auto (on a terminal, unless NO_COLOR is set), always, never
    #[arg(
        long,
        global = true,
        value_enum,
        value_name = "WHEN",
        default_value = "auto"
    )]
    pub color: ColorChoice,
    /// Show errors only (no warnings, no summary)
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Show more: what a build recompiled and where its time went
    #[arg(short, long, global = true)]
    pub verbose: bool,
}

/// The process's output settings.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    pub format: MessageFormat,
    pub style: Style,
    pub quiet: bool,
    pub verbose: bool,
}

static OPTIONS: OnceLock<Options> = OnceLock::new();

/// Set the process's output settings from its flags and environment (once).
pub fn init(args: &OutputArgs) {
    let stderr = std::io::stderr();
    let color = match args.color {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
            stderr.is_terminal() && !no_color
        }
    };
    let width = std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.parse::<usize>().ok())
        .unwrap_or(120)
        .clamp(40, 1000);
    let _ = OPTIONS.set(Options {
        format: args.message_format,
        style: Style {
            color,
            codes: true,
            // The gutter and a cut line's marks take a dozen columns.
            width: Some(width - 12),
        },
        quiet: args.quiet,
        verbose: args.verbose,
    });
}

/// The process's output settings ([`init`]; defaults before it).
pub fn options() -> Options {
    OPTIONS.get().copied().unwrap_or(Options {
        format: MessageFormat::Human,
        style: Style::PLAIN,
        quiet: false,
        verbose: false,
    })
}

/// The messages a command has shown, by severity.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub errors: usize,
    pub warnings: usize,
}

impl Tally {
    /// Count `m` without showing it (a command that shows it in its own form).
    pub fn count(&mut self, m: &Located) {
        match m.severity {
            Severity::Error => self.errors += 1,
            Severity::Warning => self.warnings += 1,
            Severity::Note => {}
        }
    }

    /// Show `m` as the settings say, and count it.
    pub fn show(&mut self, m: &Located) {
        let o = options();
        self.count(m);
        match o.format {
            MessageFormat::Json => crate::io::print_out(&format!("{}\n", m.to_json())),
            MessageFormat::Human if o.quiet && !m.is_error() => {}
            MessageFormat::Human => crate::io::print_err(&o.style.render(m)),
        }
    }

    pub fn show_all<'a>(&mut self, messages: impl IntoIterator<Item = &'a Located>) {
        for m in messages {
            self.show(m);
        }
    }

    /// The end of a command that `verb`s `what` (`build`, `` `x.mlir` ``): with errors,
    /// the closing line and exit code 1.
    pub fn close(&self, verb: &str, what: &str) -> Result<(), Failure> {
        if self.errors == 0 {
            return Ok(());
        }
        let line = format!(
            "{}: could not {verb} {what} ({}, {})",
            paint_error("error"),
            plural(self.errors, "error"),
            plural(self.warnings, "warning")
        );
        crate::io::print_err(&format!("{line}\n"));
        Err(Failure::reported(1))
    }
}

/// `n thing` or `n things`.
pub fn plural(n: usize, thing: &str) -> String {
    match n {
        1 => format!("1 {thing}"),
        _ => format!("{n} {thing}s"),
    }
}

/// How the inputs of a command are named in its closing line: the one input, or a count
/// (`could not build 8 inputs`: a build does not say which of them failed).
pub fn inputs_named(inputs: &[std::path::PathBuf]) -> String {
    match inputs {
        [one] => format!("`{}`", one.display()),
        many => plural(many.len(), "input"),
    }
}

/// The inputs a command failed on, for its closing line: the one input, or `failed` of the
/// count (`could not parse 1 of 8 inputs`), for commands that know which inputs failed.
pub fn inputs_failed(inputs: &[std::path::PathBuf], failed: usize) -> String {
    match inputs {
        [one] => format!("`{}`", one.display()),
        many => format!("{failed} of {}", plural(many.len(), "input")),
    }
}

/// `text` as the severity word of an error (red and bold when colour is on).
fn paint_error(text: &str) -> String {
    match options().style.color {
        true => format!("\x1b[1;31m{text}\x1b[0m"),
        false => text.to_string(),
    }
}

/// A status line for people on stderr, cargo's way (`       Built 3 outputs ...`: the
/// verb right-aligned, green and bold on a terminal), unless `-q`.
pub fn status(verb: &str, rest: &str) {
    let o = options();
    if o.quiet {
        return;
    }
    let verb = match o.style.color {
        true => format!("\x1b[1;32m{verb:>12}\x1b[0m"),
        false => format!("{verb:>12}"),
    };
    crate::io::print_err(&format!("{verb} {rest}\n"));
}

/// A detail line (`-v` only).
pub fn detail(line: &str) {
    if options().verbose {
        crate::io::print_err(&format!("{line}\n"));
    }
}
