// expect: 3:5: entry block arguments are already defined
tor.for %i = (%a : i32) to (%b : i32) step (%c : i32) on (0 to 1) {
    ^bb0(%x: i32):
}
