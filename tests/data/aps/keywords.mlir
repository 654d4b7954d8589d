// Names that are SystemVerilog keywords: a function `@dist`, a bank `@tri`, a global
// register `@logic`.
module {
  tor.design @begin {
    %c0_i32 = arith.constant 0 : i32
    %c3_i32 = arith.constant 3 : i32
    memref.global @tri : memref<2xi32> = dense<[5, 6]>
    memref.global @logic : memref<i32> = dense<10>
    tor.func @dist(%arg0: i5, %arg1: i5, %arg2: i5, ...) attributes {funct7 = 5 : i32, opcode = 11 : i32, scheduled = true} {
      %0 = aps.readrf %arg0 {starttime = 0 : i32, endtime = 1 : i32} : i5 -> i32
      %m = memref.get_global @tri : memref<2xi32> {starttime = 0 : i32, endtime = 1 : i32}
      %1 = aps.memload %m[%c0_i32] {starttime = 1 : i32, endtime = 2 : i32} : memref<2xi32>, i32 -> i32
      %2 = "aps.globalload"() {global = @logic, starttime = 1 : i32, endtime = 2 : i32} : () -> i32
      %3 = tor.addi %1 %2 on (2 to 3) : (i32, i32) -> i32
      %4 = tor.muli %3 %0 on (2 to 3) : (i32, i32) -> i32
      "aps.globalstore"(%4) {global = @logic, starttime = 3 : i32, endtime = 4 : i32} : (i32) -> ()
      aps.writerf %arg2, %4 {starttime = 3 : i32, endtime = 4 : i32} : i5, i32
      tor.return
    }
  }
}
