//! Upstream Cluster API's own conversion answers (`tests/fixtures/conversion-upstream`, see its
//! README): every MachinePool there is converted in every direction the file lists, through
//! the ConversionReview handler, and the result must be upstream's: the same success or
//! failure, the same JSON value, and the same bytes (`ok_bytes`, Go's `encoding/json` output,
//! conversion-data annotation text included).
//!
//! The one deliberate difference is documented in `docs/conversion.md` ("Round trips"): on
//! up-conversion we recover a hub `status.replicas` that was unset and a `status.deprecated`
//! that was absent from the conversion-data annotation, where upstream writes `replicas: 0`
//! and `deprecated: {v1beta1: {}}`. The files and directions where that applies are listed in
//! [`CLASS_6`]; for them the test asserts that our answer, with exactly those two fields put
//! back the way upstream writes them, is upstream's answer byte for byte.
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use capi_machinepool_conversion::{
    ConverterSet, ObjectConverter, StaticResolver, machine_pool_converter,
};
use capi_test_support::{Numbers, first_difference};
use common::convert;
use std::io::Write;
use std::path::PathBuf;

use capi_machinepool_api::{v1beta1, v1beta2, wire};
use serde_json::Value;

/// `(file, direction)` where our documented extension (class 6) applies: each is a round trip
/// through v1beta1 of a hub without `status.replicas` or `status.deprecated`, or an
/// up-conversion of a v1beta1 object whose conversion-data annotation holds such a hub.
/// `LIST_CLASS_6=1 cargo test -p capi-machinepool-conversion --test upstream_answers -- --nocapture`
/// prints the entries this list must hold.
const CLASS_6: &[(&str, &str)] = &[
    (
        "c3-condition-observedgeneration-0.json",
        "v1beta2->v1beta1->v1beta2",
    ),
    ("c5-empty-conditions-list.json", "v1beta2->v1beta1->v1beta2"),
    ("c6a-hub-without-status.json", "v1beta2->v1beta1->v1beta2"),
    ("c6b-spoke-with-annotation.json", "v1beta1->v1beta2"),
    (
        "c6b-spoke-with-annotation.json",
        "v1beta1->v1beta2->v1beta1",
    ),
    ("c8-key-order.json", "v1beta2->v1beta1->v1beta2"),
    (
        "d1-v1beta2-objectmeta-empty.json",
        "v1beta2->v1beta1->v1beta2",
    ),
    (
        "d10-v1beta2-html-escaping.json",
        "v1beta2->v1beta1->v1beta2",
    ),
    (
        "d2-v1beta2-noderef-empty-namespace.json",
        "v1beta2->v1beta1->v1beta2",
    ),
    (
        "d4-v1beta2-empty-map-under-omitzero.json",
        "v1beta2->v1beta1->v1beta2",
    ),
    (
        "d5-v1beta2-empty-conditions-with-status.json",
        "v1beta2->v1beta1->v1beta2",
    ),
    (
        "d6-v1beta1-annotation-status-without-replicas.json",
        "v1beta1->v1beta2",
    ),
    (
        "d6-v1beta1-annotation-status-without-replicas.json",
        "v1beta1->v1beta2->v1beta1",
    ),
    (
        "d8-v1beta2-annotation-null.json",
        "v1beta2->v1beta1->v1beta2",
    ),
    ("gen-v1beta1-0009.json", "v1beta1->v1beta2"),
    ("gen-v1beta1-0009.json", "v1beta1->v1beta2->v1beta1"),
    ("gen-v1beta1-0012.json", "v1beta1->v1beta2"),
    ("gen-v1beta1-0012.json", "v1beta1->v1beta2->v1beta1"),
    ("gen-v1beta1-0019.json", "v1beta1->v1beta2"),
    ("gen-v1beta1-0039.json", "v1beta1->v1beta2"),
    ("gen-v1beta1-0039.json", "v1beta1->v1beta2->v1beta1"),
    ("gen-v1beta1-0054.json", "v1beta1->v1beta2"),
    ("gen-v1beta1-0054.json", "v1beta1->v1beta2->v1beta1"),
    ("gen-v1beta1-0103.json", "v1beta1->v1beta2"),
    ("gen-v1beta1-0116.json", "v1beta1->v1beta2"),
    ("gen-v1beta1-0116.json", "v1beta1->v1beta2->v1beta1"),
    ("gen-v1beta1-0134.json", "v1beta1->v1beta2"),
    ("gen-v1beta1-0134.json", "v1beta1->v1beta2->v1beta1"),
    ("gen-v1beta2-0000.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0001.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0003.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0004.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0006.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0008.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0010.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0011.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0012.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0013.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0014.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0015.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0017.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0019.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0020.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0021.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0023.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0024.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0027.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0028.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0029.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0031.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0032.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0033.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0034.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0035.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0036.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0041.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0043.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0044.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0045.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0046.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0047.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0048.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0050.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0051.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0052.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0053.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0054.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0055.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0056.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0057.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0059.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0060.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0061.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0062.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0065.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0066.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0069.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0073.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0076.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0078.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0079.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0081.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0084.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0085.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0087.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0088.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0089.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0090.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0091.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0092.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0093.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0094.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0095.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0096.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0097.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0101.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0102.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0103.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0104.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0105.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0106.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0110.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0111.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0112.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0113.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0115.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0116.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0117.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0118.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0120.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0122.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0123.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0124.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0126.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0127.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0128.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0130.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0132.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0133.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0134.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0137.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0138.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0140.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0141.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0142.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0143.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0145.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0147.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0148.json", "v1beta2->v1beta1->v1beta2"),
    ("gen-v1beta2-0149.json", "v1beta2->v1beta1->v1beta2"),
];

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/conversion-upstream")
}

/// Upstream's form of the two class-6 fields in a hub: `status.replicas: 0` and
/// `status.deprecated: {v1beta1: {}}` when absent (Go's up-conversion always sets both).
fn hub_with_upstream_status_defaults(mut hub: v1beta2::MachinePool) -> v1beta2::MachinePool {
    hub.status.replicas.get_or_insert(0);
    hub.status
        .deprecated
        .get_or_insert_with(Default::default)
        .v1beta1
        .get_or_insert_with(Default::default);
    hub
}

/// Puts the two class-6 fields back as upstream writes them: in a v1beta2 object itself, in
/// the hub a v1beta1 object carries in its conversion-data annotation. Returns the bytes.
fn with_upstream_status_defaults(ours: &str) -> String {
    const ANNOTATION: &str = "cluster.x-k8s.io/conversion-data";
    if let Ok(hub) = serde_json::from_str::<v1beta2::MachinePool>(ours) {
        return wire::to_string(&hub_with_upstream_status_defaults(hub)).unwrap();
    }
    let mut spoke: v1beta1::MachinePool = serde_json::from_str(ours).unwrap();
    if let Some(data) = spoke
        .metadata
        .annotations
        .as_mut()
        .and_then(|a| a.get_mut(ANNOTATION))
    {
        let hub: v1beta2::MachinePool = serde_json::from_str(data).unwrap();
        let text = wire::to_string(&hub_with_upstream_status_defaults(hub)).unwrap();
        *data = text.replacen("\"metadata\":{},", "", 1);
    }
    wire::to_string(&spoke).unwrap()
}

#[test]
fn conversion_matches_upstream_answers() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    let (mut compared, mut failures_agreed, mut class6) = (0usize, 0usize, 0usize);
    let mut problems = Vec::new();
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let case: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let mut resolver = StaticResolver::new();
        for entry in case["map"].as_array().unwrap() {
            resolver.insert_entry(entry.as_str().unwrap()).unwrap();
        }
        let input = serde_json::to_string(&case["input"]).unwrap();
        for (direction, expected) in case["results"].as_object().unwrap() {
            let steps: Vec<&str> = direction.split("->").skip(1).collect();
            let mut ours: Result<String, String> = Ok(input.clone());
            for version in &steps {
                ours = ours
                    .and_then(|o| convert(&resolver, &o, &format!("cluster.x-k8s.io/{version}")));
            }
            let label = format!("{name} {direction}");
            match (ours, expected.get("ok")) {
                (Err(_), None) => failures_agreed += 1,
                (Err(e), Some(_)) => {
                    problems.push(format!("{label}: we fail ({e}), upstream converts"))
                }
                (Ok(_), None) => problems.push(format!(
                    "{label}: we convert, upstream fails ({})",
                    expected["error"]
                )),
                (Ok(bytes), Some(ok)) => {
                    compared += 1;
                    let ours: Value = serde_json::from_str(&bytes).unwrap();
                    let extension = CLASS_6.contains(&(name.as_str(), direction.as_str()));
                    let (ours, bytes) = if extension {
                        class6 += 1;
                        if first_difference(&ours, ok, "upstream", Numbers::Exact).is_none() {
                            problems
                                .push(format!("{label}: listed in CLASS_6 but equal to upstream"));
                        }
                        let bytes = with_upstream_status_defaults(&bytes);
                        (serde_json::from_str(&bytes).unwrap(), bytes)
                    } else {
                        (ours, bytes)
                    };
                    if !extension && std::env::var_os("LIST_CLASS_6").is_some() {
                        let candidate = with_upstream_status_defaults(&bytes);
                        if candidate == expected["ok_bytes"].as_str().unwrap() && candidate != bytes
                        {
                            println!("    (\"{name}\", \"{direction}\"),");
                            problems.push(format!("{label}: class 6, missing from CLASS_6"));
                        }
                    }
                    if let Some(diff) = first_difference(&ours, ok, "upstream", Numbers::Exact) {
                        problems.push(format!("{label}: value differs at {diff}"));
                    } else if bytes != expected["ok_bytes"].as_str().unwrap() {
                        let theirs = expected["ok_bytes"].as_str().unwrap();
                        let at = bytes
                            .bytes()
                            .zip(theirs.bytes())
                            .take_while(|(a, b)| a == b)
                            .count();
                        problems.push(format!(
                            "{label}: bytes differ at {at}: ours …{}… upstream …{}…",
                            &bytes[at.saturating_sub(40)..(at + 40).min(bytes.len())],
                            &theirs[at.saturating_sub(40)..(at + 40).min(theirs.len())]
                        ));
                    }
                }
            }
        }
    }
    // Written to stderr directly, not through `eprintln!`, so that the count shows in CI logs
    // (the test harness captures only the print macros of passing tests).
    let _ = writeln!(
        std::io::stderr(),
        "upstream answers: {} files, {compared} converted objects compared (value and bytes), {class6} of them under the documented extension, {failures_agreed} failures agreed",
        files.len()
    );
    assert!(files.len() >= 319, "fixtures missing");
    assert!(
        problems.is_empty(),
        "{} differences:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// `docs/conversion.md` lists by name every pair where the extension applies, and no other.
#[test]
fn the_docs_list_the_extension_pairs() {
    let doc =
        std::fs::read_to_string(capi_test_support::workspace_root().join("docs/conversion.md"))
            .unwrap();
    let appendix = &doc[doc.find("## Appendix").unwrap()..];
    let mut listed = Vec::new();
    for line in appendix.lines() {
        let Some(rest) = line.strip_prefix('`') else {
            continue;
        };
        let Some((direction, files)) = rest.split_once("` (") else {
            continue;
        };
        for file in files.split('`').skip(1).step_by(2) {
            listed.push((file.to_owned(), direction.to_owned()));
        }
    }
    let mut expected: Vec<(String, String)> = CLASS_6
        .iter()
        .map(|(f, d)| ((*f).to_owned(), (*d).to_owned()))
        .collect();
    expected.sort();
    listed.sort();
    assert_eq!(
        listed, expected,
        "docs/conversion.md's appendix and CLASS_6 differ"
    );
}

/// `ObjectConverter::convert_value` decodes from the `Value` and builds its answer as a
/// `Value`, without text in between; the reference it must match is the text path
/// (`ObjectConverter::convert`, held to upstream's bytes above), answer parsed: the same
/// value, or the same failure, at every step of every direction of every upstream case,
/// through the converter itself and through a `ConverterSet`.
#[test]
fn convert_value_gives_the_text_paths_answers() {
    let mut steps_compared = 0usize;
    let mut problems = Vec::new();
    for entry in std::fs::read_dir(dir()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let case: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let mut resolver = StaticResolver::new();
        for entry in case["map"].as_array().unwrap() {
            resolver.insert_entry(entry.as_str().unwrap()).unwrap();
        }
        let converter = machine_pool_converter(resolver.clone());
        let set = ConverterSet::new().with(machine_pool_converter(resolver));
        for direction in case["results"].as_object().unwrap().keys() {
            let mut object = case["input"].clone();
            for version in direction.split("->").skip(1) {
                let desired = format!("cluster.x-k8s.io/{version}");
                let raw = serde_json::value::to_raw_value(&object).unwrap();
                let text = converter
                    .convert(&raw, &desired)
                    .map(|t| serde_json::from_str::<Value>(t.get()).unwrap());
                let label = format!("{name} {direction}, step to {version}");
                for (via, answer) in [
                    ("converter", converter.convert_value(&object, &desired)),
                    ("set", set.convert_value(&object, &desired)),
                ] {
                    steps_compared += 1;
                    match (&text, answer) {
                        (Ok(expected), Ok(value)) => {
                            if let Some(diff) =
                                first_difference(&value, expected, "text path", Numbers::Exact)
                            {
                                problems.push(format!("{label} ({via}): {diff}"));
                            }
                        }
                        (Err(expected), Err(error)) => {
                            if error.to_string() != expected.to_string() {
                                problems.push(format!(
                                    "{label} ({via}): fails with {error}, the text path with {expected}"
                                ));
                            }
                        }
                        (Ok(_), Err(error)) => problems.push(format!(
                            "{label} ({via}): fails ({error}), the text path converts"
                        )),
                        (Err(expected), Ok(_)) => problems.push(format!(
                            "{label} ({via}): converts, the text path fails ({expected})"
                        )),
                    }
                }
                match text {
                    Ok(next) => object = next,
                    Err(_) => break,
                }
            }
        }
    }
    assert!(
        steps_compared >= 1000,
        "only {steps_compared} steps compared"
    );
    assert!(
        problems.is_empty(),
        "{} differences:\n{}",
        problems.len(),
        problems.join("\n")
    );
}
