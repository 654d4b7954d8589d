//! Model hierarchies: lowering a whole file at once (`kiln aig`) against lowering model by
//! model from each model's own text (what the daemon caches per model), and deep chains
//! whose levels carry logic — linear in the size of the hierarchy, without recursion.

mod common;

use common::truth;
use compiler::aig::{self, Aig};
use compiler::blif;
use compiler::blif::generate::and_chain;
use compiler::limits::Limits;

fn whole(text: &str) -> Aig {
    let parsed = blif::parse(text).unwrap();
    aig::lower_file(&parsed.file).unwrap().top().aig.clone()
}

/// The first model lowered model by model: each model's text split off and parsed on its
/// own, lowered as a box given its children's interfaces, the top flattened.
fn model_by_model(text: &str) -> Aig {
    let (_, lowered) = compiler::flow::blif::lower_first(text, &Limits::DEFAULT).unwrap();
    lowered.unwrap().aig
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

/// A deep AND chain: same AIG either way (the model-by-model path is linear too).
#[test]
fn and_chain_equals_model_by_model() {
    let text = and_chain(20_000);
    assert_eq!(
        aig::write_aiger_binary(&whole(&text)),
        aig::write_aiger_binary(&model_by_model(&text))
    );
}
