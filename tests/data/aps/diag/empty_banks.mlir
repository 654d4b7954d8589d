// expect: 4:5: memory map entry `m` has no banks
module {
  aps.memorymap {
    aps.mem_entry "m" : banks([]), base(0), size(64), count(0), cyclic(1)
    aps.mem_finish
  }
  tor.design @d {
    tor.func @f(%arg0: i5, ...) attributes {opcode = 1 : i32} {
      tor.return
    }
  }
}
