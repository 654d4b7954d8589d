// expect: 11:5: functions `@f` and `@g` have the same instruction identity (opcode 0x2b, funct7 1)
module {
  tor.design @d {
    %c1_i32 = arith.constant 1 : i32
    tor.func @f(%arg0: i5, %arg1: i5, %arg2: i5, ...) attributes {funct7 = 1 : i32, opcode = 43 : i32} {
      %0 = aps.readrf %arg0 {starttime = 0 : i32, endtime = 1 : i32} : i5 -> i32
      aps.writerf %arg2, %0 {starttime = 1 : i32, endtime = 2 : i32} : i5, i32
      tor.return
    }
    // The same identity again: the two would share a command route and every name.
    tor.func @g(%arg0: i5, %arg1: i5, %arg2: i5, ...) attributes {funct7 = 1 : i32, opcode = 43 : i32} {
      %0 = aps.readrf %arg1 {starttime = 0 : i32, endtime = 1 : i32} : i5 -> i32
      aps.writerf %arg2, %0 {starttime = 1 : i32, endtime = 2 : i32} : i5, i32
      tor.return
    }
  }
}
