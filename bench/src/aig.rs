//! `kiln-bench aig [--abc]`: BLIF→AIGER (read + parse + lower + write binary AIGER), as
//! `kiln aig` does it, on the big files of the shared `blif_bench/`, on generated model
//! hierarchies (chains of 10k, 40k and 100k models, each instantiating the next) and on the
//! whole Dynamatic unit library, and with `--abc` the same job done by `berkeley-abc -c
//! "read_blif F; strash; write_aiger out.aig"` in the same run (not on the chains: ABC's
//! hierarchical reader overflows a buffer on them). Every measurement is a child process
//! (`kiln aig`, the binary next to this one), timed by wall clock, with CPU time from
//! `wait4`'s rusage and the peak RSS of the process itself (see
//! [`crate::common::measure`]), so both tools are measured the same way, start-up
//! included. The median of `--runs` runs is shown.

use crate::common::{
    Failure, Sample, kiln_binary, measure_rounds, measure_runs, read_text, scratch_dir, shared_dir,
    write,
};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

#[derive(clap::Args)]
pub struct AigArgs {
    /// Also run ABC on the same inputs.
    #[arg(long)]
    pub abc: bool,
    /// The shared corpus (default: $KILN_SHARED_DIR or ../shared).
    #[arg(long)]
    pub shared: Option<PathBuf>,
    /// Runs per measurement (median reported).
    #[arg(long, default_value_t = 3)]
    pub runs: usize,
    /// Worker threads for the library run (kiln).
    #[arg(long, default_value_t = 2)]
    pub jobs: usize,
    /// Skip the Dynamatic library run.
    #[arg(long)]
    pub no_library: bool,
    /// Skip the single-file runs.
    #[arg(long)]
    pub no_files: bool,
}

const FILES: &[&str] = &[
    "epfl/hyp.blif",
    "yosys_hier/vga_lcd_flat.blif",
    "yosys_hier/wb_conmax_flat.blif",
    "epfl/div.blif",
    "epfl/multiplier.blif",
];

/// `kiln-bench aig-phases FILE OUT`: one file lowered in this process phase by phase, each
/// phase's time on stderr (for profiling; not used by the timed runs).
pub fn phases(input: &Path, out: &Path) -> Result<(), Failure> {
    let t0 = Instant::now();
    let text = read_text(input)?;
    let t1 = Instant::now();
    let parsed =
        compiler::blif::parse(&text).map_err(|d| Failure::diagnostics(&[d], "input", &text))?;
    let t2 = Instant::now();
    let lowered = compiler::aig::lower_file(&parsed.file)
        .map_err(|d| Failure::diagnostics(&[d], "input", &text))?;
    let t3 = Instant::now();
    let bytes = compiler::aig::write_aiger_binary(&lowered.top().aig);
    write(out, &bytes)?;
    let t4 = Instant::now();
    let ms = |a: Instant, b: Instant| (b - a).as_secs_f64() * 1e3;
    eprintln!(
        "read {:.1} ms, parse {:.1} ms, lower {:.1} ms, write {:.1} ms",
        ms(t0, t1),
        ms(t1, t2),
        ms(t2, t3),
        ms(t3, t4)
    );
    Ok(())
}

pub fn run(args: AigArgs) -> Result<(), Failure> {
    let shared = shared_dir(args.shared.clone());
    if !shared.is_dir() {
        return Err(Failure::input(format!(
            "shared corpus {} not found (use --shared)",
            shared.display()
        )));
    }
    let kiln = kiln_binary(None)?;
    // Outputs of both tools go to tmpfs when there is one: on a disk file system, inode
    // allocation for thousands of new files dominates both tools' run time and varies with
    // the file system's history.
    let tmp = scratch_dir(true)?;
    println!("outputs in {}", tmp.path().display());
    let out = tmp.path().join("kiln_out");
    println!("{LEGEND}");
    println!(
        "{:<34} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7}",
        "input", "kiln s", "cpu s", "kiln MB", "abc s", "cpu s", "abc MB", "wall", "cpu", "mem"
    );
    for rel in FILES.iter().filter(|_| !args.no_files) {
        let file = shared.join("blif_bench").join(rel);
        let ours = || kiln_aig(&kiln, &file, &out);
        let script = format!(
            "read_blif {}; strash; write_aiger {}",
            file.display(),
            tmp.path().join("abc.aig").display()
        );
        let abc = || {
            let mut c = Command::new("berkeley-abc");
            c.args(["-c", &script]);
            c
        };
        if args.abc {
            let m = measure_rounds(args.runs, 2, |i| if i == 0 { ours() } else { abc() })?;
            print_row(rel, m[0], Some(m[1]));
        } else {
            print_row(rel, measure_runs(args.runs, ours)?, None);
        }
    }
    for n in CHAINS.iter().filter(|_| !args.no_files) {
        let file = tmp.path().join(format!("chain{n}.blif"));
        std::fs::write(&file, compiler::blif::generate::and_chain(*n))
            .map_err(|e| Failure::input(e.to_string()))?;
        let ours = measure_runs(args.runs, || kiln_aig(&kiln, &file, &out))?;
        print_row(&format!("chain of {n} models (generated)"), ours, None);
    }
    if !args.no_library {
        bench_library(&args, &shared, &kiln, tmp.path())?;
    }
    Ok(())
}

/// `kiln aig INPUT -o OUT` (one file, its AIG written as `OUT/<name>.aig`).
fn kiln_aig(kiln: &Path, input: &Path, out: &Path) -> Command {
    let mut c = Command::new(kiln);
    c.arg("aig").arg(input).arg("-o").arg(out);
    c
}

/// What the columns of `kiln-bench aig` mean.
const LEGEND: &str = "\
kiln s / abc s: median wall time of a run (child process, start-up and output included);
cpu s: its user + system CPU time; kiln MB / abc MB: the largest peak RSS of the runs.
ratios are ABC / kiln: wall and cpu > 1 when kiln is faster, mem > 1 when kiln uses less
memory; the runs of a row (of all library rows) take turns with ABC's. Chains: model i
instantiates model i + 1 and ANDs its output with an input, one AND per level (ABC's
hierarchical reader overflows a buffer on them: kiln only). Library `list`: both tools
given the list of files (`kiln aig` on its command line, as numbered links), outputs in
one directory; `walk`: `kiln aig DIR` (directories walked, the tree mirrored) against the
same ABC run.";

/// Model counts of the generated hierarchy chains.
const CHAINS: &[usize] = &[10_000, 40_000, 100_000];

fn bench_library(args: &AigArgs, shared: &Path, kiln: &Path, tmp: &Path) -> Result<(), Failure> {
    let lib = shared.join("dynamatic_blif/library");
    let files = blif_files(&lib)?;
    // Both tools given the list of files (ABC in its script, kiln on its command line),
    // outputs `<k>.aig` in one directory: kiln's inputs are links `<k>.blif` to the
    // library's files (their own names collide: `kiln aig` names an output after its
    // input). Then `kiln aig DIR` as users run it: the directory walked and its tree
    // mirrored (~9,600 directories read and made).
    let links = tmp.join("library_links");
    std::fs::create_dir_all(&links).map_err(|e| Failure::input(e.to_string()))?;
    let mut list = Vec::with_capacity(files.len());
    for (k, file) in files.iter().enumerate() {
        let link = links.join(format!("{k}.blif"));
        // The target absolute: a relative one (`--shared ../shared`) resolves from the link.
        let target = std::path::absolute(file).map_err(|e| Failure::input(e.to_string()))?;
        std::os::unix::fs::symlink(target, &link).map_err(|e| Failure::input(e.to_string()))?;
        list.push(link);
    }
    let configs = [(1, false), (args.jobs, false), (1, true), (args.jobs, true)];
    let abc = args.abc.then(|| AbcLibrary::new(&files, tmp)).transpose()?;
    let mut run = 0;
    let commands = configs.len() + abc.is_some() as usize;
    let samples = measure_rounds(args.runs, commands, |i| {
        let Some(&(jobs, walk)) = configs.get(i) else {
            // Past kiln's configurations: ABC's run (counted only when there is ABC).
            return abc
                .as_ref()
                .map_or_else(|| Command::new("true"), AbcLibrary::command);
        };
        // A fresh output directory per run, so that no run skips unchanged outputs.
        run += 1;
        let mut c = Command::new(kiln);
        c.arg("aig");
        if walk {
            c.arg(&lib);
        } else {
            c.args(&list);
        }
        c.arg("-o").arg(tmp.join(format!("kiln_lib{run}")));
        c.args(["--jobs", &jobs.to_string()]);
        c
    })?;
    let abc_sample = match &abc {
        Some(a) => Some(a.check(samples[configs.len()])?),
        None => None,
    };
    for (&(jobs, walk), &sample) in configs.iter().zip(&samples) {
        let how = if walk { "walk" } else { "list" };
        let label = format!("library {} files, {jobs}j, {how}", files.len());
        print_row(&label, sample, abc_sample);
    }
    Ok(())
}

/// The `*.blif` files below `dir`, sorted (the files `kiln aig DIR` lowers).
fn blif_files(dir: &Path) -> Result<Vec<PathBuf>, Failure> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries =
            std::fs::read_dir(&d).map_err(|e| Failure::input(format!("{}: {e}", d.display())))?;
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "blif") {
                found.push(p);
            }
        }
    }
    found.sort();
    Ok(found)
}

/// One ABC process over the whole library (minus the logic-free black boxes ABC crashes on).
struct AbcLibrary {
    script: PathBuf,
    dir: PathBuf,
    files: usize,
}

impl AbcLibrary {
    fn new(files: &[PathBuf], tmp: &Path) -> Result<AbcLibrary, Failure> {
        let dir = tmp.join("abc_lib");
        std::fs::create_dir_all(&dir).map_err(|e| Failure::input(e.to_string()))?;
        let mut script = String::new();
        let mut n = 0;
        for (k, input) in files.iter().enumerate() {
            let text = std::fs::read_to_string(input).unwrap_or_default();
            if !text.contains(".names") {
                continue; // blackboxed divsi/divui/muli units: no logic, ABC segfaults on them
            }
            n += 1;
            script.push_str(&format!(
                "read_blif {}\nstrash\nwrite_aiger {}\n",
                input.display(),
                dir.join(format!("{k}.aig")).display()
            ));
        }
        let path = tmp.join("abc_lib.script");
        std::fs::write(&path, script).map_err(|e| Failure::input(e.to_string()))?;
        Ok(AbcLibrary {
            script: path,
            dir,
            files: n,
        })
    }

    fn command(&self) -> Command {
        let mut c = Command::new("berkeley-abc");
        c.arg("-f").arg(&self.script);
        c
    }

    /// `sample`, once ABC's outputs are all there.
    fn check(&self, sample: Sample) -> Result<Sample, Failure> {
        let written = std::fs::read_dir(&self.dir).map(|d| d.count()).unwrap_or(0);
        if written != self.files {
            return Err(Failure::input(format!(
                "ABC wrote {written} of {} library AIGs",
                self.files
            )));
        }
        println!("(ABC library script: {} files)", self.files);
        Ok(sample)
    }
}

fn print_row(label: &str, ours: Sample, abc: Option<Sample>) {
    let mb = |kb: u64| kb as f64 / 1024.0;
    let mut line = format!(
        "{label:<34} {:>7.3} {:>7.3} {:>7.1}",
        ours.wall,
        ours.cpu,
        mb(ours.rss)
    );
    if let Some(a) = abc {
        line += &format!(
            " {:>7.3} {:>7.3} {:>7.1} {:>6.1}x {:>6.1}x {:>6.2}x",
            a.wall,
            a.cpu,
            mb(a.rss),
            a.wall / ours.wall,
            a.cpu / ours.cpu,
            a.rss as f64 / ours.rss as f64
        );
    }
    println!("{line}");
}
