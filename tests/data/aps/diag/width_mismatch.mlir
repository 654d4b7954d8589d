// expect: 11:7: width mismatch in `tor.addi`
module {
  tor.design @d {
    %c0_i32 = arith.constant 0 : i32
    %c4_i32 = arith.constant 4 : i32
    %c1_i32 = arith.constant 1 : i32
    memref.global @m_0 : memref<4xi32> = uninitialized
    tor.func @f(%arg0: i5, %arg1: i5, %arg2: i5, ...) attributes {funct7 = 0 : i32, opcode = 11 : i32} {
      %0 = aps.readrf %arg0 {starttime = 0 : i32, endtime = 1 : i32} : i5 -> i32
      %1 = arith.trunci %0 {starttime = 1 : i32, endtime = 2 : i32} : i32 to i16
      %2 = tor.addi %0 %1 on (2 to 3) : (i32, i16) -> i32
      tor.return
    }
  }
}
