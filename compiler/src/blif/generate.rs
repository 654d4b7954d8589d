//! Generated BLIF inputs for tests and benchmarks.

use std::fmt::Write;

/// A chain of `n` models: model `m<i>` instantiates `m<i+1>` and ANDs its output with input
/// `a` (even levels) or `b` (odd levels); the last model passes `x` through. Flattened it
/// computes `a & b & x` (for `n` of 2 or more) with `n` ANDs, `n` levels deep.
pub fn and_chain(n: usize) -> String {
    let mut text = String::with_capacity(n * 96);
    for i in 0..n {
        let _ = write!(text, ".model m{i}\n.inputs a b x\n.outputs y\n");
        if i + 1 < n {
            let _ = writeln!(text, ".subckt m{} a=a b=b x=x y=c", i + 1);
        } else {
            text.push_str(".names x c\n1 1\n");
        }
        let own = if i % 2 == 0 { "a" } else { "b" };
        let _ = write!(text, ".names {own} c y\n11 1\n.end\n");
    }
    text
}
