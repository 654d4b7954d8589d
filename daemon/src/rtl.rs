//! Template synthesis: a unit from one of Dynamatic's Verilog templates
//! ([`compiler::handshake::rtl::Template`]) made into a flat BLIF model by yosys, whose
//! ports are the op's pin names; the caller lowers the BLIF like a library file.
//!
//! yosys is `$KILN_YOSYS`, else `yosys` on PATH; a design that needs a template unit when
//! neither exists is refused (`no_yosys`, `E0412`), never built with silent fallbacks.
//! yosys runs in a fresh private directory (0700, removed afterwards) holding copies of the
//! template files, the wrapper and the script, created there with `O_EXCL` (no link can be
//! planted in it), with its output read back as a regular file; it is killed after
//! `TIMEOUT`. Results are kept per (template texts, wrapper) for the process's life.

use compiler::diag::{Code, Diagnostic, Located, Severity};
use compiler::flow::handshake::{Front, Library};
use compiler::handshake::rtl::Template;
use compiler::limits::Limits;
use std::collections::HashMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// How long one yosys run may take.
pub(crate) const TIMEOUT: Duration = Duration::from_secs(300);

/// The largest template file read, and the largest BLIF read back.
const MAX_TEXT: u64 = 64 << 20;

/// yosys: `$KILN_YOSYS` if set (it must name an executable file), else `yosys` on PATH.
pub fn find_yosys() -> Option<PathBuf> {
    if let Some(v) = std::env::var_os("KILN_YOSYS").filter(|v| !v.is_empty()) {
        let p = PathBuf::from(v);
        return is_executable(&p).then_some(p);
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join("yosys"))
        .find(|p| is_executable(p))
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The error of a design whose `ops` ops need template units when there is no yosys.
pub(crate) fn no_yosys(ops: usize) -> Diagnostic {
    let s = if ops == 1 { "" } else { "s" };
    let mut d = Diagnostic::global_error(format!(
        "yosys was not found (PATH, $KILN_YOSYS): {ops} op{s} need Verilog template units"
    ))
    .with_code(Code::NoYosys);
    d.notes
        .push("install yosys (`apt-get install yosys`), or build without --rtl-lib".into());
    d
}

/// The texts of `t`'s files under `dir`, in order: (path shown, text).
pub(crate) fn read_sources(dir: &Path, t: &Template) -> Result<Vec<(String, String)>, Located> {
    let mut out = Vec::with_capacity(t.files.len());
    for rel in &t.files {
        let full = dir.join(rel);
        let shown = full.display().to_string();
        let bytes = crate::input::read_max(&full, MAX_TEXT).map_err(|e| {
            Located::file(shown.clone(), Severity::Warning, e.to_string())
                .with_code(Code::TemplateFailed)
        })?;
        let text = String::from_utf8(bytes).map_err(|_| {
            Located::file(shown.clone(), Severity::Warning, "not UTF-8")
                .with_code(Code::TemplateFailed)
        })?;
        out.push((shown, text));
    }
    Ok(out)
}

/// The yosys script: the files read in order (deferred, so the wrapper's parameters
/// elaborate them), flattened to gates with every flip-flop starting at 0, as one BLIF
/// model.
fn script(files: usize, top: &str) -> String {
    let mut s = String::new();
    for i in 0..files {
        s.push_str(&format!("read_verilog -defer f{i}.v\n"));
    }
    s.push_str("read_verilog -defer wrapper.v\n");
    s.push_str(&format!("hierarchy -check -top {top}\n"));
    s.push_str(
        "proc\nflatten\nopt -nodffe -nosdff\nmemory\nopt -nodffe -nosdff\ntechmap\n\
         opt -nodffe -nosdff\nsetundef -zero -init\nsetundef -zero -undriven\nopt_clean\n\
         write_blif -gates out.blif\n",
    );
    s
}

/// Why a synthesis failed (a warning's message).
type Why = String;

/// The flat BLIF of `t` from `sources` (its files' texts, in order), by the yosys at
/// `yosys`, within `timeout`.
pub(crate) fn synthesize(
    yosys: &Path,
    sources: &[(String, String)],
    t: &Template,
    timeout: Duration,
) -> Result<String, Why> {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::Builder::new()
        .prefix("kiln-rtl-")
        .permissions(std::fs::Permissions::from_mode(0o700))
        .tempdir()
        .map_err(|e| format!("cannot make a private directory: {e}"))?;
    let write = |name: &str, text: &str| -> Result<(), Why> {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(dir.path().join(name))
            .map_err(|e| format!("cannot write {name}: {e}"))?;
        f.write_all(text.as_bytes())
            .map_err(|e| format!("cannot write {name}: {e}"))
    };
    for (i, (_, text)) in sources.iter().enumerate() {
        write(&format!("f{i}.v"), text)?;
    }
    write("wrapper.v", &t.wrapper)?;
    write("script.ys", &script(sources.len(), &t.model))?;
    let log = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(dir.path().join("yosys.log"))
        .map_err(|e| format!("cannot write the log: {e}"))?;
    let mut child = Command::new(yosys)
        .args(["-q", "-s", "script.ys"])
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", yosys.display()))?;
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break s,
            Ok(None) if start.elapsed() > timeout => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("yosys timed out after {} s", timeout.as_secs()));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => return Err(format!("cannot wait for yosys: {e}")),
        }
    };
    if !status.success() {
        let log = std::fs::read(dir.path().join("yosys.log")).unwrap_or_default();
        let log = String::from_utf8_lossy(&log);
        let last = log
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        return Err(format!("yosys failed ({status}): {}", last.trim()));
    }
    let blif = crate::input::read_max(&dir.path().join("out.blif"), MAX_TEXT)
        .map_err(|e| format!("cannot read yosys's BLIF: {e}"))?;
    String::from_utf8(blif).map_err(|_| "yosys's BLIF is not UTF-8".to_string())
}

/// The BLIF of `t`, synthesized once per (yosys, sources, wrapper) in this process.
pub(crate) fn synthesize_cached(
    yosys: &Path,
    sources: &[(String, String)],
    t: &Template,
) -> Result<String, Why> {
    type Key = (PathBuf, Vec<String>, String);
    type Memo = Mutex<HashMap<Key, Result<String, Why>>>;
    static MEMO: OnceLock<Memo> = OnceLock::new();
    let key = (
        yosys.to_path_buf(),
        sources.iter().map(|(_, t)| t.clone()).collect::<Vec<_>>(),
        t.wrapper.clone(),
    );
    let memo = MEMO.get_or_init(Default::default);
    if let Some(r) = memo.lock().ok().and_then(|m| m.get(&key).cloned()) {
        return r;
    }
    let r = synthesize(yosys, sources, t, TIMEOUT);
    if let Ok(mut m) = memo.lock() {
        m.insert(key, r.clone());
    }
    r
}

/// A template's unit made: its sources read under `dir`, synthesized, lowered under
/// `limits`; as [`Library::add_template`] takes it.
pub fn make(
    yosys: &Path,
    dir: &Path,
    t: &Template,
    limits: &Limits,
) -> Result<
    (
        String,
        Result<compiler::handshake::LibUnit, compiler::diag::Diagnostic>,
    ),
    Located,
> {
    let sources = read_sources(dir, t)?;
    unit_of(yosys, &sources, t, limits)
}

/// [`make`] from sources already read.
pub(crate) fn unit_of(
    yosys: &Path,
    sources: &[(String, String)],
    t: &Template,
    limits: &Limits,
) -> Result<
    (
        String,
        Result<compiler::handshake::LibUnit, compiler::diag::Diagnostic>,
    ),
    Located,
> {
    unit_from(synthesize_cached(yosys, sources, t), t, limits)
}

/// The unit of `t` from what yosys made of it (its BLIF, or why there is none).
pub(crate) fn unit_from(
    blif: Result<String, Why>,
    t: &Template,
    limits: &Limits,
) -> Result<
    (
        String,
        Result<compiler::handshake::LibUnit, compiler::diag::Diagnostic>,
    ),
    Located,
> {
    let blif = blif.map_err(|why| {
        Located::file(
            t.key(),
            Severity::Warning,
            format!("a Verilog template unit could not be synthesized: {why}"),
        )
        .with_code(Code::TemplateFailed)
    })?;
    let lowered = compiler::flow::handshake::unit(&blif, limits);
    Ok((blif, lowered))
}

/// The template units `front` uses, made from the templates under `dir` into `library`.
/// `Err`: the design needs template units and there is no yosys.
pub fn load(
    front: &Front,
    dir: &Path,
    library: &mut Library,
    limits: &Limits,
) -> Result<(), Diagnostic> {
    if front.templates.is_empty() {
        return Ok(());
    }
    let Some(yosys) = find_yosys() else {
        let ops = front.marks.iter().filter(|m| m.template.is_some()).count();
        return Err(no_yosys(ops));
    };
    for (key, t) in &front.templates {
        library.add_template(key, make(&yosys, dir, t, limits));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    /// A stand-in for yosys: a shell script with `body`.
    fn fake(dir: &Path, body: &str) -> PathBuf {
        let p = dir.join("yosys");
        std::fs::write(&p, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        p
    }

    fn template() -> Template {
        Template {
            module: "m".into(),
            files: vec!["m.v".into()],
            params: vec![("W".into(), 1)],
            model: "kiln_rtl_m__1".into(),
            wrapper: "module kiln_rtl_m__1 (); endmodule\n".into(),
        }
    }

    fn sources() -> Vec<(String, String)> {
        vec![("m.v".into(), "module m; endmodule\n".into())]
    }

    #[test]
    fn a_yosys_that_hangs_is_killed_after_the_time_out() {
        let dir = tempfile::tempdir().unwrap();
        let y = fake(dir.path(), "exec sleep 30");
        let start = Instant::now();
        let e = synthesize(&y, &sources(), &template(), Duration::from_millis(300)).unwrap_err();
        assert!(e.contains("timed out"), "{e}");
        assert!(start.elapsed() < Duration::from_secs(10));
    }

    #[test]
    fn a_failing_yosys_is_its_last_message_and_the_private_directory_goes() {
        let dir = tempfile::tempdir().unwrap();
        // The script records where it ran, checks what it was given, then fails.
        let body = format!(
            "pwd > {0}/ran; ls > {0}/files; stat -c %a . > {0}/mode; echo 'ERROR: no good' >&2; exit 1",
            dir.path().display()
        );
        let y = fake(dir.path(), &body);
        let e = synthesize(&y, &sources(), &template(), TIMEOUT).unwrap_err();
        assert!(
            e.contains("yosys failed") && e.contains("ERROR: no good"),
            "{e}"
        );
        let ran = std::fs::read_to_string(dir.path().join("ran")).unwrap();
        assert!(
            !Path::new(ran.trim()).exists(),
            "the private directory is removed"
        );
        let files = std::fs::read_to_string(dir.path().join("files")).unwrap();
        assert_eq!(
            files.split_whitespace().collect::<Vec<_>>(),
            ["f0.v", "script.ys", "wrapper.v", "yosys.log"]
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join("mode"))
                .unwrap()
                .trim(),
            "700"
        );
    }

    #[test]
    fn the_blif_yosys_writes_is_the_result() {
        let dir = tempfile::tempdir().unwrap();
        let y = fake(
            dir.path(),
            "printf '.model kiln_rtl_m__1\\n.end\\n' > out.blif",
        );
        let blif = synthesize(&y, &sources(), &template(), TIMEOUT).unwrap();
        assert_eq!(blif, ".model kiln_rtl_m__1\n.end\n");
    }
}
