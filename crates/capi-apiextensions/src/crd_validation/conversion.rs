//! `spec.conversion`: `validateCustomResourceConversion` and `validateConversionReviewVersions`
//! (`pkg/apis/apiextensions/validation/validation.go` lines 529-559 and 614-649), with
//! `ValidateWebhookURL` and `ValidateWebhookService` of `k8s.io/apiserver`
//! (`pkg/util/webhook/validation.go`).
//!
//! The server validates the internal form: `spec.conversion.webhook.clientConfig` is reported
//! as `spec.conversion.webhookClientConfig`, `spec.conversion.webhook.conversionReviewVersions`
//! as `spec.conversion.conversionReviewVersions`. A missing conversion defaults to `None`, a
//! missing service port to 443 (`pkg/apis/apiextensions/v1/defaults.go`). On create an invalid
//! `caBundle` is allowed (`allowInvalidCABundle`: the CRD is not established yet).

use serde_json::Value;

use crate::go_url::GoUrl;

use super::Refusals;
use super::spec::dns1035_problem;

const AT: &str = "spec.conversion";
const CLIENT: &str = "spec.conversion.webhookClientConfig";
const REVIEWS: &str = "spec.conversion.conversionReviewVersions";
const FORM: &str = "; desired format: https://host[/path]";

pub(super) fn validate(spec: &Value, r: &mut Refusals) {
    let conversion = &spec["conversion"];
    if conversion.is_null() {
        return;
    }
    let strategy = conversion["strategy"].as_str().unwrap_or_default();
    match strategy {
        "" => r.required(format!("{AT}.strategy"), ""),
        "None" | "Webhook" => {}
        other => r.not_supported(format!("{AT}.strategy"), other, &["None", "Webhook"]),
    }
    let client = &conversion["webhook"]["clientConfig"];
    let reviews = &conversion["webhook"]["conversionReviewVersions"];
    if strategy == "Webhook" {
        if client.is_null() {
            r.required(CLIENT, "required when strategy is set to Webhook");
        } else {
            let url = client["url"].as_str();
            let service = &client["service"];
            match (url, service.is_null()) {
                (None, true) | (Some(_), false) => {
                    r.required(CLIENT, "exactly one of url or service is required");
                }
                (Some(url), true) => webhook_url(url, r),
                (None, false) => webhook_service(service, r),
            }
        }
        review_versions(reviews, r);
    } else {
        if !client.is_null() {
            r.forbidden(
                CLIENT,
                "should not be set when strategy is not set to Webhook",
            );
        }
        if reviews.as_array().is_some_and(|a| !a.is_empty()) {
            r.forbidden(
                REVIEWS,
                "should not be set when strategy is not set to Webhook",
            );
        }
    }
}

/// `validateConversionReviewVersions` with `requireRecognizedVersion` (create).
fn review_versions(reviews: &Value, r: &mut Refusals) {
    let list: Vec<&str> = reviews
        .as_array()
        .map(|a| a.iter().map(|v| v.as_str().unwrap_or_default()).collect())
        .unwrap_or_default();
    if list.is_empty() {
        r.required(REVIEWS, "");
        return;
    }
    let mut seen = std::collections::BTreeSet::new();
    let mut accepted = false;
    for (i, v) in list.iter().enumerate() {
        let path = format!("{REVIEWS}[{i}]");
        if !seen.insert(*v) {
            r.invalid(path, *v, "duplicate version");
            continue;
        }
        if let Some(problem) = dns1035_problem(v) {
            r.invalid(&path, *v, &problem);
        }
        accepted |= matches!(*v, "v1" | "v1beta1");
    }
    if !accepted {
        r.invalid(REVIEWS, reviews, "must include at least one of v1, v1beta1");
    }
}

/// `ValidateWebhookURL(path, url, forceHttps=true)`, on the parts Go's `url.Parse` yields
/// ([`crate::go_url`]).
fn webhook_url(url: &str, r: &mut Refusals) {
    let path = format!("{CLIENT}.url");
    let u = match GoUrl::parse(url) {
        Ok(u) => u,
        Err(reason) => {
            r.required(path, format!("url must be a valid URL: {reason}{FORM}"));
            return;
        }
    };
    if u.scheme != "https" {
        r.invalid(
            &path,
            u.scheme,
            format!("'https' is the only allowed URL scheme{FORM}"),
        );
    }
    if u.host.is_empty() {
        r.invalid(&path, u.host, format!("host must be specified{FORM}"));
    }
    if let Some(user) = u.user {
        r.invalid(&path, user, "user information is not permitted in the URL");
    }
    if !u.fragment.is_empty() {
        r.invalid(&path, u.fragment, "fragments are not permitted in the URL");
    }
    if !u.query.is_empty() {
        r.invalid(
            &path,
            u.query,
            "query parameters are not permitted in the URL",
        );
    }
}

/// `ValidateWebhookService`.
fn webhook_service(service: &Value, r: &mut Refusals) {
    let at = format!("{CLIENT}.service");
    // validation.go line 637 passes the service's name and namespace in the opposite order
    // of `ValidateWebhookService(fldPath, namespace, name, ...)`: a missing namespace is
    // reported at `.name`, a missing name at `.namespace`. Reproduced so paths match.
    if service["namespace"].as_str().unwrap_or_default().is_empty() {
        r.required(format!("{at}.name"), "");
    }
    if service["name"].as_str().unwrap_or_default().is_empty() {
        r.required(format!("{at}.namespace"), "");
    }
    let port = service["port"].as_i64().unwrap_or(443);
    if !(1..=65535).contains(&port) {
        r.invalid(
            format!("{at}.port"),
            Value::from(port),
            "port is not valid: must be between 1 and 65535, inclusive",
        );
    }
    let Some(path) = service["path"].as_str() else {
        return;
    };
    if path == "/" || path.is_empty() {
        return;
    }
    let p = format!("{at}.path");
    if path == "//" {
        r.invalid(p, path, "segment[0] may not be empty");
        return;
    }
    if !path.starts_with('/') {
        r.invalid(&p, path, "must start with a '/'");
    }
    let mut check = path.get(1..).unwrap_or_default();
    check = check.strip_suffix('/').unwrap_or(check);
    for (i, step) in check.split('/').enumerate() {
        if step.is_empty() {
            r.invalid(&p, path, format!("segment[{i}] may not be empty"));
            continue;
        }
        // One error per message here (webhook/validation.go ranges over them).
        for failure in capi_machinepool_api::apimachinery::dns1123_subdomain_errors(step) {
            r.invalid(&p, path, format!("segment[{i}]: {failure}"));
        }
    }
}
