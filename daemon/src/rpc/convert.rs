//! Plain types to and from the generated ones.

use super::*;
use compiler::diag::lint::{Level, Lint, Lints};
use compiler::limits::Limit;

pub(super) fn display(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

pub(super) fn spec_to_proto(spec: &BuildSpec) -> proto::BuildRequest {
    let opt = |p: &Option<PathBuf>| p.as_deref().map(display).unwrap_or_default();
    let h = &spec.handshake;
    proto::BuildRequest {
        inputs: spec.inputs.iter().map(|p| display(p)).collect(),
        output_kinds: spec.kinds.iter().map(|k| k.name().to_string()).collect(),
        out_dir: display(&spec.out_dir),
        blif_lib: opt(&h.blif_lib),
        rtl_lib: opt(&h.rtl_lib),
        path_table: opt(&h.path_table),
        synth_dialect: dialect_name(h.dialect).into(),
        naming: naming_name(h.naming).into(),
        handshake_func: h.func.clone().unwrap_or_default(),
        input_digests: spec
            .input_digests
            .iter()
            .map(|(p, sha)| proto::InputDigest {
                path: display(p),
                sha256: hex(sha),
            })
            .collect(),
        digests: spec.digests,
        changed_only: spec.changed_only,
        limits: (spec.limits.iter())
            .flat_map(|l| Limit::ALL.map(|k| (k.key().to_string(), l.get(k))))
            .collect(),
        lints: (spec.lints.iter())
            .map(|(l, v)| (l.as_str().to_string(), v.as_str().to_string()))
            .collect(),
        watch_debounce_ms: 0,
        top: spec.top.clone().unwrap_or_default(),
        jobs: u32::try_from(spec.jobs).unwrap_or(u32::MAX),
        style: match spec.style {
            compiler::aps::Style::Fsm => String::new(),
            s => s.name().to_string(),
        },
        aps_config: (spec.aps_config.as_ref())
            .map(|c| serde_json::to_string(c).unwrap_or_default())
            .unwrap_or_default(),
        aps_config_path: (spec.aps_config_path.as_ref())
            .map(|p| p.display().to_string())
            .unwrap_or_default(),
        blif_only: spec.blif_only,
        per_file: spec.per_file,
    }
}

pub(super) fn spec_from_proto(req: &proto::BuildRequest) -> Result<BuildSpec, SpecError> {
    let path = |s: &str| (!s.is_empty()).then(|| PathBuf::from(s));
    let mut digests = std::collections::BTreeMap::new();
    for d in &req.input_digests {
        let sha = parse_hex(&d.sha256).ok_or_else(|| SpecError::Digest(d.path.clone()))?;
        digests.insert(PathBuf::from(&d.path), sha);
    }
    Ok(BuildSpec {
        inputs: req.inputs.iter().map(PathBuf::from).collect(),
        kinds: spec::parse_kinds(&req.output_kinds)?,
        out_dir: PathBuf::from(&req.out_dir),
        handshake: HandshakeSpec {
            blif_lib: path(&req.blif_lib),
            rtl_lib: path(&req.rtl_lib),
            path_table: path(&req.path_table),
            dialect: spec::parse_dialect(&req.synth_dialect)?,
            naming: spec::parse_naming(&req.naming)?,
            func: (!req.handshake_func.is_empty()).then(|| req.handshake_func.clone()),
        },
        input_digests: Arc::new(digests),
        digests: req.digests,
        changed_only: req.changed_only,
        limits: limits_from_proto(&req.limits),
        lints: lints_from_proto(&req.lints),
        top: (!req.top.is_empty()).then(|| req.top.clone()),
        jobs: req.jobs as usize,
        style: match req.style.as_str() {
            "" => compiler::aps::Style::Fsm,
            s => compiler::aps::Style::parse(s).ok_or_else(|| SpecError::Style(s.to_string()))?,
        },
        aps_config: match req.aps_config.as_str() {
            "" => None,
            s => Some(serde_json::from_str(s).map_err(|e| SpecError::ApsConfig(e.to_string()))?),
        },
        aps_config_path: path(&req.aps_config_path),
        blif_only: req.blif_only,
        per_file: req.per_file,
    })
}

/// The lint levels of a request (names or levels this build does not know are left out).
fn lints_from_proto(map: &std::collections::HashMap<String, String>) -> Lints {
    (map.iter())
        .filter_map(|(k, v)| Some((Lint::parse(k).ok()?, Level::parse(v)?)))
        .collect()
}

/// The limits of a request: the daemon's own, with those the request names replaced (keys
/// this build does not know are left out); `None` when it names none.
fn limits_from_proto(
    map: &std::collections::HashMap<String, u64>,
) -> Option<compiler::limits::Limits> {
    if map.is_empty() {
        return None;
    }
    let mut limits = crate::input::limits();
    for (key, &value) in map {
        if let Some(l) = Limit::from_key(key) {
            limits.set(l, value);
        }
    }
    Some(limits)
}

pub(super) fn counts_to_proto(snap: &Snapshot) -> Vec<proto::QueryCount> {
    snap.iter()
        .map(|(k, c)| proto::QueryCount {
            kind: k.to_string(),
            executions: c.executions,
            cache_hits: c.cache_hits,
        })
        .collect()
}

/// Counts by kind; kinds this build does not know are left out.
pub(super) fn counts_from_proto(counts: &[proto::QueryCount]) -> Snapshot {
    counts
        .iter()
        .filter_map(|q| {
            let kind = Kind::ALL.iter().find(|k| k.name() == q.kind)?;
            let count = Count {
                executions: q.executions,
                cache_hits: q.cache_hits,
            };
            Some((kind.name(), count))
        })
        .collect()
}

pub(super) fn report_to_proto(r: BuildReport) -> proto::BuildReply {
    let us = |d: Duration| d.as_micros() as u64;
    let ok = r.ok();
    proto::BuildReply {
        files: r
            .files
            .iter()
            .map(|f| proto::OutputFile {
                path: display(&f.path),
                kind: f.kind.name().to_string(),
                sha256: f.sha256.as_ref().map(hex).unwrap_or_default(),
                written: f.written,
            })
            .collect(),
        diagnostics: r
            .diagnostics
            .into_iter()
            .map(|d| proto::FileDiagnostics {
                errors: d.errors() as u32,
                allowed: d.allowed,
                outputs: d.outputs.iter().map(|p| display(p)).collect(),
                stats: d.stats.map(|s| proto::AigStats {
                    pi: s.pi as u64,
                    po: s.po as u64,
                    latches: s.latches as u64,
                    ands: s.ands as u64,
                    levels: s.levels,
                }),
                messages: d
                    .messages
                    .into_iter()
                    .map(|m| message_to_proto(m, &d.path))
                    .collect(),
                path: d.path,
            })
            .collect(),
        ok,
        counts: counts_to_proto(&r.counts),
        duration_us: us(r.times.total),
        sync_us: us(r.times.sync),
        compute_us: us(r.times.compute),
        hash_us: us(r.times.hash),
        write_us: us(r.times.write),
        unchanged_omitted: r.unchanged_omitted,
    }
}

pub(super) fn report_from_proto(r: proto::BuildReply) -> BuildReport {
    let us = Duration::from_micros;
    BuildReport {
        files: r
            .files
            .iter()
            .filter_map(|f| {
                Some(OutputFile {
                    path: PathBuf::from(&f.path),
                    kind: OutputKind::parse(&f.kind)?,
                    sha256: parse_hex(&f.sha256),
                    written: f.written,
                })
            })
            .collect(),
        unchanged_omitted: r.unchanged_omitted,
        diagnostics: r
            .diagnostics
            .into_iter()
            .map(|d| FileReport {
                allowed: d.allowed,
                outputs: d.outputs.iter().map(PathBuf::from).collect(),
                stats: d.stats.map(|s| compiler::aig::Stats {
                    pi: usize::try_from(s.pi).unwrap_or(usize::MAX),
                    po: usize::try_from(s.po).unwrap_or(usize::MAX),
                    latches: usize::try_from(s.latches).unwrap_or(usize::MAX),
                    ands: usize::try_from(s.ands).unwrap_or(usize::MAX),
                    levels: s.levels,
                }),
                messages: d
                    .messages
                    .into_iter()
                    .map(|m| message_from_proto(m, &d.path))
                    .collect(),
                path: d.path,
            })
            .collect(),
        counts: counts_from_proto(&r.counts),
        times: Times {
            total: us(r.duration_us),
            sync: us(r.sync_us),
            compute: us(r.compute_us),
            hash: us(r.hash_us),
            write: us(r.write_us),
        },
    }
}

pub(super) fn range_to_proto(r: &Range<usize>) -> proto::ByteRange {
    proto::ByteRange {
        start: r.start as u64,
        end: r.end as u64,
    }
}

pub(super) fn range_from_proto(r: &proto::ByteRange) -> Range<usize> {
    r.start as usize..r.end.max(r.start) as usize
}

const OUTLINE_KINDS: [(&str, OutlineKind); 4] = [
    ("function", OutlineKind::Function),
    ("block", OutlineKind::Block),
    ("loop", OutlineKind::Loop),
    ("model", OutlineKind::Model),
];

pub(super) fn outline_to_proto(o: &OutlineItem) -> proto::OutlineItem {
    proto::OutlineItem {
        name: o.name.clone(),
        kind: spec::name_of(&OUTLINE_KINDS, o.kind).to_string(),
        range: Some(range_to_proto(&o.range)),
        selection: Some(range_to_proto(&o.selection)),
        children: o.children.iter().map(outline_to_proto).collect(),
    }
}

pub(super) fn outline_from_proto(o: &proto::OutlineItem) -> OutlineItem {
    OutlineItem {
        name: o.name.clone(),
        kind: spec::by_name(&OUTLINE_KINDS, &o.kind).unwrap_or(OutlineKind::Block),
        range: o.range.as_ref().map(range_from_proto).unwrap_or_default(),
        selection: o
            .selection
            .as_ref()
            .map(range_from_proto)
            .unwrap_or_default(),
        children: o.children.iter().map(outline_from_proto).collect(),
    }
}

pub(super) fn document_to_proto(d: &DocumentChange) -> proto::AnalyzeRequest {
    let opt = |p: &Option<PathBuf>| p.as_deref().map(display).unwrap_or_default();
    let mut req = proto::AnalyzeRequest {
        path: display(&d.path),
        version: d.version,
        blif_lib: opt(&d.handshake.blif_lib),
        path_table: opt(&d.handshake.path_table),
        rtl_lib: opt(&d.handshake.rtl_lib),
        ..Default::default()
    };
    match &d.change {
        OverlayChange::Full(text) => {
            req.full = true;
            req.text = text.clone();
        }
        OverlayChange::Edits { base, edits } => {
            req.base_version = *base;
            req.edits = edits
                .iter()
                .map(|e| proto::TextEdit {
                    range: Some(range_to_proto(&e.range)),
                    text: e.text.clone(),
                })
                .collect();
        }
    }
    req
}

pub(super) fn document_from_proto(r: proto::AnalyzeRequest) -> DocumentChange {
    let path = |s: &str| (!s.is_empty()).then(|| PathBuf::from(s));
    let change = match r.full {
        true => OverlayChange::Full(r.text),
        false => OverlayChange::Edits {
            base: r.base_version,
            edits: r
                .edits
                .into_iter()
                .map(|e| Edit {
                    range: e.range.as_ref().map(range_from_proto).unwrap_or_default(),
                    text: e.text,
                })
                .collect(),
        },
    };
    DocumentChange {
        path: PathBuf::from(&r.path),
        version: r.version,
        change,
        handshake: HandshakeSpec {
            blif_lib: path(&r.blif_lib),
            path_table: path(&r.path_table),
            rtl_lib: path(&r.rtl_lib),
            ..HandshakeSpec::default()
        },
    }
}

/// A message of the file `file`: its path travels only when it is another file's (a
/// library unit's), which keeps a report of many messages small.
pub(super) fn message_to_proto(m: Located, file: &str) -> proto::Message {
    proto::Message {
        path: if m.path == file {
            String::new()
        } else {
            m.path
        },
        severity: m.severity.as_str().to_string(),
        message: m.message,
        notes: m.notes,
        at: m.at.map(|a| proto::Position {
            line: a.line as u64,
            col: a.col as u64,
            byte_col: a.byte_col as u64,
            len: a.len as u64,
            line_text: a.line_text,
            end_line: a.end_line as u64,
            end_col: a.end_col as u64,
        }),
        related: m
            .related
            .into_iter()
            .map(|r| message_to_proto(r, file))
            .collect(),
        code: m.code.map_or_else(String::new, |c| c.as_str().to_string()),
    }
}

pub(super) fn message_from_proto(m: proto::Message, file: &str) -> Located {
    let severity = match m.severity.as_str() {
        "warning" => Severity::Warning,
        "note" => Severity::Note,
        _ => Severity::Error,
    };
    Located {
        path: if m.path.is_empty() {
            file.to_string()
        } else {
            m.path
        },
        severity,
        code: Code::parse(&m.code),
        message: m.message,
        notes: m.notes,
        at: m.at.map(|a| {
            Box::new(At {
                line: a.line as usize,
                col: a.col as usize,
                byte_col: a.byte_col as usize,
                len: a.len as usize,
                line_text: a.line_text,
                end_line: a.end_line as usize,
                end_col: a.end_col as usize,
            })
        }),
        related: m
            .related
            .into_iter()
            .map(|r| message_from_proto(r, file))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `jobs` crosses the wire (field 17); 0, as an older client sends it, is the daemon's
    /// default, and a request's count never exceeds what a map runs.
    #[test]
    fn jobs_cross_the_wire() {
        let spec = BuildSpec {
            inputs: vec![PathBuf::from("/w/a.blif")],
            out_dir: PathBuf::from("/w/out"),
            jobs: 3,
            ..BuildSpec::default()
        };
        let req = spec_to_proto(&spec);
        assert_eq!(req.jobs, 3);
        assert_eq!(spec_from_proto(&req).unwrap(), spec);
        let old = proto::BuildRequest {
            jobs: 0,
            ..req.clone()
        };
        assert_eq!(spec_from_proto(&old).unwrap().jobs, 0);
        let huge = proto::BuildRequest {
            jobs: u32::MAX,
            ..req
        };
        let jobs = spec_from_proto(&huge).unwrap().jobs;
        assert_eq!(compiler::par::jobs_or_cores(jobs), compiler::par::MAX_JOBS);
    }

    /// `kiln aig`'s request and report cross the wire: `blif_only`, `per_file`, and each
    /// input's outputs and AIG figures.
    #[test]
    fn per_file_reports_cross_the_wire() {
        let spec = BuildSpec {
            inputs: vec![PathBuf::from("/w/lib")],
            kinds: vec![OutputKind::FlatBlif],
            out_dir: PathBuf::from("/w/out"),
            blif_only: true,
            per_file: true,
            ..BuildSpec::default()
        };
        assert_eq!(spec_from_proto(&spec_to_proto(&spec)).unwrap(), spec);
        let stats = compiler::aig::Stats {
            pi: 3,
            po: 2,
            latches: 1,
            ands: 40,
            levels: 7,
        };
        let report = BuildReport {
            diagnostics: vec![
                FileReport {
                    path: "/w/lib/a.blif".into(),
                    outputs: vec![PathBuf::from("/w/out/a.blif")],
                    stats: Some(stats),
                    ..FileReport::default()
                },
                FileReport {
                    path: "/w/lib/b.blif".into(),
                    ..FileReport::default()
                },
            ],
            ..BuildReport::default()
        };
        let back = report_from_proto(report_to_proto(report.clone()));
        assert_eq!(back.diagnostics, report.diagnostics);
    }
}
