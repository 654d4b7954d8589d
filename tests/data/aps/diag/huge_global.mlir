// expect: 4:5: global `@big` is too large
module {
  tor.design @d {
    memref.global @big : memref<4294967296x4294967296xi32> = uninitialized
    tor.func @f(%arg0: i5, ...) attributes {opcode = 1 : i32} {
      tor.return
    }
  }
}
