//! Spares: in-place rewrites, refusals, preparation ahead, races, sweeping.

use super::super::dir::{Dir, SPARES};
use super::*;
use std::io::Read;

/// The spares' directory beside `path`.
fn spare_dir(path: &Path) -> PathBuf {
    path.parent().unwrap().join(SPARES)
}

fn dir_of(path: &Path) -> Dir {
    Dir::open(path.parent().unwrap()).unwrap()
}

/// [`write`] of the output at `path`.
fn write_at(
    path: &Path,
    bytes: &OutputBytes,
    replaced: Option<&OutputBytes>,
    log: &SpareLog,
) -> io::Result<Written> {
    write(&dir_of(path), path, bytes, replaced, log).map(|w| w.0)
}

/// [`prepare`] of the output at `path`.
fn prepare_at(
    path: &Path,
    bytes: &OutputBytes,
    log: &SpareLog,
) -> Option<std::thread::JoinHandle<()>> {
    prepare(&dir_of(path), path, bytes, log)
}

/// An output of `n` parts of 256 KiB, part `i` filled with `fill(i)`.
fn output(n: usize, fill: impl Fn(usize) -> u8) -> OutputBytes {
    let parts = (0..n)
        .map(|i| bytes::Bytes::from(vec![fill(i); 256 << 10]))
        .collect();
    OutputBytes::from_parts(parts)
}

fn leftovers(path: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(spare_dir(path))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn rewrites_the_spare_from_the_first_changed_part() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.cmt2.mlir");
    let log = SpareLog::default();
    let v0 = output(8, |_| b'0');
    fs::write(&path, v0.to_vec()).unwrap();
    let v1 = output(8, |i| b'a' + i as u8);
    assert!(eligible(&dir_of(&path), &path, &v1));
    assert_eq!(
        write_at(&path, &v1, Some(&v0), &log).unwrap(),
        Written::Fresh
    );
    assert_eq!(fs::read(&path).unwrap(), v1.to_vec());
    // The spare holds v0 (known): v2 differs from it everywhere.
    let v2 = OutputBytes::from_parts({
        let mut p = v1.parts.to_vec();
        p[5] = bytes::Bytes::from(vec![b'x'; 300 << 10]);
        p
    });
    assert_eq!(
        write_at(&path, &v2, Some(&v1), &log).unwrap(),
        Written::Spare { from: 0 }
    );
    assert_eq!(fs::read(&path).unwrap(), v2.to_vec());
    // The spare holds v1 (known, sharing parts 0..5 with v3): written from part 5 on.
    let v3 = OutputBytes::from_parts({
        let mut p = v1.parts[..5].to_vec();
        p.push(bytes::Bytes::from(vec![b'y'; 100 << 10]));
        p
    });
    assert_eq!(
        write_at(&path, &v3, Some(&v2), &log).unwrap(),
        Written::Spare {
            from: 5 * (256 << 10)
        }
    );
    assert_eq!(fs::read(&path).unwrap(), v3.to_vec());
    assert_eq!(leftovers(&path), ["big.cmt2.mlir.spare"]);
    // The spare is v2, whole.
    let spare = spare_dir(&path).join("big.cmt2.mlir.spare");
    assert_eq!(fs::read(&spare).unwrap(), v2.to_vec());
    // Unknown content (another process, or a restart): written whole, still in place.
    let fresh_log = SpareLog::default();
    assert_eq!(
        write_at(&path, &v1, None, &fresh_log).unwrap(),
        Written::Spare { from: 0 }
    );
    assert_eq!(fs::read(&path).unwrap(), v1.to_vec());
}

#[test]
fn a_spare_someone_holds_open_or_linked_is_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.json");
    let log = SpareLog::default();
    let versions: Vec<OutputBytes> = (0..5).map(|k| output(5, |i| (k * 10 + i) as u8)).collect();
    fs::write(&path, versions[0].to_vec()).unwrap();
    write_at(&path, &versions[1], Some(&versions[0]), &log).unwrap();
    // A reader opens the current version (1) and keeps reading it.
    let mut reader = fs::File::open(&path).unwrap();
    write_at(&path, &versions[2], Some(&versions[1]), &log).unwrap();
    // Version 1 is the spare now, but open: not rewritten.
    assert_eq!(
        write_at(&path, &versions[3], Some(&versions[2]), &log).unwrap(),
        Written::Fresh
    );
    let mut seen = Vec::new();
    reader.read_to_end(&mut seen).unwrap();
    assert_eq!(seen, versions[1].to_vec());
    assert_eq!(fs::read(&path).unwrap(), versions[3].to_vec());
    // A hard link to the spare (a cache keeping it): not rewritten either.
    let spare = spare_dir(&path).join("out.json.spare");
    let kept = dir.path().join("kept");
    fs::hard_link(&spare, &kept).unwrap();
    assert_eq!(
        write_at(&path, &versions[4], Some(&versions[3]), &log).unwrap(),
        Written::Fresh
    );
    assert_eq!(fs::read(&kept).unwrap(), versions[2].to_vec());
    assert_eq!(fs::read(&path).unwrap(), versions[4].to_vec());
    assert_eq!(leftovers(&path), ["out.json.spare"]);
}

#[test]
fn a_spare_is_prepared_ahead_for_a_first_write() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.rules.json");
    let log = SpareLog::default();
    let v0 = output(8, |i| i as u8);
    fs::write(&path, v0.to_vec()).unwrap();
    prepare_at(&path, &v0, &log).unwrap().join().unwrap();
    assert_eq!(leftovers(&path), ["big.rules.json.spare"]);
    // The first edit rewrites the prepared spare from the first changed part.
    let v1 = OutputBytes::from_parts({
        let mut p = v0.parts.to_vec();
        p[6] = bytes::Bytes::from(vec![b'e'; 100 << 10]);
        p
    });
    assert_eq!(
        write_at(&path, &v1, Some(&v0), &log).unwrap(),
        Written::Spare {
            from: 6 * (256 << 10)
        }
    );
    assert_eq!(fs::read(&path).unwrap(), v1.to_vec());
    // A spare exists now: nothing more is prepared.
    prepare_at(&path, &v1, &log).unwrap().join().unwrap();
    assert_eq!(leftovers(&path), ["big.rules.json.spare"]);
    assert_eq!(
        fs::read(spare_dir(&path).join("big.rules.json.spare")).unwrap(),
        v0.to_vec()
    );
}

/// A spare being prepared while writers replace the output: whichever wins, what the
/// log records of a spare is what it holds, so every output is exact.
#[test]
fn preparing_while_writing_keeps_every_output_exact() {
    let versions: Vec<OutputBytes> = (0..6)
        .map(|k| {
            OutputBytes::from_parts(
                (0..6)
                    .map(|i| {
                        let fill = if i < k {
                            b'a' + k as u8
                        } else {
                            b'0' + i as u8
                        };
                        bytes::Bytes::from(vec![fill; (256 << 10) + k * 7])
                    })
                    .collect(),
            )
        })
        .collect();
    for round in 0..12 {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("o.mlir");
        let log = SpareLog::default();
        fs::write(&path, versions[0].to_vec()).unwrap();
        let mut prepared = prepare_at(&path, &versions[0], &log);
        if round % 3 == 0 {
            std::thread::sleep(std::time::Duration::from_micros(200 * round as u64));
        }
        for k in 1..versions.len() {
            write_at(&path, &versions[k], Some(&versions[k - 1]), &log).unwrap();
            let got = fs::read(&path).unwrap();
            assert_eq!(got, versions[k].to_vec(), "round {round}, v{k}");
            // Two writes raced the preparation; the rest follow it.
            if k == 2 {
                prepared.take().unwrap().join().unwrap();
            }
        }
        assert!(leftovers(&path).iter().all(|n| n.ends_with(".spare")));
    }
}

#[test]
fn claims_of_dead_writers_are_swept() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("o.mlir");
    let v = output(5, |i| i as u8);
    fs::write(&path, v.to_vec()).unwrap();
    fs::create_dir_all(spare_dir(&path)).unwrap();
    // No process has pid 4194304 (above Linux's pid_max limit).
    let dead = spare_dir(&path).join("o.mlir.4194304.7.claim");
    let live = spare_dir(&path).join(format!("o.mlir.{}.999.claim", std::process::id()));
    for (claim, bytes) in [(&dead, b"torn"), (&live, b"live")] {
        fs::write(claim, bytes).unwrap();
        let f = fs::File::options().write(true).open(claim).unwrap();
        f.set_modified(std::time::SystemTime::now() - 2 * super::super::sweep::MIN_AGE)
            .unwrap();
    }
    write_at(&path, &v, None, &SpareLog::default()).unwrap();
    assert!(!dead.exists());
    assert!(live.exists());
}

/// Writers in several threads and a reader: the reader only ever sees whole versions,
/// and the file ends as one of them.
#[test]
fn concurrent_writers_and_a_reader_see_whole_versions() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("o.mlir");
    let log = SpareLog::default();
    let versions: Vec<OutputBytes> = (0..4).map(|k| output(5, |i| (k * 16 + i) as u8)).collect();
    let whole: Vec<Vec<u8>> = versions.iter().map(|v| v.to_vec()).collect();
    fs::write(&path, &whole[0]).unwrap();
    let stop = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|s| {
        let reader = s.spawn(|| {
            let mut reads = 0;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let bytes = fs::read(&path).unwrap();
                assert!(whole.contains(&bytes), "a torn or foreign read");
                reads += 1;
            }
            reads
        });
        let writers: Vec<_> = (0..3)
            .map(|w| {
                let (versions, log, path) = (&versions, &log, &path);
                s.spawn(move || {
                    for k in 0..30 {
                        let v = &versions[(w + k) % versions.len()];
                        write_at(path, v, None, log).unwrap();
                    }
                })
            })
            .collect();
        for w in writers {
            w.join().unwrap();
        }
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        assert!(reader.join().unwrap() > 0);
    });
    assert!(whole.contains(&fs::read(&path).unwrap()));
    assert!(leftovers(&path).iter().all(|n| n.ends_with(".spare")));
}

/// Spares change no signal disposition of the process (a lease's break is signalled with
/// SIGURG, which is left as it is).
#[test]
fn writing_through_spares_changes_no_signal_disposition() {
    let disposition = |sig| {
        // SAFETY: a query with a valid out-pointer.
        unsafe {
            let mut old: libc::sigaction = std::mem::zeroed();
            libc::sigaction(sig, std::ptr::null(), &mut old);
            old.sa_sigaction
        }
    };
    let before = (disposition(libc::SIGIO), disposition(libc::SIGURG));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("o.mlir");
    let log = SpareLog::default();
    let versions: Vec<OutputBytes> = (0..3).map(|k| output(5, |i| (k * 8 + i) as u8)).collect();
    fs::write(&path, versions[0].to_vec()).unwrap();
    for k in 1..3 {
        write_at(&path, &versions[k], Some(&versions[k - 1]), &log).unwrap();
    }
    assert_eq!(
        write_at(&path, &versions[0], Some(&versions[2]), &log).unwrap(),
        Written::Spare { from: 0 }
    );
    assert_eq!(
        (disposition(libc::SIGIO), disposition(libc::SIGURG)),
        before
    );
}
