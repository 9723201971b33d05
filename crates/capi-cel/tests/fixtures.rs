//! Recorded cases with upstream's verdict: the named cases of issue 60 (`fixtures/named`)
//! and every disagreement the differential found (`fixtures/regressions`). Each file holds
//! the schema, the CRD names, and the verdict of upstream's `ValidateCustomResourceDefinition`
//! (see its `source`); `not_judged: true` marks a case this crate must report as not judged.
//! With Go, the recorded verdicts are checked against upstream again (`random_paths: true`:
//! the server names some paths in Go's map order, compared without them).

mod common;

use common::{Oracle, Verdict, agrees, crd, ours};
use serde_json::Value;

fn fixtures() -> Vec<(String, Value)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut out = Vec::new();
    for sub in ["named", "regressions"] {
        let mut files: Vec<_> = std::fs::read_dir(dir.join(sub))
            .expect("fixtures")
            .flatten()
            .map(|e| e.path())
            .collect();
        files.sort();
        for f in files {
            let v: Value =
                serde_json::from_str(&std::fs::read_to_string(&f).expect("read")).expect("json");
            out.push((
                format!(
                    "{sub}/{}",
                    f.file_name().unwrap_or_default().to_string_lossy()
                ),
                v,
            ));
        }
    }
    out
}

fn upstream(v: &Value) -> Verdict {
    let mut u: Verdict = v["upstream"]
        .as_array()
        .expect("upstream")
        .iter()
        .map(|e| {
            let s = |i: usize| e[i].as_str().unwrap_or("").to_owned();
            (s(0), s(1), s(2))
        })
        .collect();
    u.sort();
    u
}

#[test]
fn recorded_cases_judged_as_upstream() {
    let all = fixtures();
    assert!(all.len() >= 20, "{} fixtures", all.len());
    for (name, v) in &all {
        assert!(
            v["source"].as_str().is_some_and(|s| !s.is_empty()),
            "{name}: no source"
        );
        let theirs = upstream(v);
        match ours(&v["schema"]) {
            Err(why) => assert!(
                v["not_judged"] == Value::Bool(true),
                "{name}: not judged: {why}"
            ),
            Ok(o) => {
                assert!(
                    v["not_judged"] != Value::Bool(true),
                    "{name}: judged, expected not judged"
                );
                assert!(
                    agrees(&o, &theirs),
                    "{name}:\n ours     {o:?}\n upstream {theirs:?}"
                );
            }
        }
    }
}

#[test]
fn named_cases_have_exact_messages() {
    for (name, v) in fixtures().iter().filter(|(n, _)| n.starts_with("named/")) {
        let r = capi_cel::compile_crd_version(&v["schema"]);
        assert!(r.fully_judged(), "{name}: {:?}", r.not_judged);
        assert!(
            r.errors.iter().all(|e| e.detail_exact && e.path_exact),
            "{name}: {:?}",
            r.errors
        );
    }
}

#[test]
fn recorded_verdicts_are_upstreams() {
    let Some(oracle) = Oracle::start() else {
        return;
    };
    for (name, v) in fixtures() {
        let s = |k: &str| v[k].as_str().unwrap_or("").to_owned();
        let got = oracle.lock().expect("oracle").judge(&crd(
            &s("group"),
            &s("plural"),
            &s("kind"),
            &v["schema"],
        ));
        // Where the server picks among equal costs in Go's map order, the picked paths vary.
        let random = v["random_paths"] == Value::Bool(true);
        let blur = |v: Verdict| -> Verdict {
            let mut v: Verdict = v
                .into_iter()
                .map(|(t, p, d)| {
                    if random && d.starts_with("contributed to") {
                        (t, "*".into(), d)
                    } else {
                        (t, p, d)
                    }
                })
                .collect();
            v.sort();
            v
        };
        assert_eq!(
            blur(got),
            blur(upstream(&v)),
            "{name}: the recorded verdict is no longer upstream's"
        );
    }
}
