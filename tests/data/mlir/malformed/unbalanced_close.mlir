// expect: 4:1: unbalanced '}'
module {
}
}
