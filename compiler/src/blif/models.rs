//! BLIF files split lexically into their models, each with its exact text: the unit of the
//! daemon's per-model work (a model's text does not depend on where it stands in the file).

use crate::mlir::items::Item;
use std::sync::Arc;

/// BLIF models: from a `.model` line to its `.end` line (inclusive) or to the next `.model`.
/// Text before the first `.model` that holds anything but comments forms a model named `""`.
pub(crate) fn split(text: &str) -> Vec<Item> {
    let mut out: Vec<Item> = Vec::new();
    let mut current: Option<(String, usize)> = None;
    let mut implicit_start: Option<usize> = None;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let code = line.split('#').next().unwrap_or("").trim();
        let mut words = code.split_whitespace();
        match words.next() {
            Some(".model") => {
                close(text, &mut out, current.take(), offset);
                if let Some(s) = implicit_start.take() {
                    push(text, &mut out, String::new(), s, offset);
                }
                current = Some((words.next().unwrap_or("").to_string(), offset));
            }
            Some(".end") => {
                close(text, &mut out, current.take(), offset + line.len());
            }
            Some(_) if current.is_none() && out.is_empty() => {
                implicit_start = implicit_start.or(Some(offset));
            }
            _ => {}
        }
        offset += line.len();
    }
    close(text, &mut out, current.take(), text.len());
    if let Some(s) = implicit_start {
        push(text, &mut out, String::new(), s, text.len());
    }
    out
}

fn close(text: &str, out: &mut Vec<Item>, current: Option<(String, usize)>, end: usize) {
    if let Some((name, start)) = current {
        push(text, out, name, start, end);
    }
}

fn push(text: &str, out: &mut Vec<Item>, symbol: String, start: usize, end: usize) {
    out.push(Item {
        symbol,
        offset: start,
        text: Arc::from(&text[start..end]),
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn models_split() {
        let text = "# lib\n.model a\n.inputs x\n.outputs y\n.names x y\n1 1\n.end\n\n.model b\n.inputs x\n.outputs y\n.subckt a x=x y=y\n";
        let models = split(text);
        assert_eq!(models.len(), 2);
        assert_eq!(models[0].symbol, "a");
        assert!(models[0].text.ends_with(".end\n"));
        assert_eq!(models[1].symbol, "b");
        assert!(models[1].text.ends_with("y=y\n"));
    }

    #[test]
    fn blif_implicit_model() {
        let models = split(".inputs x\n.outputs y\n.names x y\n1 1\n");
        assert_eq!(models.len(), 1);
        assert_eq!(models[0].symbol, "");
    }
}
