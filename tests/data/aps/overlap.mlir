// Streams of commands (written for kiln's tests of overlapping commands): @acc adds 3 * rs2
// to word rs1 & 3 of a scratchpad bank and answers the sum (load in slot 1, store in slot
// 4: a later command must see the earlier one's store); @gacc subtracts 5 * rs1 from a
// global register the same way; @peek answers that bank word plus the register (another
// instruction reading what @acc and @gacc store); @chain is arithmetic only (no state:
// commands may overlap freely).
module {
  tor.design @overlap {
    %c3_i32 = arith.constant 3 : i32
    %c5_i32 = arith.constant 5 : i32
    %c7_i32 = arith.constant 7 : i32
    memref.global @buf : memref<4xi32> = dense<[10, 20, 30, 40]>
    memref.global @total : memref<i32> = dense<1000>
    tor.func @acc(%arg0: i5, %arg1: i5, %arg2: i5, ...) attributes {funct7 = 1 : i32, opcode = 43 : i32, scheduled = true} {
      %0 = aps.readrf %arg0 {starttime = 0 : i32, endtime = 1 : i32} : i5 -> i32
      %1 = aps.readrf %arg1 {starttime = 0 : i32, endtime = 1 : i32} : i5 -> i32
      %m = memref.get_global @buf : memref<4xi32> {starttime = 0 : i32, endtime = 1 : i32}
      %i = arith.andi %0, %c3_i32 {starttime = 0 : i32, endtime = 1 : i32} : i32
      %v = aps.memload %m[%i] {starttime = 1 : i32, endtime = 2 : i32} : memref<4xi32>, i32 -> i32
      %w = tor.muli %1 %c3_i32 on (2 to 3) : (i32, i32) -> i32
      %s = tor.addi %v %w on (3 to 4) : (i32, i32) -> i32
      aps.memstore %s, %m[%i] {starttime = 4 : i32, endtime = 5 : i32} : i32, memref<4xi32>, i32
      aps.writerf %arg2, %s {starttime = 5 : i32, endtime = 6 : i32} : i5, i32
      tor.return
    }
    tor.func @gacc(%arg0: i5, %arg1: i5, %arg2: i5, ...) attributes {funct7 = 2 : i32, opcode = 43 : i32, scheduled = true} {
      %0 = aps.readrf %arg0 {starttime = 0 : i32, endtime = 1 : i32} : i5 -> i32
      %g = "aps.globalload"() {global = @total, starttime = 1 : i32, endtime = 2 : i32} : () -> i32
      %x = tor.muli %0 %c5_i32 on (2 to 3) : (i32, i32) -> i32
      %s = tor.subi %g %x on (3 to 4) : (i32, i32) -> i32
      "aps.globalstore"(%s) {global = @total, starttime = 4 : i32, endtime = 5 : i32} : (i32) -> ()
      aps.writerf %arg2, %s {starttime = 5 : i32, endtime = 6 : i32} : i5, i32
      tor.return
    }
    tor.func @peek(%arg0: i5, %arg1: i5, %arg2: i5, ...) attributes {funct7 = 4 : i32, opcode = 43 : i32, scheduled = true} {
      %0 = aps.readrf %arg0 {starttime = 0 : i32, endtime = 1 : i32} : i5 -> i32
      %m = memref.get_global @buf : memref<4xi32> {starttime = 0 : i32, endtime = 1 : i32}
      %i = arith.andi %0, %c3_i32 {starttime = 0 : i32, endtime = 1 : i32} : i32
      %v = aps.memload %m[%i] {starttime = 1 : i32, endtime = 2 : i32} : memref<4xi32>, i32 -> i32
      %g = "aps.globalload"() {global = @total, starttime = 1 : i32, endtime = 2 : i32} : () -> i32
      %s = tor.addi %v %g on (2 to 3) : (i32, i32) -> i32
      aps.writerf %arg2, %s {starttime = 3 : i32, endtime = 4 : i32} : i5, i32
      tor.return
    }
    tor.func @chain(%arg0: i5, %arg1: i5, %arg2: i5, ...) attributes {funct7 = 3 : i32, opcode = 43 : i32, scheduled = true} {
      %0 = aps.readrf %arg0 {starttime = 0 : i32, endtime = 1 : i32} : i5 -> i32
      %1 = aps.readrf %arg1 {starttime = 0 : i32, endtime = 1 : i32} : i5 -> i32
      %a = tor.muli %0 %c7_i32 on (1 to 2) : (i32, i32) -> i32
      %b = tor.addi %a %1 on (2 to 3) : (i32, i32) -> i32
      %c = tor.muli %b %c3_i32 on (3 to 4) : (i32, i32) -> i32
      %d = tor.subi %c %0 on (4 to 5) : (i32, i32) -> i32
      %e = tor.addi %d %c5_i32 on (5 to 6) : (i32, i32) -> i32
      aps.writerf %arg2, %e {starttime = 6 : i32, endtime = 7 : i32} : i5, i32
      tor.return
    }
  }
}
