// expect: 10:7: this loop reaches its bound only by overflowing `%i` (i32)
module {
  tor.design @d {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %cbig_i32 = arith.constant 1073741824 : i32
    %cub_i32 = arith.constant 2000000000 : i32
    tor.func @f(%arg0: i5, %arg1: i5, %arg2: i5, ...) attributes {funct7 = 0 : i32, opcode = 11 : i32} {
      %0 = aps.readrf %arg0 {starttime = 0 : i32, endtime = 1 : i32} : i5 -> i32
      %r = tor.for %i = (%c0_i32 : i32) to (%cub_i32 : i32) step (%cbig_i32 : i32) iter_args(%a = %c0_i32 : i32) on (1 to 3) -> (i32) {
        %s = tor.addi %a %c1_i32 on (1 to 2) : (i32, i32) -> i32
        tor.yield %s : i32
      }
      aps.writerf %arg2, %r {starttime = 4 : i32, endtime = 5 : i32} : i5, i32
      tor.return
    }
  }
}
