//! The one parallel map of kiln's independent items (the functions of an APS file, the
//! inputs of a one-shot build, the files of `kiln aig`, a daemon's prewarmed queries, a
//! build's big outputs): at most `jobs` scoped threads take items off a shared counter, and
//! the results come back in input order, so what a caller prints or writes is the same for
//! any number of jobs.

use std::collections::BTreeMap;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The most threads one map runs, whatever a request asks for.
pub const MAX_JOBS: usize = 256;

/// The threads worth running at once on this machine (asked once per process).
pub fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// The number of jobs of a build: `requested` (at most [`MAX_JOBS`]), or with 0 the
/// threads worth running at once ([`cores`]).
pub fn jobs_or_cores(requested: usize) -> usize {
    match requested {
        0 => cores(),
        n => n.min(MAX_JOBS),
    }
}

/// `f` of each of `items`, in input order, computed on at most `jobs` threads (on this
/// thread when one thread or one item would do).
///
/// A panic of `f` stops the other threads taking items and is resumed on this thread with
/// its own payload (so a `salsa::Cancelled` stays one).
pub fn map<T: Sync, R: Send>(jobs: usize, items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let mut out = Vec::with_capacity(items.len());
    for_each(jobs, items, f, |_, r| out.push(r));
    out
}

/// [`map`] without keeping the results: `sink` gets each result (with its index) in input
/// order as soon as it and those before it are done.
pub fn for_each<T: Sync, R: Send>(
    jobs: usize,
    items: &[T],
    f: impl Fn(&T) -> R + Sync,
    sink: impl FnMut(usize, R),
) {
    for_each_with(jobs, items, || (), |_, item| f(item), sink);
}

/// [`for_each`] where each thread gets a state of its own, made by `init` on the calling
/// thread (e.g. a database handle), and `f` gets it with each item.
pub fn for_each_with<T: Sync, S: Send, R: Send>(
    jobs: usize,
    items: &[T],
    mut init: impl FnMut() -> S,
    f: impl Fn(&S, &T) -> R + Sync,
    mut sink: impl FnMut(usize, R),
) {
    let threads = jobs.clamp(1, items.len().max(1));
    if threads == 1 {
        let state = init();
        for (i, item) in items.iter().enumerate() {
            sink(i, f(&state, item));
        }
        return;
    }
    let next = AtomicUsize::new(0);
    let panicked = Mutex::new(None);
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::scope(|s| {
        for _ in 0..threads {
            let (tx, next, f, panicked, state) = (tx.clone(), &next, &f, &panicked, init());
            s.spawn(move || {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = items.get(i) else { break };
                    match panic::catch_unwind(AssertUnwindSafe(|| f(&state, item))) {
                        Ok(r) => {
                            if tx.send((i, r)).is_err() {
                                break;
                            }
                        }
                        Err(payload) => {
                            next.store(items.len(), Ordering::Relaxed);
                            let mut first = panicked.lock().unwrap_or_else(|e| e.into_inner());
                            first.get_or_insert(payload);
                            break;
                        }
                    }
                }
            });
        }
        drop(tx);
        let mut early = BTreeMap::new();
        let mut due = 0;
        for (i, r) in rx {
            early.insert(i, r);
            while let Some(r) = early.remove(&due) {
                sink(due, r);
                due += 1;
            }
        }
    });
    let payload = panicked.into_inner().unwrap_or_else(|e| e.into_inner());
    if let Some(payload) = payload {
        panic::resume_unwind(payload);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;
    use std::sync::atomic::AtomicUsize;

    /// Items that finish in reverse order of their index.
    fn slow_first(i: &u64) -> u64 {
        std::thread::sleep(std::time::Duration::from_millis(20u64.saturating_sub(*i)));
        i * i
    }

    #[test]
    fn results_keep_input_order_for_any_number_of_jobs() {
        let items: Vec<u64> = (0..20).collect();
        let expected: Vec<u64> = items.iter().map(|i| i * i).collect();
        for jobs in [1, 2, 3, 8, 100] {
            assert_eq!(map(jobs, &items, slow_first), expected, "{jobs} jobs");
        }
        assert!(map(4, &[] as &[u64], slow_first).is_empty());
        assert_eq!(map(4, &[3u64], slow_first), [9]);
    }

    #[test]
    fn sink_sees_indices_in_order() {
        let items: Vec<u64> = (0..10).collect();
        let mut seen = Vec::new();
        for_each(3, &items, slow_first, |i, r| seen.push((i, r)));
        let expected: Vec<(usize, u64)> = (0..10).map(|i| (i, (i * i) as u64)).collect();
        assert_eq!(seen, expected);
    }

    /// How many threads `f` ran on, and the most calls of `f` running at once.
    fn concurrency(jobs: usize, n: usize) -> (usize, usize) {
        let items: Vec<usize> = (0..n).collect();
        let (running, most) = (AtomicUsize::new(0), AtomicUsize::new(0));
        let threads = Mutex::new(HashSet::new());
        map(jobs, &items, |_| {
            let now = running.fetch_add(1, Ordering::SeqCst) + 1;
            most.fetch_max(now, Ordering::SeqCst);
            threads.lock().unwrap().insert(std::thread::current().id());
            std::thread::sleep(std::time::Duration::from_millis(5));
            running.fetch_sub(1, Ordering::SeqCst);
        });
        let threads = threads.into_inner().unwrap().len();
        (threads, most.into_inner())
    }

    #[test]
    fn at_most_jobs_run_at_once() {
        // One job: on the caller's thread.
        assert_eq!(concurrency(1, 6), (1, 1));
        let (threads, most) = concurrency(2, 12);
        assert!(
            threads <= 2 && most <= 2,
            "{threads} threads, {most} at once"
        );
        // More jobs than items: one thread per item at most.
        let (threads, most) = concurrency(16, 3);
        assert!(
            threads <= 3 && most <= 3,
            "{threads} threads, {most} at once"
        );
    }

    #[test]
    fn a_panic_comes_back_with_its_payload() {
        #[derive(Debug, PartialEq)]
        struct Stop(usize);
        let items: Vec<usize> = (0..50).collect();
        for jobs in [1, 3] {
            let caught = panic::catch_unwind(|| {
                map(jobs, &items, |&i| {
                    if i == 7 {
                        panic::resume_unwind(Box::new(Stop(i)));
                    }
                    i
                })
            });
            let payload = caught.unwrap_err();
            assert_eq!(
                payload.downcast_ref::<Stop>(),
                Some(&Stop(7)),
                "{jobs} jobs"
            );
        }
    }
}
