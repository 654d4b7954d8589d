// expect: 3:1: expected 'to', found end of input
tor.timegraph (0
