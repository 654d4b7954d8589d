// expect: 2:15: expected operation name, found ')'
"foo.op"() ({ ) : () -> ()
