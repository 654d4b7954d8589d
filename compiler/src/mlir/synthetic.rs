//! Synthetic MLIR inputs for throughput benchmarks: one `tor.func` whose body repeats the op
//! forms of the APS sample (`flow_burst_add`): `aps.readrf`, `memref.get_global`,
//! `aps.itfc.burst_*`, `tor.for` with `aps.memload`/`tor.addi`/`aps.memstore`, `aps.writerf`,
//! with fresh SSA names per repetition so the text is valid MLIR.

use std::fmt::Write as _;

/// A module of at least `min_bytes` bytes (one repetition more than needed at most).
pub fn tor_program(min_bytes: usize) -> String {
    let mut out = String::with_capacity(min_bytes + 4096);
    out.push_str(HEADER);
    let mut i = 0usize;
    while out.len() < min_bytes {
        repetition(&mut out, i);
        i += 1;
    }
    out.push_str("      tor.return {dump = \"op_end\"}\n    }\n  } {schedule = true}\n}\n");
    out
}

const HEADER: &str = r#"module {
  aps.memorymap {
    aps.mem_entry "mem_a" : banks([@mem_a_0, @mem_a_1]), base(0), size(64), count(2), cyclic(1)
    aps.mem_finish
  }
  tor.design @aps_isaxes {
    %c0_i32 = arith.constant {dump = "op_0"} 0 : i32
    %c1_i32 = arith.constant {dump = "op_1"} 1 : i32
    %c3_i32 = arith.constant 3 : i32
    %c16_i32 = arith.constant {dump = "op_2"} 16 : i32
    memref.global @mem_a_0 : memref<4xi32> = dense<[1, 5, 9, 13]> {dump = "op_6"}
    memref.global @mem_a_1 : memref<4xi32> = uninitialized {dump = "op_7"}
    tor.func @synthetic(%arg0: i5, %arg1: i5, %arg2: i5, ...) attributes {clock = 1.000000e+01 : f32, funct7 = 0 : i32, opcode = 43 : i32, scheduled = true} {
      tor.timegraph (0 to 2){
        tor.succ 1 : [0 : i32] [{type = "static:1"}]
        tor.succ 2 : [1 : i32] [{type = "static:16"}]
      }
"#;

fn repetition(out: &mut String, i: usize) {
    let t =
        "endtime = 1 : i32, ref_endtime = 1 : i32, ref_starttime = 0 : i32, starttime = 0 : i32";
    let _ = write!(
        out,
        r#"      %r{i} = aps.readrf %arg0 {{dump = "op_{i}", {t}}} : i5 -> i32
      %a{i} = memref.get_global @mem_a_0 : memref<4xi32> {{dump = "op_{i}", {t}}}
      %b{i} = memref.get_global @mem_a_1 : memref<4xi32> {{dump = "op_{i}", {t}}}
      %q{i} = aps.itfc.burst_load_req %r{i}, (%a{i}, %b{i}) [%c0_i32], %c16_i32 {{{t}}} : i32, (memref<4xi32>, memref<4xi32>), i32, i32 -> none
      aps.itfc.burst_load_collect %q{i} {{{t}}} : none
      tor.for %i{i} = (%c0_i32 : i32) to (%c3_i32 : i32) step (%c1_i32 : i32)
      on (5 to 8){{
        %x{i} = aps.memload %a{i}[%i{i}] {{dump = "op_{i}", slot = 0 : i32, {t}}} : memref<4xi32>, i32 -> i32
        %y{i} = aps.memload %b{i}[%i{i}] {{dump = "op_{i}", slot = 0 : i32, {t}}} : memref<4xi32>, i32 -> i32
        %s{i} = tor.addi %x{i} %y{i} on (7 to 8) {{dump = "op_{i}", ref_endtime = 37 : i32, ref_starttime = 36 : i32}} : (i32, i32) -> i32
        aps.memstore %s{i}, %a{i}[%i{i}] {{dump = "op_{i}", slot = 0 : i32, {t}}} : i32, memref<4xi32>, i32
      }} {{dump = "op_{i}", unroll = 4 : i32}}
      aps.writerf %arg2, %r{i} {{dump = "op_{i}", {t}}} : i5, i32
"#
    );
}

#[cfg(test)]
mod tests {
    #[test]
    fn synthetic_program_parses_and_has_the_requested_size() {
        let text = super::tor_program(20_000);
        assert!(text.len() >= 20_000);
        let m = crate::mlir::parse(&text).unwrap_or_else(|d| panic!("{}", d.render("s", &text)));
        let s = crate::mlir::summarize(&[m]);
        assert_eq!(s.functions.len(), 1);
        assert!(s.ops_per_dialect["tor"] > 10);
    }
}
