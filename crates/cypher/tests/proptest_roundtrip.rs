//! Random trees print as Cypher that parses back to the same tree.
//!
//! The generator builds statements the parser could have produced (the parser's own
//! normal forms: folded negative literals, at least one label in a label test, a map or a
//! parameter as pattern properties, ...), with names drawn to include keywords, odd
//! characters and backticks, so quoting and parenthesisation are exercised.

use proptest::prelude::*;
use quiver_cypher::ast::*;
use quiver_cypher::parse;

fn ident(name: String) -> Ident {
    Ident::new(name)
}

fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-z][a-z0-9_]{0,6}",
        1 => prop::sample::select(vec![
            "MATCH", "return", "count", "all", "exists", "end", "null", "true", "case",
            "not", "reduce", "shortestPath", "IN", "where", "order", "by", "_x",
        ])
        .prop_map(String::from),
        1 => "[ a-z`é.:-]{0,5}",
    ]
}

fn literal() -> impl Strategy<Value = Literal> {
    prop_oneof![
        Just(Literal::Null),
        any::<bool>().prop_map(Literal::Boolean),
        any::<i64>().prop_map(Literal::Integer),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Literal::Float),
        "\\PC{0,8}|[\\\\'\"\n\t\u{1}]{0,4}".prop_map(Literal::String),
    ]
}

fn expr_of(kind: ExprKind) -> Expr {
    Expr::new(kind, Span::default())
}

fn leaf() -> impl Strategy<Value = Expr> {
    prop_oneof![
        literal().prop_map(|l| expr_of(ExprKind::Literal(l))),
        name().prop_map(|n| expr_of(ExprKind::Variable(ident(n)))),
        prop_oneof!["[a-z0-9_]{1,4}", name()].prop_map(|n| expr_of(ExprKind::Parameter(n))),
        Just(expr_of(ExprKind::CountStar)),
    ]
}

fn binary_op() -> impl Strategy<Value = BinaryOp> {
    use BinaryOp::*;
    prop::sample::select(vec![
        Or, Xor, And, Eq, NotEq, Lt, Le, Gt, Ge, RegexMatch, StartsWith, EndsWith, Contains, In,
        Add, Subtract, Multiply, Divide, Modulo, Power,
    ])
}

/// Operators that may form a chain, grouped by precedence level (comparisons never chain:
/// `a < b < c` means `a < b AND b < c`).
fn chain_level() -> impl Strategy<Value = Vec<BinaryOp>> {
    use BinaryOp::*;
    prop::sample::select(vec![
        vec![Or],
        vec![Xor],
        vec![And],
        vec![RegexMatch, StartsWith, EndsWith, Contains, In],
        vec![Add, Subtract],
        vec![Multiply, Divide, Modulo],
        vec![Power],
    ])
}

/// A chain of two to four operators of one level.
fn operator_chain(inner: BoxedStrategy<Expr>) -> impl Strategy<Value = Expr> {
    chain_level().prop_flat_map(move |ops| {
        (
            inner.clone(),
            prop::collection::vec((prop::sample::select(ops), inner.clone()), 2..5),
        )
            .prop_map(|(first, rest)| {
                expr_of(ExprKind::Chain {
                    first: Box::new(first),
                    rest,
                })
            })
    })
}

/// Label expressions of every form, `And`/`Or` with two or more items.
fn label_expr() -> impl Strategy<Value = LabelExpr> {
    let leaf = prop_oneof![
        4 => name().prop_map(|n| LabelExpr::Name(ident(n))),
        1 => Just(LabelExpr::Any),
    ];
    leaf.prop_recursive(3, 12, 3, |inner| {
        prop_oneof![
            inner.clone().prop_map(|i| LabelExpr::Not(Box::new(i))),
            prop::collection::vec(inner.clone(), 2..4).prop_map(LabelExpr::And),
            prop::collection::vec(inner, 2..4).prop_map(LabelExpr::Or),
        ]
    })
}

/// A label expression the parser keeps as one: not a plain conjunction (those are labels).
fn node_label_expr() -> impl Strategy<Value = LabelExpr> {
    label_expr().prop_filter("not a plain conjunction", |e| e.conjunction().is_none())
}

/// A type expression the parser keeps as one: not a plain disjunction (those are types).
fn rel_type_expr() -> impl Strategy<Value = LabelExpr> {
    label_expr().prop_filter("not a plain disjunction", |e| e.disjunction().is_none())
}

fn cypher_type() -> impl Strategy<Value = CypherType> {
    let leaf = (
        prop::sample::select(vec![
            TypeKind::Any,
            TypeKind::Nothing,
            TypeKind::Null,
            TypeKind::Boolean,
            TypeKind::String,
            TypeKind::Integer,
            TypeKind::Float,
            TypeKind::LocalDateTime,
            TypeKind::ZonedTime,
            TypeKind::Node,
            TypeKind::Map,
            TypeKind::PropertyValue,
            TypeKind::Uuid,
            TypeKind::Vector {
                coordinate: None,
                dimension: None,
            },
            TypeKind::Vector {
                coordinate: Some("INTEGER8"),
                dimension: Some(3),
            },
        ]),
        any::<bool>(),
    )
        .prop_map(|(kind, not_null)| CypherType { kind, not_null });
    leaf.prop_recursive(2, 6, 3, |inner| {
        prop_oneof![
            (inner.clone(), any::<bool>()).prop_map(|(t, not_null)| CypherType {
                kind: TypeKind::List(Box::new(t)),
                not_null
            }),
            prop::collection::vec(inner, 2..4).prop_map(|members| CypherType {
                kind: TypeKind::Union(members),
                not_null: false
            }),
        ]
    })
}

fn node_pattern(inner: BoxedStrategy<Expr>) -> impl Strategy<Value = NodePattern> {
    (
        prop::option::of(name()),
        prop_oneof![
            prop::collection::vec(name(), 0..3).prop_map(|l| (l, None, Vec::new(), Vec::new())),
            node_label_expr().prop_map(|e| (Vec::new(), Some(e), Vec::new(), Vec::new())),
            // Leaves only: a deeper tree here overflows the generator's stack.
            (
                prop::collection::vec(leaf(), 1..3),
                prop::collection::vec(leaf(), 0..2)
            )
                .prop_map(|(all, any)| (Vec::new(), None, all, any)),
        ],
        prop::option::of(properties(inner.clone())),
        prop::option::of(inner),
    )
        .prop_map(
            |(
                variable,
                (labels, label_expr, dynamic_labels, dynamic_any),
                properties,
                predicate,
            )| {
                NodePattern {
                    variable: variable.map(ident),
                    labels: labels.into_iter().map(ident).collect(),
                    label_expr,
                    dynamic_labels,
                    dynamic_any,
                    properties,
                    predicate,
                    span: Span::default(),
                }
            },
        )
}

fn properties(inner: BoxedStrategy<Expr>) -> impl Strategy<Value = Expr> {
    prop_oneof![
        prop::collection::vec((name(), inner), 0..3).prop_map(|entries| expr_of(ExprKind::Map(
            entries
                .into_iter()
                .map(|(k, value)| MapEntry {
                    key: ident(k),
                    value,
                })
                .collect()
        ))),
        "[a-z]{1,3}".prop_map(|p| expr_of(ExprKind::Parameter(p))),
    ]
}

fn relationship(inner: BoxedStrategy<Expr>) -> impl Strategy<Value = RelationshipPattern> {
    (
        prop::option::of(name()),
        prop::sample::select(vec![
            Direction::Outgoing,
            Direction::Incoming,
            Direction::Both,
        ]),
        prop_oneof![
            prop::collection::vec(name(), 0..3).prop_map(|t| (t, None)),
            rel_type_expr().prop_map(|e| (Vec::new(), Some(e))),
        ],
        prop::option::of((prop::option::of(0u64..5), prop::option::of(0u64..5))),
        prop::option::of(quantifier()),
        prop::option::of(properties(inner.clone())),
        prop::option::of(inner),
    )
        .prop_map(
            |(
                variable,
                direction,
                (types, type_expr),
                length,
                quantifier,
                properties,
                predicate,
            )| {
                RelationshipPattern {
                    variable: variable.map(ident),
                    direction,
                    types: types.into_iter().map(ident).collect(),
                    type_expr,
                    dynamic_types: Vec::new(),
                    dynamic_any: Vec::new(),
                    length: length.map(|(min, max)| LengthRange { min, max }),
                    quantifier,
                    properties,
                    predicate,
                    span: Span::default(),
                }
            },
        )
}

/// `{m,n}`, `{m,}`, `+`, `*` and `{n}` all read as bounds.
fn quantifier() -> impl Strategy<Value = PathQuantifier> {
    (0u64..4, prop::option::of(0u64..6)).prop_map(|(min, max)| PathQuantifier { min, max })
}

/// A quantified group: a chain of its own (no groups inside), an optional WHERE, bounds.
fn group(inner: BoxedStrategy<Expr>) -> impl Strategy<Value = QuantifiedGroup> {
    (
        chain(inner.clone(), 1, false),
        prop::option::of(inner),
        quantifier(),
    )
        .prop_map(|(chain, predicate, quantifier)| QuantifiedGroup {
            chain,
            predicate,
            quantifier,
            span: Span::default(),
        })
}

fn chain(
    inner: BoxedStrategy<Expr>,
    min_steps: usize,
    groups: bool,
) -> impl Strategy<Value = PatternChain> {
    let group = if groups {
        // Leaves only inside a group: a deeper tree overflows the generator's stack.
        prop::option::weighted(0.3, group(leaf().boxed()).prop_map(Box::new)).boxed()
    } else {
        Just(None).boxed()
    };
    (
        node_pattern(inner.clone()),
        prop::collection::vec(
            (relationship(inner.clone()), group, node_pattern(inner)),
            min_steps..3,
        ),
    )
        .prop_map(|(start, steps)| PatternChain {
            start,
            steps: steps
                .into_iter()
                .map(|(relationship, group, node)| PatternStep {
                    relationship: if group.is_some() {
                        RelationshipPattern::empty(Span::default())
                    } else {
                        relationship
                    },
                    group,
                    node,
                })
                .collect(),
            span: Span::default(),
        })
}

/// Every expression form, each equally likely, over leaves and (recursively) smaller
/// expressions.
#[expect(
    clippy::too_many_lines,
    reason = "one flat prop_oneof over every form: grouping the forms in nested unions deepens \
              the strategy tree until generation overflows the test thread's stack"
)]
fn expr() -> impl Strategy<Value = Expr> {
    leaf().prop_recursive(4, 48, 4, |inner| {
        let boxed = inner.clone().boxed();
        prop_oneof![
            (binary_op(), inner.clone(), inner.clone()).prop_map(|(op, l, r)| expr_of(
                ExprKind::Binary {
                    op,
                    left: Box::new(l),
                    right: Box::new(r),
                }
            )),
            operator_chain(boxed.clone()),
            (
                prop::sample::select(vec![UnaryOp::Not, UnaryOp::Negate, UnaryOp::Plus]),
                inner.clone()
            )
                .prop_map(|(op, operand)| expr_of(ExprKind::Unary {
                    op,
                    operand: Box::new(operand)
                })),
            (inner.clone(), name()).prop_map(|(base, key)| expr_of(ExprKind::Property {
                base: Box::new(base),
                key: ident(key)
            })),
            (inner.clone(), inner.clone()).prop_map(|(base, index)| expr_of(ExprKind::Index {
                base: Box::new(base),
                index: Box::new(index)
            })),
            (
                inner.clone(),
                prop::option::of(inner.clone()),
                prop::option::of(inner.clone())
            )
                .prop_map(|(base, from, to)| expr_of(ExprKind::Slice {
                    base: Box::new(base),
                    from: from.map(Box::new),
                    to: to.map(Box::new)
                })),
            (inner.clone(), prop::collection::vec(name(), 1..3)).prop_map(|(base, labels)| {
                expr_of(ExprKind::HasLabels {
                    base: Box::new(base),
                    labels: labels.into_iter().map(ident).collect(),
                })
            }),
            (inner.clone(), node_label_expr()).prop_map(|(base, expr)| expr_of(
                ExprKind::LabelTest {
                    base: Box::new(base),
                    expr
                }
            )),
            (inner.clone(), cypher_type(), any::<bool>()).prop_map(|(operand, ty, negated)| {
                expr_of(ExprKind::TypeTest {
                    operand: Box::new(operand),
                    ty,
                    negated,
                })
            }),
            (inner.clone(), any::<bool>()).prop_map(|(operand, negated)| expr_of(
                ExprKind::IsNull {
                    operand: Box::new(operand),
                    negated
                }
            )),
            prop::collection::vec(inner.clone(), 0..4).prop_map(|l| expr_of(ExprKind::List(l))),
            prop::collection::vec((name(), inner.clone()), 0..3).prop_map(|entries| expr_of(
                ExprKind::Map(
                    entries
                        .into_iter()
                        .map(|(k, value)| MapEntry {
                            key: ident(k),
                            value
                        })
                        .collect()
                )
            )),
            (
                prop::collection::vec(name(), 0..2),
                name(),
                any::<bool>(),
                prop::collection::vec(inner.clone(), 0..3)
            )
                .prop_map(|(namespace, name, distinct, args)| expr_of(
                    ExprKind::FunctionCall(Box::new(FunctionCall {
                        name: FunctionName {
                            namespace: namespace.into_iter().map(ident).collect(),
                            name: ident(name),
                        },
                        distinct,
                        args,
                    }))
                )),
            (
                prop::option::of(inner.clone()),
                prop::collection::vec((inner.clone(), inner.clone()), 1..3),
                prop::option::of(inner.clone())
            )
                .prop_map(|(operand, branches, default)| expr_of(ExprKind::Case(
                    Box::new(CaseExpr {
                        operand,
                        branches: branches
                            .into_iter()
                            .map(|(when, then)| CaseBranch { when, then })
                            .collect(),
                        default,
                    })
                ))),
            (
                name(),
                inner.clone(),
                prop::option::of(inner.clone()),
                prop::option::of(inner.clone())
            )
                .prop_map(|(v, list, filter, map)| expr_of(
                    ExprKind::ListComprehension(Box::new(ListComprehension {
                        variable: ident(v),
                        list,
                        filter,
                        map
                    }))
                )),
            (
                prop::option::of(name()),
                chain(boxed.clone(), 1, false),
                prop::option::of(inner.clone()),
                inner.clone()
            )
                .prop_map(|(path, pattern, filter, map)| expr_of(
                    ExprKind::PatternComprehension(Box::new(PatternComprehension {
                        path: path.map(ident),
                        pattern,
                        filter,
                        map
                    }))
                )),
            (
                prop::sample::select(vec![
                    Quantifier::All,
                    Quantifier::Any,
                    Quantifier::None,
                    Quantifier::Single
                ]),
                name(),
                inner.clone(),
                inner.clone()
            )
                .prop_map(|(quantifier, v, list, predicate)| expr_of(
                    ExprKind::Quantified(Box::new(Quantified {
                        quantifier,
                        variable: ident(v),
                        list,
                        predicate
                    }))
                )),
            (name(), inner.clone(), name(), inner.clone(), inner.clone()).prop_map(
                |(acc, init, v, list, e)| expr_of(ExprKind::Reduce(Box::new(Reduce {
                    accumulator: ident(acc),
                    init,
                    variable: ident(v),
                    list,
                    expr: e
                })))
            ),
            (
                name(),
                prop::collection::vec(
                    prop_oneof![
                        name().prop_map(|n| MapProjectionItem::Property(ident(n))),
                        Just(MapProjectionItem::AllProperties),
                        name().prop_map(|n| MapProjectionItem::Variable(ident(n))),
                        (name(), inner.clone()).prop_map(|(k, value)| MapProjectionItem::Entry {
                            key: ident(k),
                            value
                        }),
                    ],
                    0..3
                )
            )
                .prop_map(|(base, items)| expr_of(ExprKind::MapProjection(Box::new(
                    MapProjection {
                        base: ident(base),
                        items
                    }
                )))),
            chain(boxed.clone(), 1, false).prop_map(|c| expr_of(ExprKind::Pattern(Box::new(c)))),
            (
                prop::sample::select(vec![
                    SubqueryKind::Exists,
                    SubqueryKind::Count,
                    SubqueryKind::Collect
                ]),
                chain(boxed, 0, false),
                prop::option::of(inner.clone())
            )
                .prop_map(|(kind, chain, filter)| expr_of(ExprKind::Subquery(
                    Box::new(SubqueryExpr {
                        kind,
                        body: SubqueryBody::Pattern {
                            pattern: vec![PatternPart {
                                path: None,
                                selector: PathSelector::All,
                                mode: None,
                                chain,
                                predicate: None,
                                span: Span::default(),
                            }],
                            filter,
                        },
                    })
                ))),
        ]
    })
}

fn projection() -> impl Strategy<Value = Projection> {
    (
        any::<bool>(),
        any::<bool>(),
        prop::collection::vec((expr(), prop::option::of(name())), 1..3),
        prop::collection::vec((expr(), any::<bool>()), 0..2),
        prop::option::of(expr()),
        prop::option::of(expr()),
    )
        .prop_map(
            |(distinct, star, items, order_by, skip, limit)| Projection {
                distinct,
                star,
                items: items
                    .into_iter()
                    .map(|(expr, alias)| ProjectionItem {
                        text: if alias.is_some() {
                            String::new()
                        } else {
                            expr.to_string()
                        },
                        expr,
                        alias: alias.map(ident),
                        span: Span::default(),
                    })
                    .collect(),
                order_by: order_by
                    .into_iter()
                    .map(|(expr, descending)| SortItem { expr, descending })
                    .collect(),
                skip,
                limit,
            },
        )
}

fn part() -> impl Strategy<Value = PatternPart> {
    (
        prop::option::of(name()),
        prop::sample::select(vec![
            PathSelector::All,
            PathSelector::Shortest,
            PathSelector::AllShortest,
            PathSelector::Any(1),
            PathSelector::Any(3),
            PathSelector::ShortestK(2),
            PathSelector::AllShortestGql,
            PathSelector::ShortestGroups(2),
        ]),
        prop::option::of(prop::sample::select(vec![
            PathMode::Walk,
            PathMode::Trail,
            PathMode::Acyclic,
        ])),
        chain(expr().boxed(), 0, true),
    )
        .prop_map(|(path, selector, mode, chain)| PatternPart {
            path: path.map(ident),
            selector,
            // The shortest-path functions take no path mode.
            mode: mode.filter(|_| {
                !matches!(selector, PathSelector::Shortest | PathSelector::AllShortest)
            }),
            chain,
            predicate: None,
            span: Span::default(),
        })
}

fn clause() -> impl Strategy<Value = ClauseKind> {
    prop_oneof![
        (
            any::<bool>(),
            prop::collection::vec(part(), 1..3),
            prop::option::of(expr())
        )
            .prop_map(|(optional, pattern, filter)| ClauseKind::Match(Match {
                optional,
                pattern,
                hints: Vec::new(),
                filter
            })),
        (expr(), name()).prop_map(|(expr, v)| ClauseKind::Unwind(Unwind {
            expr,
            variable: ident(v)
        })),
        (projection(), prop::option::of(expr()))
            .prop_map(|(projection, filter)| ClauseKind::With(With { projection, filter })),
        prop::collection::vec(part(), 1..3)
            .prop_map(|pattern| ClauseKind::Create(Create { pattern })),
        (
            part(),
            prop::collection::vec((any::<bool>(), name(), name(), expr()), 0..3)
        )
            .prop_map(|(pattern, actions)| ClauseKind::Merge(Merge {
                pattern,
                actions: actions
                    .into_iter()
                    .map(|(on_create, v, k, value)| MergeAction {
                        on: if on_create {
                            MergeOn::Create
                        } else {
                            MergeOn::Match
                        },
                        items: vec![SetItem::Property {
                            entity: expr_of(ExprKind::Variable(ident(v))),
                            key: ident(k),
                            value,
                        }],
                        span: Span::default(),
                    })
                    .collect()
            })),
        (name(), expr(), prop::collection::vec(name(), 1..3)).prop_map(|(v, value, labels)| {
            ClauseKind::Set(SetClause {
                items: vec![
                    SetItem::Merge {
                        variable: ident(v.clone()),
                        value,
                    },
                    SetItem::Labels {
                        variable: ident(v),
                        labels: labels.into_iter().map(ident).collect(),
                    },
                ],
            })
        }),
        (any::<bool>(), prop::collection::vec(expr(), 1..3))
            .prop_map(|(detach, exprs)| ClauseKind::Delete(Delete { detach, exprs })),
    ]
}

fn statement() -> impl Strategy<Value = Statement> {
    (prop::collection::vec(clause(), 0..4), projection()).prop_map(|(clauses, last)| {
        let mut clauses: Vec<Clause> = clauses
            .into_iter()
            .map(|kind| Clause {
                kind,
                span: Span::default(),
            })
            .collect();
        clauses.push(Clause {
            kind: ClauseKind::Return(Return { projection: last }),
            span: Span::default(),
        });
        Statement {
            prefix: CypherPrefix::default(),
            mode: QueryMode::Normal,
            graph: None,
            kind: StatementKind::Query(Query {
                first: SingleQuery {
                    clauses,
                    span: Span::default(),
                },
                unions: Vec::new(),
                span: Span::default(),
            }),
            span: Span::default(),
        }
    })
}

/// A database or alias name: written (dots, keywords and odd characters included) or a
/// parameter.
fn admin_name() -> impl Strategy<Value = AdminName> {
    prop_oneof![
        3 => name().prop_map(|n| AdminName::Literal(ident(n))),
        1 => "[a-z]{1,3}(\\.[a-z]{1,3})?".prop_map(|n| AdminName::Literal(ident(n))),
        1 => prop_oneof!["[a-z0-9_]{1,4}", name()].prop_map(|n| AdminName::Parameter(ident(n))),
    ]
}

fn wait() -> impl Strategy<Value = Wait> {
    prop_oneof![
        Just(Wait::Unwritten),
        Just(Wait::NoWait),
        prop::option::of(any::<u64>()).prop_map(Wait::Wait),
    ]
}

fn topology() -> impl Strategy<Value = Topology> {
    (
        prop::option::of(any::<u32>()),
        prop::option::of(any::<u32>()),
    )
        .prop_filter("TOPOLOGY takes at least one part", |(p, s)| {
            p.is_some() || s.is_some()
        })
        .prop_map(|(primaries, secondaries)| Topology {
            primaries,
            secondaries,
        })
}

/// `OPTIONS` and `PROPERTIES`: a map or a parameter. The values are leaves: expressions in
/// full are drawn by the other tests, and their strategy tree, nested in this one, overflows
/// the test thread's stack while generating.
fn map_or_parameter() -> impl Strategy<Value = Expr> {
    properties(leaf().boxed())
}

fn database_command() -> impl Strategy<Value = DatabaseCommand> {
    // `OR REPLACE` with `IF NOT EXISTS` does not parse.
    let replace_or_guard = prop_oneof![
        Just((false, false)),
        Just((true, false)),
        Just((false, true))
    ];
    prop_oneof![
        (
            admin_name(),
            replace_or_guard.clone(),
            prop::option::of(topology()),
            prop::option::of(map_or_parameter()),
            wait(),
        )
            .prop_map(
                |(name, (replace, if_not_exists), topology, options, wait)| {
                    DatabaseCommand::Create(CreateDatabase {
                        name,
                        replace,
                        if_not_exists,
                        topology,
                        options,
                        wait,
                    })
                }
            ),
        (admin_name(), any::<bool>(), any::<bool>(), wait()).prop_map(
            |(name, if_exists, dump_data, wait)| {
                DatabaseCommand::Drop(DropDatabase {
                    name,
                    if_exists,
                    dump_data,
                    wait,
                })
            }
        ),
        (
            admin_name(),
            any::<bool>(),
            prop::option::of(prop::sample::select(vec![
                Access::ReadOnly,
                Access::ReadWrite
            ])),
            prop::option::of(topology()),
            prop::collection::btree_map(name(), prop::option::of(leaf()), 0..3),
            wait(),
        )
            .prop_filter(
                "ALTER sets something",
                |(_, _, access, topology, options, _)| {
                    access.is_some() || topology.is_some() || !options.is_empty()
                }
            )
            .prop_map(|(name, if_exists, access, topology, options, wait)| {
                DatabaseCommand::Alter(AlterDatabase {
                    name,
                    if_exists,
                    access,
                    topology,
                    options: options.into_iter().map(|(k, v)| (ident(k), v)).collect(),
                    wait,
                })
            }),
        (admin_name(), wait()).prop_map(|(name, wait)| DatabaseCommand::Start { name, wait }),
        (admin_name(), wait()).prop_map(|(name, wait)| DatabaseCommand::Stop { name, wait }),
        (
            admin_name(),
            replace_or_guard,
            admin_name(),
            prop::option::of(map_or_parameter()),
        )
            .prop_map(|(name, (replace, if_not_exists), target, properties)| {
                DatabaseCommand::CreateAlias(CreateAlias {
                    name,
                    replace,
                    if_not_exists,
                    target,
                    properties,
                })
            }),
        (
            admin_name(),
            any::<bool>(),
            prop::option::of(admin_name()),
            prop::option::of(map_or_parameter()),
        )
            .prop_filter(
                "ALTER ALIAS sets something",
                |(_, _, target, properties)| { target.is_some() || properties.is_some() }
            )
            .prop_map(|(name, if_exists, target, properties)| {
                DatabaseCommand::AlterAlias(AlterAlias {
                    name,
                    if_exists,
                    target,
                    properties,
                })
            }),
        (admin_name(), any::<bool>())
            .prop_map(|(name, if_exists)| DatabaseCommand::DropAlias { name, if_exists }),
    ]
}

fn statement_of(kind: StatementKind) -> Statement {
    Statement {
        prefix: CypherPrefix::default(),
        mode: QueryMode::Normal,
        graph: None,
        kind,
        span: Span::default(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn database_commands_round_trip(command in database_command()) {
        let statement = statement_of(StatementKind::Database(command));
        let printed = statement.to_string();
        let parsed = parse(&printed)
            .map_err(|err| TestCaseError::fail(format!("{printed}\n{err}")))?;
        prop_assert_eq!(&parsed, &statement, "{}", printed);
        prop_assert_eq!(parsed.to_string(), printed);
    }

    #[test]
    fn alias_listings_round_trip(name in prop::option::of(admin_name())) {
        let statement = statement_of(StatementKind::Show(ShowCommand {
            kind: ShowKind::Aliases(name),
            filter: None,
        }));
        let printed = statement.to_string();
        let parsed = parse(&printed)
            .map_err(|err| TestCaseError::fail(format!("{printed}\n{err}")))?;
        prop_assert_eq!(&parsed, &statement, "{}", printed);
    }

    #[test]
    fn expressions_round_trip(e in expr()) {
        let query = format!("RETURN {e} AS x");
        let parsed = parse(&query).map_err(|err| TestCaseError::fail(format!("{query}\n{err}")))?;
        let StatementKind::Query(q) = parsed.kind else { panic!("query") };
        let ClauseKind::Return(r) = &q.first.clauses[0].kind else { panic!("return") };
        prop_assert_eq!(&r.projection.items[0].expr, &e, "{}", query);
    }

    #[test]
    fn statements_round_trip(s in statement()) {
        let printed = s.to_string();
        let parsed = parse(&printed)
            .map_err(|err| TestCaseError::fail(format!("{printed}\n{err}")))?;
        prop_assert_eq!(&parsed, &s, "{}", printed);
        prop_assert_eq!(parsed.to_string(), printed);
    }
}
