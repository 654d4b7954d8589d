// Rocket custom CSRs (#33): two CSR globals, read with `aps.readcsr` (latched when the
// command fires) and written back with `aps.writecsr` (a one-cycle set pulse).
// @scale: rs1 · cfg, accumulated over 4 loop iterations that read cfg again in the loop
//   body (the latched value from a register), then status := the sum, rd := the sum;
// @status_add: rd := status + rs1 (the status a previous command wrote back), generic form;
// @stamp: writes cfg := rs1 in its first slot and answers the cfg it latched (its own write
//   is not visible to it).
module {
  tor.design @csr {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %c3_i32 = arith.constant 3 : i32
    memref.global @cfg : memref<i32> = dense<3> {csr_address = 2064 : i32, var_name = "cfg"}
    memref.global @status : memref<i32> = uninitialized {csr_address = 2065 : i32, var_name = "status"}
    tor.func @scale(%arg0: i5, %arg1: i5, %arg2: i5, ...) attributes {funct7 = 8 : i32, opcode = 43 : i32, scheduled = true} {
      %0 = aps.readrf %arg0 {starttime = 0 : i32, endtime = 1 : i32} : i5 -> i32
      %k = aps.readcsr @cfg {starttime = 0 : i32, endtime = 1 : i32} : i32
      %m = tor.muli %0 %k on (1 to 2) : (i32, i32) -> i32
      %r = tor.for %i = (%c0_i32 : i32) to (%c3_i32 : i32) step (%c1_i32 : i32) iter_args(%acc = %m : i32) on (2 to 5) -> (i32) {
        %k2 = aps.readcsr @cfg {starttime = 3 : i32, endtime = 4 : i32} : i32
        %s = tor.addi %acc %k2 on (3 to 4) : (i32, i32) -> i32
        tor.yield %s : i32
      }
      aps.writecsr %r, @status {starttime = 6 : i32, endtime = 7 : i32} : i32
      aps.writerf %arg2, %r {starttime = 6 : i32, endtime = 7 : i32} : i5, i32
      tor.return
    }
    tor.func @status_add(%arg0: i5, %arg1: i5, %arg2: i5, ...) attributes {funct7 = 9 : i32, opcode = 43 : i32, scheduled = true} {
      %0 = aps.readrf %arg0 {starttime = 0 : i32, endtime = 1 : i32} : i5 -> i32
      %st = "aps.readcsr"() {global_name = @status, starttime = 1 : i32, endtime = 2 : i32} : () -> i32
      %s = tor.addi %st %0 on (1 to 2) : (i32, i32) -> i32
      aps.writerf %arg2, %s {starttime = 2 : i32, endtime = 3 : i32} : i5, i32
      tor.return
    }
    tor.func @stamp(%arg0: i5, %arg1: i5, %arg2: i5, ...) attributes {funct7 = 10 : i32, opcode = 43 : i32, scheduled = true} {
      %0 = aps.readrf %arg0 {starttime = 0 : i32, endtime = 1 : i32} : i5 -> i32
      "aps.writecsr"(%0) {global_name = @cfg, starttime = 0 : i32, endtime = 1 : i32} : (i32) -> ()
      %k = aps.read_csr @cfg {starttime = 1 : i32, endtime = 2 : i32} : i32
      aps.writerf %arg2, %k {starttime = 2 : i32, endtime = 3 : i32} : i5, i32
      tor.return
    }
  }
}
