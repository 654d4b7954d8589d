//! A spinner on the terminal while a long command works: a build that writes hundreds of
//! megabytes of SystemVerilog, or a cold daemon, says it is alive and for how long.
//!
//! Nothing is drawn unless stderr is a terminal, the output is for humans and not
//! `--quiet`; nothing is drawn for work that ends within [`DELAY`] (most builds), so
//! ordinary output is unchanged. The spinner is cleared before the command prints.

use crate::diagnostics::{self, MessageFormat};
use std::io::IsTerminal;
use std::sync::mpsc;
use std::time::Duration;

/// How long work runs before the spinner appears; `KILN_PROGRESS_DELAY_MS` sets another
/// delay (a test shows the spinner of a short build with 0).
const DELAY: Duration = Duration::from_millis(400);

fn delay() -> Duration {
    std::env::var("KILN_PROGRESS_DELAY_MS")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .map_or(DELAY, |ms| Duration::from_millis(ms.min(60_000)))
}

/// Whether a spinner may be drawn: on a terminal, for humans, unless `--quiet` or
/// `KILN_PROGRESS=never`.
fn wanted() -> bool {
    let o = diagnostics::options();
    !o.quiet
        && matches!(o.format, MessageFormat::Human)
        && std::env::var("KILN_PROGRESS").as_deref() != Ok("never")
        && std::io::stderr().is_terminal()
}

/// Run `work`, showing `Building <what>` with the elapsed time once it has run for
/// [`DELAY`].
pub fn while_running<T>(verb: &str, what: &str, work: impl FnOnce() -> T) -> T {
    if !wanted() {
        return work();
    }
    let delay = delay();
    let (done, wait) = mpsc::channel::<()>();
    std::thread::scope(|s| {
        s.spawn(move || {
            if wait.recv_timeout(delay) != Err(mpsc::RecvTimeoutError::Timeout) {
                return;
            }
            let bar = indicatif::ProgressBar::with_draw_target(
                None,
                indicatif::ProgressDrawTarget::stderr_with_hz(10),
            );
            let template = format!("{{spinner}} {verb} {{msg}} ({{elapsed}})");
            bar.set_style(
                indicatif::ProgressStyle::with_template(&template)
                    .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
            );
            bar.set_message(what.to_string());
            bar.enable_steady_tick(Duration::from_millis(100));
            let _ = wait.recv();
            bar.finish_and_clear();
        });
        let out = work();
        drop(done);
        out
    })
}
