// expect: 2:22: integer type 'i99999999': 99999999 exceeds the limit on integer width
%0 = "a.b"() : () -> i99999999
