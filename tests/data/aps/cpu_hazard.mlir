// One slot stores the CPU word at rs1 and loads the one at rs2: a hazard when both are in
// the same 4-byte word (the load would not see the store).
module {
  tor.design @d {
    %c0_i32 = arith.constant 0 : i32
    memref.global @_cpu_memory : memref<1xi32> = uninitialized
    tor.func @h(%arg0: i5, %arg1: i5, %arg2: i5, ...) attributes {funct7 = 9 : i32, opcode = 123 : i32} {
      %0 = aps.readrf %arg0 {starttime = 0 : i32, endtime = 1 : i32} : i5 -> i32
      %1 = aps.readrf %arg1 {starttime = 0 : i32, endtime = 1 : i32} : i5 -> i32
      %cpu = memref.get_global @_cpu_memory : memref<1xi32> {starttime = 0 : i32, endtime = 1 : i32}
      %t = "aps.itfc.store_req"(%0, %cpu, %0) {starttime = 1 : i32, endtime = 2 : i32} : (i32, memref<1xi32>, i32) -> none
      %q = "aps.itfc.load_req"(%cpu, %1) {starttime = 1 : i32, endtime = 2 : i32} : (memref<1xi32>, i32) -> none
      "aps.itfc.store_collect"(%t) {starttime = 2 : i32, endtime = 3 : i32} : (none) -> ()
      %v = "aps.itfc.load_collect"(%q) {starttime = 2 : i32, endtime = 3 : i32} : (none) -> i32
      aps.writerf %arg2, %v {starttime = 3 : i32, endtime = 4 : i32} : i5, i32
      tor.return
    }
  }
}
