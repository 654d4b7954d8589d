module {
  tor.design @features {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %c5_i32 = arith.constant 5 : i32
    %cm1_i32 = arith.constant -1 : i32
    memref.global @g : memref<i32> = dense<100>
    tor.func @sum_to_n(%arg0: i5, %arg1: i5, %arg2: i5, ...) attributes {funct7 = 1 : i32, opcode = 11 : i32} {
      %0 = aps.readrf %arg0 {starttime = 0 : i32, endtime = 1 : i32} : i5 -> i32
      %r = tor.for %i = (%c0_i32 : i32) to (%0 : i32) step (%c1_i32 : i32) iter_args(%acc = %c0_i32 : i32) on (1 to 3) -> (i32) {
        %s = tor.addi %acc %i on (2 to 3) : (i32, i32) -> i32
        tor.yield %s : i32
      }
      aps.writerf %arg2, %r {starttime = 4 : i32, endtime = 5 : i32} : i5, i32
      tor.return
    }
    tor.func @nested(%arg0: i5, %arg1: i5, %arg2: i5, ...) attributes {funct7 = 2 : i32, opcode = 11 : i32} {
      %0 = aps.readrf %arg0 {starttime = 0 : i32, endtime = 1 : i32} : i5 -> i32
      %1 = aps.readrf %arg1 {starttime = 0 : i32, endtime = 1 : i32} : i5 -> i32
      %r = tor.for %i = (%c5_i32 : i32) to (%c1_i32 : i32) step (%cm1_i32 : i32) iter_args(%acc = %1 : i32) on (1 to 9) -> (i32) {
        %r2 = tor.for %j = (%c0_i32 : i32) to (%i : i32) step (%c1_i32 : i32) iter_args(%a2 = %acc : i32) on (2 to 8) -> (i32) {
          %c = tor.cmpi slt %j %0 on (3 to 4) : (i32, i32) -> i1
          %y = tor.if %c on (4 to 7) -> (i32) then {
            %t = tor.addi %a2 %i on (5 to 6) : (i32, i32) -> i32
            tor.yield %t : i32
          } else {
            tor.yield %a2 : i32
          }
          tor.yield %y : i32
        }
        tor.yield %r2 : i32
      }
      aps.writerf %arg2, %r {starttime = 10 : i32, endtime = 11 : i32} : i5, i32
      tor.return
    }
    tor.func @global_if(%arg0: i5, %arg1: i5, %arg2: i5, ...) attributes {funct7 = 3 : i32, opcode = 11 : i32} {
      %0 = aps.readrf %arg0 {starttime = 0 : i32, endtime = 1 : i32} : i5 -> i32
      %c = tor.cmpi sgt %0 %c0_i32 on (0 to 1) : (i32, i32) -> i1
      tor.if %c on (1 to 4) then {
        %g = "aps.globalload"() {global = @g, starttime = 2 : i32, endtime = 3 : i32} : () -> i32
        %s = tor.addi %g %0 on (2 to 3) : (i32, i32) -> i32
        "aps.globalstore"(%s) {global = @g, starttime = 3 : i32, endtime = 4 : i32} : (i32) -> ()
      }
      %h = "aps.globalload"() {global = @g, starttime = 5 : i32, endtime = 6 : i32} : () -> i32
      %sh = arith.shrsi %0, %c1_i32 {starttime = 5 : i32, endtime = 6 : i32} : i32
      %x = tor.addi %h %sh on (6 to 7) : (i32, i32) -> i32
      aps.writerf %arg2, %x {starttime = 6 : i32, endtime = 7 : i32} : i5, i32
      tor.return
    }
    tor.func @count(%arg0: i5, %arg1: i5, %arg2: i5, ...) attributes {funct7 = 4 : i32, opcode = 11 : i32} {
      %0 = aps.readrf %arg0 {starttime = 0 : i32, endtime = 1 : i32} : i5 -> i32
      %1 = aps.readrf %arg1 {starttime = 0 : i32, endtime = 1 : i32} : i5 -> i32
      %r = tor.for %i = (%0 : i32) to (%1 : i32) step (%c1_i32 : i32) iter_args(%acc = %c0_i32 : i32) on (1 to 3) -> (i32) {
        %s = tor.addi %acc %c5_i32 on (2 to 3) : (i32, i32) -> i32
        tor.yield %s : i32
      }
      aps.writerf %arg2, %r {starttime = 4 : i32, endtime = 5 : i32} : i5, i32
      tor.return
    }
  }
}
