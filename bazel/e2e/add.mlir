// A one-instruction APS design for the rules' test module: rd = (rs1 + rs2) * rs1.
module {
  tor.design @add {
    tor.func @addmul(%arg0: i5, %arg1: i5, %arg2: i5, ...) attributes {funct7 = 1 : i32, opcode = 43 : i32, scheduled = true} {
      %0 = aps.readrf %arg0 {starttime = 0 : i32, endtime = 1 : i32} : i5 -> i32
      %1 = aps.readrf %arg1 {starttime = 0 : i32, endtime = 1 : i32} : i5 -> i32
      %2 = tor.addi %0 %1 on (1 to 2) : (i32, i32) -> i32
      %3 = tor.muli %2 %0 on (2 to 3) : (i32, i32) -> i32
      aps.writerf %arg2, %3 {starttime = 3 : i32, endtime = 4 : i32} : i5, i32
      tor.return
    }
  }
}
