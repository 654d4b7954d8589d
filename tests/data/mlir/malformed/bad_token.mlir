// expect: 3:25: unexpected character
module {
  %0 = arith.constant 1 ` : i32
}
