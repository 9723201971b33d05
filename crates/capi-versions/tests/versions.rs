//! GroupVersion and KubeVersion against expectations derived independently of the code:
//! apimachinery's `ParseGroupVersion` rule (k8s.io/apimachinery/pkg/runtime/schema
//! `group_version.go`: `""` and `"/"` are empty, no `/` is the core group, one `/` splits,
//! more is an error) restated by counting slashes, and SemVer precedence (semver.org item
//! 11: numeric fields compared numerically, a pre-release before its release, `alpha < beta
//! < rc` as the identifiers compare in ASCII, numeric identifiers numerically, build metadata
//! ignored) restated on tuples. Real data: every `apiVersion` and Kubernetes `version` in the
//! workspace's fixtures.
#![allow(clippy::unwrap_used, clippy::panic)]

use std::path::{Path, PathBuf};

use capi_versions::{GroupVersion, KubeVersion};
use proptest::prelude::*;

proptest! {
    #[test]
    fn group_version_follows_apimachinery(text in "[a-z./]{0,8}") {
        let slashes = text.matches('/').count();
        let parsed = GroupVersion::parse(&text);
        prop_assert_eq!(parsed.is_ok(), slashes <= 1 || text == "/");
        if let Ok(gv) = parsed {
            if text == "/" || text.is_empty() {
                prop_assert_eq!((gv.group, gv.version), ("", ""));
            } else if slashes == 0 {
                prop_assert_eq!((gv.group, gv.version), ("", text.as_str()));
            } else {
                prop_assert_eq!(format!("{}/{}", gv.group, gv.version), text.clone());
                prop_assert!(!gv.group.contains('/') && !gv.version.contains('/'));
            }
        }
        // The lenient split agrees wherever the strict parse succeeds (but "/").
        if slashes <= 1 && text != "/" {
            prop_assert_eq!(GroupVersion::split(&text), GroupVersion::parse(&text).unwrap());
        }
    }

    #[test]
    fn kube_version_orders_by_semver_precedence(
        a in (0u64..3, 0u64..40, 0u64..3, 0usize..4, 0u64..12, any::<bool>()),
        b in (0u64..3, 0u64..40, 0u64..3, 0usize..4, 0u64..12, any::<bool>()),
    ) {
        const STAGES: [&str; 3] = ["alpha", "beta", "rc"];
        let text = |(major, minor, patch, stage, n, build): (u64, u64, u64, usize, u64, bool)| {
            let pre = STAGES.get(stage).map(|s| format!("-{s}.{n}")).unwrap_or_default();
            let build = if build { "+k3s1" } else { "" };
            format!("v{major}.{minor}.{patch}{pre}{build}")
        };
        // A release ranks above its pre-releases; build metadata takes no part.
        let rank = |(major, minor, patch, stage, n, _): (u64, u64, u64, usize, u64, bool)| {
            let pre = if stage < STAGES.len() { (0, stage, n) } else { (1, 0, 0) };
            (major, minor, patch, pre)
        };
        let (va, vb) = (KubeVersion::parse(&text(a)).unwrap(), KubeVersion::parse(&text(b)).unwrap());
        prop_assert_eq!(va.cmp(&vb), rank(a).cmp(&rank(b)));
        prop_assert_eq!(va == vb, rank(a) == rank(b));
        prop_assert_eq!(va.to_string(), text(a));
    }
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "yaml" || e == "yml") {
            out.push(path);
        }
    }
}

/// Every `apiVersion:` and `version: v…` value in the fixtures (copied from real provider
/// repositories and Cluster API, see their SOURCE notes) parses.
#[test]
fn fixture_versions_parse() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures");
    let mut paths = Vec::new();
    files(&root, &mut paths);
    let (mut api_versions, mut releases) = (0, 0);
    for path in paths {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        for line in text.lines().map(str::trim) {
            if let Some(value) = line.strip_prefix("apiVersion: ") {
                let value = value.trim_matches(['"', '\'']);
                if value.is_empty() || value.contains(['$', '{', ' ']) {
                    continue;
                }
                let gv = GroupVersion::parse(value)
                    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                assert_eq!(gv.to_string(), value, "{}", path.display());
                api_versions += 1;
            } else if let Some(value) = line.strip_prefix("version: v1.") {
                let value = format!("v1.{}", value.trim_matches(['"', '\'']));
                if value.matches('.').count() < 2 || value.contains(['$', ' ']) {
                    continue;
                }
                let v = KubeVersion::parse(&value)
                    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                assert_eq!(v.major(), 1);
                releases += 1;
            }
        }
    }
    assert!(
        api_versions > 300 && releases > 10,
        "{api_versions} {releases}"
    );
}
