//! `apiextensions.k8s.io/v1` ConversionReview handling: a pure review -> review function.

use kube_core::Status;
use kube_core::conversion::{ConversionRequest, ConversionResponse, ConversionReview};
use serde_json::Value;

use crate::{ObjectConverter, error_chain};

/// The only ConversionReview apiVersion served.
pub const REVIEW_API_VERSION: &str = "apiextensions.k8s.io/v1";
/// The ConversionReview kind.
pub const REVIEW_KIND: &str = "ConversionReview";

fn describe(index: usize, object: &Value) -> String {
    let meta = &object["metadata"];
    let name = meta["name"].as_str().unwrap_or("<no name>");
    let api_version = object["apiVersion"].as_str().unwrap_or("<no apiVersion>");
    let kind = object["kind"].as_str().unwrap_or("<no kind>");
    match meta["namespace"].as_str() {
        Some(ns) => format!("object {index} ({kind} {ns}/{name}, {api_version})"),
        None => format!("object {index} ({kind} {name}, {api_version})"),
    }
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
    if review.types.api_version != REVIEW_API_VERSION || review.types.kind != REVIEW_KIND {
        let message = format!(
            "unsupported review {}/{}: expected {REVIEW_API_VERSION} {REVIEW_KIND}",
            review.types.api_version, review.types.kind
        );
        return ConversionResponse::invalid(Status::failure(&message, "BadRequest").with_code(400))
            .into_review();
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
    let desired = request.desired_api_version.clone();
    let objects = request.objects.clone();
    let response = ConversionResponse::for_request(request);
    let mut converted = Vec::with_capacity(objects.len());
    for (index, object) in objects.into_iter().enumerate() {
        let label = describe(index, &object);
        match converter.convert(object, &desired) {
            Ok(value) => converted.push(value),
            Err(e) => {
                let message = format!(
                    "failed to convert {label} to {desired}: {}",
                    error_chain(&e)
                );
                return response
                    .failure(Status::failure(&message, "ConversionFailed").with_code(422))
                    .into_review();
            }
        }
    }
    response.success(converted).into_review()
}

/// Like [`handle`], from and to JSON bytes. Undecodable input gives a `Failure` review.
#[must_use]
pub fn handle_json(converter: &dyn ObjectConverter, body: &[u8]) -> Vec<u8> {
    let review = match serde_json::from_slice::<ConversionReview>(body) {
        Ok(review) => handle(converter, review),
        Err(e) => {
            let message = format!("invalid ConversionReview: {e}");
            ConversionResponse::invalid(Status::failure(&message, "BadRequest").with_code(400))
                .into_review()
        }
    };
    // A ConversionReview of JSON values always serializes.
    serde_json::to_vec(&review).unwrap_or_default()
}
