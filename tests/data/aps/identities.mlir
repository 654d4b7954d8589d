// Two instructions under one custom opcode (custom-1, 0x2b), told apart by funct7: @sum
// (funct7 1) adds rs1 and rs2 and keeps the sum in a bank; @store2 (funct7 2) stores rs1 + 1
// and rs1 + 2 to the CPU words at rs2 and rs2 + 4 in one slot (two stores in one cycle)
// and answers their sum.
module {
  tor.design @identities {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %c2_i32 = arith.constant 2 : i32
    %c4_i32 = arith.constant 4 : i32
    memref.global @acc : memref<4xi32> = dense<[7, 0, 0, 0]>
    memref.global @_cpu_memory : memref<1xi32> = uninitialized
    tor.func @sum(%arg0: i5, %arg1: i5, %arg2: i5, ...) attributes {funct7 = 1 : i32, opcode = 43 : i32, scheduled = true} {
      %0 = aps.readrf %arg0 {starttime = 0 : i32, endtime = 1 : i32} : i5 -> i32
      %1 = aps.readrf %arg1 {starttime = 0 : i32, endtime = 1 : i32} : i5 -> i32
      %m = memref.get_global @acc : memref<4xi32> {starttime = 0 : i32, endtime = 1 : i32}
      %2 = tor.addi %0 %1 on (1 to 2) : (i32, i32) -> i32
      %3 = aps.memload %m[%c0_i32] {starttime = 1 : i32, endtime = 2 : i32} : memref<4xi32>, i32 -> i32
      %4 = tor.addi %2 %3 on (2 to 3) : (i32, i32) -> i32
      aps.memstore %4, %m[%c0_i32] {starttime = 2 : i32, endtime = 3 : i32} : i32, memref<4xi32>, i32
      aps.writerf %arg2, %4 {starttime = 3 : i32, endtime = 4 : i32} : i5, i32
      tor.return
    }
    tor.func @store2(%arg0: i5, %arg1: i5, %arg2: i5, ...) attributes {funct7 = 2 : i32, opcode = 43 : i32, scheduled = true} {
      %0 = aps.readrf %arg0 {starttime = 0 : i32, endtime = 1 : i32} : i5 -> i32
      %1 = aps.readrf %arg1 {starttime = 0 : i32, endtime = 1 : i32} : i5 -> i32
      %cpu = memref.get_global @_cpu_memory : memref<1xi32> {starttime = 0 : i32, endtime = 1 : i32}
      %a = tor.addi %0 %c1_i32 on (1 to 2) : (i32, i32) -> i32
      %b = tor.addi %0 %c2_i32 on (1 to 2) : (i32, i32) -> i32
      %p = tor.addi %1 %c4_i32 on (1 to 2) : (i32, i32) -> i32
      %t0 = "aps.itfc.store_req"(%a, %cpu, %1) {starttime = 2 : i32, endtime = 3 : i32} : (i32, memref<1xi32>, i32) -> none
      %t1 = "aps.itfc.store_req"(%b, %cpu, %p) {starttime = 2 : i32, endtime = 3 : i32} : (i32, memref<1xi32>, i32) -> none
      "aps.itfc.store_collect"(%t0) {starttime = 3 : i32, endtime = 4 : i32} : (none) -> ()
      "aps.itfc.store_collect"(%t1) {starttime = 3 : i32, endtime = 4 : i32} : (none) -> ()
      %s = tor.addi %a %b on (3 to 4) : (i32, i32) -> i32
      aps.writerf %arg2, %s {starttime = 4 : i32, endtime = 5 : i32} : i5, i32
      tor.return
    }
  }
}
