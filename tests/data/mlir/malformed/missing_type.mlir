// expect: 4:1: expected ':', found '}'
tor.func @f(%a: i32, %b: i32, ...) {
  %0 = tor.addi %a %b on (1 to 2) {dump = "x"}
}
