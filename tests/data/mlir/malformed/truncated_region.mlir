// expect: 5:1: expected '}' to close region, found end of input
module {
  tor.func @f(%a: i32) {
    %0 = arith.constant 1 : i32
