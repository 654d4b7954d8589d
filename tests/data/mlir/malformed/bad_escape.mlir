// expect: 2:31: invalid escape sequence
%0 = arith.constant {dump = "a\qb"} 0 : i32
