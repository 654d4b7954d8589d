// expect: 2:20: expected ',' or ']' in array
"a.b"() {x = [1, 2 3]} : () -> ()
