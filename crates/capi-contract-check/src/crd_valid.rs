//! The `crd-valid` rule: what the API server itself refuses in a CRD, checked before any
//! contract rule, so that `check` never passes a CRD that `kubectl apply` would reject.
//!
//! An adapter: the model is `capi-apiextensions` ([`crd_validity`]), or a real API server
//! when a [`CrdJudge`] is given; this module turns their verdicts into `crd-valid` findings.
//! What the model does not judge is never called accepted: `crd-valid` then says what was not
//! judged (INFO, or FAIL with [`CheckOptions::require_judged`]), and the report counts it
//! (`Report::unjudged`, the summary line).
//!
//! ```
//! use capi_contract_check::{CheckOptions, Checker, CrdJudge, ServerCause, ServerVerdict};
//! use serde_json::Value;
//!
//! #[derive(Debug)]
//! struct RefuseEverything;
//! impl CrdJudge for RefuseEverything {
//!     fn server(&self) -> String {
//!         "a test server".into()
//!     }
//!     fn judge(&self, _crd: &Value) -> ServerVerdict {
//!         ServerVerdict::Refused {
//!             message: "refused".into(),
//!             causes: vec![ServerCause {
//!                 field: "spec.group".into(),
//!                 message: "Invalid value: \"x\": should be a domain with at least one dot".into(),
//!             }],
//!         }
//!     }
//! }
//!
//! let mut checker = Checker::new(CheckOptions::default()).with_crd_judge(RefuseEverything);
//! checker.add_crd(&serde_json::json!({
//!     "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
//!     "metadata": {"name": "foomachinepools.x"},
//!     "spec": {"group": "x", "scope": "Namespaced",
//!         "names": {"kind": "FooMachinePool", "plural": "foomachinepools"}, "versions": []}
//! }).into());
//! let report = checker.finish();
//! let refusal = report.findings_of("crd-valid")[0];
//! assert_eq!(refusal.path, "spec.group");
//! assert!(refusal.message.starts_with("a test server refuses it: Invalid value"));
//! ```

use std::sync::Arc;

use capi_apiextensions::{CrdJudge, ServerVerdict, crd_validity};
use capi_contract::Contract;
use serde_json::Value;

use crate::input::CheckOptions;
use crate::report::{Outcome, Report, Subject};
use crate::rules;
use crate::skipped::Unjudged;

/// Where `docs/crd-validation.md` lists the rules (named in messages).
const TABLE: &str = "docs/crd-validation.md";

/// Checks the CRD `crd` as the API server validates it on create: with a `judge`, the server's
/// own verdict; else one `crd-valid` finding for each refusal the model finds, and what it did
/// not judge.
pub(crate) fn check_crd_valid(
    report: &mut Report,
    subject: &Arc<Subject>,
    contract: Contract,
    crd: &Value,
    judge: Option<&dyn CrdJudge>,
    opts: &CheckOptions,
) {
    let unjudged = if opts.require_judged {
        Outcome::Fail
    } else {
        Outcome::Info
    };
    if let Some(judge) = judge {
        server_verdict(report, subject, contract, crd, judge, unjudged);
        return;
    }
    let verdict = crd_validity(crd);
    for refusal in &verdict.refusals {
        report
            .check(&rules::CRD_VALID, subject, contract, refusal.field())
            .fail(
                refusal.message(),
                "the API server refuses this CRD: fix the field (see `kubectl apply --dry-run=server`)",
            );
    }
    if !verdict.not_judged.is_empty() {
        for (what, count) in &verdict.not_judged {
            report.unjudged.push(Unjudged {
                crd: subject.to_string(),
                what: what.clone(),
                count: *count,
            });
        }
        report
            .check(&rules::CRD_VALID, subject, contract, "spec")
            .outcome(
                unjudged,
                format!(
                    "not judged here: {}; {}",
                    verdict.not_judged_summary(),
                    if verdict.refusals.is_empty() {
                        "the rules judged here find nothing to refuse"
                    } else {
                        "the API server may refuse more than the failures above"
                    }
                ),
                "`capi-machinepool check --server` has the API server judge them (a dry-run create, nothing stored)",
            );
    } else if verdict.refusals.is_empty() {
        report
            .check(&rules::CRD_VALID, subject, contract, "spec")
            .pass(format!(
                "every rule of the API server's CRD validation modelled here ({TABLE}) holds; nothing left unjudged"
            ));
    }
}

/// The server's answer, cause by cause.
fn server_verdict(
    report: &mut Report,
    subject: &Arc<Subject>,
    contract: Contract,
    crd: &Value,
    judge: &dyn CrdJudge,
    unjudged: Outcome,
) {
    let server = judge.server();
    match judge.judge(crd) {
        ServerVerdict::Accepted => report
            .check(&rules::CRD_VALID, subject, contract, "spec")
            .pass(format!("{server} accepts it (server-side dry run)")),
        ServerVerdict::Refused { message, causes } if causes.is_empty() => report
            .check(&rules::CRD_VALID, subject, contract, "spec")
            .fail(
                format!("{server} refuses it: {message}"),
                "fix what the server names (`kubectl apply --dry-run=server` shows the same)",
            ),
        ServerVerdict::Refused { causes, .. } => {
            for cause in causes {
                let path = if cause.field.is_empty() {
                    "spec".to_owned()
                } else {
                    cause.field
                };
                report
                    .check(&rules::CRD_VALID, subject, contract, path)
                    .fail(
                        format!("{server} refuses it: {}", cause.message),
                        "fix the field the server names",
                    );
            }
        }
        ServerVerdict::NotJudged { reason } => {
            report.unjudged.push(Unjudged {
                crd: subject.to_string(),
                what: "verdicts of the API server".to_owned(),
                count: 1,
            });
            report
                .check(&rules::CRD_VALID, subject, contract, "spec")
                .outcome(
                    unjudged,
                    format!("not judged: {server} gave no verdict ({reason})"),
                    "make the server reachable, and allow a dry-run create of CustomResourceDefinitions",
                );
        }
    }
}
