//! Port naming of the unit library (notes §3), as pure string functions.
//!
//! Operand/result groups are named like Dynamatic's `NamedIOInterface`: a group `root` of
//! `count` ports gives `root` when it has one port and `root[0]`, `root[1]`, ... otherwise (the
//! `root_N → root[N]` rule, where `root_0` stays `root` unless `root_1` exists). Valid and
//! ready signals insert `_valid`/`_ready` before the first `[` (`ins[1]` → `ins_valid[1]`).
//! Multi-bit data splits into `name[b]`, and an already indexed `root[k]` of width `W`
//! linearises to `root[k*W+b]`; width-1 ports keep their name.

/// The port names of a group of `count` ports named `root`.
pub(crate) fn group_names(root: &str, count: usize) -> Vec<String> {
    if count == 1 {
        return vec![root.to_string()];
    }
    (0..count).map(|i| format!("{root}[{i}]")).collect()
}

/// `name` with `suffix` (`_valid`, `_ready`) inserted before the first `[`, else appended.
pub(crate) fn with_suffix(name: &str, suffix: &str) -> String {
    match name.find('[') {
        Some(at) => format!("{}{suffix}{}", &name[..at], &name[at..]),
        None => format!("{name}{suffix}"),
    }
}

pub(crate) fn valid_name(name: &str) -> String {
    with_suffix(name, "_valid")
}

pub(crate) fn ready_name(name: &str) -> String {
    with_suffix(name, "_ready")
}

/// Splits `root[k]` into (`root`, k); `None` for names without a trailing index.
fn split_index(name: &str) -> Option<(&str, u64)> {
    let inner = name.strip_suffix(']')?;
    let open = inner.rfind('[')?;
    let index = inner[open + 1..].parse().ok()?;
    Some((&inner[..open], index))
}

/// The name of bit `b` of the `width` bits of data port `name` (as [`bit_names`] names it).
pub(crate) fn bit_name(name: &str, width: u32, b: u32) -> String {
    if width == 1 {
        return name.to_string();
    }
    let w = u64::from(width);
    match split_index(name) {
        Some((root, k)) => format!("{root}[{}]", k * w + u64::from(b)),
        None => format!("{name}[{b}]"),
    }
}

/// The names of the `width` bits of data port `name` (bit 0 first).
pub(crate) fn bit_names(name: &str, width: u32) -> Vec<String> {
    if width == 1 {
        return vec![name.to_string()];
    }
    let w = u64::from(width);
    match split_index(name) {
        Some((root, k)) => (0..w).map(|b| format!("{root}[{}]", k * w + b)).collect(),
        None => (0..w).map(|b| format!("{name}[{b}]")).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_index_only_when_more_than_one() {
        assert_eq!(group_names("ins", 1), ["ins"]);
        assert_eq!(group_names("outs", 3), ["outs[0]", "outs[1]", "outs[2]"]);
        assert!(group_names("ins", 0).is_empty());
    }

    #[test]
    fn valid_and_ready_go_before_the_index() {
        assert_eq!(valid_name("ins"), "ins_valid");
        assert_eq!(valid_name("ins[1]"), "ins_valid[1]");
        assert_eq!(ready_name("outs[12]"), "outs_ready[12]");
    }

    #[test]
    fn bits_linearise_indexed_names() {
        assert_eq!(bit_names("lhs", 1), ["lhs"]);
        assert_eq!(bit_names("lhs", 2), ["lhs[0]", "lhs[1]"]);
        assert_eq!(bit_names("outs[1]", 3), ["outs[3]", "outs[4]", "outs[5]"]);
        assert_eq!(bit_names("outs[1]", 1), ["outs[1]"]);
        assert!(bit_names("x", 0).is_empty());
        for (name, w) in [("lhs", 1), ("lhs", 5), ("outs[2]", 3), ("x[y]", 2)] {
            let each: Vec<String> = (0..w).map(|b| bit_name(name, w, b)).collect();
            assert_eq!(each, bit_names(name, w));
        }
    }
}
