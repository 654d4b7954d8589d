// A loop whose step is rs1 (known only at run time): 0 is a run-time error.
module {
  tor.design @d {
    %c0_i32 = arith.constant 0 : i32
    %c4_i32 = arith.constant 4 : i32
    tor.func @s(%arg0: i5, %arg1: i5, %arg2: i5, ...) attributes {funct7 = 4 : i32, opcode = 123 : i32} {
      %0 = aps.readrf %arg0 {starttime = 0 : i32, endtime = 1 : i32} : i5 -> i32
      tor.for %i = (%c0_i32 : i32) to (%c4_i32 : i32) step (%0 : i32) on (1 to 2) {
      }
      aps.writerf %arg2, %0 {starttime = 3 : i32, endtime = 4 : i32} : i5, i32
      tor.return
    }
  }
}
