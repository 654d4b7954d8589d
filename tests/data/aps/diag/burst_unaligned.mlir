// expect: 15:46: the DMA engine moves 8-byte aligned beats
module {
  aps.memorymap {
    aps.mem_entry "m" : banks([@m_0]), base(0), size(16), count(1), cyclic(1)
    aps.mem_finish
  }
  tor.design @d {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %c2_i32 = arith.constant 2 : i32
    memref.global @m_0 : memref<4xi32> = uninitialized
    tor.func @f(%arg0: i5, %arg1: i5, %arg2: i5, ...) attributes {funct7 = 0 : i32, opcode = 11 : i32} {
      %0 = aps.readrf %arg0 {starttime = 0 : i32, endtime = 1 : i32} : i5 -> i32
      %m = memref.get_global @m_0 : memref<4xi32> {starttime = 0 : i32, endtime = 1 : i32}
      %t = aps.itfc.burst_load_req %0, (%m) [%c1_i32], %c2_i32 {starttime = 1 : i32, endtime = 2 : i32} : i32, (memref<4xi32>), i32, i32 -> none
      aps.itfc.burst_load_collect %t {starttime = 2 : i32, endtime = 3 : i32} : none
      aps.writerf %arg2, %0 {starttime = 3 : i32, endtime = 4 : i32} : i5, i32
      tor.return
    }
  }
}
