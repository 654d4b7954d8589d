handshake.func @f(%a: !handshake.channel<i1>, %start: !handshake.control<>, ...) -> (!handshake.channel<i0>, !handshake.control<>) attributes {argNames = ["a", "start"], resNames = ["out0", "end"]} {
  %0 = extsi %a {handshake.bb = 0 : ui32, handshake.name = "extsi0"} : <i1> to <i0>
  end %0, %start : <i0>, <>
}
