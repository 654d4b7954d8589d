// Loops whose induction variable would overflow, with bounds or steps known only at run
// time (rs1): each loop ends when its next value would leave the variable's type (see
// `compiler/src/aps/interp.rs`). Each function answers its iteration count, or the last
// induction value (`@pipelined`).
module {
  tor.design @loop_overflow {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %cm1_i32 = arith.constant -1 : i32
    %cmax_i32 = arith.constant 2147483647 : i32
    %cmin_i32 = arith.constant -2147483648 : i32
    %c1_i8 = arith.constant 1 : i8
    %c127_i8 = arith.constant 127 : i8
    memref.global @g : memref<i32> = dense<7>
    tor.func @up_to_max(%arg0: i5, %arg1: i5, %arg2: i5, ...) attributes {funct7 = 1 : i32, opcode = 11 : i32} {
      %0 = aps.readrf %arg0 {starttime = 0 : i32, endtime = 1 : i32} : i5 -> i32
      %r = tor.for %i = (%0 : i32) to (%cmax_i32 : i32) step (%c1_i32 : i32) iter_args(%a = %c0_i32 : i32) on (1 to 3) -> (i32) {
        %s = tor.addi %a %c1_i32 on (1 to 2) : (i32, i32) -> i32
        tor.yield %s : i32
      }
      aps.writerf %arg2, %r {starttime = 4 : i32, endtime = 5 : i32} : i5, i32
      tor.return
    }
    tor.func @step_past_max(%arg0: i5, %arg1: i5, %arg2: i5, ...) attributes {funct7 = 2 : i32, opcode = 11 : i32} {
      %0 = aps.readrf %arg0 {starttime = 0 : i32, endtime = 1 : i32} : i5 -> i32
      %r = tor.for %i = (%c0_i32 : i32) to (%cmax_i32 : i32) step (%0 : i32) iter_args(%a = %c0_i32 : i32) on (1 to 3) -> (i32) {
        %s = tor.addi %a %c1_i32 on (1 to 2) : (i32, i32) -> i32
        tor.yield %s : i32
      }
      aps.writerf %arg2, %r {starttime = 4 : i32, endtime = 5 : i32} : i5, i32
      tor.return
    }
    tor.func @down_to_min(%arg0: i5, %arg1: i5, %arg2: i5, ...) attributes {funct7 = 3 : i32, opcode = 11 : i32} {
      %0 = aps.readrf %arg0 {starttime = 0 : i32, endtime = 1 : i32} : i5 -> i32
      %r = tor.for %i = (%0 : i32) to (%cmin_i32 : i32) step (%cm1_i32 : i32) iter_args(%a = %c0_i32 : i32) on (1 to 3) -> (i32) {
        %s = tor.addi %a %c1_i32 on (1 to 2) : (i32, i32) -> i32
        tor.yield %s : i32
      }
      aps.writerf %arg2, %r {starttime = 4 : i32, endtime = 5 : i32} : i5, i32
      tor.return
    }
    tor.func @narrow(%arg0: i5, %arg1: i5, %arg2: i5, ...) attributes {funct7 = 4 : i32, opcode = 11 : i32} {
      %0 = aps.readrf %arg0 {starttime = 0 : i32, endtime = 1 : i32} : i5 -> i32
      %t = arith.trunci %0 {starttime = 1 : i32, endtime = 2 : i32} : i32 to i8
      %r = tor.for %i = (%t : i8) to (%c127_i8 : i8) step (%c1_i8 : i8) iter_args(%a = %c0_i32 : i32) on (2 to 4) -> (i32) {
        %s = tor.addi %a %c1_i32 on (2 to 3) : (i32, i32) -> i32
        tor.yield %s : i32
      }
      aps.writerf %arg2, %r {starttime = 5 : i32, endtime = 6 : i32} : i5, i32
      tor.return
    }
    tor.func @pipelined(%arg0: i5, %arg1: i5, %arg2: i5, ...) attributes {funct7 = 5 : i32, opcode = 11 : i32} {
      %0 = aps.readrf %arg0 {starttime = 0 : i32, endtime = 1 : i32} : i5 -> i32
      tor.for %i = (%0 : i32) to (%cmax_i32 : i32) step (%c1_i32 : i32) on (1 to 3) {
        "aps.globalstore"(%i) {global = @g, starttime = 1 : i32, endtime = 2 : i32} : (i32) -> ()
      } {II = 1 : i32, pipeline = true}
      %h = "aps.globalload"() {global = @g, starttime = 4 : i32, endtime = 5 : i32} : () -> i32
      aps.writerf %arg2, %h {starttime = 5 : i32, endtime = 6 : i32} : i5, i32
      tor.return
    }
  }
}
