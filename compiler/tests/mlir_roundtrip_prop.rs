//! Property: for random generic op trees (in the normal form the parser produces),
//! `parse(print(tree)) == tree` (spans aside).

use compiler::mlir::{self, ast::*};
use proptest::prelude::*;

fn ident() -> impl Strategy<Value = String> {
    "[a-z][a-z0-9_]{0,5}"
}

fn value_name() -> impl Strategy<Value = String> {
    prop_oneof!["[0-9]{1,3}", "[a-z][a-z0-9_]{0,5}"].prop_map(|s| format!("%{s}"))
}

fn scalar_type() -> impl Strategy<Value = Type> {
    prop_oneof![
        (1u32..200, 0u8..3).prop_map(|(width, s)| Type::Integer {
            width,
            signedness: [
                Signedness::Signless,
                Signedness::Signed,
                Signedness::Unsigned
            ][s as usize],
        }),
        prop_oneof![Just(16u32), Just(32), Just(64)].prop_map(Type::Float),
        Just(Type::Index),
        Just(Type::None),
        prop_oneof![
            Just("!seq.clock"),
            Just("!firrtl.uint<1>"),
            Just("vector<4xi32>"),
            Just("!hw.modty<input a : i32, output b : i1>"),
            Just("_"),
        ]
        .prop_map(|s| Type::Opaque(s.to_string())),
    ]
}

fn extra_signals() -> impl Strategy<Value = Vec<ExtraSignal>> {
    prop::collection::vec(
        (ident(), scalar_type(), any::<bool>()).prop_map(|(name, ty, upstream)| ExtraSignal {
            name,
            ty,
            upstream,
        }),
        0..3,
    )
}

fn any_type() -> impl Strategy<Value = Type> {
    scalar_type().prop_recursive(3, 12, 4, |inner| {
        prop_oneof![
            (
                prop::collection::vec(prop::option::of(0u64..100), 0..3),
                inner.clone(),
                prop::collection::vec(
                    prop_oneof![
                        Just("strided<[1]>"),
                        Just("1"),
                        Just("affine_map<(d0) -> (d0)>")
                    ],
                    0..2
                ),
            )
                .prop_map(|(shape, elem, rest)| Type::MemRef {
                    shape,
                    elem: Box::new(elem),
                    rest: rest.into_iter().map(str::to_string).collect(),
                }),
            (
                prop::collection::vec(inner.clone(), 0..3),
                prop::collection::vec(inner.clone(), 0..3)
            )
                .prop_map(|(inputs, results)| Type::Function { inputs, results }),
            (inner.clone(), extra_signals()).prop_map(|(d, extra)| Type::Channel {
                data: Box::new(d),
                extra
            }),
            extra_signals().prop_map(|extra| Type::Control { extra }),
            prop::collection::vec(inner, 0..3).prop_map(Type::Tuple),
        ]
    })
}

fn float_text() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("1.5"),
        Just("-2.0e+01"),
        Just("0.000000e+00"),
        Just("3.25E-3")
    ]
    .prop_map(str::to_string)
}

fn leaf_attr() -> impl Strategy<Value = Attribute> {
    prop_oneof![
        (any::<i128>(), prop::option::of(scalar_type()))
            .prop_map(|(value, ty)| Attribute::Integer { value, ty }),
        (float_text(), prop::option::of(scalar_type()))
            .prop_map(|(text, ty)| Attribute::Float { text, ty }),
        any::<bool>().prop_map(Attribute::Bool),
        ".*".prop_map(|s: String| Attribute::String(s.into())),
        Just(Attribute::Unit),
        Just(Attribute::Uninitialized),
        prop::collection::vec(prop_oneof![ident(), ".{0,6}"], 1..3).prop_map(Attribute::SymbolRef),
        any_type().prop_map(Attribute::Type),
        "[A-Z][A-Z0-9_]{0,8}".prop_map(|s: String| Attribute::Keyword(s.into())),
        prop_oneof![
            Just("#handshake<timing {R: 1}>"),
            Just("#arith.fastmath<none>"),
            Just("#handshake<bufProps{\"0\": [0,inf], [0,inf], 1, 0.0}>"),
            Just("#loc"),
        ]
        .prop_map(|s| Attribute::Opaque(s.to_string())),
        (
            prop::collection::vec(
                prop_oneof![
                    any::<i64>().prop_map(|v| Attribute::Integer {
                        value: v as i128,
                        ty: None
                    }),
                    any::<bool>().prop_map(Attribute::Bool),
                    float_text().prop_map(|text| Attribute::Float { text, ty: None }),
                ],
                0..4
            ),
            prop::option::of(any_type())
        )
            .prop_map(|(elems, ty)| Attribute::Dense { elems, ty }),
    ]
}

fn named_attrs(value: impl Strategy<Value = Attribute>) -> impl Strategy<Value = Vec<NamedAttr>> {
    prop::collection::vec(
        (
            prop_oneof![ident(), "[a-z]{1,3}\\.[a-z_]{1,5}", ".{0,6}"],
            value,
        )
            .prop_map(|(name, value)| NamedAttr {
                name: name.into(),
                value,
                span: Default::default(),
            }),
        0..4,
    )
}

fn any_attr() -> impl Strategy<Value = Attribute> {
    leaf_attr().prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Attribute::Array),
            named_attrs(inner).prop_map(Attribute::Dict),
        ]
    })
}

fn operand() -> impl Strategy<Value = Operand> {
    (value_name(), prop::option::of(0u32..5)).prop_map(|(name, index)| Operand {
        name: name.into(),
        index,
        span: Default::default(),
    })
}

fn block_args() -> impl Strategy<Value = Vec<BlockArg>> {
    prop::collection::vec(
        (value_name(), any_type()).prop_map(|(name, ty)| BlockArg {
            name: name.into(),
            ty,
            span: Default::default(),
        }),
        0..3,
    )
}

/// An op without regions (the leaves of the recursion).
fn flat_op() -> impl Strategy<Value = Operation> {
    (
        "[a-z]{1,5}\\.[a-z_]{1,8}",
        prop::collection::vec(
            (value_name(), 1u32..4).prop_map(|(name, count)| ResultDef {
                name: name.into(),
                count,
                span: Default::default(),
            }),
            0..3,
        ),
        prop::collection::vec(any_type(), 0..3),
        prop::collection::vec(operand(), 0..4),
        prop::collection::vec(any_type(), 0..3),
        named_attrs(any_attr()),
        prop::collection::vec(
            ("[0-9]{1,2}", prop::collection::vec(operand(), 0..3)).prop_map(|(n, args)| {
                Successor {
                    label: format!("^bb{n}"),
                    args,
                    span: Default::default(),
                }
            }),
            0..2,
        ),
    )
        .prop_map(
            |(name, results, result_types, operands, operand_types, attrs, successors)| Operation {
                name: name.into(),
                results,
                result_types,
                operands,
                operand_types,
                attrs,
                regions: Vec::new(),
                successors,
                span: Default::default(),
            },
        )
}

fn region(op: BoxedStrategy<Operation>) -> impl Strategy<Value = Region> {
    prop::collection::vec((block_args(), prop::collection::vec(op, 0..3)), 0..3).prop_map(
        |blocks| Region {
            blocks: blocks
                .into_iter()
                .enumerate()
                .map(|(i, (args, ops))| Block {
                    label: (i > 0).then(|| format!("^bb{i}")),
                    args,
                    ops,
                    span: Default::default(),
                })
                .collect(),
            span: Default::default(),
        },
    )
}

fn any_op() -> impl Strategy<Value = Operation> {
    flat_op().prop_recursive(3, 24, 3, |inner| {
        (
            flat_op(),
            prop::collection::vec(region(inner.boxed()), 0..3),
        )
            .prop_map(|(mut op, regions)| {
                op.regions = regions;
                op
            })
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn generic_print_parses_back_to_the_same_tree(ops in prop::collection::vec(any_op(), 1..3)) {
        let m = ModuleAst { ops, span: Default::default() };
        let text = mlir::print(&m);
        let parsed = mlir::parse(&text)
            .map_err(|d| TestCaseError::fail(d.render("printed", &text)))?;
        prop_assert_eq!(parsed.without_spans(), m, "printed:\n{}", text);
    }

    #[test]
    fn parser_never_panics_on_mutated_samples(
        cut in 0usize..9844,
        insert in "[ -~]{0,3}",
    ) {
        let base = include_str!("../../examples/aps/flow_burst_add.mlir");
        let mut at = cut.min(base.len());
        while !base.is_char_boundary(at) {
            at -= 1;
        }
        let text = format!("{}{}{}", &base[..at], insert, &base[at..]);
        let _ = mlir::parse(&text);
        let _ = mlir::parse(&base[..at]);
    }
}
