// A 32-bit adder behind a fork: the smallest Handshake design with a library unit.
handshake.func @add32(%a: !handshake.channel<i32>, %b: !handshake.channel<i32>) -> (!handshake.channel<i32>, !handshake.channel<i32>) {
  %f:2 = fork [2] %a {handshake.name = "fork0"} : <i32>
  %s = addi %f#0, %b {handshake.name = "addi0"} : <i32>
  end %s, %f#1 : <i32>, <i32>
}
