//! Hostile input: any rule text is judged without a panic or a stack overflow, whatever its
//! nesting or length.

use proptest::prelude::*;
use serde_json::{Value, json};

fn schema(rule: &str, message_expression: Option<&str>) -> Value {
    let mut r = json!({"rule": rule});
    if let Some(m) = message_expression {
        r["messageExpression"] = json!(m);
    }
    json!({"type": "object", "properties": {"spec": {
        "type": "object",
        "properties": {"x": {"type": "string"}, "l": {"type": "array", "items": {"type": "string"}},
                       "m": {"type": "object", "additionalProperties": {"type": "integer"}}},
        "x-kubernetes-validations": [r],
    }}})
}

const TOKENS: [&str; 40] = [
    "self",
    "oldSelf",
    ".",
    "x",
    "l",
    "m",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ",",
    ":",
    "?",
    ".?",
    "[?",
    "==",
    "!=",
    "<",
    "+",
    "-",
    "!",
    "&&",
    "||",
    "'a'",
    "\"b\"",
    "1",
    "2.5",
    "3u",
    "true",
    "null",
    "size",
    "all",
    "exists",
    "map",
    "matches('[a-z]+')",
    "has",
    "in",
    "\\",
];

fn cel_ish() -> impl Strategy<Value = String> {
    proptest::collection::vec(0..TOKENS.len(), 0..40)
        .prop_map(|ix| ix.iter().map(|i| TOKENS[*i]).collect::<Vec<_>>().join(" "))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(capi_test_support::proptest_cases(512)))]

    #[test]
    fn any_token_soup_is_judged_without_panic(rule in cel_ish(), me in proptest::option::of(cel_ish())) {
        let r = capi_cel::compile_crd_version(&schema(&rule, me.as_deref()));
        for e in &r.errors {
            prop_assert!(e.field_path.starts_with("spec.validation.openAPIV3Schema"));
        }
    }

    #[test]
    fn any_text_is_judged_without_panic(rule in "\\PC{0,60}") {
        let _ = capi_cel::compile_crd_version(&schema(&rule, None));
    }
}

#[test]
fn deep_and_long_expressions_are_judged() {
    let deep_parens = format!("{}self.x != ''{}", "(".repeat(100_000), ")".repeat(100_000));
    let deep_lists = format!("{}1{} != []", "[".repeat(50_000), "]".repeat(50_000));
    let long_and = vec!["self.x != ''"; 8_000].join(" && ");
    let long_plus = format!("{} > 0", vec!["size(self.x)"; 8_000].join(" + "));
    let long_member = format!("self.x{} != ''", ".lowerAscii()".repeat(8_000));
    for rule in [deep_parens, deep_lists, long_and, long_plus, long_member] {
        let r = capi_cel::compile_crd_version(&schema(&rule, None));
        assert!(r.fully_judged(), "{:?}", r.not_judged);
    }
}

#[test]
fn nesting_at_every_limit_is_judged() {
    let at = |d: usize| {
        [
            format!("{}self.x != ''{}", "(".repeat(d), ")".repeat(d)),
            format!("{}1{} != []", "[".repeat(d), "]".repeat(d)),
            format!(
                "{}self.x{} != ''",
                "size(string(".repeat(d / 2),
                "))".repeat(d / 2)
            ),
            format!("{}true{}", "self.l.all(a, ".repeat(d), ")".repeat(d)),
            format!("{}false", "true ? true : ".repeat(d)),
            format!("{{'a': {}1{}}} != {{}}", "{'a': ".repeat(d), "}".repeat(d)),
        ]
    };
    for d in [248, 249, 250, 251] {
        for rule in at(d) {
            // Judged (or refused with cel-go's recursion messages) without overflowing.
            let r = capi_cel::compile_crd_version(&schema(&rule, Some(&rule)));
            assert!(
                r.errors
                    .iter()
                    .all(|e| e.field_path.starts_with("spec.validation")),
                "{d}"
            );
        }
    }
}
