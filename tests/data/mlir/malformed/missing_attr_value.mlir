// expect: 2:38: expected attribute value, found '}'
%0 = arith.constant {dump = "x", a = } 0 : i32
