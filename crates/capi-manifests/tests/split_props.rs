//! The splitter agrees with a YAML parser on every stream: the pieces hold exactly the
//! documents serde-saphyr sees, in order, with the same values, whatever the separators
//! (`---`, `--- <content>`, `...`), comments, byte order mark, line ends (LF, CRLF) and final
//! newline.
#![allow(clippy::unwrap_used, clippy::panic)]

use capi_manifests::split::split_str;
use capi_manifests::{Limits, load::documents};
use proptest::prelude::*;
use serde_json::Value;

/// A document body in one of the forms manifests use.
fn body() -> impl Strategy<Value = String> {
    // Plain keys only: a key YAML reads as null or a boolean (`null:`, `y:`) is not a string key,
    // and a Kubernetes manifest cannot hold it (sigs.k8s.io/yaml refuses a null key). The
    // property is about where documents split, not about key typing.
    let key = "[a-z]{1,6}".prop_filter("a plain string key", |k| {
        !matches!(
            k.as_str(),
            "null" | "true" | "false" | "yes" | "no" | "on" | "off" | "y" | "n"
        )
    });
    let scalar = prop_oneof![
        "[a-z][a-z0-9 ]{0,10}[a-z0-9]".prop_map(|s| s),
        (0u32..100_000).prop_map(|n| n.to_string()),
        "[a-z]{1,5}".prop_map(|s| format!("\"{s} ---\"")),
    ];
    prop_oneof![
        // Block mapping, possibly nested.
        proptest::collection::btree_map(key.clone(), scalar.clone(), 1..4).prop_map(|kv| {
            kv.iter()
                .map(|(k, v)| format!("{k}: {v}\n"))
                .collect::<String>()
        }),
        (
            key.clone(),
            proptest::collection::btree_map(key.clone(), scalar.clone(), 1..3)
        )
            .prop_map(|(k, kv)| {
                let inner: String = kv.iter().map(|(k, v)| format!("  {k}: {v}\n")).collect();
                format!("{k}:\n{inner}")
            }),
        // Flow mapping on one line.
        proptest::collection::btree_map(key.clone(), scalar, 1..3).prop_map(|kv| {
            let items: Vec<String> = kv.iter().map(|(k, v)| format!("{k}: {v}")).collect();
            format!("{{{}}}\n", items.join(", "))
        }),
        // A literal block that contains a `---` line indented (content, not a marker).
        key.prop_map(|k| format!("{k}: |\n  line one\n  ---\n  line three\n")),
    ]
}

#[derive(Clone, Debug)]
enum Sep {
    Dashes,
    DashesWithComment,
    /// `--- ` followed by the document's first line.
    Inline,
    /// `...` ends the previous document; the next starts bare.
    End,
    EndThenDashes,
}

fn sep() -> impl Strategy<Value = Sep> {
    prop_oneof![
        Just(Sep::Dashes),
        Just(Sep::DashesWithComment),
        Just(Sep::Inline),
        Just(Sep::End),
        Just(Sep::EndThenDashes),
    ]
}

fn stream() -> impl Strategy<Value = (String, usize)> {
    (
        any::<bool>(),
        prop_oneof![Just("\n"), Just("\r\n"), Just("\r")],
        any::<bool>(),
        any::<bool>(),
        body(),
        proptest::collection::vec((sep(), body(), any::<bool>()), 0..6),
    )
        .prop_map(
            |(bom, line_end, final_newline, leading_comment, first, rest)| {
                let mut text = String::new();
                if bom {
                    text.push('\u{feff}');
                }
                if leading_comment {
                    text.push_str("# a licence header\n");
                }
                text.push_str(&first);
                for (sep, body, comment_only_piece) in &rest {
                    if *comment_only_piece {
                        text.push_str("---\n# only a comment\n");
                    }
                    // On the marker line, YAML allows flow content only (`--- {a: 1}`), not a
                    // block mapping.
                    let flow = body.starts_with('{');
                    match sep {
                        Sep::Inline if !flow => text.push_str("---\n"),
                        Sep::Dashes => text.push_str("---\n"),
                        Sep::DashesWithComment => text.push_str("--- # next\n"),
                        Sep::Inline => text.push_str("--- "),
                        Sep::End => text.push_str("...\n"),
                        Sep::EndThenDashes => text.push_str("...\n---\n"),
                    }
                    text.push_str(body);
                }
                if !final_newline {
                    text.pop();
                }
                if line_end != "\n" {
                    text = text.replace('\n', line_end);
                }
                (text, rest.len() + 1)
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(capi_test_support::proptest_cases(512)))]

    #[test]
    fn pieces_are_the_parsers_documents((text, count) in stream()) {
        let parser: Vec<Value> = serde_saphyr::from_multiple_with_options::<Value>(text.trim_start_matches('\u{feff}'), capi_test_support::kubectl_yaml_options())
            .unwrap()
            .into_iter()
            .filter(|v| !v.is_null())
            .collect();
        prop_assert_eq!(parser.len(), count, "the generator's documents: {:?}", text);
        let ours: Vec<Value> = documents(&text, "s", &Limits::default())
            .unwrap()
            .into_iter()
            .map(|d| d.value)
            .collect();
        prop_assert_eq!(&ours, &parser, "{:?}", text);
        // Nothing is lost: the pieces, put back together with plain separators, parse the same.
        let pieces = split_str(&text, "s", Limits::default()).unwrap();
        let rejoined: String = pieces
            .iter()
            .map(|p| if p.empty { p.text.clone() } else { format!("---\n{}\n", p.text.trim_end_matches(['\r', '\n'])) })
            .collect();
        let again: Vec<Value> = serde_saphyr::from_multiple_with_options::<Value>(&rejoined, capi_test_support::kubectl_yaml_options())
            .unwrap()
            .into_iter()
            .filter(|v| !v.is_null())
            .collect();
        prop_assert_eq!(again, parser);
    }
}
