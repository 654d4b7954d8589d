// expect: 2:33: expected '>', found '='
memref.global @g : memref<4xi32 = uninitialized {dump = "x"}
