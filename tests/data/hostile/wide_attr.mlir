module {
  %0 = "test.op"() {value = 5 : i16777215} : () -> i32
}
