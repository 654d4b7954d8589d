//! Model hierarchies: lowering a whole file (each model once, flattened top-down) against
//! lowering model by model with flattened children (what the daemon caches per model), and
//! deep chains whose levels carry logic — linear in the flattened size, without recursion.

mod common;

use common::truth;
use compiler::aig::{self, Aig};
use compiler::blif;
use std::collections::BTreeMap;

fn whole(text: &str) -> Aig {
    let parsed = blif::parse(text).unwrap();
    aig::lower_file(&parsed.file).unwrap().top().aig.clone()
}

/// Every model lowered with `lower_model`, children first, each given its children's
/// flattened AIGs.
fn model_by_model(text: &str) -> Aig {
    let parsed = blif::parse(text).unwrap();
    let mut done: BTreeMap<String, Aig> = BTreeMap::new();
    let mut left: Vec<_> = parsed.file.models.iter().collect();
    while !left.is_empty() {
        let (ready, wait): (Vec<_>, Vec<_>) = left
            .into_iter()
            .partition(|m| m.subckts.iter().all(|s| done.contains_key(&s.model.name)));
        assert!(!ready.is_empty());
        for m in ready {
            let l = aig::lower_model(m, &done).unwrap();
            done.insert(m.name.clone(), l.aig);
        }
        left = wait;
    }
    done.remove(&parsed.file.models[0].name).unwrap()
}

/// `n` models; model `i` instantiates model `i + 1` and ANDs its output with input `a`
/// (even levels) or `b` (odd levels); the last model passes `x` through.
fn and_chain(n: usize) -> String {
    let mut text = String::new();
    for i in 0..n {
        text.push_str(&format!(".model m{i}\n.inputs a b x\n.outputs y\n"));
        if i + 1 < n {
            text.push_str(&format!(".subckt m{} a=a b=b x=x y=c\n", i + 1));
        } else {
            text.push_str(".names x c\n1 1\n");
        }
        let own = if i % 2 == 0 { "a" } else { "b" };
        text.push_str(&format!(".names {own} c y\n11 1\n.end\n"));
    }
    text
}

/// A 100,000-level chain with one AND per level: exactly 100,000 ANDs, 100,000 levels deep,
/// computing a & b & x. Materialising every model's flattened AIG would build ~5e9 nodes.
#[test]
fn hundred_thousand_level_and_chain() {
    const N: usize = 100_000;
    let g = whole(&and_chain(N));
    assert_eq!(g.and_count(), N);
    assert_eq!(g.depth() as usize, N);
    let expect: Vec<Vec<bool>> = (0..8).map(|m| vec![m == 7]).collect();
    assert_eq!(truth(&g), expect);
}

/// A diamond-shaped, latched hierarchy with an instance whose output comes back into
/// another input of the same instance (legal: the child does not connect them), a child
/// used twice, unconnected pins and a dangling instance: lowering the whole file gives
/// the same AIG, byte for byte, as lowering model by model.
#[test]
fn whole_file_equals_model_by_model() {
    let text = "\
.model top
.inputs p q r
.outputs o1 o2
.subckt mid a=p b=q y=t1 z=t2
.subckt mid a=t1 b=r y=o1
.subckt loopy i=t2 o=w j=w k=o2
.subckt leaf u=p
.end
.model mid
.inputs a b
.outputs y z
.subckt leaf u=a v=b w=n1
.subckt leaf u=n1 v=a w=n2
.names n2 b y
10 1
01 1
.latch n1 z re clk 1
.end
.model loopy
.inputs i j
.outputs o k
.names i o
0 1
.names j i k
11 1
.end
.model leaf
.inputs u v
.outputs w
.names u v w
11 1
00 1
.latch u s 0
.end
";
    let a = whole(text);
    let b = model_by_model(text);
    assert!(a.and_count() > 0 && !a.latches().is_empty());
    assert_eq!(truth(&a), truth(&b));
    assert_eq!(a.and_count(), b.and_count());
    let names = |g: &Aig| {
        g.latches()
            .iter()
            .map(|l| l.name.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(names(&a), names(&b));
    assert_eq!(aig::write_aiger_binary(&a), aig::write_aiger_binary(&b));
}

/// The AND chain at a depth the model-by-model path still handles: same AIG either way.
#[test]
fn and_chain_equals_model_by_model() {
    let text = and_chain(300);
    assert_eq!(
        aig::write_aiger_binary(&whole(&text)),
        aig::write_aiger_binary(&model_by_model(&text))
    );
}
