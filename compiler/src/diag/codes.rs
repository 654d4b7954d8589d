//! The stable codes of diagnostics: one table, one short explanation per code
//! (`kiln explain CODE` prints it; editors link to it).
//!
//! A code names a kind of problem, not a message: messages may be reworded, codes stay.
//! `E` codes are errors, `W` codes warnings. The hundreds say where the problem is found:
//! `00` the input file and the build itself, `01` MLIR syntax, `02` APS designs, `03` BLIF
//! netlists, `04` Handshake designs. Each flow has a family code (`E0200`, `E0300`, ...)
//! that its diagnostics carry when no more specific code was given at the place they are
//! made ([`crate::flow::Flow::code`]); a new specific code is one line here.
//!
//! Architecture invariant: a code, once published, keeps its meaning; retired codes are not
//! reused.

use serde::{Deserialize, Serialize};

macro_rules! codes {
    ($($name:ident = $code:literal, $summary:literal, $explanation:literal;)*) => {
        /// A diagnostic's stable code (see the module documentation).
        #[derive(
            Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
        )]
        pub enum Code {
            $(
                #[doc = $summary]
                #[serde(rename = $code)]
                $name,
            )*
        }

        impl Code {
            /// Every code, in table order.
            pub const ALL: &[Code] = &[$(Code::$name),*];

            /// `E0101`, `W0404`, ...
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Code::$name => $code,)*
                }
            }

            /// What the code means, in one line.
            pub fn summary(self) -> &'static str {
                match self {
                    $(Code::$name => $summary,)*
                }
            }

            /// A paragraph on the cause and the usual fix.
            pub fn explanation(self) -> &'static str {
                match self {
                    $(Code::$name => $explanation,)*
                }
            }
        }
    };
}

codes! {
    InvalidUtf8 = "E0001", "the input is not UTF-8 text",
        "kiln reads MLIR and BLIF as UTF-8 text. The input holds a byte sequence that is not \
         UTF-8 (the message gives the first one), or is a binary file (an object file, an \
         AIGER file, an archive). Convert the file to UTF-8 or pass the text source instead.";
    Unreadable = "E0002", "the input cannot be read",
        "The named input does not exist, is not readable, or is not a regular file: kiln \
         refuses FIFOs, devices and sockets at once (they may never end), and reads \
         directories only where a command walks them. Check the path and its permissions.";
    DigestMismatch = "E0003", "the input does not match its declared digest",
        "A build system declared the SHA-256 digest of an input, and the bytes kiln read do \
         not have it: the file changed under the build, or the build system uses another \
         digest function (pass `--input-digests ignore` to the worker, e.g. for BLAKE3).";
    LimitExceeded = "E0004", "a resource limit was exceeded",
        "Every size, count and width read from an input is checked against the limits \
         policy before it sizes anything. The message names the limit, its value, and the \
         flag and `kiln.toml` key (`[limits]`) that raise it. Raise it only for inputs you \
         trust.";
    NoFlow = "E0005", "no flow accepts this input",
        "`kiln build` chooses the flow by content: a `.blif` file is a BLIF netlist; MLIR \
         with a `tor.design` is an APS design; MLIR with a `handshake.func` is a Handshake \
         design. This input is none of them (or does not parse as MLIR: then the error is \
         the syntax error).";
    OutputNotMade = "E0006", "a requested output is not made from this input",
        "An output kind was asked for (`--emit KIND`) that this input's flow does not make, \
         e.g. `--emit sv` (APS only) on a Handshake design, or only `synth-mlir` for a BLIF \
         file. `kiln help build` lists the kinds of each flow.";
    OutputCollision = "E0007", "two inputs would write the same output file",
        "An output would also be written from another input: outputs are named after their \
         input's stem, with directory inputs mirrored below the output directory. Two inputs given on the command line with the same stem \
         (`a/addi.blif` and `b/addi.blif`), or an input given twice, would overwrite one \
         result with the other. Build them into different output directories, or pass \
         their common parent directory, whose tree is mirrored. An output that would \
         overwrite an input of the build (`kiln aig x.blif --format blif -o .`) is refused \
         alike.";
    WriteFailed = "E0008", "an output cannot be written",
        "kiln writes every output atomically (a temporary file renamed over the old one). \
         The output directory cannot be created or written, or the disk is full. Previous \
         outputs are left as they were.";
    Internal = "E0009", "internal error",
        "Something inside kiln failed that input cannot cause (a worker thread panicked). \
         Please report it with the input that triggers it.";
    InputWalk = "E0010", "an input directory cannot be walked",
        "A directory given as input (or one below it) cannot be listed, or a symbolic link \
         below it leads back to one of its own ancestors (a loop, which would otherwise \
         mirror the tree into itself without end). Remove the link or pass the \
         directories it should reach instead.";
    Config = "E0011", "kiln.toml is invalid",
        "The nearest `kiln.toml` (searched from the current directory up) is not valid TOML, \
         or holds an unknown key or a value of the wrong type. `kiln help` lists the keys: \
         `blif_lib`, `out_dir`, `[limits]`, `[lints]`, `[remote]`.";
    UnknownSubject = "E0012", "not an output, input, function or model of the last build",
        "`kiln why` explains the daemon's last build. Its argument must be one of that build's \
         output files, one of its input files, or a function or model of one of its inputs \
         (`@f`); its note lists a few of each. Build the input first, or check the name.";
    Syntax = "E0101", "MLIR syntax error",
        "The input does not follow MLIR's textual grammar (generic form, or the custom form \
         of an op kiln knows) at the position shown: the message says what was expected \
         there. Only the first syntax error of each `// -----` chunk is reported.";
    UnknownOp = "E0102", "unknown operation in custom form",
        "An op written in custom (pretty) form is not one kiln can parse. Write it in the \
         generic form (`\"dialect.op\"(%a) : (i32) -> i32`), which kiln reads for any op, or \
         check the op's spelling.";
    NestingTooDeep = "E0103", "regions nested too deep",
        "Regions and attributes are nested deeper than the parser follows (a bound that \
         keeps hostile input from exhausting the stack). Real designs are far below it.";
    LiteralTooLarge = "E0104", "a number in the input is too large",
        "An integer literal, a dimension or a result index does not fit the integer type \
         kiln reads it into (64 bits for literals). This is not a configurable limit.";
    Aps = "E0200", "invalid APS design",
        "The scheduled TOR/APS design cannot be turned into rules: the message names the \
         construct (an undefined value, an unsupported op, a hazard within one time slot, a \
         constant loop step of 0, a repeated instruction identity, ...). This family code is \
         what APS checks carry until they get codes of their own.";
    ApsWarning = "W0200", "questionable APS design",
        "The design builds, but something in it is likely a mistake, e.g. an opcode outside \
         RISC-V's custom-0..3 (0x0b, 0x2b, 0x5b, 0x7b).";
    DuplicateFunction = "E0201", "a function is defined more than once",
        "Two `tor.func` items of one file have the same symbol. Functions are known by \
         their symbol (outputs, incremental builds); rename one of them.";
    Redefinition = "E0202", "an SSA value name is defined again",
        "MLIR forbids defining a value name that is visible at that point: the design's \
         constants, the function's arguments and the values of enclosing blocks are visible \
         inside a loop body or a branch, so a value there cannot take one of their names \
         (it would replace the outer value after the region). kiln also keeps a function's \
         values by their names, so a name is defined once per function, in sibling regions \
         too (MLIR's printers never repeat one). Rename the second definition; the note \
         shows the first.";
    ResponseCount = "E0203", "a command would not get exactly one response",
        "A RoCC command gets one response. Counted over the paths through the function as \
         written (conditions are not evaluated), every path must pass exactly one \
         `aps.writerf`: two on one path, one inside a loop body (once per iteration), or \
         one on some paths only (an `if` that answers in one branch) are errors. Compute \
         the value on each path and answer once after the branches join, e.g. from the \
         `if`'s result.";
    NoResponse = "W0204", "the instruction sends no response",
        "The function has no `aps.writerf`: its command is answered by no response, as \
         APS-MLIR lowers such a function to one returning nothing. That is right for an \
         instruction issued without a destination register (RoCC xd = 0, e.g. one that \
         only stores); a core that issues it with a destination waits for rd forever. \
         Add an `aps.writerf` if the instruction has a result.";
    LoopOverflow = "E0205", "a loop ends only by overflowing its induction variable",
        "A `tor.for` runs while its induction variable is within the inclusive bound; it \
         never wraps: the loop also ends when the next value would overflow the variable's \
         type. With constant bounds and step, kiln rejects a loop that would end that way \
         (an inclusive bound at the type's maximum, or a step that jumps past it): it \
         would run up to 2^w iterations, which is not what was meant. With bounds known \
         only at run time the hardware and every engine stop at the overflow.";
    Deadlock = "E0206", "the simulation deadlocked",
        "A simulation deadlocked: no rule can fire and the command has not been answered \
         (the message lists the stuck rules, whose guards stay false). Usually a FIFO that \
         is never pushed or popped, or a bank port two rules wait on; the same circuit \
         hangs in hardware.";
    NoQuiescence = "E0207", "no quiescence within the simulation's limit",
        "A run reached no quiescence within the simulation's limit: the rule simulator's \
         cycle limit, or the TOR interpreter's step limit. A loop that does not end (a bound \
         the induction variable never reaches) is the usual cause.";
    RunTimeError = "E0208", "a run-time error ended the simulation",
        "A run-time error ended the simulation: the design raised a fault the hardware \
         signals (e.g. a loop step of 0 at run time, which would never end). The message \
         names the rule and the fault; fix the operands the command was given, or the \
         design.";
    CpuMemoryHazard = "E0209", "a CPU-memory hazard within one time slot",
        "A CPU-memory hazard: one time slot stores a CPU-memory word and then loads or \
         stores it again, and the second access would not see the store (the accesses of \
         a slot are issued together). Move the second access to a later slot.";
    BankPortMissing = "E0210", "a bank method is called more often per cycle than its module has ports",
        "A CMT2 text calls a scratchpad bank's `read`, `read_0` or `write` more often in one \
         cycle than the bank's module has ports: each call drives a port's address (and \
         data), so each call site needs a port method of its own, called once per cycle. \
         kiln names the `k`-th call of `read` on a bank in rule `@r` `@read.r.k`, declares \
         it in the bank's `cmt2.module.extern.firrtl` (conflicting with itself) and gives it \
         its own ports in the FIRRTL module. The text was edited (a port removed, or two \
         calls bound to one port): emit it again with `kiln build`.";
    BurstShape = "E0212", "a DMA burst the SoC's DMA engine cannot perform",
        "The SoC's DMA engine moves whole 8-byte beats on one of two channels (APS's port \
         convention): a burst request's `tl_channel` is 0 or 1, a tiled burst has a \
         `stride_x` that is a multiple of 8 (at most 255) and a `stride_y` of at least 1, \
         and a constant start puts the first element at an 8-byte aligned scratchpad \
         address. Change the attribute, or the start, or the memory map.";
    BurstRounded = "W0213", "a DMA burst moves more than the elements it names",
        "A DMA request moves `2^length` bytes, at least 8: APS rounds a burst of `count` \
         elements up to a power of two. The bytes after the named elements move too: the \
         scratchpad elements that follow (the next entry of the memory map included) for a \
         load, CPU memory after the buffer for a store. kiln's engines all move them, as \
         the hardware does; size the transfer to a power of two, or leave room after the \
         buffer.";
    Blif = "E0300", "invalid BLIF netlist",
        "The BLIF file does not follow the format (SIS, with yosys's `.conn`/`.cname`), or \
         describes a netlist kiln cannot lower: a net with two drivers, a combinational \
         loop, a cover row of the wrong width, ... The message says which.";
    BlifWarning = "W0300", "a net has no driver and reads as constant 0",
        "A net is read (by a cover, a latch, an output or an instance input) but nothing \
         drives it: no `.inputs`, `.names`, `.latch`, `.conn` or instance output names it \
         as its output. kiln reads it as constant 0. Drive the net, or list it \
         in `.inputs` if it is meant to be a primary input.";
    UnknownModel = "E0301", "an instantiated model is not defined",
        "A `.subckt` names an unknown model: one that is not in the file. kiln never looks beyond one \
         file: put the model's `.model ... .end` in the same file.";
    RecursiveModel = "E0302", "a model instantiates itself",
        "A chain of `.subckt` instantiations leads back to the model it starts from, so the \
         hierarchy has no bottom. The message shows the chain.";
    NoModel = "E0303", "no model in the file",
        "A BLIF file needs at least one `.model`; its first model is the top.";
    ExdcIgnored = "W0304", "an external don't-care network is ignored",
        "An `.exdc` section describes an external don't-care network: kiln lowers the care \
         network only and skips the section up to the model's `.end` (the AIG is a valid \
         implementation, just not one that exploits the don't-cares).";
    DirectiveIgnored = "W0305", "a BLIF directive is ignored (no effect on the logic)",
        "The directive carries no logic: timing (`.area`, `.delay`, `.wire_load_slope`, \
         `.wire`, `.input_arrival`, `.output_required`, `.input_drive`, `.output_load`, \
         `.max_input_load` and their `.default_` forms), clocking (`.clock`, `.cycle`, \
         `.clock_event`), attributes (`.attr`, `.param`, a `.cname` with no instance to \
         name), `.latch_order` or `.code`. It is ignored with one warning per directive \
         (a note counts the other lines).";
    TopInstantiated = "W0306", "the first model, lowered as the top, is instantiated by another model",
        "The BLIF format takes a file's first model as the circuit, so kiln lowers it as the \
         top; but another model instantiates it, so it is a part of a larger hierarchy whose \
         root is the model the warning names (ABC and yosys lower that root). Put the root \
         model first, or pick the top with `--top MODEL` (`kiln aig`, `kiln build`).";
    UnconnectedPin = "W0307", "an instance input pin is not connected and reads as constant 0",
        "A `.subckt` line names no actual net for an input pin of the instantiated model, so \
         the pin reads as constant 0 inside that instance. Connect the pin (`pin=net`), or \
         drive a constant net explicitly if 0 is what was meant.";
    UnknownTop = "E0308", "the model asked for as the top is not in the file",
        "`--top MODEL` names the model to lower as the top instead of the file's first \
         model; this file defines no model of that name (the message lists the models it \
         defines). Check the spelling (model names are case-sensitive).";
    Handshake = "E0400", "invalid Handshake design",
        "The `handshake.func` cannot be lowered to an AIG: an unsupported type or op form, \
         a net with two drivers or none, a combinational loop, ... The message says which.";
    HandshakeWarning = "W0400", "questionable Handshake design",
        "The design lowers, but part of it may not be what was meant.";
    NoLibrary = "E0401", "no BLIF library was given",
        "Handshake → Synth implements each op by a unit of a per-unit BLIF library. Pass \
         `--blif-lib DIR`, set `blif_lib` in kiln.toml, or set $KILN_BLIF_LIB.";
    LibraryNotDirectory = "E0402", "the BLIF library is not a directory",
        "The library path given (`--blif-lib`, `blif_lib` in kiln.toml or $KILN_BLIF_LIB) \
         does not exist or is not a directory. A wrong path would otherwise leave every \
         unit opaque, and a build that looks fine.";
    LibraryUnused = "E0403", "none of the design's units is in the library",
        "The library directory exists, but not one of the unit files the design's ops need \
         is in it (the first paths looked for are listed): most likely the directory is not \
         the library's root. Point `--blif-lib` at the directory that holds the per-op \
         subdirectories (`addi/`, `buffer/`, ...).";
    OpaqueUnit = "W0404", "an op has no AIG and is kept opaque",
        "Neither the library nor a built-in generator implements this op, so it is kept as \
         an opaque `synth.subckt` (a cut point in the AIG). Add its unit to the library, or \
         map it to another file with `--path-table`.";
    LibraryFileIgnored = "W0405", "a library file was ignored",
        "A unit file of the library cannot be read as BLIF text (it is not UTF-8, or does not \
         parse); the ops it implements are kept opaque.";
    PathTable = "E0406", "invalid path table",
        "A `--path-table` file holds lines `key = template` (e.g. \
         `buffer.FIFO_BREAK_NONE = tfifo/{SLOTS}/{W}/tfifo.blif`, `-` removes an entry); this \
         line is not one, or its template uses an unknown parameter.";
    UndefinedValue = "E0407", "use of an undefined value",
        "An operand names an SSA value that no op or block argument defines.";
    OneHandshakeFunc = "E0408", "not exactly one handshake.func",
        "Handshake → Synth lowers one `handshake.func` with a body per input; this input has \
         none, or several (split them into files).";
    UnsupportedType = "E0409", "unsupported type in a Handshake design",
        "Channels carry integers (and floats, as their bit patterns); this type is neither.";
    FloatAsBits = "W0410", "float data is carried as its bit pattern",
        "Float channels are lowered as their bits; `addf`, `subf`, `mulf`, `divf`, `cmpf`, \
         `maximumf`, `minimumf`, `negf`, `extf`, `truncf`, `sitofp`, `uitofp` and `fptosi` on \
         f32 and f64 (i32 and i64) are built-in units (IEEE-754, timed as Dynamatic's units), \
         other float operators have no AIG and are kept opaque.";
    TemplateFailed = "W0411", "a Verilog template unit could not be synthesized",
        "An op has a Verilog template in the `--rtl-lib` directory, but the template unit \
         could not be synthesized for the op's parameters: a template file is missing or \
         not text, yosys failed or timed out, or its BLIF does not lower. The message says \
         which; the op is built otherwise (a built-in generator, else an opaque subckt).";
    NoYosys = "E0412", "yosys was not found, and Verilog template units need it",
        "The design has ops whose units are synthesized from Dynamatic's Verilog templates \
         (`--rtl-lib`, `rtl_lib` in kiln.toml or $KILN_RTL_LIB), which kiln does with \
         yosys; no `yosys` is on PATH (or $KILN_YOSYS names none). Install yosys, or drop \
         the template directory to build those ops otherwise.";
    RtlLibNotDirectory = "E0413", "the RTL template directory is not a directory",
        "The template directory given (`--rtl-lib`, `rtl_lib` in kiln.toml or \
         $KILN_RTL_LIB) does not exist or is not a directory. It must be Dynamatic's \
         `data/verilog` (the directory of `handshake/`, `arith/` and `support/`).";
}

impl Code {
    /// The code written `name` (`E0101`, case-insensitive).
    pub fn parse(name: &str) -> Option<Code> {
        Code::ALL
            .iter()
            .copied()
            .find(|c| c.as_str().eq_ignore_ascii_case(name.trim()))
    }
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_well_formed_and_parse_back() {
        let mut seen = std::collections::BTreeSet::new();
        for &c in Code::ALL {
            let s = c.as_str();
            assert!(seen.insert(s), "{s} twice");
            assert_eq!(s.len(), 5, "{s}");
            assert!(s.starts_with('E') || s.starts_with('W'), "{s}");
            assert!(s[1..].bytes().all(|b| b.is_ascii_digit()), "{s}");
            assert_eq!(Code::parse(&s.to_lowercase()), Some(c));
            assert!(!c.summary().is_empty() && c.explanation().len() > c.summary().len());
            let json = serde_json::to_string(&c).unwrap();
            assert_eq!(json, format!("\"{s}\""));
            assert_eq!(serde_json::from_str::<Code>(&json).unwrap(), c);
        }
        assert_eq!(Code::parse("E9999"), None);
    }

    /// The first sentence of an explanation (a `.` before a blank ends it, but in `e.g.`
    /// and `i.e.`).
    fn first_sentence(text: &str) -> &str {
        let mut from = 0;
        while let Some(p) = text[from..].find(". ") {
            let end = from + p;
            if !(text[..end].ends_with("e.g") || text[..end].ends_with("i.e")) {
                return &text[..end];
            }
            from = end + 2;
        }
        text
    }

    /// The message of the first diagnostic with `code` that the BLIF flow reports for `text`
    /// (the flow's family codes applied).
    fn blif(text: &str, code: Code) -> String {
        use crate::flow::Flow;
        let out = crate::flow::blif::build(text, &crate::limits::Limits::DEFAULT);
        (out.diagnostics.into_iter())
            .map(|d| Flow::Blif.coded(d))
            .find(|d| d.code == Some(code))
            .unwrap_or_else(|| panic!("no {code} for {text:?}"))
            .message
    }

    /// An example message of `code` (made by the code path that reports it where that
    /// path is in this crate and cheap to reach, else a literal copy of the message's
    /// form), and a phrase the message shares with the code's summary or the first
    /// sentence of its explanation. `None`: the code has no message of its own (see the
    /// reason).
    fn example(code: Code) -> Result<(String, &'static str), &'static str> {
        use crate::limits::{Limit, Limits};
        let lit = |m: &str, k| Ok((m.to_string(), k));
        match code {
            Code::InvalidUtf8 => {
                let d = crate::diag::decode_utf8(b"a\xff").unwrap_err();
                assert_eq!(d.code, Some(code));
                Ok((d.message, "UTF-8"))
            }
            Code::Unreadable => lit(
                "not a regular file (a FIFO); inputs must be regular files",
                "not a regular file",
            ),
            Code::DigestMismatch => lit(
                "the file does not match the digest the build system gave for it (expected \
                 sha256 00, the file's is 01); was it modified during the build?",
                "does not match",
            ),
            Code::LimitExceeded => {
                let d = Limits::DEFAULT.check(Limit::Nodes, u64::MAX).unwrap_err();
                Ok((d, "limit"))
            }
            Code::NoFlow => {
                let d = crate::flow::unknown("module {}");
                assert_eq!(d.code, Some(code));
                Ok((d.message, "no flow accepts this input"))
            }
            Code::OutputNotMade => lit("--emit sv applies to APS designs only", "--emit sv"),
            Code::OutputCollision => lit(
                "output `out/a.aig` would also be written from `b/a.blif`",
                "would also be written",
            ),
            Code::WriteFailed => Err("the message is the operating system's error text"),
            Code::Internal => lit("internal error: a build thread panicked", "internal error"),
            Code::InputWalk => lit("cannot walk: Permission denied (os error 13)", "walk"),
            Code::Config => lit("unknown field `blif`, expected one of ...", "unknown"),
            Code::UnknownSubject => lit(
                "not an output, input, function or model of the daemon's last build",
                "not an output, input, function or model",
            ),
            Code::Syntax => {
                let d = crate::mlir::parse("module { %x = }").unwrap_err();
                assert_eq!(d.code, Some(code));
                Ok((d.message, "expected"))
            }
            Code::UnknownOp => lit("unknown operation 'foo' in custom form", "in custom form"),
            Code::NestingTooDeep => lit("nesting too deep", "too deep"),
            Code::LiteralTooLarge => lit("result index too large", "too large"),
            Code::Aps => lit("loop step is 0: the loop would never end", "loop step"),
            Code::ApsWarning => lit(
                "function `@f`: opcode 0x33 is not a custom opcode (custom-0..3: 0x0b, 0x2b, \
                 0x5b, 0x7b)",
                "custom-0..3",
            ),
            Code::DuplicateFunction => lit(
                "function `@f` is defined more than once",
                "is defined more than once",
            ),
            Code::Redefinition => lit("redefinition of SSA value '%x'", "SSA value"),
            Code::ResponseCount => lit(
                "a path through `@f` sends no response: its command would get none",
                "response",
            ),
            Code::NoResponse => lit(
                "function `@f` sends no response (no `aps.writerf`)",
                "sends no response",
            ),
            Code::BurstShape => lit(
                "`stride_x = 12, stride_y = 1`: the DMA engine moves 8-byte beats, so a tiled burst needs `stride_x` a multiple of 8",
                "dma engine",
            ),
            Code::BurstRounded => lit(
                "this burst names 12 elements of 4 bytes (48 bytes) but moves 64",
                "moves",
            ),
            Code::LoopOverflow => lit(
                "this loop reaches its bound only by overflowing `%i` (i8)",
                "by overflowing",
            ),
            Code::Deadlock => lit(
                "rule simulation of `@f`: deadlock at cycle 7: stuck rules r_s1",
                "deadlock",
            ),
            Code::NoQuiescence => lit(
                "rule simulation of `@f`: no quiescence within 1000 cycles",
                "no quiescence",
            ),
            Code::RunTimeError => lit(
                "rule simulation of `@f`: run-time error at cycle 3 in rule `r_s0`: loop \
                 step is 0 at run time: the loop would never end",
                "run-time error",
            ),
            Code::CpuMemoryHazard => lit(
                "CPU-memory hazard: word 0x1000 is stored and then loaded in the same slot \
                 (the load would not see the store)",
                "CPU-memory hazard",
            ),
            Code::BankPortMissing => lit(
                "`@mem` is called more often per cycle than its module has ports: call 2 of \
                 `read` in rule `@r` needs the port `@read.r.2`, which the module does not \
                 declare",
                "more often per cycle than its module has ports",
            ),
            Code::Blif => Ok((
                blif(
                    ".model m\n.outputs y\n.names y x\n1 1\n.names x y\n1 1\n.end\n",
                    code,
                ),
                "combinational loop",
            )),
            Code::BlifWarning => Ok((
                blif(".model m\n.outputs y\n.names n y\n1 1\n.end\n", code),
                "no driver",
            )),
            Code::UnknownModel => Ok((
                blif(".model m\n.outputs y\n.subckt nope a=y\n.end\n", code),
                "unknown model",
            )),
            Code::RecursiveModel => Ok((
                blif(".model m\n.outputs y\n.subckt m y=y\n.end\n", code),
                "instantiates itself",
            )),
            Code::NoModel => Ok((blif("", code), "no model")),
            Code::ExdcIgnored => Ok((
                blif(
                    ".model m\n.inputs a\n.outputs y\n.names a y\n1 1\n.exdc\n.names a y\n\
                     0 1\n.end\n",
                    code,
                ),
                "external don't-care network",
            )),
            Code::DirectiveIgnored => Ok((
                blif(
                    ".model m\n.inputs a\n.outputs y\n.default_max_input_load 2\n.names a y\n\
                     1 1\n.end\n",
                    code,
                ),
                "no effect on the logic",
            )),
            Code::TopInstantiated => Ok((
                blif(
                    ".model leaf\n.inputs a\n.outputs y\n.names a y\n1 1\n.end\n.model top\n\
                     .inputs a\n.outputs y\n.subckt leaf a=a y=y\n.end\n",
                    code,
                ),
                "lowered as the top",
            )),
            Code::UnconnectedPin => Ok((
                blif(
                    ".model top\n.inputs a\n.outputs y\n.subckt leaf a=a y=y\n.end\n\
                     .model leaf\n.inputs a b\n.outputs y\n.names a b y\n11 1\n.end\n",
                    code,
                ),
                "not connected",
            )),
            Code::UnknownTop => {
                let file = crate::blif::parse(".model m\n.end\n").unwrap().file;
                let d = crate::aig::lower_file_owned(file, Some("top"), &Limits::DEFAULT);
                let d = d.unwrap_err();
                assert_eq!(d.code, Some(code));
                Ok((d.message, "to lower as the top"))
            }
            Code::Handshake => lit("net `x` has two drivers", "two drivers"),
            Code::HandshakeWarning => Err("a family code: every Handshake warning has its own"),
            Code::NoLibrary => {
                let d = crate::flow::handshake::no_library();
                assert_eq!(d.code, Some(code));
                Ok((d.message, "no BLIF library"))
            }
            Code::LibraryNotDirectory => lit(
                "the BLIF library is not a directory (from --blif-lib)",
                "the BLIF library is not a directory",
            ),
            Code::LibraryUnused => lit(
                "none of the 3 library files this design uses is in the BLIF library",
                "none of the",
            ),
            Code::OpaqueUnit => lit(
                "op `addi0` (addi) has no AIG: no unit; kept as an opaque synth.subckt",
                "has no AIG",
            ),
            Code::LibraryFileIgnored => {
                Err("the message is the library file's own error; a note says `unit ignored`")
            }
            Code::PathTable => lit("expected `key = template`", "key = template"),
            Code::UndefinedValue => lit("use of undefined value %x", "undefined value"),
            Code::OneHandshakeFunc => lit("no handshake.func `@f` with a body", "handshake.func"),
            Code::UnsupportedType => lit(
                "unsupported type f16 in a Handshake circuit",
                "unsupported type",
            ),
            Code::TemplateFailed => lit(
                "a Verilog template unit could not be synthesized: yosys timed out",
                "could not be synthesized",
            ),
            Code::NoYosys => lit(
                "yosys was not found (PATH, $KILN_YOSYS): 2 ops need Verilog template units",
                "yosys was not found",
            ),
            Code::RtlLibNotDirectory => lit(
                "the RTL template directory is not a directory (from --rtl-lib)",
                "the RTL template directory is not a directory",
            ),
            Code::FloatAsBits => lit(
                "float data is carried as its bit pattern; float operators other than addf, subf, mulf, divf, cmpf, maximumf, minimumf, negf, extf, truncf, sitofp, uitofp and fptosi (f32/f64, i32/i64) have no AIG",
                "bit pattern",
            ),
        }
    }

    /// Each code's example message names what its summary or the first sentence of its
    /// explanation names (`kiln explain` prints both), so that a code does not explain
    /// another meaning than its messages'.
    #[test]
    fn every_code_explains_its_messages() {
        let mut without = Vec::new();
        for &c in Code::ALL {
            let (message, phrase) = match example(c) {
                Ok(e) => e,
                Err(why) => {
                    without.push((c, why));
                    continue;
                }
            };
            let phrase = phrase.to_lowercase();
            let explained = format!("{} {}", c.summary(), first_sentence(c.explanation()));
            assert!(
                message.to_lowercase().contains(&phrase),
                "{c}: the example message {message:?} does not say {phrase:?}"
            );
            assert!(
                explained.to_lowercase().contains(&phrase),
                "{c}: `kiln explain {c}` ({explained:?}) does not say {phrase:?} as its \
                 message {message:?} does"
            );
        }
        // The codes without an example of their own are few, and each has its reason.
        assert!(without.len() <= 3, "{without:?}");
    }
}
