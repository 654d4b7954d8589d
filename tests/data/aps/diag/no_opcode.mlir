// expect: 4:5: has no `opcode` attribute
module {
  tor.design @d {
    tor.func @f(%arg0: i5, ...) attributes {funct7 = 0 : i32} {
      tor.return
    }
  }
}
