module {
  aps.memorymap {
    aps.mem_entry "mem_a" : banks([@mem_a_0, @mem_a_1, @mem_a_2, @mem_a_3]), base(0), size(64), count(4), cyclic(1)
    aps.mem_entry "mem_b" : banks([@mem_b_0, @mem_b_1, @mem_b_2, @mem_b_3]), base(64), size(64), count(4), cyclic(1)
    aps.mem_entry "mem_c" : banks([@mem_c_0, @mem_c_1, @mem_c_2, @mem_c_3]), base(128), size(64), count(4), cyclic(1)
    aps.mem_finish
  }
  tor.design @aps_isaxes {
    %c3_i32 = arith.constant 3 : i32
    %c0_i32 = arith.constant {dump = "op_0"} 0 : i32
    %c16_i32 = arith.constant {dump = "op_1"} 16 : i32
    %c42_i32 = arith.constant {dump = "op_2"} 42 : i32
    %c1_i32 = arith.constant {dump = "op_5"} 1 : i32
    memref.global @mem_a_0 : memref<4xi32> = dense<[1, 5, 9, 13]> {dump = "op_6"}
    memref.global @mem_a_1 : memref<4xi32> = dense<[2, 6, 10, 14]> {dump = "op_7"}
    memref.global @mem_a_2 : memref<4xi32> = dense<[3, 7, 11, 15]> {dump = "op_8"}
    memref.global @mem_a_3 : memref<4xi32> = dense<[4, 8, 12, 16]> {dump = "op_9"}
    memref.global @mem_b_0 : memref<4xi32> = uninitialized {dump = "op_10"}
    memref.global @mem_b_1 : memref<4xi32> = uninitialized {dump = "op_11"}
    memref.global @mem_b_2 : memref<4xi32> = uninitialized {dump = "op_12"}
    memref.global @mem_b_3 : memref<4xi32> = uninitialized {dump = "op_13"}
    memref.global @mem_c_0 : memref<4xi32> = uninitialized {dump = "op_14"}
    memref.global @mem_c_1 : memref<4xi32> = uninitialized {dump = "op_15"}
    memref.global @mem_c_2 : memref<4xi32> = uninitialized {dump = "op_16"}
    memref.global @mem_c_3 : memref<4xi32> = uninitialized {dump = "op_17"}
    tor.func @flow_burst_add(%arg0: i5, %arg1: i5, %arg2: i5, ...) attributes {clock = 1.000000e+01 : f32, dump = "op_71", funct7 = 0 : i32, opcode = 43 : i32, resource = "examples/resource_ihp130.json", scheduled = true} {
      tor.timegraph (0 to 13){
        tor.succ 1 : [0 : i32] [{type = "static:1"}]
        tor.succ 2 : [1 : i32] [{type = "static:16"}]
        tor.succ 3 : [2 : i32] [{type = "static:1"}]
        tor.succ 4 : [3 : i32] [{type = "static:15"}]
        tor.succ 5 : [4 : i32] [{type = "static:1"}]
        tor.succ 6 : [5 : i32] [{type = "static"}]
        tor.succ 7 : [6 : i32] [{type = "static:1"}]
        tor.succ 8 : [7 : i32] [{type = "static:1"}]
        tor.succ 9 : [5 : i32] [{type = "static-for"}]
        tor.succ 10 : [9 : i32] [{type = "static:1"}]
        tor.succ 11 : [10 : i32] [{type = "static:1"}]
        tor.succ 12 : [11 : i32] [{type = "static:16"}]
        tor.succ 13 : [12 : i32] [{type = "static:1"}]
      }
      %0 = aps.readrf %arg0 {dump = "op_18", endtime = 1 : i32, ref_endtime = 1 : i32, ref_starttime = 0 : i32, starttime = 0 : i32} : i5 -> i32
      %1 = aps.readrf %arg1 {dump = "op_19", endtime = 1 : i32, ref_endtime = 1 : i32, ref_starttime = 0 : i32, starttime = 0 : i32} : i5 -> i32
      %2 = memref.get_global @mem_a_0 : memref<4xi32> {dump = "op_20", endtime = 1 : i32, ref_endtime = 1 : i32, ref_starttime = 0 : i32, starttime = 0 : i32}
      %3 = memref.get_global @mem_a_1 : memref<4xi32> {dump = "op_21", endtime = 1 : i32, ref_endtime = 1 : i32, ref_starttime = 0 : i32, starttime = 0 : i32}
      %4 = memref.get_global @mem_a_2 : memref<4xi32> {dump = "op_22", endtime = 1 : i32, ref_endtime = 1 : i32, ref_starttime = 0 : i32, starttime = 0 : i32}
      %5 = memref.get_global @mem_a_3 : memref<4xi32> {dump = "op_23", endtime = 1 : i32, ref_endtime = 1 : i32, ref_starttime = 0 : i32, starttime = 0 : i32}
      %6 = aps.itfc.burst_load_req %0, (%2, %3, %4, %5) [%c0_i32], %c16_i32 {endtime = 2 : i32, ref_endtime = 17 : i32, ref_starttime = 1 : i32, starttime = 1 : i32} : i32, (memref<4xi32>, memref<4xi32>, memref<4xi32>, memref<4xi32>), i32, i32 -> none
      aps.itfc.burst_load_collect %6 {endtime = 3 : i32, ref_endtime = 18 : i32, ref_starttime = 17 : i32, starttime = 2 : i32} : none
      %7 = memref.get_global @mem_b_0 : memref<4xi32> {dump = "op_25", endtime = 1 : i32, ref_endtime = 1 : i32, ref_starttime = 0 : i32, starttime = 0 : i32}
      %8 = memref.get_global @mem_b_1 : memref<4xi32> {dump = "op_26", endtime = 1 : i32, ref_endtime = 1 : i32, ref_starttime = 0 : i32, starttime = 0 : i32}
      %9 = memref.get_global @mem_b_2 : memref<4xi32> {dump = "op_27", endtime = 1 : i32, ref_endtime = 1 : i32, ref_starttime = 0 : i32, starttime = 0 : i32}
      %10 = memref.get_global @mem_b_3 : memref<4xi32> {dump = "op_28", endtime = 1 : i32, ref_endtime = 1 : i32, ref_starttime = 0 : i32, starttime = 0 : i32}
      %11 = aps.itfc.burst_load_req %1, (%7, %8, %9, %10) [%c0_i32], %c16_i32 {endtime = 4 : i32, ref_endtime = 33 : i32, ref_starttime = 17 : i32, starttime = 2 : i32} : i32, (memref<4xi32>, memref<4xi32>, memref<4xi32>, memref<4xi32>), i32, i32 -> none
      aps.itfc.burst_load_collect %11 {endtime = 5 : i32, ref_endtime = 34 : i32, ref_starttime = 33 : i32, starttime = 4 : i32} : none
      tor.for %arg3 = (%c0_i32 : i32) to (%c3_i32 : i32) step (%c1_i32 : i32)
      on (5 to 8){
        %17 = aps.memload %2[%arg3] {dump = "op_31", endtime = 7 : i32, ref_endtime = 36 : i32, ref_starttime = 35 : i32, slot = 0 : i32, starttime = 6 : i32} : memref<4xi32>, i32 -> i32
        %r1 = aps.memload %2[%c1_i32] {dump = "op_31b", endtime = 7 : i32, ref_endtime = 36 : i32, ref_starttime = 35 : i32, slot = 0 : i32, starttime = 6 : i32} : memref<4xi32>, i32 -> i32
        %r2 = aps.memload %2[%c3_i32] {dump = "op_31c", endtime = 7 : i32, ref_endtime = 36 : i32, ref_starttime = 35 : i32, slot = 0 : i32, starttime = 6 : i32} : memref<4xi32>, i32 -> i32
        %18 = aps.memload %7[%arg3] {dump = "op_33", endtime = 7 : i32, ref_endtime = 36 : i32, ref_starttime = 35 : i32, slot = 0 : i32, starttime = 6 : i32} : memref<4xi32>, i32 -> i32
        %19 = tor.addi %17 %18 on (7 to 8) {dump = "op_34", ref_endtime = 37 : i32, ref_starttime = 36 : i32} : (i32, i32) -> i32
        %20 = memref.get_global @mem_c_0 : memref<4xi32> {dump = "op_35", endtime = 7 : i32, ref_endtime = 36 : i32, ref_starttime = 35 : i32, starttime = 6 : i32}
        %21 = memref.get_global @mem_c_1 : memref<4xi32> {dump = "op_36", endtime = 7 : i32, ref_endtime = 36 : i32, ref_starttime = 35 : i32, starttime = 6 : i32}
        %22 = memref.get_global @mem_c_2 : memref<4xi32> {dump = "op_37", endtime = 7 : i32, ref_endtime = 36 : i32, ref_starttime = 35 : i32, starttime = 6 : i32}
        %23 = memref.get_global @mem_c_3 : memref<4xi32> {dump = "op_38", endtime = 7 : i32, ref_endtime = 36 : i32, ref_starttime = 35 : i32, starttime = 6 : i32}
        aps.memstore %19, %20[%arg3] {dump = "op_40", endtime = 8 : i32, ref_endtime = 37 : i32, ref_starttime = 36 : i32, slot = 0 : i32, starttime = 7 : i32} : i32, memref<4xi32>, i32
        %24 = aps.memload %3[%arg3] {dump = "op_42", endtime = 7 : i32, ref_endtime = 36 : i32, ref_starttime = 35 : i32, slot = 0 : i32, starttime = 6 : i32} : memref<4xi32>, i32 -> i32
        %25 = aps.memload %8[%arg3] {dump = "op_44", endtime = 7 : i32, ref_endtime = 36 : i32, ref_starttime = 35 : i32, slot = 0 : i32, starttime = 6 : i32} : memref<4xi32>, i32 -> i32
        %26 = tor.addi %24 %25 on (7 to 8) {dump = "op_45", ref_endtime = 37 : i32, ref_starttime = 36 : i32} : (i32, i32) -> i32
        aps.memstore %26, %21[%arg3] {dump = "op_47", endtime = 8 : i32, ref_endtime = 37 : i32, ref_starttime = 36 : i32, slot = 0 : i32, starttime = 7 : i32} : i32, memref<4xi32>, i32
        %27 = aps.memload %4[%arg3] {dump = "op_49", endtime = 7 : i32, ref_endtime = 36 : i32, ref_starttime = 35 : i32, slot = 0 : i32, starttime = 6 : i32} : memref<4xi32>, i32 -> i32
        %28 = aps.memload %9[%arg3] {dump = "op_51", endtime = 7 : i32, ref_endtime = 36 : i32, ref_starttime = 35 : i32, slot = 0 : i32, starttime = 6 : i32} : memref<4xi32>, i32 -> i32
        %29 = tor.addi %27 %28 on (7 to 8) {dump = "op_52", ref_endtime = 37 : i32, ref_starttime = 36 : i32} : (i32, i32) -> i32
        aps.memstore %29, %22[%arg3] {dump = "op_54", endtime = 8 : i32, ref_endtime = 37 : i32, ref_starttime = 36 : i32, slot = 0 : i32, starttime = 7 : i32} : i32, memref<4xi32>, i32
        %30 = aps.memload %5[%arg3] {dump = "op_56", endtime = 7 : i32, ref_endtime = 36 : i32, ref_starttime = 35 : i32, slot = 0 : i32, starttime = 6 : i32} : memref<4xi32>, i32 -> i32
        %31 = aps.memload %10[%arg3] {dump = "op_58", endtime = 7 : i32, ref_endtime = 36 : i32, ref_starttime = 35 : i32, slot = 0 : i32, starttime = 6 : i32} : memref<4xi32>, i32 -> i32
        %32 = tor.addi %30 %31 on (7 to 8) {dump = "op_59", ref_endtime = 37 : i32, ref_starttime = 36 : i32} : (i32, i32) -> i32
        aps.memstore %32, %23[%arg3] {dump = "op_61", endtime = 8 : i32, ref_endtime = 37 : i32, ref_starttime = 36 : i32, slot = 0 : i32, starttime = 7 : i32} : i32, memref<4xi32>, i32
      } {dump = "op_63", ref_endtime = 37 : i32, ref_starttime = 35 : i32, unroll = 4 : i32}
      %12 = memref.get_global @mem_c_0 : memref<4xi32> {dump = "op_64", endtime = 10 : i32, ref_endtime = 36 : i32, ref_starttime = 35 : i32, starttime = 9 : i32}
      %13 = memref.get_global @mem_c_1 : memref<4xi32> {dump = "op_65", endtime = 10 : i32, ref_endtime = 36 : i32, ref_starttime = 35 : i32, starttime = 9 : i32}
      %14 = memref.get_global @mem_c_2 : memref<4xi32> {dump = "op_66", endtime = 10 : i32, ref_endtime = 36 : i32, ref_starttime = 35 : i32, starttime = 9 : i32}
      %15 = memref.get_global @mem_c_3 : memref<4xi32> {dump = "op_67", endtime = 10 : i32, ref_endtime = 36 : i32, ref_starttime = 35 : i32, starttime = 9 : i32}
      %16 = aps.itfc.burst_store_req(%12, %13, %14, %15) [%c0_i32], %0, %c16_i32 {endtime = 12 : i32, ref_endtime = 53 : i32, ref_starttime = 37 : i32, starttime = 11 : i32} : (memref<4xi32>, memref<4xi32>, memref<4xi32>, memref<4xi32>), i32, i32, i32 -> none
      aps.itfc.burst_store_collect %16 {endtime = 13 : i32, ref_endtime = 54 : i32, ref_starttime = 53 : i32, starttime = 12 : i32} : none
      aps.writerf %arg2, %c42_i32 {dump = "op_69", endtime = 13 : i32, ref_endtime = 54 : i32, ref_starttime = 53 : i32, starttime = 12 : i32} : i5, i32
      tor.return {dump = "op_70"}
    }
  } {HoistConstCondIfOp = 1 : i32, dump = "op_72", schedule = true}
}
