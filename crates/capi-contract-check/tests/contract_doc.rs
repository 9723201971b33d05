//! `docs/contract.md` carries a table generated from the rule data; this test fails when the
//! two drift apart (`UPDATE_DOCS=1 cargo test -p capi-contract-check --test contract_doc` rewrites it).
#![allow(clippy::unwrap_used, clippy::panic)]

use std::path::PathBuf;

use capi_contract_check::rules::{AppliesTo, CheckedOn, RULES};

const BEGIN: &str = "<!-- BEGIN GENERATED RULES TABLE -->";
const END: &str = "<!-- END GENERATED RULES TABLE -->";

fn table() -> String {
    let mut out = String::from(
        "| Rule id | Level | Contracts | Applies to | Field | Type / shape | Read by | When absent or wrong | Checked on |\n|---|---|---|---|---|---|---|---|---|\n",
    );
    for r in RULES {
        let subject = match r.applies_to {
            AppliesTo::AllResources => "all resources",
            AppliesTo::InfraMachinePool => "InfraMachinePool CRD",
            AppliesTo::InfraMachinePoolTemplate => "InfraMachinePoolTemplate CRD",
            AppliesTo::Object => "InfraMachinePool objects",
            AppliesTo::InfraMachine => "InfraMachine (MachinePool Machines) CRD and objects",
            AppliesTo::ClusterClass => "ClusterClass objects",
            AppliesTo::Cluster => "Cluster objects (topology)",
        };
        let check = match r.checked_on {
            CheckedOn::Crd => "CRD",
            CheckedOn::Object => "objects (`--objects`)",
            CheckedOn::Inputs => "inputs (kustomizations)",
            CheckedOn::Behavioural => "not statically checkable",
            CheckedOn::Set => "inputs together (CRDs and `--objects`)",
        };
        out.push_str(&format!(
            "| [`{}`]({}) | {} | {} | {} | `{}` | {} | {} | {} | {} |\n",
            r.id,
            r.url(),
            r.level,
            r.contracts
                .list()
                .iter()
                .map(|c| c.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            subject,
            r.field.to_string().replace('|', "\\|"),
            r.shape().replace('|', "\\|"),
            r.read_by(),
            r.when_absent(),
            check
        ));
    }
    out
}

#[test]
fn contract_doc_table_matches_rule_data() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/contract.md");
    let doc = std::fs::read_to_string(&path).unwrap();
    let start = doc.find(BEGIN).expect("begin marker") + BEGIN.len();
    let end = doc.find(END).expect("end marker");
    let generated = format!("\n{}", table());
    if std::env::var_os("UPDATE_DOCS").is_some() {
        let updated = format!("{}{generated}{}", &doc[..start], &doc[end..]);
        std::fs::write(&path, updated).unwrap();
        return;
    }
    assert_eq!(
        &doc[start..end],
        generated,
        "docs/contract.md is out of date: run UPDATE_DOCS=1 cargo test -p capi-contract-check --test contract_doc"
    );
}
