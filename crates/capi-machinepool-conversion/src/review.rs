//! `apiextensions.k8s.io/v1` ConversionReview handling: a pure review -> review function.

use kube_core::Status;
use kube_core::conversion::{ConversionRequest, ConversionResponse, ConversionReview};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::{ObjectConverter, error_chain};

/// The only ConversionReview apiVersion served.
pub const REVIEW_API_VERSION: &str = "apiextensions.k8s.io/v1";
/// The ConversionReview kind.
pub const REVIEW_KIND: &str = "ConversionReview";

fn describe(index: usize, object: &Value) -> String {
    let meta = &object["metadata"];
    label(
        index,
        object["kind"].as_str(),
        object["apiVersion"].as_str(),
        meta["namespace"].as_str(),
        meta["name"].as_str(),
    )
}

fn label(
    index: usize,
    kind: Option<&str>,
    api_version: Option<&str>,
    namespace: Option<&str>,
    name: Option<&str>,
) -> String {
    let name = name.unwrap_or("<no name>");
    let api_version = api_version.unwrap_or("<no apiVersion>");
    let kind = kind.unwrap_or("<no kind>");
    match namespace {
        Some(ns) => format!("object {index} ({kind} {ns}/{name}, {api_version})"),
        None => format!("object {index} ({kind} {name}, {api_version})"),
    }
}

fn unsupported_review(api_version: &str, kind: &str) -> Option<ConversionReview> {
    if api_version == REVIEW_API_VERSION && kind == REVIEW_KIND {
        return None;
    }
    let message = format!(
        "unsupported review {api_version}/{kind}: expected {REVIEW_API_VERSION} {REVIEW_KIND}"
    );
    Some(
        ConversionResponse::invalid(Status::failure(&message, "BadRequest").with_code(400))
            .into_review(),
    )
}

fn conversion_failure(
    response: ConversionResponse,
    label: &str,
    desired: &str,
    e: &crate::ConversionError,
) -> ConversionReview {
    let message = format!("failed to convert {label} to {desired}: {}", error_chain(e));
    response
        .failure(Status::failure(&message, "ConversionFailed").with_code(422))
        .into_review()
}

/// Converts every object of the request to `desiredAPIVersion`.
///
/// The response echoes the request uid and either `Success` with the converted objects in
/// request order, or `Failure` (no objects) whose message names the first failing object. A
/// review without a request, or of another apiVersion/kind, gets a `Failure` with an empty uid.
///
/// ```
/// use capi_machinepool_api::{v1beta1, v1beta2};
/// use capi_machinepool_conversion::{HubSpokeConverter, StaticResolver, review};
/// let resolver = StaticResolver::new();
/// let converter = HubSpokeConverter::<v1beta2::MachinePool>::new(&resolver).with_spoke::<v1beta1::MachinePool>();
/// let request = serde_json::from_value(serde_json::json!({
///     "apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
///     "request": {"uid": "u1", "desiredAPIVersion": "cluster.x-k8s.io/v1beta2", "objects": []}
/// })).unwrap();
/// let response = review::handle(&converter, request).response.unwrap();
/// assert_eq!(response.uid, "u1");
/// assert!(response.result.is_success());
/// ```
#[must_use]
pub fn handle(converter: &dyn ObjectConverter, review: ConversionReview) -> ConversionReview {
    if let Some(rejected) = unsupported_review(&review.types.api_version, &review.types.kind) {
        return rejected;
    }
    let request = match ConversionRequest::from_review(review) {
        Ok(request) => request,
        Err(e) => {
            return ConversionResponse::invalid(
                Status::failure(&e.to_string(), "BadRequest").with_code(400),
            )
            .into_review();
        }
    };
    let mut request = request;
    let desired = request.desired_api_version.clone();
    let objects = std::mem::take(&mut request.objects);
    let response = ConversionResponse::for_request(request);
    let mut converted = Vec::with_capacity(objects.len());
    for (index, object) in objects.into_iter().enumerate() {
        let label = describe(index, &object);
        match converter.convert(object, &desired) {
            Ok(value) => converted.push(value),
            Err(e) => return conversion_failure(response, &label, &desired, &e),
        }
    }
    response.success(converted).into_review()
}

#[derive(serde::Deserialize)]
struct RawReview<'a> {
    #[serde(rename = "apiVersion", default)]
    api_version: String,
    #[serde(default)]
    kind: String,
    #[serde(borrow, default)]
    request: Option<RawRequest<'a>>,
}

#[derive(serde::Deserialize)]
struct RawRequest<'a> {
    uid: String,
    #[serde(rename = "desiredAPIVersion")]
    desired_api_version: String,
    #[serde(borrow)]
    objects: Vec<&'a RawValue>,
}

#[derive(serde::Deserialize, Default)]
struct Probe<'a> {
    #[serde(rename = "apiVersion", borrow, default)]
    api_version: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow, default)]
    kind: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow, default)]
    metadata: Option<ProbeMeta<'a>>,
}

#[derive(serde::Deserialize, Default)]
struct ProbeMeta<'a> {
    #[serde(borrow, default)]
    name: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow, default)]
    namespace: Option<std::borrow::Cow<'a, str>>,
}

fn describe_json(index: usize, object: &str) -> String {
    let p: Probe<'_> = serde_json::from_str(object).unwrap_or_default();
    let meta = p.metadata.unwrap_or_default();
    label(
        index,
        p.kind.as_deref(),
        p.api_version.as_deref(),
        meta.namespace.as_deref(),
        meta.name.as_deref(),
    )
}

fn to_bytes(review: &ConversionReview) -> Vec<u8> {
    // A ConversionReview of JSON values always serializes.
    serde_json::to_vec(review).unwrap_or_default()
}

fn invalid(message: &str) -> Vec<u8> {
    to_bytes(
        &ConversionResponse::invalid(Status::failure(message, "BadRequest").with_code(400))
            .into_review(),
    )
}

/// Like [`handle`], from and to JSON bytes, with the same responses. Objects are decoded into
/// the typed versions and encoded back directly (no intermediate `serde_json::Value`), so the
/// cost stays close to parsing and printing the review once. Undecodable input gives a
/// `Failure` review.
#[must_use]
pub fn handle_json(converter: &dyn ObjectConverter, body: &[u8]) -> Vec<u8> {
    handle_json_with_status(converter, body).1
}

/// [`handle_json`] with the HTTP status a webhook should answer with: 400 when the body is not
/// a readable `apiextensions.k8s.io/v1` ConversionReview with a request, else 200 (conversion
/// failures are reported inside the review, as the API server expects).
#[must_use]
pub fn handle_json_with_status(converter: &dyn ObjectConverter, body: &[u8]) -> (u16, Vec<u8>) {
    let raw: RawReview<'_> = match serde_json::from_slice(body) {
        Ok(raw) => raw,
        Err(e) => return (400, invalid(&format!("invalid ConversionReview: {e}"))),
    };
    if let Some(rejected) = unsupported_review(&raw.api_version, &raw.kind) {
        return (400, to_bytes(&rejected));
    }
    let Some(request) = raw.request else {
        return (400, invalid("request missing in ConversionReview"));
    };
    (
        200,
        convert_request(converter, raw.api_version, raw.kind, request),
    )
}

fn convert_request(
    converter: &dyn ObjectConverter,
    api_version: String,
    kind: String,
    request: RawRequest<'_>,
) -> Vec<u8> {
    let RawRequest {
        uid,
        desired_api_version: desired,
        objects,
    } = request;
    let response = ConversionResponse::for_request(ConversionRequest {
        types: Some(kube_core::TypeMeta { api_version, kind }),
        uid,
        desired_api_version: desired.clone(),
        objects: Vec::new(),
    });
    let mut converted = Vec::with_capacity(objects.len());
    for (index, object) in objects.iter().enumerate() {
        match converter.convert_json(object.get(), &desired) {
            Ok(json) => converted.push(json),
            Err(e) => {
                return to_bytes(&conversion_failure(
                    response,
                    &describe_json(index, object.get()),
                    &desired,
                    &e,
                ));
            }
        }
    }
    // The envelope is printed by kube-core (so it is byte-identical to `handle`'s), then the
    // converted objects are spliced into its empty `convertedObjects` list.
    let envelope = to_bytes(&response.success(Vec::new()).into_review());
    let marker = b"\"convertedObjects\":[]";
    let Some(at) = envelope.windows(marker.len()).rposition(|w| w == marker) else {
        return envelope;
    };
    let total: usize = converted.iter().map(|c| c.len() + 1).sum();
    let mut out = Vec::with_capacity(envelope.len() + total);
    out.extend_from_slice(&envelope[..at + marker.len() - 1]);
    for (i, json) in converted.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(json.as_bytes());
    }
    out.extend_from_slice(&envelope[at + marker.len() - 1..]);
    out
}
