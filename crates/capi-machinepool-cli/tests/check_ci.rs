//! `check` as a step of a provider's CI: real trees and their rendered bundles, standard input,
//! `-f`, file locations in every format, closed pipes, contracts, hostile inputs.
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use std::io::Read;
use std::process::{Output, Stdio};

use capi_test_support::fixture;
use common::{bin, run, stdout as out, temp_file as temp};
use serde_json::Value;

fn tree(name: &str) -> String {
    fixture(&format!("provider-trees/{name}/config/crd"))
        .display()
        .to_string()
}

fn summary(o: &Output) -> Value {
    let report: Value = serde_json::from_str(&out(o)).unwrap();
    report["summary"].clone()
}

#[test]
fn kustomize_build_piped_to_stdin_gives_the_directory_verdict() {
    for t in ["capz", "capa", "capi-dev"] {
        let dir = run(
            &[
                "check",
                "--kustomize",
                "never",
                "--format",
                "json",
                &tree(t),
            ],
            None,
        );
        let rendered =
            std::fs::read(fixture(&format!("provider-trees/{t}/rendered.yaml"))).unwrap();
        let piped = run(
            &["check", "--kustomize", "never", "--format", "json", "-"],
            Some(&rendered),
        );
        assert_eq!(dir.status.code(), piped.status.code(), "{t}");
        let (d, p) = (summary(&dir), summary(&piped));
        for key in ["fail", "warn", "pass", "failed"] {
            assert_eq!(d[key], p[key], "{t}: {key}");
        }
        // The directory check adds INFO notes on kustomization fields it did not emulate.
        assert!(d["info"].as_u64() > p["info"].as_u64(), "{t}");
    }
}

#[test]
fn f_flag_is_repeatable_and_accepts_stdin() {
    let crd = std::fs::read(fixture(
        "provider-trees/capi-dev/config/crd/bases/infrastructure.cluster.x-k8s.io_devmachinepools.yaml",
    ))
    .unwrap();
    let o = run(
        &["check", "--format", "json", "-f", &tree("capz"), "-f", "-"],
        Some(&crd),
    );
    let report: Value = serde_json::from_str(&out(&o)).unwrap();
    let files: Vec<&str> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["subject"]["source"]["file"].as_str())
        .collect();
    assert!(files.iter().any(|f| f.contains("capz")));
    assert!(files.contains(&"-"), "stdin is named `-`");
}

#[test]
fn every_format_names_file_document_and_line() {
    let o = run(
        &[
            "check",
            "--kustomize",
            "never",
            "--format",
            "github",
            &tree("capi-dev"),
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(1));
    let text = out(&o);
    let error = text
        .lines()
        .find(|l| l.starts_with("::error "))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        // The label is set by the kustomization's `labels` entry (line 5): the annotation goes there.
        error.contains("file=") && error.contains("capi-dev/config/crd/kustomization.yaml,line=5,endLine=5,col=5,title=MUST contract-label-versions devmachinepools"),
        "{error}"
    );
    assert!(text.lines().any(|l| l.starts_with("::warning ")));
    assert!(
        // 36 passes: served-version-unlabelled on both CRDs, crd-valid on both CRDs and
        // template-schema-compatible count too.
        text.ends_with("capi-machinepool check: 2 fail, 2 warn, 1 info, 36 pass\n"),
        "{text}"
    );
    let o = run(&["check", "--kustomize", "never", &tree("capi-dev")], None);
    assert!(
        out(&o).contains("  from ") && out(&o).contains("_devmachinepools.yaml#0 (line 2)"),
        "{}",
        out(&o)
    );
    let o = run(
        &[
            "check",
            "--kustomize",
            "never",
            "--format",
            "json",
            &tree("capi-dev"),
        ],
        None,
    );
    let report: Value = serde_json::from_str(&out(&o)).unwrap();
    let findings = report["findings"].as_array().unwrap();
    let crd = findings
        .iter()
        .find(|f| f["subject"]["type"] == "crd")
        .unwrap();
    let source = &crd["subject"]["source"];
    assert_eq!(
        (source["document"].as_u64(), source["line"].as_u64()),
        (Some(0), Some(2))
    );
    // Kustomization notes point at the kustomization file.
    let note = findings
        .iter()
        .find(|f| f["rule"] == "kustomize-rendering")
        .unwrap();
    assert!(
        note["subject"]["source"]["file"]
            .as_str()
            .unwrap()
            .ends_with("kustomization.yaml")
    );
}

#[test]
fn a_closed_pipe_ends_quietly() {
    for format in ["text", "junit"] {
        let mut child = bin()
            .args(["check", "-v", "--format", format, &tree("capa")])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Like `| head -c 10`: read a little, then close.
        let mut stdout = child.stdout.take().unwrap();
        let mut first = [0u8; 10];
        stdout.read_exact(&mut first).unwrap();
        drop(stdout);
        let output = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_ne!(output.status.code(), Some(101), "{stderr}");
        assert!(
            !stderr.contains("panicked") && !stderr.contains("Broken pipe"),
            "{stderr}"
        );
    }
}

#[test]
fn skipped_inputs_are_one_line_unless_verbose() {
    let quiet = out(&run(
        &["check", "--kustomize", "never", &tree("capz")],
        None,
    ));
    let skipped: Vec<&str> = quiet
        .lines()
        .filter(|l| l.starts_with("skipped:"))
        .collect();
    assert_eq!(
        skipped,
        [
            "skipped: 13 input(s) that are not InfraMachinePools or their templates (verbose output lists them)"
        ]
    );
    let verbose = out(&run(
        &["check", "--kustomize", "never", "-v", &tree("capz")],
        None,
    ));
    assert_eq!(
        verbose
            .lines()
            .filter(|l| l.starts_with("skipped:"))
            .count(),
        // AzureMachinePoolMachine is checked as the InfraMachine of MachinePool Machines.
        13
    );
}

#[test]
fn a_v1beta2_only_provider_is_not_failed_for_lacking_a_v1beta1_label() {
    let crd = std::fs::read_to_string(fixture(
        "provider-trees/capi-dev/config/crd/bases/infrastructure.cluster.x-k8s.io_devmachinepools.yaml",
    ))
    .unwrap()
    .replacen("  name: devmachinepools", "  labels:\n    cluster.x-k8s.io/v1beta2: v1beta2\n  name: devmachinepools", 1);
    let path = temp("v1beta2-only.yaml", crd.as_bytes());
    for contract in [None, Some("v1beta1"), Some("v1beta2")] {
        let mut args = vec!["check", path.to_str().unwrap()];
        if let Some(c) = contract {
            args.extend(["--only-contract", c]);
        }
        let o = run(&args, None);
        assert_eq!(o.status.code(), Some(0), "{contract:?}: {}", out(&o));
    }
    let o = run(
        &[
            "check",
            "--only-contract",
            "v1beta1",
            path.to_str().unwrap(),
        ],
        None,
    );
    assert!(
        out(&o).contains(
            "no CRD version is labelled for contract v1beta1: nothing checked against it"
        ),
        "{}",
        out(&o)
    );
    // The old flag name still works.
    assert_eq!(
        run(
            &["check", "--contract", "v1beta1", path.to_str().unwrap()],
            None
        )
        .status
        .code(),
        Some(0)
    );
}

#[test]
fn only_contract_does_not_fail_labels_of_other_contracts() {
    // CAPI's DevMachinePool tree labels contract v1beta1 with a version the CRDs lack: a MUST
    // failure for the contracts a current core reads, not when only v1beta2 is asked about.
    let dir = fixture("provider-trees/capi-dev/config/crd");
    let all = run(
        &["check", "--kustomize", "never", dir.to_str().unwrap()],
        None,
    );
    assert_eq!(all.status.code(), Some(1), "{}", out(&all));
    let only = run(
        &["check", "--only-contract", "v1beta2", dir.to_str().unwrap()],
        None,
    );
    assert_eq!(only.status.code(), Some(0), "{}", out(&only));
    assert!(
        out(&only).contains("not failed: outside the contract asked for"),
        "{}",
        out(&only)
    );
    let v1beta1 = run(
        &["check", "--only-contract", "v1beta1", dir.to_str().unwrap()],
        None,
    );
    assert_eq!(v1beta1.status.code(), Some(1), "{}", out(&v1beta1));
}

#[test]
fn duplicated_provider_ids_are_flagged() {
    let objects = temp(
        "dup-ids.yaml",
        b"apiVersion: infrastructure.cluster.x-k8s.io/v1beta2\nkind: DevMachinePool\nmetadata: {name: p, namespace: default}\nspec:\n  providerIDList: [\"docker:////p-1\", \"docker:////p-2\", \"docker:////p-1\"]\nstatus:\n  replicas: 3\n  initialization: {provisioned: true}\n",
    );
    let o = run(
        &[
            "check",
            "--objects",
            objects.to_str().unwrap(),
            &tree("capz"),
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(1));
    let text = out(&o);
    assert!(
        text.contains("FAIL MUST provider-id-list-values      spec.providerIDList[2]")
            && text.contains("docker:////p-1: duplicate of entry 0"),
        "{text}"
    );
    assert!(text.contains("DevMachinePool default/p"), "{text}");
}

#[test]
fn control_characters_are_escaped_and_long_values_cut() {
    // A CRD name with a terminal escape sequence.
    let crd = std::fs::read_to_string(fixture(
        "provider-trees/capi-dev/config/crd/bases/infrastructure.cluster.x-k8s.io_devmachinepools.yaml",
    ))
    .unwrap()
    .replacen("  name: devmachinepools.infrastructure.cluster.x-k8s.io", "  name: \"dev\\e[31mmachinepools\"", 1);
    let path = temp("ansi.yaml", crd.as_bytes());
    let text = out(&run(
        &["check", "--kustomize", "never", path.to_str().unwrap()],
        None,
    ));
    assert!(!text.contains('\u{1b}'), "raw escape printed");
    assert!(text.contains("dev\\u{1b}[31mmachinepools"), "{text}");
    // A 3.1 MB provider ID: findings quote short excerpts, or none.
    let long_id = format!("aws:///{}", "x".repeat(3_100_000));
    let objects = format!(
        "{{\"apiVersion\": \"infrastructure.cluster.x-k8s.io/v1beta2\", \"kind\": \"DevMachinePool\", \"metadata\": {{\"name\": \"p\"}}, \"spec\": {{\"providerIDList\": [\"{long_id}\", 7, \"{long_id}\"]}}}}"
    );
    let objects = temp("long.json", objects.as_bytes());
    for format in ["text", "json", "junit", "github"] {
        let o = run(
            &[
                "check",
                "--format",
                format,
                "--objects",
                objects.to_str().unwrap(),
                &tree("capz"),
            ],
            None,
        );
        assert_eq!(o.status.code(), Some(1), "{format}");
        let text = out(&o);
        let longest = text.lines().map(str::len).max().unwrap_or(0);
        assert!(longest < 2_000, "{format}: a line of {longest} bytes");
        assert!(
            text.contains("entry has 3100007 characters (at most 512)"),
            "{format}"
        );
        // The duplicate is quoted, cut, with its length.
        assert!(
            text.contains("(3100007 bytes)"),
            "{format}: the cut is noted"
        );
    }
    // A 100,000-digit number: the parse error quotes an excerpt with the length.
    let objects = temp(
        "digits.json",
        format!(
            "{{\"kind\": \"DevMachinePool\", \"status\": {{\"replicas\": {}}}}}",
            "9".repeat(100_000)
        )
        .as_bytes(),
    );
    let o = run(
        &[
            "check",
            "--objects",
            objects.to_str().unwrap(),
            &tree("capz"),
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.len() < 1_000 && stderr.contains("bytes)"),
        "{stderr}"
    );
}

#[test]
fn links_to_secrets_outside_the_tree_are_not_read() {
    let dir = std::env::temp_dir().join(format!("capi-check-ci-environ-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(
        fixture("provider-trees/capi-dev/config/crd/bases/infrastructure.cluster.x-k8s.io_devmachinepools.yaml"),
        dir.join("crd.yaml"),
    )
    .unwrap();
    std::os::unix::fs::symlink("/proc/self/environ", dir.join("x.yaml")).unwrap();
    let o = bin()
        .args(["check", dir.to_str().unwrap()])
        .env("GITHUB_TOKEN", "ghp_secret_value_that_must_not_leak")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let all = format!("{}{}", out(&o), String::from_utf8_lossy(&o.stderr));
    assert!(
        !all.contains("ghp_secret_value_that_must_not_leak"),
        "{all}"
    );
    assert!(all.contains("outside"), "{all}");
}

/// The objects of `tests/fixtures/capz-sets` (MachinePool Machines with a hashed pool name, the
/// AKS ClusterClass and its Cluster) in one stream.
fn capz_objects() -> Vec<u8> {
    let mut bytes = std::fs::read(fixture("capz-sets/machinepool-machines.yaml")).unwrap();
    bytes.extend_from_slice(b"\n---\n");
    bytes.extend(std::fs::read(fixture("capz-sets/aks-clusterclass.yaml")).unwrap());
    bytes
}

#[test]
fn objects_are_judged_as_a_set_from_stdin() {
    let objects = capz_objects();
    let o = run(
        &["check", "--format", "json", &tree("capz"), "--objects", "-"],
        Some(&objects),
    );
    assert_eq!(o.status.code(), Some(0), "{}", out(&o));
    let report: Value = serde_json::from_str(&out(&o)).unwrap();
    let rules: Vec<(&str, &str)> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["subject"]["type"] == "object")
        .map(|f| (f["rule"].as_str().unwrap(), f["outcome"].as_str().unwrap()))
        .filter(|(r, _)| r.starts_with("machine-pool-machine") || r.starts_with("cluster"))
        .collect();
    for rule in [
        "machine-pool-machine-crd",
        "machine-pool-machine-labels",
        "clusterclass-infrastructure-template",
        "clusterclass-bootstrap-template",
        "cluster-topology-machine-pool-class",
    ] {
        assert!(rules.contains(&(rule, "pass")), "{rule}: {rules:?}");
    }
    // Without the formatted pool-name label, the InfraMachine is flagged (exit 1).
    let text = String::from_utf8(objects).unwrap();
    let broken = text.replacen("    cluster.x-k8s.io/pool-name: hash_-aIfEg_z\n", "", 1);
    let o = run(
        &["check", &tree("capz"), "--objects", "-"],
        Some(broken.as_bytes()),
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(
        out(&o).contains("cluster.x-k8s.io/pool-name is missing, expected \"hash_-aIfEg_z\""),
        "{}",
        out(&o)
    );
}

#[test]
fn capabilities_are_printed_as_text_and_json() {
    let o = run(
        &[
            "check",
            "--kustomize",
            "never",
            "--capabilities",
            &tree("capz"),
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(0));
    let text = out(&o);
    // The kinds as `kubectl kustomize` renders capz's tree (its rendered.yaml gives the same
    // table), AzureASOManagedMachinePool first.
    let rows: Vec<&str> = text
        .lines()
        .take(4)
        .filter(|r| !r.starts_with("AzureASOManagedMachinePool "))
        .collect();
    assert!(rows[0].starts_with("KIND"), "{text}");
    assert!(rows[1].starts_with("AzureMachinePool "), "{text}");
    assert!(
        rows[1].contains("yes (AzureMachinePoolMachine, by CRD name)"),
        "{text}"
    );
    assert!(
        rows[2].contains("yes (AzureManagedMachinePoolTemplate)"),
        "{text}"
    );
    assert!(
        text.contains("capabilities.capi-machinepool-rs.github.io/delete-machine-deletes-instance")
    );
    let objects = capz_objects();
    let o = run(
        &[
            "check",
            "--capabilities",
            "--format",
            "json",
            &tree("capz"),
            "--objects",
            "-",
        ],
        Some(&objects),
    );
    let json: Value = serde_json::from_str(&out(&o)).unwrap();
    let first = json["capabilities"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["kind"] == "AzureMachinePool")
        .unwrap();
    assert_eq!(first["kind"], "AzureMachinePool");
    assert_eq!(first["contract"], "v1beta1Only");
    assert_eq!(
        first["machinePoolMachines"],
        serde_json::json!({"state": "supported", "kind": "AzureMachinePoolMachine", "knownFrom": "objects"})
    );
    assert_eq!(first["machineDeletion"]["state"], "unknown");
    let o = run(
        &[
            "check",
            "--capabilities",
            "--format",
            "junit",
            &tree("capz"),
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
}

/// `--hide-derive-info` leaves out exactly the INFO findings of `list-kind` and
/// `type-and-object-meta` (what a kube-derive CRD cannot act on: `Report::without_derive_info`)
/// on foo-provider's derived CRDs (tests/fixtures/foo-provider, see its SOURCE), and nothing
/// else.
#[test]
fn hide_derive_info_leaves_out_the_kube_derive_notes() {
    let crds = capi_test_support::fixture("foo-provider/crds.yaml")
        .display()
        .to_string();
    let all: Value =
        serde_json::from_str(&out(&run(&["check", "--format", "json", &crds], None))).unwrap();
    let hidden: Value = serde_json::from_str(&out(&run(
        &["check", "--format", "json", "--hide-derive-info", &crds],
        None,
    )))
    .unwrap();
    let derive_note = |f: &Value| {
        f["outcome"] == "info" && (f["rule"] == "list-kind" || f["rule"] == "type-and-object-meta")
    };
    let all_findings = all["findings"].as_array().unwrap();
    let expected: Vec<&Value> = all_findings.iter().filter(|f| !derive_note(f)).collect();
    assert!(
        expected.len() < all_findings.len(),
        "the derived CRDs have derive notes"
    );
    let hidden_findings: Vec<&Value> = hidden["findings"].as_array().unwrap().iter().collect();
    assert_eq!(hidden_findings, expected);
    let notes = (all_findings.len() - expected.len()) as u64;
    assert_eq!(
        hidden["summary"]["info"].as_u64().unwrap() + notes,
        all["summary"]["info"].as_u64().unwrap()
    );
}
