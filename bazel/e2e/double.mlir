// A Handshake circuit for the rules' test module: out0 = a + a (a fork and an adder).
module {
  handshake.func @double(%arg0: !handshake.channel<i32>, %arg1: !handshake.control<>, ...) -> (!handshake.channel<i32>, !handshake.control<>) attributes {argNames = ["a", "start"], resNames = ["out0", "end"]} {
    %0:2 = fork [2] %arg0 {handshake.bb = 0 : ui32, handshake.name = "fork0"} : <i32>
    %1 = addi %0#0, %0#1 {handshake.bb = 0 : ui32, handshake.name = "addi0"} : <i32>
    end {handshake.bb = 0 : ui32, handshake.name = "end0"} %1, %arg1 : <i32>, <>
  }
}
