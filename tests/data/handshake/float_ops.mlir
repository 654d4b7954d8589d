module {
  handshake.func @ops(%a0: !handshake.channel<f32>, %a1: !handshake.channel<f32>, %a2: !handshake.channel<f32>, %a3: !handshake.channel<f32>, %a4: !handshake.channel<f64>, %a5: !handshake.channel<f64>, %a6: !handshake.channel<f32>, %a7: !handshake.channel<f32>, %d0: !handshake.channel<f64>, %i0: !handshake.channel<i32>, %i1: !handshake.channel<i64>, %a8: !handshake.channel<f32>, %start: !handshake.control<>, ...) -> (!handshake.channel<f32>, !handshake.channel<f32>, !handshake.channel<f64>, !handshake.channel<f32>, !handshake.channel<f64>, !handshake.channel<f32>, !handshake.channel<f32>, !handshake.channel<f64>, !handshake.channel<i32>, !handshake.control<>) attributes {argNames = ["a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "d0", "i0", "i1", "a8", "start"], resNames = ["r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "end"]} {
    %0 = divf %a0, %a1 {handshake.bb = 0 : ui32, handshake.name = "divf0", internal_delay = "3_812000"} : <f32>
    %1 = maximumf %a2, %a3 {handshake.bb = 0 : ui32, handshake.name = "maximumf0"} : <f32>
    %2 = minimumf %a4, %a5 {handshake.bb = 0 : ui32, handshake.name = "minimumf0"} : <f64>
    %3 = negf %a6 {handshake.bb = 0 : ui32, handshake.name = "negf0"} : <f32> to <f32>
    %4 = extf %a7 {handshake.bb = 0 : ui32, handshake.name = "extf0"} : <f32> to <f64>
    %5 = truncf %d0 {handshake.bb = 0 : ui32, handshake.name = "truncf0"} : <f64> to <f32>
    %6 = sitofp %i0 {handshake.bb = 0 : ui32, handshake.name = "sitofp0"} : <i32> to <f32>
    %7 = uitofp %i1 {handshake.bb = 0 : ui32, handshake.name = "uitofp0"} : <i64> to <f64>
    %8 = fptosi %a8 {handshake.bb = 0 : ui32, handshake.name = "fptosi0"} : <f32> to <i32>
    end {handshake.bb = 0 : ui32, handshake.name = "end0"} %0, %1, %2, %3, %4, %5, %6, %7, %8, %start : <f32>, <f32>, <f64>, <f32>, <f64>, <f32>, <f32>, <f64>, <i32>, <>
  }
}
