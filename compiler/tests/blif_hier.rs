//! Model hierarchies: lowering a whole file at once (`kiln aig`) against lowering model by
//! model from each model's own text (what the daemon caches per model), and deep chains
//! whose levels carry logic — linear in the size of the hierarchy, without recursion.

mod common;

use common::truth;
use compiler::aig::{self, Aig};
use compiler::blif;
use compiler::blif::generate::and_chain;
use compiler::diag::{Code, Diagnostic};
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

/// The AIG of the model `top` (default: the first) of `text`, lowered as one file.
fn whole_top(text: &str, top: Option<&str>) -> Result<compiler::aig::Lowered, Diagnostic> {
    let parsed = blif::parse(text).unwrap();
    let mut l = aig::lower_file_owned(parsed.file, top, &Limits::DEFAULT)?;
    let top = l.top.clone();
    Ok(l.models.remove(&top).unwrap())
}

/// A first model that another model instantiates: the first model stays the top (the BLIF
/// rule), with a warning naming the root, from both the whole-file and the model-by-model
/// lowering; `top` picks the root, whose AIG is the same, byte for byte, as with the root
/// written first.
#[test]
fn first_model_instantiated_warns_and_top_picks_the_root() {
    let first = whole_top(common::LEAF_FIRST, None).unwrap();
    assert_eq!(first.aig.name, "leaf");
    let w: Vec<&Diagnostic> = (first.warnings.iter())
        .filter(|w| w.code == Some(Code::TopInstantiated))
        .collect();
    assert_eq!(w.len(), 1, "{:?}", first.warnings);
    assert!(
        w[0].message.contains("first model `leaf`")
            && w[0].message.contains("the root of its hierarchy is `top`"),
        "{}",
        w[0].message
    );
    assert!(w[0].notes[0].contains("--top top"), "{:?}", w[0].notes);
    assert_eq!(w[0].span, Some(compiler::diag::Span::new(0, 11)));
    // The model-by-model flow (kiln build) warns the same way, at the same place.
    let out = compiler::flow::blif::build(common::LEAF_FIRST, &Limits::DEFAULT);
    let built: Vec<&Diagnostic> = (out.diagnostics.iter())
        .filter(|w| w.code == Some(Code::TopInstantiated))
        .collect();
    assert_eq!(built, w);

    let root = whole_top(common::LEAF_FIRST, Some("top")).unwrap();
    assert!(root.warnings.is_empty(), "{:?}", root.warnings);
    assert_eq!(root.aig.name, "top");
    let (leaf, top) = common::LEAF_FIRST.split_at(common::LEAF_FIRST.find(".model top").unwrap());
    let reordered = whole(&format!("{top}{leaf}"));
    assert_eq!(
        aig::write_aiger_binary(&root.aig),
        aig::write_aiger_binary(&reordered)
    );
    // NAND of a and b.
    assert_eq!(truth(&root.aig), [[true], [true], [true], [false]]);
    // The root written first: no warning.
    let parsed = blif::parse(&format!("{top}{leaf}")).unwrap();
    let l = aig::lower_file(&parsed.file).unwrap();
    assert!(l.top().warnings.is_empty(), "{:?}", l.top().warnings);
}

#[test]
fn unknown_top_is_an_error_with_a_code() {
    let e = whole_top(common::LEAF_FIRST, Some("Top")).unwrap_err();
    assert_eq!(e.code, Some(Code::UnknownTop));
    assert!(
        e.message.contains("no model `Top`") && e.message.contains("`leaf`, `top`"),
        "{}",
        e.message
    );
}

/// An instance input left unconnected reads as constant 0, with a warning naming the pin
/// and the instance, from both lowerings.
#[test]
fn unconnected_instance_input_warns() {
    let text = "\
.model top
.inputs a
.outputs y z
.subckt leaf u=a w=y
.cname u1
.subckt leaf w=z
.end
.model leaf
.inputs u v
.outputs w
.names u v w
0- 1
-1 1
.end
";
    let l = whole_top(text, None).unwrap();
    let messages: Vec<(&str, Option<Code>)> = (l.warnings.iter())
        .map(|w| (w.message.as_str(), w.code))
        .collect();
    let pin = Some(Code::UnconnectedPin);
    assert_eq!(
        messages,
        [
            (
                "input pin `v` of instance `u1` (`.subckt leaf`) is not connected; it reads as \
                 constant 0",
                pin
            ),
            (
                "2 input pins of instance `leaf_1` (`.subckt leaf`) are not connected; they \
                 read as constant 0: `u`, `v`",
                pin
            ),
        ]
    );
    // y = !a | 0 = !a; z = !0 | 0 = 1.
    assert_eq!(truth(&l.aig), [[true, true], [false, true]]);
    let out = compiler::flow::blif::build(text, &Limits::DEFAULT);
    let built: Vec<&str> = (out.diagnostics.iter())
        .filter(|w| w.code == pin)
        .map(|w| w.message.as_str())
        .collect();
    assert_eq!(built, [messages[0].0, messages[1].0]);
}

/// An unknown or recursive model, and a file without a model, have one code whichever
/// lowering reports them (`kiln aig` lowers the whole file, `kiln build` model by model).
#[test]
fn both_lowerings_give_one_code_per_error() {
    for (text, code) in [
        (
            ".model m\n.outputs y\n.subckt nope a=y\n.end\n",
            Code::UnknownModel,
        ),
        (
            ".model m\n.outputs y\n.subckt m y=y\n.end\n",
            Code::RecursiveModel,
        ),
        ("", Code::NoModel),
        ("# only a comment\n", Code::NoModel),
    ] {
        let whole = blif::parse(text)
            .and_then(|p| aig::lower_file(&p.file).map(|_| ()))
            .unwrap_err();
        assert_eq!(whole.code, Some(code), "{text:?}: {}", whole.message);
        let built = compiler::flow::blif::build(text, &Limits::DEFAULT);
        let codes: Vec<_> = built.diagnostics.iter().map(|d| d.code).collect();
        assert_eq!(codes, [Some(code)], "{text:?}");
    }
}
