handshake.func @f(%x: !handshake.channel<i32>, ...) -> () {
  %r:2147483648 = fork [2] %x : <i32>
  end
}
