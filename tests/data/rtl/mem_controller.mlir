module {
  handshake.func @mc(%mem: memref<16xi32>, %start: !handshake.control<>, %ia: !handshake.channel<i4>, %ib: !handshake.channel<i4>, %sa: !handshake.channel<i4>, %sd: !handshake.channel<i32>, %n: !handshake.channel<i32>, %fin: !handshake.control<>, ...) -> (!handshake.channel<i32>, !handshake.channel<i32>, !handshake.control<>) attributes {argNames = ["mem", "start", "ia", "ib", "sa", "sd", "n", "fin"], resNames = ["x", "y", "done"]} {
    %ld:2, %end = mem_controller[%mem : memref<16xi32>] %start (%n, %a0, %sta, %std, %a1) %fin {connectedBlocks = [1 : i32], handshake.name = "mc0"} : (!handshake.channel<i32>, !handshake.channel<i4>, !handshake.channel<i4>, !handshake.channel<i32>, !handshake.channel<i4>) -> (!handshake.channel<i32>, !handshake.channel<i32>)
    %a0, %d0 = load[%ia] %ld#0 {handshake.name = "load0"} : <i4>, <i32>, <i4>, <i32>
    %a1, %d1 = load[%ib] %ld#1 {handshake.name = "load1"} : <i4>, <i32>, <i4>, <i32>
    %sta, %std = store[%sa] %sd {handshake.name = "store0"} : <i4>, <i32>, <i4>, <i32>
    end {handshake.name = "end0"} %d0, %d1, %end : <i32>, <i32>, <>
  }
}
