// expect: 9:7: redefinition of SSA value '%c1_i32'
module {
  tor.design @d {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %c3_i32 = arith.constant 3 : i32
    tor.func @f(%arg0: i5, %arg1: i5, %arg2: i5, ...) attributes {funct7 = 0 : i32, opcode = 11 : i32} {
      %0 = aps.readrf %arg0 {starttime = 0 : i32, endtime = 1 : i32} : i5 -> i32
      %c1_i32 = tor.addi %0 %0 on (1 to 2) : (i32, i32) -> i32
      aps.writerf %arg2, %c1_i32 {starttime = 5 : i32, endtime = 6 : i32} : i5, i32
      tor.return
    }
  }
}
