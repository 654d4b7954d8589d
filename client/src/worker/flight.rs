//! One request in flight, between the thread that builds it and whoever may stop it (a
//! cancel, a broken request stream). A build system may reuse a request's directories as
//! soon as it has the request's answer, so a stopped request must write nothing after
//! that answer:
//!
//! - the build asks [`Flight::may_write`] once, right before anything may be written (for
//!   a build in this process, after computing; for a daemon build, before the request goes
//!   out); once it said yes, the build writes to the end and cannot be stopped;
//! - [`Flight::stop`] answers at once ([`Stopped::Now`]) while the build has not started
//!   writing, which then writes nothing; otherwise the stop answer waits for the writes
//!   ([`Stopped::AfterWrites`]) and the build's thread gives it ([`Flight::end`]).
//!
//! Each request gets exactly one answer: its own, or the stop's.

use std::sync::Mutex;

/// Why a request was stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stop {
    /// The build system cancelled it.
    Cancelled,
    /// The worker cannot go on (its request stream broke): the request failed.
    Failed(String),
}

/// What the stopper does after [`Flight::stop`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stopped {
    /// Answer now: the build will write nothing.
    Now,
    /// The build is writing: its thread answers with the stop once the writes are done.
    AfterWrites,
    /// Nothing: the request was answered, or is being answered, already.
    Already,
}

/// How the build's thread answers when its build returns ([`Flight::end`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum End {
    /// With its own result.
    Own,
    /// With the stop that came while it wrote.
    Stop(Stop),
    /// Not at all: the stopper answered before anything was written.
    Silent,
}

#[derive(Debug, Default)]
enum Stage {
    #[default]
    Building,
    Writing,
    Stopped,
    StopAfterWrites(Stop),
    Ended,
}

/// The shared state of one request (see the module docs).
#[derive(Debug, Default)]
pub struct Flight(Mutex<Stage>);

impl Flight {
    fn stage(&self) -> std::sync::MutexGuard<'_, Stage> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether the request was stopped (a build not started yet need not start).
    pub fn is_stopped(&self) -> bool {
        matches!(*self.stage(), Stage::Stopped)
    }

    /// Asked by the build right before it may write: `false` when the request was stopped
    /// (the build must write nothing); after `true` it can no longer be stopped mid-way.
    pub fn may_write(&self) -> bool {
        let mut stage = self.stage();
        match *stage {
            Stage::Building => {
                *stage = Stage::Writing;
                true
            }
            _ => false,
        }
    }

    /// Stop the request; who answers it, and when.
    pub fn stop(&self, why: Stop) -> Stopped {
        let mut stage = self.stage();
        match *stage {
            Stage::Building => {
                *stage = Stage::Stopped;
                Stopped::Now
            }
            Stage::Writing => {
                *stage = Stage::StopAfterWrites(why);
                Stopped::AfterWrites
            }
            Stage::Stopped | Stage::StopAfterWrites(_) | Stage::Ended => Stopped::Already,
        }
    }

    /// The build returned: how its thread answers.
    pub fn end(&self) -> End {
        let mut stage = self.stage();
        match std::mem::replace(&mut *stage, Stage::Ended) {
            Stage::Building | Stage::Writing => End::Own,
            Stage::StopAfterWrites(why) => End::Stop(why),
            Stage::Stopped => {
                *stage = Stage::Stopped;
                End::Silent
            }
            Stage::Ended => End::Silent,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stop_before_writing_is_answered_at_once_and_nothing_is_written() {
        let f = Flight::default();
        assert_eq!(f.stop(Stop::Cancelled), Stopped::Now);
        assert!(f.is_stopped());
        assert!(!f.may_write(), "the build must not write");
        assert_eq!(f.end(), End::Silent, "the stopper answered");
        assert_eq!(f.stop(Stop::Cancelled), Stopped::Already);
    }

    #[test]
    fn a_stop_while_writing_is_answered_by_the_build_after_its_writes() {
        let f = Flight::default();
        assert!(f.may_write());
        assert_eq!(f.stop(Stop::Cancelled), Stopped::AfterWrites);
        assert_eq!(f.stop(Stop::Failed("x".into())), Stopped::Already);
        assert_eq!(f.end(), End::Stop(Stop::Cancelled));
        assert_eq!(f.end(), End::Silent);
    }

    #[test]
    fn a_stop_after_the_end_changes_nothing() {
        let f = Flight::default();
        assert!(f.may_write());
        assert_eq!(f.end(), End::Own);
        assert_eq!(f.stop(Stop::Cancelled), Stopped::Already);
        // A build that ends without asking (an argument error) answers with its own result.
        let g = Flight::default();
        assert_eq!(g.end(), End::Own);
    }
}
