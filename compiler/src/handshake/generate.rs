//! Generated Handshake inputs for tests and benchmarks.

use std::fmt::Write;

/// A `handshake.func` of `n` 32-bit buffers in a chain (each a Dynamatic `oehb` unit:
/// `NUM_SLOTS = 1`, breaking data and valid), from argument `a` to the first result; op
/// `i` is named `name(i)`.
pub fn buffer_chain(n: usize, name: impl Fn(usize) -> String) -> String {
    let mut text = String::with_capacity(200 + n * 190);
    text.push_str(
        "module {\n  handshake.func @chain(%a: !handshake.channel<i32>, %start: !handshake.control<>, ...) -> (!handshake.channel<i32>, !handshake.control<>) attributes {argNames = [\"a\", \"start\"], resNames = [\"out0\", \"end\"]} {\n",
    );
    for i in 0..n {
        let prev = match i {
            0 => "%a".to_string(),
            _ => format!("%{}", i - 1),
        };
        let _ = writeln!(
            text,
            "    %{i} = buffer {prev} {{handshake.bb = 0 : ui32, handshake.name = \"{}\", hw.parameters = {{NUM_SLOTS = 1 : ui32, TIMING = #handshake<timing {{D: 1, V: 1, R: 0}}>}}}} : <i32>",
            name(i)
        );
    }
    let last = match n {
        0 => "%a".to_string(),
        _ => format!("%{}", n - 1),
    };
    let _ = write!(text, "    end {last}, %start : <i32>, <>\n  }}\n}}\n");
    text
}
