//! `check --format sarif` (issue 52): a SARIF 2.1.0 log that validates against the published
//! OASIS schema (`sarif-schema-2.1.0.json`, as shipped in the `serde-sarif` package on
//! crates.io, copied to `tests/fixtures/sarif/`: its `$id` is the OASIS TC's
//! `Schemata/sarif-schema-2.1.0.json`), with the rules
//! the report used (help URIs into the contract page), one result per FAIL/WARN/INFO finding
//! with its level, and the file and line of the document each was read from.
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use common::run;
use serde_json::Value;

/// The published SARIF 2.1.0 schema, as shipped in the `serde-sarif` package
/// (`tests/fixtures/sarif/SOURCE.txt`).
fn sarif_schema() -> Value {
    let path = capi_test_support::fixture("sarif/sarif-schema-2.1.0.json");
    let mut schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    // The published schema's `language` patterns (of `run` and `toolComponent`) have a stray
    // `]` (`^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$`), a literal under ECMA-262 Annex B, which
    // the validator's Rust regex refuses: escaped, with the same meaning. Nothing else is
    // touched.
    assert_eq!(escape_stray_bracket(&mut schema), 2);
    assert_eq!(
        schema["$id"],
        "https://raw.githubusercontent.com/oasis-tcs/sarif-spec/master/Schemata/sarif-schema-2.1.0.json"
    );
    schema
}

/// Escapes the stray `]` of the `language` patterns; how many were escaped.
fn escape_stray_bracket(value: &mut Value) -> usize {
    const STRAY: &str = "^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$";
    match value {
        Value::Object(map) => {
            let mut n = 0;
            for (key, v) in map.iter_mut() {
                if key == "pattern" && v == STRAY {
                    *v = Value::from(STRAY.replace("}]?", "}\\]?"));
                    n += 1;
                } else {
                    n += escape_stray_bracket(v);
                }
            }
            n
        }
        Value::Array(items) => items.iter_mut().map(escape_stray_bracket).sum(),
        _ => 0,
    }
}

#[test]
fn check_writes_sarif_that_validates_against_the_published_schema() {
    let root = capi_test_support::workspace_root();
    let crds = root.join("tests/fixtures/provider-trees/capi-dev/config/crd");
    let objects = root.join("examples/devmachinepool-duplicate-ids.yaml");
    let out = run(
        &[
            "check",
            "--only-contract",
            "v1beta2",
            crds.to_str().unwrap(),
            "--objects",
            objects.to_str().unwrap(),
            "--format",
            "sarif",
        ],
        None,
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "a MUST rule fails: exit 1 as in text"
    );
    let log: Value = serde_json::from_slice(&out.stdout).unwrap();
    let schema = sarif_schema();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&log)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    assert_eq!(log["version"], "2.1.0");
    let run = &log["runs"][0];
    assert_eq!(run["tool"]["driver"]["name"], "capi-machinepool");
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    let results = run["results"].as_array().unwrap();
    // The duplicated provider ID: an error on the objects file, at the duplicated entry's line
    // (14), whose rule has a help URI into the contract page.
    let duplicate = results
        .iter()
        .find(|r| r["ruleId"] == "provider-id-list-values" && r["level"] == "error")
        .unwrap();
    let location = &duplicate["locations"][0]["physicalLocation"];
    assert!(
        location["artifactLocation"]["uri"]
            .as_str()
            .unwrap()
            .ends_with("examples/devmachinepool-duplicate-ids.yaml"),
        "{location}"
    );
    assert_eq!(location["region"]["startLine"], 14);
    let rule = &rules[duplicate["ruleIndex"].as_u64().unwrap() as usize];
    assert_eq!(rule["id"], "provider-id-list-values");
    assert!(
        rule["helpUri"].as_str().unwrap().starts_with(
            "https://cluster-api.sigs.k8s.io/developer/providers/contracts/infra-machinepool"
        ),
        "{rule}"
    );
    // Every level the report has, and no pass.
    for level in ["error", "warning", "note"] {
        assert!(results.iter().any(|r| r["level"] == level), "{level}");
    }
    assert!(results.iter().all(|r| r["level"] != "none"));
    // A schema check that would let anything through is no check: a broken log fails it.
    let mut broken = log.clone();
    broken["runs"][0]["results"][0]["level"] = Value::from("fatal");
    assert!(!validator.is_valid(&broken));
}
