// expect: 15:9: SSA value '%t' is defined elsewhere in this function too
module {
  tor.design @d {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %c3_i32 = arith.constant 3 : i32
    tor.func @f(%arg0: i5, %arg1: i5, %arg2: i5, ...) attributes {funct7 = 0 : i32, opcode = 11 : i32} {
      %0 = aps.readrf %arg0 {starttime = 0 : i32, endtime = 1 : i32} : i5 -> i32
      %r = tor.for %i = (%c0_i32 : i32) to (%c3_i32 : i32) step (%c1_i32 : i32) iter_args(%a = %0 : i32) on (1 to 3) -> (i32) {
        %t = tor.addi %a %c1_i32 on (1 to 2) : (i32, i32) -> i32
        %u = tor.addi %t %c1_i32 on (2 to 3) : (i32, i32) -> i32
        tor.yield %u : i32
      }
      %s = tor.for %j = (%c0_i32 : i32) to (%c3_i32 : i32) step (%c1_i32 : i32) iter_args(%b = %r : i32) on (3 to 5) -> (i32) {
        %t = tor.muli %b %b on (3 to 4) : (i32, i32) -> i32
        %u2 = tor.subi %t %c1_i32 on (4 to 5) : (i32, i32) -> i32
        tor.yield %u2 : i32
      }
      aps.writerf %arg2, %s {starttime = 6 : i32, endtime = 7 : i32} : i5, i32
      tor.return
    }
  }
}
