//! `apiextensions.k8s.io/v1` ConversionReview handling: a pure review -> review function.
//!
//! [`handle_bytes`] is the one implementation. A body laid out as the API server sends it is
//! read in one pass: the envelope by hand, each object by the decode that converts it and
//! prints it straight into the response body ([`ObjectConverter::convert_leading_into`]),
//! after an envelope written as the derived response struct prints it. Any other body is read
//! the general way, whose answer the one pass gives whenever it gives one: the body read with
//! its objects kept as JSON text ([`RawValue`]), each object then converted on the
//! converter's one data path ([`ObjectConverter::convert_read_into`]).
//! A review that fails is answered from the derived struct, with no objects. [`handle`]
//! (kube-core's `ConversionReview` types) is a thin wrapper over it.

use std::borrow::Cow;

use capi_diagnostics::excerpt::Excerpt;
use capi_machinepool_api::wire;
use kube_core::Status;
use kube_core::conversion::ConversionReview;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use capi_diagnostics::error_chain;

use crate::{ConversionError, ObjectConverter, TypeMetaRef};

mod single_pass;

/// The only ConversionReview apiVersion served.
pub const REVIEW_API_VERSION: &str = "apiextensions.k8s.io/v1";
/// The ConversionReview kind.
pub const REVIEW_KIND: &str = "ConversionReview";

/// A response to a ConversionReview request: the HTTP status a webhook answers with and the
/// body (a JSON ConversionReview).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Response {
    /// 200 when the body is a ConversionReview answering the request (its `result` says
    /// whether conversion succeeded); 400 when the request could not be read; 500 when the
    /// response could not be printed.
    pub status: u16,
    /// The response body.
    pub body: Vec<u8>,
    /// Why the review failed, as its `result` says (`None` on success): what a webhook logs
    /// so that an operator can tell why the API server sees a failure.
    pub failure: Option<Failure>,
}

/// A failed review's `result`: its reason, code and message (which names the object that
/// failed: `failed to convert object 0 (MachinePool ns/name, apiVersion) to ...`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// `result.reason` (`ConversionFailed`, `BadRequest`, `InternalError`).
    pub reason: String,
    /// `result.code`.
    pub code: u16,
    /// `result.message`.
    pub message: String,
}

#[derive(Deserialize)]
struct ReviewIn<'a> {
    #[serde(rename = "apiVersion", borrow, default)]
    api_version: Cow<'a, str>,
    #[serde(borrow, default)]
    kind: Cow<'a, str>,
    #[serde(borrow, default)]
    request: Option<RequestIn<'a>>,
}

#[derive(Deserialize)]
struct RequestIn<'a> {
    uid: String,
    #[serde(rename = "desiredAPIVersion")]
    desired_api_version: String,
    #[serde(borrow)]
    objects: Vec<&'a RawValue>,
}

#[derive(Serialize)]
struct ReviewOut<'a> {
    #[serde(rename = "apiVersion")]
    api_version: &'a str,
    kind: &'a str,
    response: ResponseOut,
}

#[derive(Serialize)]
struct ResponseOut {
    uid: String,
    result: Status,
    #[serde(rename = "convertedObjects")]
    converted_objects: Vec<Box<RawValue>>,
}

/// Prints a response review; a print failure (never expected: strings and pre-printed JSON
/// only) is a 500 with a fixed body, never an empty one.
fn respond(status: u16, uid: String, result: Status, converted: Vec<Box<RawValue>>) -> Response {
    // The printed objects, their commas, and room for the envelope and the message.
    let size = converted.iter().map(|o| o.get().len() + 1).sum::<usize>()
        + uid.len()
        + result.message.len()
        + 512;
    let review = ReviewOut {
        api_version: REVIEW_API_VERSION,
        kind: REVIEW_KIND,
        response: ResponseOut {
            uid,
            result,
            converted_objects: converted,
        },
    };
    let failure = review.response.result.is_failure().then(|| Failure {
        reason: review.response.result.reason.clone(),
        code: review.response.result.code,
        message: review.response.result.message.clone(),
    });
    match wire::to_vec_with_capacity(&review, size) {
        Ok(body) => Response {
            status,
            body,
            failure,
        },
        Err(_) => Response {
            failure: Some(Failure {
                reason: "InternalError".to_owned(),
                code: 500,
                message: "the conversion response could not be printed".to_owned(),
            }),
            status: 500,
            body: br#"{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","response":{"uid":"","result":{"status":"Failure","message":"the conversion response could not be printed","reason":"InternalError","code":500},"convertedObjects":[]}}"#.to_vec(),
        },
    }
}

fn bad_request(message: &str) -> Response {
    respond(
        400,
        String::new(),
        Status::failure(message, "BadRequest").with_code(400),
        Vec::new(),
    )
}

/// `object 3 (MachinePool default/mp, cluster.x-k8s.io/v1beta1)`, read from the object's text.
fn describe(index: usize, object: &RawValue) -> String {
    #[derive(Deserialize, Default)]
    struct Probe<'a> {
        #[serde(rename = "apiVersion", borrow, default)]
        api_version: Option<Cow<'a, str>>,
        #[serde(borrow, default)]
        kind: Option<Cow<'a, str>>,
        #[serde(borrow, default)]
        metadata: Option<ProbeMeta<'a>>,
    }
    #[derive(Deserialize, Default)]
    struct ProbeMeta<'a> {
        #[serde(borrow, default)]
        name: Option<Cow<'a, str>>,
        #[serde(borrow, default)]
        namespace: Option<Cow<'a, str>>,
    }
    let p: Probe<'_> = serde_json::from_str(object.get()).unwrap_or_default();
    let meta = p.metadata.unwrap_or_default();
    let text = |v: Option<&str>, missing: &'static str| -> String {
        v.map_or_else(|| missing.to_owned(), |v| Excerpt::new(v).to_string())
    };
    let name = text(meta.name.as_deref(), "<no name>");
    let api_version = text(p.api_version.as_deref(), "<no apiVersion>");
    let kind = text(p.kind.as_deref(), "<no kind>");
    match meta.namespace.as_deref() {
        Some(ns) => format!(
            "object {index} ({kind} {}/{name}, {api_version})",
            Excerpt::new(ns)
        ),
        None => format!("object {index} ({kind} {name}, {api_version})"),
    }
}

/// Answers a ConversionReview given as JSON bytes.
///
/// The response echoes the request uid and either `Success` with every object converted, in
/// request order, or, when an object fails to convert, HTTP status 200 with a review whose
/// `result` has status `Failure` and code 422 (no objects) and whose message names the first
/// object that failed (the API server reads the outcome from the review). A body that is not
/// a readable `apiextensions.k8s.io/v1` ConversionReview with a request gets a `Failure`
/// (code 400, empty uid) and HTTP status 400.
///
/// A review in the API server's layout is read in one pass (see the module documentation);
/// any other body is read the general way, whose answer the one pass always gives.
///
/// ```
/// use capi_machinepool_api::{v1beta1, v1beta2};
/// use capi_machinepool_conversion::{HubSpokeConverter, StaticResolver, review};
/// let converter = HubSpokeConverter::<v1beta2::MachinePool>::new(StaticResolver::new())
///     .with_spoke::<v1beta1::MachinePool>();
/// let body = br#"{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview",
///   "request":{"uid":"u1","desiredAPIVersion":"cluster.x-k8s.io/v1beta2","objects":[]}}"#;
/// let response = review::handle_bytes(&converter, body);
/// assert_eq!(response.status, 200);
/// assert_eq!(std::str::from_utf8(&response.body).unwrap(),
///   r#"{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","response":{"uid":"u1","result":{"status":"Success"},"convertedObjects":[]}}"#);
/// ```
#[must_use]
pub fn handle_bytes(converter: &dyn ObjectConverter, body: &[u8]) -> Response {
    handle_bytes_within(converter, body, usize::MAX)
}

/// Room in a response for everything but the converted objects: the envelope, the uid and a
/// failure message.
const ENVELOPE_BYTES: usize = 1024;

/// [`handle_bytes`] with the response body bounded by `max_response_bytes`.
///
/// A review whose response would be larger is answered as the Kubernetes conversion
/// contract answers a conversion that cannot be done: HTTP 200 and a ConversionReview whose
/// `response.result` has `status: Failure`, `code: 422` and a message naming the limit (no
/// objects). The response is never built whole: each object is converted within the room
/// left ([`wire::with_output_limit`]: every print of the conversion stops at that room, the
/// conversion-data annotation's too), and the first object that does not fit ends the review.
///
/// ```
/// use capi_machinepool_api::{v1beta1, v1beta2};
/// use capi_machinepool_conversion::{HubSpokeConverter, StaticResolver, review};
/// let converter = HubSpokeConverter::<v1beta2::MachinePool>::new(StaticResolver::new())
///     .with_spoke::<v1beta1::MachinePool>();
/// let body = format!(r#"{{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview",
///   "request":{{"uid":"u1","desiredAPIVersion":"cluster.x-k8s.io/v1beta1","objects":[
///   {{"apiVersion":"cluster.x-k8s.io/v1beta2","kind":"MachinePool","spec":{{"clusterName":"{}"}}}}]}}}}"#,
///   "<".repeat(2000));
/// let response = review::handle_bytes_within(&converter, body.as_bytes(), 16 * 1024);
/// assert_eq!(response.status, 200);
/// let text = std::str::from_utf8(&response.body).unwrap();
/// assert!(text.contains(r#""status":"Failure""#) && text.contains(r#""code":422"#));
/// assert!(text.contains("16384 bytes"));
/// ```
#[must_use]
pub fn handle_bytes_within(
    converter: &dyn ObjectConverter,
    body: &[u8],
    max_response_bytes: usize,
) -> Response {
    // A body that is UTF-8 throughout (every request the API server sends) is read as text:
    // in one pass when it is laid out as the API server sends it ([`single_pass`], which
    // answers only where its answer is `two_reads`'s), else by `two_reads`.
    let text = std::str::from_utf8(body).ok();
    if let Some(text) = text
        && let Some(response) = single_pass::answer(converter, text, max_response_bytes)
    {
        return response;
    }
    two_reads(converter, body, text, max_response_bytes)
}

/// [`handle_bytes_within`] the general way: the review read with its objects as JSON text
/// ([`RawValue`]), then each object converted from its text. `text` is `body` when it is
/// UTF-8 throughout.
fn two_reads(
    converter: &dyn ObjectConverter,
    body: &[u8],
    text: Option<&str>,
    max_response_bytes: usize,
) -> Response {
    // Text is read as text, whose objects are then not checked as UTF-8 again one by one (the
    // two readers give the same answers on text); any other body is read as bytes, which
    // answers with the parser's own error, or reads it when the bytes that are not UTF-8 lie
    // in a member the parser skips (`bodies_that_are_not_utf8_are_read_as_bytes`).
    let read = match text {
        Some(text) => serde_json::from_str(text),
        None => serde_json::from_slice(body),
    };
    let review: ReviewIn<'_> = match read {
        Ok(review) => review,
        Err(e) => {
            let message = e.to_string();
            return bad_request(&format!(
                "invalid ConversionReview: {}",
                Excerpt::with_max_chars(&message, 200)
            ));
        }
    };
    if review.api_version != REVIEW_API_VERSION || review.kind != REVIEW_KIND {
        return bad_request(&format!(
            "unsupported review {}/{}: expected {REVIEW_API_VERSION} {REVIEW_KIND}",
            Excerpt::new(&review.api_version),
            Excerpt::new(&review.kind)
        ));
    }
    let Some(request) = review.request else {
        return bad_request("request missing in ConversionReview");
    };
    let desired = &request.desired_api_version;
    let count = request.objects.len();
    // The body is the successful answer, printed as the objects are converted; a failure
    // drops it and answers with no objects.
    let mut out = match success_prefix(&request.uid, body.len(), max_response_bytes) {
        Ok(out) => out,
        Err(failure) => return failure,
    };
    let mut size = ENVELOPE_BYTES.saturating_add(request.uid.len());
    for (index, object) in request.objects.iter().enumerate() {
        if index > 0 {
            out.push(b',');
        }
        let start = out.len();
        let room = max_response_bytes.saturating_sub(size);
        let outcome = wire::with_output_limit(room, || {
            TypeMetaRef::read(object).and_then(|type_meta| {
                converter.convert_read_into(object, &type_meta, desired, &mut out)
            })
        });
        let printed = out.len() - start;
        match outcome {
            Ok(Ok(())) if printed < room => size += printed + 1,
            Ok(Ok(())) | Err(_) => {
                drop(out);
                return respond(
                    200,
                    request.uid,
                    too_large(max_response_bytes, index, count),
                    Vec::new(),
                );
            }
            Ok(Err(e)) => {
                return respond(
                    200,
                    request.uid,
                    conversion_failure(&describe(index, object), desired, &e),
                    Vec::new(),
                );
            }
        }
    }
    out.extend_from_slice(b"]}}");
    Response {
        status: 200,
        body: out,
        failure: None,
    }
}

/// A response up to its uid, as [`respond`] prints it.
const RESPONSE_HEAD: &[u8] =
    br#"{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","response":{"uid":"#;

/// `Status::success()` as [`respond`] prints it (a unit test holds the two to the same bytes):
/// a constant, not printed through serde for every review.
const SUCCESS_RESULT: &[u8] = br#"{"status":"Success"}"#;

/// The start of a successful response, up to the opening of `convertedObjects`, in a buffer
/// with room for about as many bytes as the request had (capped at the response limit).
/// Printed as [`respond`] prints it (a unit test holds the two to the same bytes).
fn success_prefix(
    uid: &str,
    request_bytes: usize,
    max_response_bytes: usize,
) -> Result<Vec<u8>, Response> {
    let capacity = request_bytes
        .saturating_add(request_bytes / 8)
        .saturating_add(ENVELOPE_BYTES)
        .min(max_response_bytes.saturating_add(ENVELOPE_BYTES));
    let mut out = Vec::with_capacity(capacity);
    out.extend_from_slice(RESPONSE_HEAD);
    match wire::append_to_vec(&mut out, uid) {
        Ok(()) => {
            out.extend_from_slice(br#","result":"#);
            out.extend_from_slice(SUCCESS_RESULT);
            out.extend_from_slice(br#","convertedObjects":["#);
            Ok(out)
        }
        Err(_) => Err(respond(
            500,
            String::new(),
            Status::failure(
                "the conversion response could not be printed",
                "InternalError",
            )
            .with_code(500),
            Vec::new(),
        )),
    }
}

/// The failure of a review whose response would pass `max` bytes at object `index`.
fn too_large(max: usize, index: usize, count: usize) -> Status {
    let message = format!(
        "the converted objects would exceed the webhook's response limit of {max} bytes \
         (reached at object {index} of {count}); the review was not converted"
    );
    Status::failure(&message, "ConversionFailed").with_code(422)
}

fn conversion_failure(label: &str, desired: &str, e: &ConversionError) -> Status {
    let message = format!(
        "failed to convert {label} to {}: {}",
        Excerpt::new(desired),
        error_chain(e)
    );
    Status::failure(&message, "ConversionFailed").with_code(422)
}

/// [`handle_bytes`] for kube-core's `ConversionReview` type (printed, answered, parsed back).
///
/// ```
/// use capi_machinepool_api::{v1beta1, v1beta2};
/// use capi_machinepool_conversion::{HubSpokeConverter, StaticResolver, review};
/// let converter = HubSpokeConverter::<v1beta2::MachinePool>::new(StaticResolver::new())
///     .with_spoke::<v1beta1::MachinePool>();
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
    let answer = serde_json::to_vec(&review)
        .map(|body| handle_bytes(converter, &body))
        .and_then(|response| serde_json::from_slice(&response.body));
    answer.unwrap_or_else(|e| {
        kube_core::conversion::ConversionResponse::invalid(
            Status::failure(&format!("cannot answer the review: {e}"), "InternalError")
                .with_code(500),
        )
        .into_review()
    })
}

#[cfg(test)]
mod tests {
    use capi_machinepool_api::{v1beta1, v1beta2};

    use super::*;
    use crate::{HubSpokeConverter, StaticResolver};

    fn converter() -> HubSpokeConverter<v1beta2::MachinePool> {
        let resolver = StaticResolver::new()
            .with(
                "infrastructure.cluster.x-k8s.io",
                "K",
                "infrastructure.cluster.x-k8s.io/v1beta1",
            )
            .with(
                "infrastructure.cluster.x-k8s.io",
                "DockerMachinePool",
                "infrastructure.cluster.x-k8s.io/v1beta2",
            )
            .with(
                "bootstrap.cluster.x-k8s.io",
                "KubeadmConfig",
                "bootstrap.cluster.x-k8s.io/v1beta2",
            );
        HubSpokeConverter::<v1beta2::MachinePool>::new(resolver)
            .with_spoke::<v1beta1::MachinePool>()
    }

    fn review(uid: &str, desired: &str, objects: &[&str]) -> String {
        format!(
            r#"{{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{{"uid":{},"desiredAPIVersion":"{desired}","objects":[{}]}}}}"#,
            serde_json::to_string(uid).unwrap(),
            objects.join(",")
        )
    }

    /// The every-field fixtures of both versions as JSON text.
    fn every_field_fixtures() -> [String; 2] {
        [
            include_str!("../../../tests/fixtures/conversion/v1beta1-every-field.yaml"),
            include_str!("../../../tests/fixtures/conversion/v1beta2-every-field.yaml"),
        ]
        .map(|yaml| {
            let value: serde_json::Value = serde_saphyr::from_str(yaml).unwrap();
            serde_json::to_string(&value).unwrap()
        })
    }

    /// The response printed as the objects are converted is, byte for byte, the derived
    /// struct [`respond`] prints from the objects [`ObjectConverter::convert`] returns: uids
    /// and objects with characters Go escapes, objects left unchanged (kept as sent), both
    /// directions, none and several objects.
    #[test]
    fn the_streamed_response_is_the_derived_one() {
        let v1beta1 = r#"{"apiVersion":"cluster.x-k8s.io/v1beta1","kind":"MachinePool","metadata":{"name":"a<b","annotations":{"x":"\u2028&"}},"spec":{"clusterName":"c","template":{"spec":{"clusterName":"c","bootstrap":{"dataSecretName":"s"},"infrastructureRef":{"apiVersion":"infrastructure.cluster.x-k8s.io/v1beta1","kind":"K","name":"n"}}}}}"#;
        let v1beta2 = r#"{"apiVersion":"cluster.x-k8s.io/v1beta2","kind":"MachinePool","metadata":{"name":"m"},"spec":{"clusterName":"c>","template":{"spec":{"clusterName":"c","bootstrap":{"dataSecretName":"s"},"infrastructureRef":{"apiGroup":"infrastructure.cluster.x-k8s.io","kind":"K","name":"n"}}}}}"#;
        let unchanged = r#"{ "kind" : "MachinePool", "apiVersion":"cluster.x-k8s.io/v1beta2", "spec":{"clusterName":"raw < \u2028 kept"}}"#;
        let fixtures = every_field_fixtures();
        let converter = converter();
        let cases: [(&str, &str, Vec<&str>); 6] = [
            ("u1", "cluster.x-k8s.io/v1beta2", vec![]),
            (
                "u<2>&",
                "cluster.x-k8s.io/v1beta2",
                vec![v1beta1, unchanged, &fixtures[0]],
            ),
            (
                "u3",
                "cluster.x-k8s.io/v1beta1",
                vec![v1beta2, unchanged, &fixtures[1], v1beta1],
            ),
            ("u\u{2028}", "cluster.x-k8s.io/v1beta1", vec![&fixtures[1]]),
            (
                "",
                "cluster.x-k8s.io/v1beta2",
                vec![&fixtures[0], &fixtures[0]],
            ),
            ("u6", "cluster.x-k8s.io/v1beta2", vec![unchanged]),
        ];
        for (uid, desired, objects) in cases {
            let body = review(uid, desired, &objects);
            let streamed = handle_bytes(&converter, body.as_bytes());
            let converted = objects
                .iter()
                .map(|o| {
                    let raw: &RawValue = serde_json::from_str(o).unwrap();
                    converter.convert(raw, desired).unwrap()
                })
                .collect();
            let derived = respond(200, uid.to_owned(), Status::success(), converted);
            assert_eq!(
                String::from_utf8(streamed.body).unwrap(),
                String::from_utf8(derived.body).unwrap(),
                "{uid}"
            );
            assert_eq!(streamed.status, 200);
        }
    }

    /// Bodies that are not UTF-8 throughout are read as bytes, as before the text reader:
    /// a byte that is not UTF-8 in a member the parser skips is read past (the review is
    /// answered), one in an object, in the uid or after the review is the parser's error.
    #[test]
    fn bodies_that_are_not_utf8_are_read_as_bytes() {
        let converter = converter();
        let envelope =
            br#"{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"#;
        let body = |rest: &[u8]| [&envelope[..], rest].concat();
        let skipped = body(b"\"x\":\"\xff\",\"uid\":\"u\",\"desiredAPIVersion\":\"cluster.x-k8s.io/v1beta2\",\"objects\":[]}}");
        let answer = handle_bytes(&converter, &skipped);
        let text = String::from_utf8(answer.body).unwrap();
        assert_eq!(answer.status, 200, "{text}");
        assert!(text.contains(r#""status":"Success""#), "{text}");
        for (rest, error) in [
            (
                &b"\"uid\":\"u\",\"desiredAPIVersion\":\"cluster.x-k8s.io/v1beta2\",\"objects\":[{\"k\":\"\xff\"}]}}"[..],
                "invalid unicode code point",
            ),
            (
                b"\"uid\":\"\xff\",\"desiredAPIVersion\":\"cluster.x-k8s.io/v1beta2\",\"objects\":[]}}",
                "invalid unicode code point",
            ),
            (
                b"\"uid\":\"u\",\"desiredAPIVersion\":\"cluster.x-k8s.io/v1beta2\",\"objects\":[]}}\xff",
                "trailing characters",
            ),
        ] {
            let answer = handle_bytes(&converter, &body(rest));
            let text = String::from_utf8(answer.body).unwrap();
            assert_eq!(answer.status, 400, "{text}");
            assert!(text.contains(error), "{text}");
        }
    }

    /// The general reading of `body` (the reference the one pass is held to).
    fn general(converter: &dyn ObjectConverter, body: &[u8], max: usize) -> Response {
        two_reads(converter, body, std::str::from_utf8(body).ok(), max)
    }

    /// A converter written elsewhere: only the required methods, so that the one-pass
    /// reading takes the trait's default `convert_leading_into`.
    struct Elsewhere(HubSpokeConverter<v1beta2::MachinePool>);

    impl ObjectConverter for Elsewhere {
        fn group_kinds(&self) -> Vec<(String, String)> {
            self.0.group_kinds()
        }

        fn api_versions(&self) -> Vec<String> {
            self.0.api_versions()
        }

        fn convert_read(
            &self,
            object: &RawValue,
            type_meta: &TypeMetaRef<'_>,
            desired: &str,
        ) -> Result<Box<RawValue>, ConversionError> {
            self.0.convert_read(object, type_meta, desired)
        }
    }

    /// The converters the one-pass reading is checked with: the hub-and-spoke one, a set
    /// holding it, and one written elsewhere.
    fn converters() -> [Box<dyn ObjectConverter>; 3] {
        [
            Box::new(converter()),
            Box::new(crate::ConverterSet::new().with(converter())),
            Box::new(Elsewhere(converter())),
        ]
    }

    /// Objects of every kind the one-pass reading meets: converted both ways, returned
    /// unchanged, read through `RawValue` (`apiVersion` not first), failing to decode, of
    /// another kind, not an object, without `spec`, with characters Go escapes.
    fn objects() -> Vec<String> {
        let fixtures = every_field_fixtures();
        let mut objects: Vec<String> = [
            r#"{"apiVersion":"cluster.x-k8s.io/v1beta1","kind":"MachinePool","metadata":{"name":"a<b"},"spec":{"clusterName":"c","template":{"spec":{"clusterName":"c","bootstrap":{"dataSecretName":"s"},"infrastructureRef":{"apiVersion":"infrastructure.cluster.x-k8s.io/v1beta1","kind":"K","name":"n"}}}}}"#,
            r#"{"kind":"MachinePool","apiVersion":"cluster.x-k8s.io/v1beta2","metadata":{"name":"m"},"spec":{"clusterName":"c>","template":{"spec":{"clusterName":"c","bootstrap":{"dataSecretName":"s"},"infrastructureRef":{"apiGroup":"infrastructure.cluster.x-k8s.io","kind":"K","name":"n"}}}}}"#,
            r#" { "kind" : "MachinePool", "apiVersion":"cluster.x-k8s.io/v1beta2", "spec":{"clusterName":"raw < \u2028 kept"}} "#,
            r#"{"metadata":{"name":"late"},"apiVersion":"cluster.x-k8s.io/v1beta1","kind":"MachinePool"}"#,
            r#"{"apiVersion":"cluster.x-k8s.io/v1beta1","kind":"MachinePool","spec":{"replicas":"two"}}"#,
            r#"{"apiVersion":"cluster.x-k8s.io/v1beta1","kind":"MachinePool","spec":{"replicas":1,"replicas":2}}"#,
            r#"{"apiVersion":"cluster.x-k8s.io/v1beta1","kind":"Machine"}"#,
            r#"{"apiVersion":"cluster.x-k8s.io/v1beta1","kind":"MachinePool","metadata":{"name":"\ud800"}}"#,
            r#"{"apiVersion":"cluster.x-k8s.io/v1beta1","kind":"MachinePool"}"#,
            r#"{"apiVersion":"cluster.x-k8s.io/v1beta1","kind":"MachinePool","spec":{"x":[1,{"y":"]}"}]}} "#,
            "1",
            "[]",
        ]
        .map(str::to_owned)
        .into();
        objects.extend(fixtures);
        objects
    }

    /// A review of `objects`, with the review's and the request's members in the orders given
    /// (indexes into `apiVersion`, `kind`, `request` and `uid`, `desiredAPIVersion`,
    /// `objects`; an index past the end is an extra member) and `space` between tokens.
    fn laid_out(
        review_order: &[usize],
        request_order: &[usize],
        uid: &str,
        desired: &str,
        objects: &[&str],
        space: &str,
    ) -> String {
        let member = |key: &str, value: &str| format!("{space}\"{key}\"{space}:{space}{value}");
        let object_list = format!("[{}{space}]", objects.join(&format!("{space},")));
        let uid = serde_json::to_string(uid).unwrap();
        let desired = serde_json::to_string(desired).unwrap();
        let request_members: Vec<String> = request_order
            .iter()
            .map(|&i| match i {
                0 => member("uid", &uid),
                1 => member("desiredAPIVersion", &desired),
                2 => member("objects", &object_list),
                _ => member("extra", "{}"),
            })
            .collect();
        let request = format!("{{{}{space}}}", request_members.join(","));
        let review_members: Vec<String> = review_order
            .iter()
            .map(|&i| match i {
                0 => member("apiVersion", r#""apiextensions.k8s.io/v1""#),
                1 => member("kind", r#""ConversionReview""#),
                2 => member("request", &request),
                _ => member("extra", "null"),
            })
            .collect();
        format!("{space}{{{}{space}}}{space}", review_members.join(","))
    }

    /// Wherever the one-pass reading answers, it answers as the two reads do, byte for byte;
    /// it answers the layouts it is for (the API server's, keys sorted, white space) and
    /// leaves the others, and a limit at any byte around the response's size gives the same
    /// answer both ways, whether the uid comes before the objects or after them.
    #[test]
    fn the_single_pass_answers_as_two_reads() {
        for converter in converters() {
            single_pass_answers_as_two_reads(converter.as_ref());
        }
    }

    fn single_pass_answers_as_two_reads(converter: &dyn ObjectConverter) {
        let objects = objects();
        // The objects that convert (or are returned unchanged).
        let good: Vec<&str> = [0, 1, 2, 3, 8, 9, 12, 13]
            .map(|i| objects[i].as_str())
            .into();
        let (up, down) = ("cluster.x-k8s.io/v1beta2", "cluster.x-k8s.io/v1beta1");
        // A failing object among good ones (the objects after it are read and counted, not
        // converted), and one followed by an object that is not JSON.
        let mut failing: Vec<&str> = good.clone();
        failing.insert(2, &objects[4]);
        let mut broken = failing.clone();
        broken.push(r#"{"a":}"#);
        let answered = [
            (laid_out(&[1, 0, 2], &[0, 1, 2], "u", up, &good, ""), true),
            (
                laid_out(&[0, 1, 2], &[1, 2, 0], "u<&>", down, &good, ""),
                true,
            ),
            (
                laid_out(&[0, 1, 2], &[1, 0, 2], "ü", up, &good, "\n\t \r"),
                true,
            ),
            (laid_out(&[0, 1, 2], &[0, 1, 2], "", up, &[], " "), true),
            (
                laid_out(&[1, 0, 2], &[0, 1, 2], "u", up, &failing, ""),
                false,
            ),
            (
                laid_out(&[0, 1, 2], &[0, 1, 2], "u", "v9", &good, ""),
                false,
            ),
        ];
        for (body, success) in &answered {
            let fast = single_pass::answer(converter, body, usize::MAX);
            let fast = fast.unwrap_or_else(|| panic!("not answered in one pass: {body}"));
            assert_eq!(
                fast,
                general(converter, body.as_bytes(), usize::MAX),
                "{body}"
            );
            let text = String::from_utf8_lossy(&fast.body);
            assert_eq!(text.contains(r#""status":"Success""#), *success, "{text}");
        }
        let left = [
            laid_out(&[2, 0, 1], &[0, 1, 2], "u", up, &good, ""),
            laid_out(&[0, 1, 2, 3], &[0, 1, 2], "u", up, &good, ""),
            laid_out(&[0, 1, 2], &[0, 1, 2, 3], "u", up, &good, ""),
            laid_out(&[0, 1, 2], &[0, 2, 1], "u", up, &good, ""),
            laid_out(&[0, 1, 2], &[0, 0, 1, 2], "u", up, &good, ""),
            laid_out(&[0, 1, 2], &[0, 1, 2], "u\"q", up, &good, ""),
            laid_out(&[0, 1, 2], &[1, 2], "u", up, &good, ""),
            laid_out(&[0, 1, 2], &[0, 1, 2], "u", up, &good, "\u{c}"),
            // A failure before the uid is known, and an object after a failure that is not JSON.
            laid_out(&[0, 1, 2], &[1, 2, 0], "u", up, &failing, ""),
            laid_out(&[0, 1, 2], &[0, 1, 2], "u", up, &broken, ""),
        ];
        // A control character in a string: not JSON.
        let raw_tab =
            laid_out(&[0, 1, 2], &[0, 1, 2], "u", up, &good, "").replace("\"u\"", "\"u\tu\"");
        for body in left.iter().chain([&raw_tab]) {
            assert_eq!(
                single_pass::answer(converter, body, usize::MAX),
                None,
                "{body}"
            );
        }
        for object in &objects {
            for desired in [up, down] {
                let body = laid_out(&[1, 0, 2], &[0, 1, 2], "u", desired, &[object], "");
                assert_eq!(
                    handle_bytes(converter, body.as_bytes()),
                    general(converter, body.as_bytes(), usize::MAX),
                    "{body}"
                );
            }
        }
        for request_order in [[0, 1, 2], [1, 2, 0]] {
            let body = laid_out(&[0, 1, 2], &request_order, "uid", up, &good, "");
            let size = general(converter, body.as_bytes(), usize::MAX).body.len();
            let exact = size + ENVELOPE_BYTES - 40;
            for limit in exact - 1_100..exact + 100 {
                assert_eq!(
                    handle_bytes_within(converter, body.as_bytes(), limit),
                    general(converter, body.as_bytes(), limit),
                    "limit {limit}: {body}"
                );
            }
        }
    }

    mod any_layout {
        use proptest::prelude::*;

        use super::*;

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(256))]
            /// Reviews of any member order (members left out, repeated or extra), white
            /// space, uid, desired version, objects and response limit: `handle_bytes_within`
            /// answers as the two reads do.
            #[test]
            fn answers_as_two_reads(
                review_order in proptest::sample::subsequence(vec![0usize, 1, 2, 3], 2..=4).prop_shuffle(),
                request_order in proptest::sample::subsequence(vec![0usize, 1, 2, 3, 0], 2..=5).prop_shuffle(),
                uid in proptest::sample::select(vec!["u", "", "u<&>", "ü\u{2028}", "q\"q", "t\tt"]),
                desired in proptest::sample::select(vec!["cluster.x-k8s.io/v1beta2", "cluster.x-k8s.io/v1beta1", "v1"]),
                picks in proptest::collection::vec(0usize..15, 0..5),
                space in proptest::sample::select(vec!["", " ", "\n  ", "\r\t"]),
                limit in prop_oneof![Just(usize::MAX), 0usize..12_000],
            ) {
                let objects = objects();
                let chosen: Vec<&str> = picks.iter().map(|&i| objects[i % objects.len()].as_str()).collect();
                let body = laid_out(&review_order, &request_order, uid, desired, &chosen, space);
                for converter in converters() {
                    prop_assert_eq!(
                        handle_bytes_within(converter.as_ref(), body.as_bytes(), limit),
                        general(converter.as_ref(), body.as_bytes(), limit),
                        "{}", body
                    );
                }
            }
        }
    }

    /// The constant success result is what printing `Status::success()` gives.
    #[test]
    fn the_success_result_is_the_printed_status() {
        assert_eq!(
            wire::to_vec(&Status::success()).unwrap(),
            SUCCESS_RESULT,
            "kube-core's Status::success() prints differently"
        );
    }

    /// A review over the response limit fails at the same object whichever way the objects
    /// are printed, and one exactly at it passes.
    #[test]
    fn the_limit_counts_the_streamed_objects() {
        let fixture: serde_json::Value = serde_saphyr::from_str(include_str!(
            "../../../tests/fixtures/conversion/v1beta1-every-field.yaml"
        ))
        .unwrap();
        let object = serde_json::to_string(&fixture).unwrap();
        let body = review(
            "u",
            "cluster.x-k8s.io/v1beta2",
            &[&object, &object, &object],
        );
        let converter = converter();
        let raw: &RawValue = serde_json::from_str(&object).unwrap();
        let one = converter
            .convert(raw, "cluster.x-k8s.io/v1beta2")
            .unwrap()
            .get()
            .len();
        // Room for the envelope, the uid and two objects with their commas, not three.
        let two = ENVELOPE_BYTES + 1 + 2 * (one + 1);
        let answer = handle_bytes_within(&converter, body.as_bytes(), two);
        let text = String::from_utf8(answer.body).unwrap();
        assert!(text.contains("reached at object 2 of 3"), "{text}");
        let three = ENVELOPE_BYTES + 1 + 3 * (one + 1);
        let answer = handle_bytes_within(&converter, body.as_bytes(), three);
        let text = String::from_utf8(answer.body).unwrap();
        assert!(text.contains(r#""status":"Success""#), "{text}");
        assert_eq!(text.matches(r#""kind":"MachinePool""#).count(), 3);
    }
}
