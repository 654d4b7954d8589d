// expect: 3:8: unknown operation 'frobnicate' in custom form
handshake.func @f(%a: !handshake.channel<i32>) -> !handshake.channel<i32> {
  %b = frobnicate %a : <i32>
  end %b : <i32>
}
