handshake.func @f(%a: !handshake.channel<i16777215>, %start: !handshake.control<>, ...) -> (!handshake.channel<i16777215>, !handshake.control<>) attributes {argNames = ["a", "start"], resNames = ["out0", "end"]} {
  end %a, %start : <i16777215>, <>
}
