// expect: 2:4: expected '=', found 'arith.constant'
%0 arith.constant 1 : i32
