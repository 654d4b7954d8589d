handshake.func @f(%a: !handshake.channel<i32>, %start: !handshake.control<>, ...) -> (!handshake.channel<i63>, !handshake.control<>) attributes {argNames = ["a", "start"], resNames = ["out0", "end"]} {
  %0 = trunci %a {handshake.bb = 0 : ui32, handshake.name = "trunci0"} : <i32> to <i63>
  end %0, %start : <i63>, <>
}
