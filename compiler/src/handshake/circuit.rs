//! The dataflow graph of one `handshake.func`: its ports, its ops with their named ports,
//! and which value feeds which port.
//!
//! Types unbundle as in the original pass: `!handshake.channel<T>` → data (width of `T`),
//! valid, ready; `!handshake.control<>` → valid, ready; `memref<…xT>` → data (element width),
//! valid, ready; a plain integer or float → data only. Extra signals of a channel become
//! further ports (`name_<extra>`) in the direction they travel, instead of being dropped.
//! Floats are carried as their bit pattern (with a warning); other types are errors.
//!
//! Ports take the names of the unit library (notes §3): each op kind has named operand and
//! result groups (`lhs`, `rhs` → `result`; `ins[i]` → `outs[j]`; ...); the function's own ports
//! are named after `argNames`/`resNames` or `in<i>`/`out<j>` ([`Naming`]).

use super::names::group_names;
use crate::diag::{Code, Diagnostic, Span};
use crate::limits::{Limit, Limits};
use crate::mlir::ast::{Attribute, Operation, Type};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// How the ports of the top module are named.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Naming {
    /// `argNames`/`resNames` of the function (falling back to `in<i>`/`out<j>`).
    #[default]
    ArgNames,
    /// `in<i>` / `out<j>` (the original pass of the seed).
    InOut,
}

/// The flat signal shape of one bundled value.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct PortType {
    /// Data bits (0 for control).
    pub width: u32,
    /// Whether the value has valid/ready (channels, control, memrefs).
    pub(crate) handshake: bool,
    /// Extra signals travelling with data: (name, width).
    pub(crate) extra_down: Vec<(String, u32)>,
    /// Extra signals travelling with ready, upstream: (name, width).
    pub(crate) extra_up: Vec<(String, u32)>,
    /// The data is a float's bit pattern.
    pub(crate) float: bool,
}

impl PortType {
    pub(crate) fn channel(width: u32) -> PortType {
        PortType {
            width,
            handshake: true,
            extra_down: Vec::new(),
            extra_up: Vec::new(),
            float: false,
        }
    }

    pub(crate) fn has_extras(&self) -> bool {
        !self.extra_down.is_empty() || !self.extra_up.is_empty()
    }
}

/// One bundled port of a unit or of the function.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct PortSpec {
    pub name: String,
    pub ty: PortType,
}

/// Where a value comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum ValueRef {
    /// Argument `i` of the function.
    Arg(usize),
    /// Result `index` of op `op` (index into [`Circuit::ops`]).
    Result { op: usize, index: usize },
}

/// One Handshake op of the body (everything but the terminator).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct OpNode {
    /// Short op name (`addi`, `fork`, ...).
    pub kind: String,
    /// `handshake.name`, or `<kind><position>` when absent.
    pub name: String,
    /// The value feeding each input port.
    pub operands: Vec<ValueRef>,
    pub inputs: Vec<PortSpec>,
    pub outputs: Vec<PortSpec>,
    pub span: Span,
    /// Spans of the operand uses (for diagnostics).
    pub(crate) operand_spans: Vec<Span>,
}

/// The analysed function.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Circuit {
    pub name: String,
    pub args: Vec<PortSpec>,
    pub results: Vec<PortSpec>,
    pub ops: Vec<OpNode>,
    /// The values returned by the terminator, one per result.
    pub(crate) end_operands: Vec<ValueRef>,
    pub(crate) end_span: Span,
    pub warnings: Vec<Diagnostic>,
}

/// Finds the single non-external `handshake.func` among `ops` (looking inside modules).
pub fn find_func(ops: &[Operation]) -> Result<&Operation, Diagnostic> {
    find_func_named(ops, None)
}

/// [`find_func`], or the non-external `handshake.func` `@name` among several.
pub(crate) fn find_func_named<'a>(
    ops: &'a [Operation],
    name: Option<&str>,
) -> Result<&'a Operation, Diagnostic> {
    let mut found = Vec::new();
    collect_funcs(ops, &mut found);
    if let Some(name) = name {
        let names: Vec<String> = found.iter().map(|f| format!("@{}", func_name(f))).collect();
        return found
            .into_iter()
            .find(|f| func_name(f) == name)
            .ok_or_else(|| {
                Diagnostic::global_error(format!("no handshake.func `@{name}` with a body"))
                    .with_code(Code::OneHandshakeFunc)
                    .with_note(match names.is_empty() {
                        true => "the input defines none".to_string(),
                        false => format!("the input defines {}", names.join(", ")),
                    })
            });
    }
    match found.as_slice() {
        [] => Err(
            Diagnostic::global_error("no handshake.func with a body in the input")
                .with_code(Code::OneHandshakeFunc),
        ),
        [one] => Ok(one),
        [_, second, ..] => Err(Diagnostic::error(
            second.span,
            format!(
                "{} handshake.func definitions in one input; Handshake → Synth lowers exactly one",
                found.len()
            ),
        )
        .with_code(Code::OneHandshakeFunc)
        .with_note("choose one with `kiln synth --func NAME`, or split the file into one function per input")),
    }
}

fn collect_funcs<'a>(ops: &'a [Operation], found: &mut Vec<&'a Operation>) {
    for op in ops {
        if op.name == "handshake.func" {
            if op.regions.iter().any(|r| !r.blocks.is_empty()) {
                found.push(op);
            }
            continue;
        }
        for region in &op.regions {
            for block in &region.blocks {
                collect_funcs(&block.ops, found);
            }
        }
    }
}

/// The unbundled shape of `ty`, or an error located at `span`.
pub(crate) fn port_type(
    ty: &Type,
    span: Span,
    warnings: &mut Vec<Diagnostic>,
) -> Result<PortType, Diagnostic> {
    let pt = match ty {
        Type::Channel { data, extra } => {
            let mut pt = PortType::channel(data_width(data, span)?);
            pt.float = matches!(**data, Type::Float(_));
            add_extras(&mut pt, extra, span)?;
            pt
        }
        Type::Control { extra } => {
            let mut pt = PortType::channel(0);
            add_extras(&mut pt, extra, span)?;
            pt
        }
        Type::MemRef { elem, .. } => {
            let mut pt = PortType::channel(data_width(elem, span)?);
            pt.float = matches!(**elem, Type::Float(_));
            pt
        }
        Type::Integer { .. } | Type::Float(_) => {
            let mut pt = PortType::channel(data_width(ty, span)?);
            pt.handshake = false;
            pt.float = matches!(ty, Type::Float(_));
            pt
        }
        other => {
            return Err(Diagnostic::error(
                span,
                format!(
                    "unsupported type {} in a Handshake circuit",
                    type_text(other)
                ),
            )
            .with_code(Code::UnsupportedType));
        }
    };
    if pt.float && warnings.iter().all(|w| !w.message.starts_with("float")) {
        warnings.push(
            Diagnostic::warning(
                span,
                "float data is carried as its bit pattern; float operators other than addf, subf, mulf, divf, cmpf, maximumf, minimumf, negf, extf, truncf, sitofp, uitofp and fptosi (f32/f64, i32/i64) have no AIG",
            )
            .with_code(Code::FloatAsBits),
        );
    }
    Ok(pt)
}

fn data_width(ty: &Type, span: Span) -> Result<u32, Diagnostic> {
    match ty {
        Type::Integer { width, .. } => Ok(*width),
        Type::Float(width) => Ok(*width),
        other => Err(Diagnostic::error(
            span,
            format!(
                "unsupported data type {} (expected an integer or float)",
                type_text(other)
            ),
        )
        .with_code(Code::UnsupportedType)),
    }
}

fn add_extras(
    pt: &mut PortType,
    extra: &[crate::mlir::ast::ExtraSignal],
    span: Span,
) -> Result<(), Diagnostic> {
    for e in extra {
        let w = data_width(&e.ty, span)?;
        let list = if e.upstream {
            &mut pt.extra_up
        } else {
            &mut pt.extra_down
        };
        list.push((e.name.clone(), w));
    }
    Ok(())
}

/// Analyse `func` (a `handshake.func` with a body) under the default [`Limits`].
pub fn analyze(func: &Operation, naming: Naming) -> Result<Circuit, Diagnostic> {
    analyze_with(func, naming, &Limits::DEFAULT)
}

/// [`analyze`] with the op count and the names that reach the outputs (the function's, its
/// ports', its ops' and their kinds, extra signals') checked against `limits`.
pub fn analyze_with(
    func: &Operation,
    naming: Naming,
    limits: &Limits,
) -> Result<Circuit, Diagnostic> {
    let block = func
        .regions
        .first()
        .and_then(|r| r.blocks.first())
        .ok_or_else(|| Diagnostic::error(func.span, "handshake.func has no body"))?;
    let mut warnings = Vec::new();
    let mut values: BTreeMap<(String, u32), (ValueRef, Type)> = BTreeMap::new();
    let mut arg_types = Vec::new();
    for (i, arg) in block.args.iter().enumerate() {
        values.insert(
            (arg.name.to_string(), 0),
            (ValueRef::Arg(i), arg.ty.clone()),
        );
        arg_types.push((arg.ty.clone(), arg.span));
    }
    let (body, end) = split_terminator(&block.ops)?;
    if let Some(op) = body.get(usize::try_from(limits.max_ops).unwrap_or(usize::MAX)) {
        let n = body.len() as u64;
        limits.check_at(Limit::Ops, n, op.span, crate::mlir::parser::OPS)?;
    }
    let name = func_name(func);
    let names = NameCheck { limits };
    names.check(&name, "function name", attr_span(func, "sym_name"))?;
    for (i, op) in body.iter().enumerate() {
        define_results(op, i, &mut values)?;
    }
    let mut ops = Vec::new();
    for (i, op) in body.iter().enumerate() {
        let node = op_node(op, i, &values, &mut warnings)?;
        names.check(&node.kind, "op kind", op.span)?;
        names.check(&node.name, "op name", attr_span(op, "handshake.name"))?;
        names.extras(node.inputs.iter().chain(&node.outputs), op.span)?;
        ops.push(node);
    }
    let mut args = Vec::new();
    for (i, (ty, span)) in arg_types.iter().enumerate() {
        let name = top_name(func, "argNames", "in", i, naming);
        names.check(&name, "port name", attr_span(func, "argNames"))?;
        args.push(PortSpec {
            name,
            ty: port_type(ty, *span, &mut warnings)?,
        });
    }
    let mut end_operands = Vec::new();
    let mut results = Vec::new();
    let (end_ops, end_span) = match end {
        Some(e) => (e.operands.as_slice(), e.span),
        None => (&[][..], func.span),
    };
    for (j, operand) in end_ops.iter().enumerate() {
        let (vref, ty) = lookup(&values, operand)?;
        end_operands.push(vref);
        let name = top_name(func, "resNames", "out", j, naming);
        names.check(&name, "port name", attr_span(func, "resNames"))?;
        results.push(PortSpec {
            name,
            ty: port_type(&ty, operand.span, &mut warnings)?,
        });
    }
    names.extras(&args, func.span)?;
    names.extras(&results, end_span)?;
    Ok(Circuit {
        name,
        args,
        results,
        ops,
        end_operands,
        end_span,
        warnings,
    })
}

/// Names that become part of the outputs, checked against the name-length limit: each is
/// repeated in the net names of its pins, so its length multiplies the outputs' size.
struct NameCheck<'l> {
    limits: &'l Limits,
}

impl NameCheck<'_> {
    fn check(&self, name: &str, what: &str, span: Span) -> Result<(), Diagnostic> {
        let len = name.len() as u64;
        self.limits.check_at(Limit::NameLen, len, span, what)
    }

    /// The names of the extra signals of `ports`.
    fn extras<'p>(
        &self,
        ports: impl IntoIterator<Item = &'p PortSpec>,
        span: Span,
    ) -> Result<(), Diagnostic> {
        for port in ports {
            for (extra, _) in port.ty.extra_down.iter().chain(&port.ty.extra_up) {
                self.check(extra, "extra signal name", span)?;
            }
        }
        Ok(())
    }
}

/// The span of attribute `name` of `op`, else the op's.
fn attr_span(op: &Operation, name: &str) -> Span {
    op.attrs
        .iter()
        .find(|a| a.name == name)
        .map_or(op.span, |a| a.span)
}

/// The function's symbol name (`sym_name`), or `top`.
pub(crate) fn func_name(func: &Operation) -> String {
    match func.attr("sym_name") {
        Some(Attribute::String(s)) => s.to_string(),
        Some(Attribute::SymbolRef(path)) => path.join("::"),
        _ => "top".to_string(),
    }
}

fn split_terminator(ops: &[Operation]) -> Result<(&[Operation], Option<&Operation>), Diagnostic> {
    match ops.split_last() {
        Some((last, rest)) if last.name == "handshake.end" || last.name == "handshake.return" => {
            Ok((rest, Some(last)))
        }
        _ => {
            if let Some(end) = ops.iter().find(|o| o.name == "handshake.end") {
                return Err(Diagnostic::error(
                    end.span,
                    "handshake.end must be the last op",
                ));
            }
            Ok((ops, None))
        }
    }
}

fn top_name(func: &Operation, attr: &str, prefix: &str, i: usize, naming: Naming) -> String {
    if naming == Naming::ArgNames
        && let Some(Attribute::Array(names)) = func.attr(attr)
        && let Some(Attribute::String(s)) = names.get(i)
    {
        return s.to_string();
    }
    format!("{prefix}{i}")
}

fn define_results(
    op: &Operation,
    i: usize,
    values: &mut BTreeMap<(String, u32), (ValueRef, Type)>,
) -> Result<(), Diagnostic> {
    let types = result_types(op)?;
    let mut k = 0usize;
    for group in &op.results {
        for g in 0..group.count {
            let ty = types.get(k).cloned().ok_or_else(|| {
                Diagnostic::error(
                    group.span,
                    format!("no type for result {} of {}", k, op.name),
                )
            })?;
            let key = (group.name.to_string(), g);
            if values.contains_key(&key) {
                return Err(Diagnostic::error(
                    group.span,
                    format!("value {} is defined twice", group.name),
                ));
            }
            values.insert(key, (ValueRef::Result { op: i, index: k }, ty));
            k += 1;
        }
    }
    Ok(())
}

/// The result types of `op`; a single stated type is shared by all results of forks.
fn result_types(op: &Operation) -> Result<Vec<Type>, Diagnostic> {
    let n = op.num_results();
    if op.result_types.len() == n {
        return Ok(op.result_types.clone());
    }
    // Memory interfaces state only their data results; the trailing ones (`memEnd`, ...) are
    // control channels (also when one data result is stated: its type is not shared).
    let kind = short_kind(&op.name);
    let memory = kind == "mem_controller" || kind == "lsq";
    if op.result_types.len() == 1 && !memory {
        return Ok(vec![op.result_types[0].clone(); n]);
    }
    if memory && op.result_types.len() < n {
        let mut types = op.result_types.clone();
        types.resize(n, Type::Control { extra: Vec::new() });
        return Ok(types);
    }
    Err(Diagnostic::error(
        op.span,
        format!(
            "{} has {n} results but {} result types",
            op.name,
            op.result_types.len()
        ),
    ))
}

fn lookup(
    values: &BTreeMap<(String, u32), (ValueRef, Type)>,
    operand: &crate::mlir::ast::Operand,
) -> Result<(ValueRef, Type), Diagnostic> {
    values
        .get(&(operand.name.to_string(), operand.index.unwrap_or(0)))
        .cloned()
        .ok_or_else(|| {
            Diagnostic::error(
                operand.span,
                format!("use of undefined value {}", operand.name),
            )
            .with_code(Code::UndefinedValue)
        })
}

/// The short name of a Handshake op (`handshake.addi` → `addi`).
pub(crate) fn short_kind(name: &str) -> &str {
    name.strip_prefix("handshake.").unwrap_or(name)
}

fn op_node(
    op: &Operation,
    i: usize,
    values: &BTreeMap<(String, u32), (ValueRef, Type)>,
    warnings: &mut Vec<Diagnostic>,
) -> Result<OpNode, Diagnostic> {
    let kind = short_kind(&op.name).to_string();
    let name = match op.attr("handshake.name") {
        Some(Attribute::String(s)) => s.to_string(),
        _ => format!("{kind}{i}"),
    };
    let mut operands = Vec::new();
    let mut in_types = Vec::new();
    for operand in &op.operands {
        let (vref, ty) = lookup(values, operand)?;
        operands.push(vref);
        in_types.push(port_type(&ty, operand.span, warnings)?);
    }
    let mut out_types = Vec::new();
    for ty in result_types(op)? {
        out_types.push(port_type(&ty, op.span, warnings)?);
    }
    let (mut in_names, mut out_names) = io_names(&kind, in_types.len(), out_types.len(), op.span)?;
    distinct_if_mixed(&mut in_names, &in_types, "ins");
    distinct_if_mixed(&mut out_names, &out_types, "outs");
    Ok(OpNode {
        inputs: zip_ports(in_names, in_types),
        outputs: zip_ports(out_names, out_types),
        operand_spans: op.operands.iter().map(|o| o.span).collect(),
        kind,
        name,
        operands,
        span: op.span,
    })
}

/// A generic `ins[i]`/`outs[j]` group whose ports differ in width cannot share one
/// linearised bit index space: such groups are named `ins_0`, `ins_1`, ... instead.
fn distinct_if_mixed(names: &mut [String], types: &[PortType], root: &str) {
    let group: Vec<usize> = (0..names.len())
        .filter(|&i| names[i].starts_with(&format!("{root}[")))
        .collect();
    let mixed = group.windows(2).any(|w| types[w[0]] != types[w[1]]);
    if mixed {
        for i in group {
            names[i] = format!("{root}_{i}");
        }
    }
}

fn zip_ports(names: Vec<String>, types: Vec<PortType>) -> Vec<PortSpec> {
    names
        .into_iter()
        .zip(types)
        .map(|(name, ty)| PortSpec { name, ty })
        .collect()
}

/// Binary integer operators of the library (`lhs`, `rhs` → `result`).
pub(crate) const BINARY_OPS: &[&str] = &[
    "addi", "subi", "andi", "ori", "xori", "shli", "shrsi", "shrui", "muli", "divsi", "divui",
    "remsi", "remui", "maxsi", "maxui", "minsi", "minui", "cmpi", "addf", "subf", "mulf", "divf",
    "cmpf", "maximumf", "minimumf",
];

/// The port names of an op of `kind` with `nin` operands and `nout` results.
pub(crate) fn io_names(
    kind: &str,
    nin: usize,
    nout: usize,
    span: Span,
) -> Result<(Vec<String>, Vec<String>), Diagnostic> {
    let fixed = |ins: &[&str], outs: &[&str]| -> Result<(Vec<String>, Vec<String>), Diagnostic> {
        if nin != ins.len() || nout != outs.len() {
            return Err(Diagnostic::error(
                span,
                format!(
                    "`{kind}` expects {} operands and {} results, found {nin} and {nout}",
                    ins.len(),
                    outs.len()
                ),
            ));
        }
        Ok((
            ins.iter().map(|s| s.to_string()).collect(),
            outs.iter().map(|s| s.to_string()).collect(),
        ))
    };
    match kind {
        k if BINARY_OPS.contains(&k) => fixed(&["lhs", "rhs"], &["result"]),
        "select" => fixed(&["condition", "trueValue", "falseValue"], &["result"]),
        "cond_br" => fixed(&["condition", "data"], &["trueOut", "falseOut"]),
        "constant" => fixed(&["ctrl"], &["outs"]),
        "passer" => fixed(&["data", "ctrl"], &["result"]),
        "load" => fixed(&["addrIn", "dataFromMem"], &["addrOut", "dataOut"]),
        "store" => fixed(&["addrIn", "dataIn"], &["addrOut", "dataToMem"]),
        "mux" if nin >= 2 && nout == 1 => {
            let mut ins = vec!["index".to_string()];
            ins.extend(group_names("ins", nin - 1));
            Ok((ins, vec!["outs".to_string()]))
        }
        "control_merge" if nout == 2 => Ok((
            group_names("ins", nin),
            vec!["outs".to_string(), "index".to_string()],
        )),
        "mux" | "control_merge" => Err(Diagnostic::error(
            span,
            format!("`{kind}` with {nin} operands and {nout} results is malformed"),
        )),
        _ => Ok((group_names("ins", nin), group_names("outs", nout))),
    }
}

/// A short readable form of a type for diagnostics.
fn type_text(ty: &Type) -> String {
    match ty {
        Type::Opaque(t) => format!("`{t}`"),
        Type::Index => "`index`".to_string(),
        Type::None => "`none`".to_string(),
        Type::Tuple(_) => "tuple".to_string(),
        Type::Function { .. } => "function type".to_string(),
        other => format!("{other:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn io_names_follow_the_library() {
        let s = Span::default();
        let (i, o) = io_names("mux", 3, 1, s).unwrap();
        assert_eq!(i, ["index", "ins[0]", "ins[1]"]);
        assert_eq!(o, ["outs"]);
        let (i, o) = io_names("fork", 1, 3, s).unwrap();
        assert_eq!(i, ["ins"]);
        assert_eq!(o, ["outs[0]", "outs[1]", "outs[2]"]);
        let (i, o) = io_names("control_merge", 1, 2, s).unwrap();
        assert_eq!(i, ["ins"]);
        assert_eq!(o, ["outs", "index"]);
        assert!(io_names("addi", 3, 1, s).is_err());
    }

    #[test]
    fn types_unbundle() {
        let mut w = Vec::new();
        let s = Span::default();
        let ch = Type::Channel {
            data: Box::new(Type::int(8)),
            extra: vec![],
        };
        assert_eq!(port_type(&ch, s, &mut w).unwrap(), PortType::channel(8));
        let ctl = Type::Control { extra: vec![] };
        assert_eq!(port_type(&ctl, s, &mut w).unwrap(), PortType::channel(0));
        let plain = port_type(&Type::int(3), s, &mut w).unwrap();
        assert!(!plain.handshake && plain.width == 3);
        assert!(port_type(&Type::Index, s, &mut w).is_err());
        assert!(w.is_empty());
        let f = Type::Channel {
            data: Box::new(Type::Float(32)),
            extra: vec![],
        };
        assert_eq!(port_type(&f, s, &mut w).unwrap().width, 32);
        assert_eq!(w.len(), 1);
    }
}
