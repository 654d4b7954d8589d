module {
  handshake.func @join3(%a: !handshake.control<>, %b: !handshake.control<>, %c: !handshake.control<>, ...) -> (!handshake.control<>) attributes {argNames = ["a", "b", "c"], resNames = ["out"]} {
    %0 = join %a, %b, %c {handshake.name = "join0"} : <>, <>, <>
    %1 = buffer %0 {handshake.name = "buffer0", hw.parameters = {NUM_SLOTS = 1 : ui32, TIMING = #handshake<timing {R: 1}>}} : <>
    end {handshake.name = "end0"} %1 : <>
  }
}
