// expect: 16:7: a second `aps.writerf` on a path through `@f`
module {
  tor.design @d {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %c3_i32 = arith.constant 3 : i32
    tor.func @f(%arg0: i5, %arg1: i5, %arg2: i5, ...) attributes {funct7 = 0 : i32, opcode = 11 : i32} {
      %0 = aps.readrf %arg0 {starttime = 0 : i32, endtime = 1 : i32} : i5 -> i32
      %c = tor.cmpi eq %0 %c0_i32 on (0 to 1) : (i32, i32) -> i1
      tor.if %c on (1 to 3) then {
        aps.writerf %arg2, %0 {starttime = 1 : i32, endtime = 2 : i32} : i5, i32
      } else {
        aps.writerf %arg2, %c1_i32 {starttime = 1 : i32, endtime = 2 : i32} : i5, i32
      }
      %1 = tor.addi %0 %c1_i32 on (3 to 4) : (i32, i32) -> i32
      aps.writerf %arg2, %1 {starttime = 4 : i32, endtime = 5 : i32} : i5, i32
      tor.return
    }
  }
}
