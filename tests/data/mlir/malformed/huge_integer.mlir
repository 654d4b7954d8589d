// expect: 2:21: integer literal too large
%0 = arith.constant 1000000000000000000000000000000000000000000 : i64
