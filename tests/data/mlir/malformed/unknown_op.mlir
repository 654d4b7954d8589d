// expect: 4:5: unknown operation 'foo.bar' in custom form
module {
  tor.design @d {
    foo.bar %x : i32
  }
}
