// expect: 2:29: unterminated string literal
%0 = arith.constant {dump = "op_0} 0 : i32
