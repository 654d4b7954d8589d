// expect: 2:22: integer type 'i99999999' is too wide
%0 = "a.b"() : () -> i99999999
