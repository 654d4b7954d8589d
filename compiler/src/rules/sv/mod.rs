//! SystemVerilog backend for the rule IR: one synthesizable top module per [`Circuit`] plus
//! the primitive modules it instantiates (emitted once per parameter set), and a behavioural
//! testbench that models the SoC behind the top's ports (commands, CPU memory, the DMA
//! engine) as [`super::sim`] does: the reference environment of `docs/soc.md`.
//!
//! Lowering of guarded atomic actions: every rule gets `CAN_FIRE_<rule>` (guard ∧ readiness
//! of every method called on the taken path) and `WILL_FIRE_<rule>`. Rules compose
//! sequentially in the order of [`super::schedule`] (the simulator's order), so a method's
//! readiness is computed from the committed state plus the effects of the rules fired
//! earlier in the same cycle, exactly as the simulator applies them: FIFO `deq` reads entry
//! `k` where `k` counts earlier dequeues, `enq` needs `count − deqs + enqs < depth`, a second
//! register write or a second request on one DMA port is not ready. Conflicts are thereby resolved per call site (path-sensitive),
//! which is what the simulator does; `WILL_FIRE = CAN_FIRE`.
//!
//! Interfaces (top-module ports; the RoCC ones named by APS-MLIR's SoC port convention,
//! `docs/soc.md`):
//! - RoCC command (`rocc_cmd_enable/ready`, `rocc_cmd_rocc_cmd_<field>`) and response
//!   (`rocc_resp_rocc_resp_to_bus_{enable,ready,result_rd,result_rddata}`). `cmd_to_user_<id>`
//!   takes the command on the port when its opcode is `id`; at most one command is accepted
//!   per cycle.
//! - DMA requests `dma_{cpu_to_isax,isax_to_cpu}_ch{0,1}_*` (`enable` = some call site
//!   fires, which includes the port's `ready`) and `dma_poll_for_idle_ch{0,1}_{ready,res0}`;
//!   the scratchpad burst ports `burst_write_*`, `burst_read_0_*`, `burst_read_1_*` (always
//!   ready): one 8-byte beat at scratchpad byte address `addr`, decoded to banks with the
//!   memory map (cyclic or block placement), the read registered for `burst_read_1`. Every
//!   port is there whether the design uses it or not (unused requests tied to 0).
//! - The CPU-memory port (HellaCache, at most one): `hella_cmd_hella_cmd_to_bus_*` and
//!   `hella_resp_*`. Rules put up to `L` requests per cycle into an internal request
//!   queue whose head is the request (`enable` = queue not empty ∧ `ready`); a load's tag
//!   is its entry in an internal response buffer, which takes every response (`ready` =
//!   1, acknowledgements of stores dropped) and hands them to the rules in request order
//!   (in the cycle one arrives, from the port). `L` is the largest number of requests one
//!   rule issues.
//!
//! The interface limits are shared with the simulator ([`super::sim`] documents them): one
//! RoCC command and one response per cycle, arbitrated in rule order (the first ready call
//! site in the schedule wins, later ones are not ready); at most `L` memory requests per
//! cycle, only with room in the request queue, and a load request only when the
//! `4·L`-entry response buffer has room for it ([`super::schedule::mem_lanes`]), each
//! rule ready for all its sites at once ([`super::schedule::MemSites`]); one DMA
//! request per port and cycle. Remaining assumption: burst lanes exist for element sizes 1, 2, 4, 8 bytes (an
//! entry with another element size moves no data in the RTL).
//!
//! Files: `emit` (the top module), `prims` (primitive modules), `testbench` (the Icarus
//! testbench and its inputs, and the C++ harness and Spike extension, `kiln_env.h`,
//! `harness.cc`, `spike_ext.cc`, with their generated header), `tool_output` (reading
//! `out.txt` and yosys logs).

use super::schedule::{self, Schedule};
use super::{Circuit, DmaMethod, Expr, InstanceKind, PrimOp, Rule, Stmt, Var};
use crate::diag::Diagnostic;
use std::collections::BTreeMap;
use std::fmt::Write as _;

mod emit;
mod prims;
mod testbench;
mod tool_output;

use emit::*;
use prims::*;
pub use testbench::{
    HARNESS_CC, KILN_ENV_H, SPIKE_EXT_CC, TB_MAX_COMMANDS, TbConfig, batch_top, cmds_text,
    harness_header, mem_hex, testbench,
};
pub use tool_output::{TbOutput, parse_tb_output, yosys_cells};

/// Facts about the emitted top module that a testbench needs.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct TopInfo {
    pub top: String,
    pub(crate) dmas: Vec<String>,
    /// CPU-memory ports and their lane counts.
    pub(crate) memports: Vec<(String, u32)>,
    /// Banks: (instance name, depth).
    pub banks: Vec<(String, u32)>,
    pub regs: Vec<String>,
    /// The instructions' program-counter registers: (IR name, SystemVerilog identifier);
    /// their `<ident>__q` is visible to harnesses (a command left unfinished).
    pub(crate) pcs: Vec<(String, String)>,
    /// FIFOs: (IR name, SystemVerilog identifier), for deadlock reports.
    pub(crate) fifos: Vec<(String, String)>,
    /// Fault instances (their internal `<ident>_fault` signals).
    pub(crate) faults: Vec<String>,
    /// What stops a run, in the simulator's order (rule by rule, a rule's faults before
    /// its hazard): the top's signals a testbench watches.
    pub(crate) watch: Vec<Watch>,
    /// CSR lanes in lane order: (name, CSR address, mask, reset value), ports
    /// `csr_<name>_*`.
    pub csrs: Vec<(String, u32, u32, u32)>,
}

/// A run-time error the top signals.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub(crate) enum Watch {
    /// Rule `rule` raises fault instance `inst` when `<signal>` is 1.
    Fault {
        inst: String,
        rule: String,
        signal: String,
    },
    /// Rule `rule` may store a CPU-memory word and access it again in one firing: the top
    /// has `<prefix>__hazard`, `__hazard_addr` and `__hazard_load`.
    Hazard { rule: String, prefix: String },
}

/// What `verilator --lint-only -Wall` is told to accept in an emitted file, and why; every
/// other warning is fixed in the emitter (explicit size casts, sized comparisons).
const LINT_WAIVERS: &str = "\
// Lint waivers (verilator -Wall), each for the whole file:
//   UNUSEDSIGNAL: every rule's values, every shared method's running enable sums and the
//     signals testbenches observe are declared uniformly, whether or not something reads
//     them (a value the program computes and never uses included); synthesis removes them.
//   DECLFILENAME: the file is self-contained: the top and every primitive module it
//     instantiates travel together in one file.
//   CMPCONST, UNSIGNED: comparisons are the source program's as written (say `x <= 255` or
//     `x > 255` of an 8-bit value); kiln does not fold them.
/* verilator lint_off UNUSEDSIGNAL */
/* verilator lint_off DECLFILENAME */
/* verilator lint_off CMPCONST */
/* verilator lint_off UNSIGNED */
";

/// The top module's name unless the build names another (`--top`): what APS-MLIR's SoC
/// integration instantiates.
pub const DEFAULT_TOP: &str = "main";

/// Whether `name` can be the top module's name as given: a SystemVerilog simple
/// identifier (letters, digits, `_`, not starting with a digit) that is not a keyword.
/// Names are used as given, never mangled, so that the SoC's instantiation matches.
pub fn check_top(name: &str) -> Result<(), String> {
    let legal = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && SV_KEYWORDS.binary_search(&name).is_err();
    match legal {
        true => Ok(()),
        false => Err(format!(
            "`{name}` is not a SystemVerilog module name (letters, digits and `_`, not starting with a digit, not a keyword)"
        )),
    }
}

/// Emit the SystemVerilog of `c` with top module `top` (see [`check_top`]).
pub fn emit_sv(c: &Circuit, top: &str) -> Result<String, Diagnostic> {
    emit_sv_with_info(c, top).map(|(s, _)| s)
}

pub fn emit_sv_with_info(c: &Circuit, top: &str) -> Result<(String, TopInfo), Diagnostic> {
    let parts = emit_sv_parts(c, top)?;
    let mut out = parts.top;
    out.reserve_exact(parts.primitives.values().map(String::len).sum());
    for text in parts.primitives.values() {
        out.push_str(text);
    }
    Ok((out, parts.info))
}

/// The emitted design in parts: the top module (with the schedule comment block) and the
/// primitive modules by name. Primitive text depends only on the name (its parameter set),
/// so designs compiled together (a batch of testbenches) share one copy of each.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SvParts {
    pub top: String,
    pub primitives: BTreeMap<String, String>,
    pub info: TopInfo,
}

pub fn emit_sv_parts(c: &Circuit, top: &str) -> Result<SvParts, Diagnostic> {
    check_top(top).map_err(Diagnostic::global_error)?;
    let ports = c
        .instances
        .iter()
        .filter(|i| matches!(i.kind, InstanceKind::MemPort));
    if let Some(second) = ports.clone().nth(1) {
        return Err(Diagnostic::global_error(format!(
            "CPU-memory port `{}` is a second one: the top has one HellaCache port",
            second.name
        )));
    }
    let sched = schedule::analyse(c).map_err(Diagnostic::global_error)?;
    let mut e = Emitter::new(c);
    for &ri in &sched.order {
        e.rule(&c.rules[ri])?;
    }
    Ok(e.finish(&sched, top))
}

/// A legal SystemVerilog identifier for an IR name: other characters become `_`, a
/// leading digit gets a `_` prefix, and an IEEE 1800-2017 keyword a `_` suffix.
pub fn ident(s: &str) -> String {
    let mut o: String = s
        .chars()
        .map(|ch| if ch.is_ascii_alphanumeric() { ch } else { '_' })
        .collect();
    if o.is_empty() || o.starts_with(|ch: char| ch.is_ascii_digit()) {
        o.insert(0, '_');
    }
    if SV_KEYWORDS.binary_search(&o.as_str()).is_ok() {
        o.push('_');
    }
    o
}

/// The reserved keywords of IEEE 1800-2017 (Annex B), sorted.
pub(crate) const SV_KEYWORDS: &[&str] = &[
    "accept_on",
    "alias",
    "always",
    "always_comb",
    "always_ff",
    "always_latch",
    "and",
    "assert",
    "assign",
    "assume",
    "automatic",
    "before",
    "begin",
    "bind",
    "bins",
    "binsof",
    "bit",
    "break",
    "buf",
    "bufif0",
    "bufif1",
    "byte",
    "case",
    "casex",
    "casez",
    "cell",
    "chandle",
    "checker",
    "class",
    "clocking",
    "cmos",
    "config",
    "const",
    "constraint",
    "context",
    "continue",
    "cover",
    "covergroup",
    "coverpoint",
    "cross",
    "deassign",
    "default",
    "defparam",
    "design",
    "disable",
    "dist",
    "do",
    "edge",
    "else",
    "end",
    "endcase",
    "endchecker",
    "endclass",
    "endclocking",
    "endconfig",
    "endfunction",
    "endgenerate",
    "endgroup",
    "endinterface",
    "endmodule",
    "endpackage",
    "endprimitive",
    "endprogram",
    "endproperty",
    "endsequence",
    "endspecify",
    "endtable",
    "endtask",
    "enum",
    "event",
    "eventually",
    "expect",
    "export",
    "extends",
    "extern",
    "final",
    "first_match",
    "for",
    "force",
    "foreach",
    "forever",
    "fork",
    "forkjoin",
    "function",
    "generate",
    "genvar",
    "global",
    "highz0",
    "highz1",
    "if",
    "iff",
    "ifnone",
    "ignore_bins",
    "illegal_bins",
    "implements",
    "implies",
    "import",
    "incdir",
    "include",
    "initial",
    "inout",
    "input",
    "inside",
    "instance",
    "int",
    "integer",
    "interconnect",
    "interface",
    "intersect",
    "join",
    "join_any",
    "join_none",
    "large",
    "let",
    "liblist",
    "library",
    "local",
    "localparam",
    "logic",
    "longint",
    "macromodule",
    "matches",
    "medium",
    "modport",
    "module",
    "nand",
    "negedge",
    "nettype",
    "new",
    "nexttime",
    "nmos",
    "nor",
    "noshowcancelled",
    "not",
    "notif0",
    "notif1",
    "null",
    "or",
    "output",
    "package",
    "packed",
    "parameter",
    "pmos",
    "posedge",
    "primitive",
    "priority",
    "program",
    "property",
    "protected",
    "pull0",
    "pull1",
    "pulldown",
    "pullup",
    "pulsestyle_ondetect",
    "pulsestyle_onevent",
    "pure",
    "rand",
    "randc",
    "randcase",
    "randsequence",
    "rcmos",
    "real",
    "realtime",
    "ref",
    "reg",
    "reject_on",
    "release",
    "repeat",
    "restrict",
    "return",
    "rnmos",
    "rpmos",
    "rtran",
    "rtranif0",
    "rtranif1",
    "s_always",
    "s_eventually",
    "s_nexttime",
    "s_until",
    "s_until_with",
    "scalared",
    "sequence",
    "shortint",
    "shortreal",
    "showcancelled",
    "signed",
    "small",
    "soft",
    "solve",
    "specify",
    "specparam",
    "static",
    "string",
    "strong",
    "strong0",
    "strong1",
    "struct",
    "super",
    "supply0",
    "supply1",
    "sync_accept_on",
    "sync_reject_on",
    "table",
    "tagged",
    "task",
    "this",
    "throughout",
    "time",
    "timeprecision",
    "timeunit",
    "tran",
    "tranif0",
    "tranif1",
    "tri",
    "tri0",
    "tri1",
    "triand",
    "trior",
    "trireg",
    "type",
    "typedef",
    "union",
    "unique",
    "unique0",
    "unsigned",
    "until",
    "until_with",
    "untyped",
    "use",
    "uwire",
    "var",
    "vectored",
    "virtual",
    "void",
    "wait",
    "wait_order",
    "wand",
    "weak",
    "weak0",
    "weak1",
    "while",
    "wildcard",
    "wire",
    "with",
    "within",
    "wor",
    "xnor",
    "xor",
];
