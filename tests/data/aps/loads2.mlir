// Two CPU-memory loads in one slot (two request lanes in one cycle, one request per cycle
// at the HellaCache port): @load2 loads the words at rs1 and rs1 + 4, stores their
// difference (first minus second: which response is which matters) to the word at rs2 and
// answers it.
module {
  tor.design @loads2 {
    %c4_i32 = arith.constant 4 : i32
    memref.global @_cpu_memory : memref<1xi32> = uninitialized
    tor.func @load2(%arg0: i5, %arg1: i5, %arg2: i5, ...) attributes {funct7 = 3 : i32, opcode = 43 : i32, scheduled = true} {
      %0 = aps.readrf %arg0 {starttime = 0 : i32, endtime = 1 : i32} : i5 -> i32
      %1 = aps.readrf %arg1 {starttime = 0 : i32, endtime = 1 : i32} : i5 -> i32
      %cpu = memref.get_global @_cpu_memory : memref<1xi32> {starttime = 0 : i32, endtime = 1 : i32}
      %p = tor.addi %0 %c4_i32 on (1 to 2) : (i32, i32) -> i32
      %q0 = "aps.itfc.load_req"(%cpu, %0) {starttime = 2 : i32, endtime = 3 : i32} : (memref<1xi32>, i32) -> none
      %q1 = "aps.itfc.load_req"(%cpu, %p) {starttime = 2 : i32, endtime = 3 : i32} : (memref<1xi32>, i32) -> none
      %a = "aps.itfc.load_collect"(%q0) {starttime = 3 : i32, endtime = 4 : i32} : (none) -> i32
      %b = "aps.itfc.load_collect"(%q1) {starttime = 3 : i32, endtime = 4 : i32} : (none) -> i32
      %s = tor.subi %a %b on (4 to 5) : (i32, i32) -> i32
      %t = "aps.itfc.store_req"(%s, %cpu, %1) {starttime = 5 : i32, endtime = 6 : i32} : (i32, memref<1xi32>, i32) -> none
      "aps.itfc.store_collect"(%t) {starttime = 6 : i32, endtime = 7 : i32} : (none) -> ()
      aps.writerf %arg2, %s {starttime = 7 : i32, endtime = 8 : i32} : i5, i32
      tor.return
    }
  }
}
