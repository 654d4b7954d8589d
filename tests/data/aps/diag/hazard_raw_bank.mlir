// expect: 13:7: hazard in slot 1: a load after a store of bank `@m_0`
module {
  tor.design @d {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %c4_i32 = arith.constant 4 : i32
    memref.global @m_0 : memref<4xi32> = uninitialized
    memref.global @g : memref<i32> = dense<1>
    tor.func @f(%arg0: i5, %arg1: i5, %arg2: i5, ...) attributes {funct7 = 0 : i32, opcode = 11 : i32} {
      %0 = aps.readrf %arg0 {starttime = 0 : i32, endtime = 1 : i32} : i5 -> i32
      %m = memref.get_global @m_0 : memref<4xi32> {starttime = 0 : i32, endtime = 1 : i32}
      aps.memstore %0, %m[%c0_i32] {starttime = 1 : i32, endtime = 2 : i32} : i32, memref<4xi32>, i32
      %1 = aps.memload %m[%c1_i32] {starttime = 1 : i32, endtime = 2 : i32} : memref<4xi32>, i32 -> i32
      tor.return
    }
  }
}
