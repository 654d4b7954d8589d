//! AIG size against ABC: over blif_bench, our AND count must be at most ABC's `strash` count
//! in total and at most 1.1x on every file; PI/PO/latch counts must equal ABC's
//! (`blif_bench/abc_reference.tsv`, columns `pi po lat and`).

mod common;

use compiler::{aig, blif};

#[test]
fn and_counts_within_abc_strash() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let bench = shared.join("blif_bench");
    let tsv = std::fs::read_to_string(bench.join("abc_reference.tsv")).unwrap();
    let mut lines = tsv.lines();
    let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (cf, cpi, cpo, clat, cand) = (col("file"), col("pi"), col("po"), col("lat"), col("and"));
    let (mut ours_total, mut abc_total, mut files) = (0usize, 0usize, 0);
    let mut worst = (0.0f64, String::new());
    for line in lines {
        let f: Vec<&str> = line.split('\t').collect();
        let path = bench.join(f[cf]);
        if f[cand] == "ERR" || !path.exists() {
            continue; // rows for generated files not in the folder, or files ABC cannot read
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let parsed = blif::parse(&text).unwrap();
        let lowered = aig::lower_file(&parsed.file).unwrap();
        let g = &lowered.top().aig;
        let counts = (
            g.inputs().len().to_string(),
            g.outputs().len().to_string(),
            g.latches().len().to_string(),
        );
        assert_eq!(
            counts,
            (f[cpi].to_string(), f[cpo].to_string(), f[clat].to_string()),
            "{}",
            f[cf]
        );
        let abc: usize = f[cand].parse().unwrap();
        let ratio = g.and_count() as f64 / abc.max(1) as f64;
        assert!(
            ratio <= 1.1,
            "{}: {} ANDs vs ABC {abc}",
            f[cf],
            g.and_count()
        );
        if ratio > worst.0 {
            worst = (ratio, f[cf].to_string());
        }
        ours_total += g.and_count();
        abc_total += abc;
        files += 1;
    }
    assert_eq!(files, 70);
    assert!(
        ours_total <= abc_total,
        "total {ours_total} ANDs vs ABC {abc_total}"
    );
    eprintln!(
        "{files} files: {ours_total} ANDs vs ABC strash {abc_total}; worst ratio {:.4} ({})",
        worst.0, worst.1
    );
}
