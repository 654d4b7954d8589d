// expect: 2:55: expected ']', found '>'
%0 = "a.b"() : () -> !handshake.channel<i32, [spec: i1>
