//! Lossless round trips through the conversion webhook: upstream's `FuzzTestFunc`
//! (`util/conversion`) for Rust providers.
//!
//! [`assert_lossless`] fuzzes both directions upstream fuzzes, with every object going through
//! [`capi_machinepool_conversion::review::handle_bytes`] in a `ConversionReview`, exactly as
//! the API server sends it to a webhook:
//!
//! * **hub -> spoke -> hub**: the spoke carries the `cluster.x-k8s.io/conversion-data`
//!   annotation, and converting it back gives the hub. On the way, the spoke's metadata
//!   without its spec and status (the API server sends such objects) must convert up too
//!   (upstream's `dstCopyNoSpec` check).
//! * **spoke -> hub -> spoke**: the spoke comes back, less the annotation the down-conversion
//!   adds (upstream deletes it before comparing).
//!
//! Generated objects first take the JSON path ([`crate::go_normalized::json`]): the API server
//! holds and sends what an object prints, so a value its own type cannot print and read back
//! is not one a webhook ever sees. Comparisons hold an empty `annotations` or `labels` map
//! equal to an absent one ([`crate::go_normalized::semantic`]), as
//! `apiequality.Semantic.DeepEqual` does. Anything else a version legitimately normalises
//! (upstream's fuzzer functions) goes in [`Options::normalize_hub`] /
//! [`Options::normalize_spoke`].
//!
//! ```
//! use capi_machinepool_conversion::{ApiVersionResolver, ConversionError, Hub, LosslessSpoke};
//! use capi_machinepool_conversion::{HubSpokeConverter, StaticResolver};
//! use capi_machinepool_testing::lossless::assert_lossless;
//! use capi_machinepool_testing::strategies::{meta, s};
//! use proptest::prelude::*;
//!
//! mod v2 {
//!     #[derive(kube::CustomResource, Clone, Debug, PartialEq, Default, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
//!     #[kube(group = "example.com", version = "v2", kind = "Pool", namespaced, derive = "PartialEq")]
//!     #[serde(default)]
//!     pub struct PoolSpec { pub size: i32, pub zone: String }
//! }
//! mod v1 {
//!     #[derive(kube::CustomResource, Clone, Debug, PartialEq, Default, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
//!     #[kube(group = "example.com", version = "v1", kind = "Pool", namespaced, derive = "PartialEq")]
//!     #[serde(default)]
//!     pub struct PoolSpec { pub size: i32 }
//! }
//! impl Hub for v2::Pool {}
//! impl LosslessSpoke<v2::Pool> for v1::Pool {
//!     fn to_hub_fields(self, _: &dyn ApiVersionResolver) -> Result<v2::Pool, ConversionError> {
//!         Ok(v2::Pool::new("", v2::PoolSpec { size: self.spec.size, zone: String::new() }))
//!     }
//!     fn from_hub_fields(hub: &v2::Pool, _: &dyn ApiVersionResolver) -> Result<Self, ConversionError> {
//!         Ok(v1::Pool::new("", v1::PoolSpec { size: hub.spec.size }))
//!     }
//!     fn restore(hub: &mut v2::Pool, saved: v2::Pool) {
//!         hub.spec.zone = saved.spec.zone;
//!     }
//! }
//!
//! let converter = HubSpokeConverter::<v2::Pool>::new(StaticResolver::new()).with_spoke::<v1::Pool>();
//! let hubs = (meta(), any::<i32>(), s()).prop_map(|(metadata, size, zone)| {
//!     let mut pool = v2::Pool::new("", v2::PoolSpec { size, zone });
//!     pool.metadata = metadata;
//!     pool
//! });
//! let spokes = (meta(), any::<i32>()).prop_map(|(metadata, size)| {
//!     let mut pool = v1::Pool::new("", v1::PoolSpec { size });
//!     pool.metadata = metadata;
//!     pool
//! });
//! assert_lossless(&converter, hubs, spokes);
//! ```

use std::fmt::Debug;

use capi_machinepool_api::constants::CONVERSION_DATA_ANNOTATION;
use capi_machinepool_conversion::review::{REVIEW_API_VERSION, REVIEW_KIND, handle_bytes};
use capi_machinepool_conversion::{Hub, ObjectConverter, Spoke};
use proptest::strategy::Strategy;
use proptest::test_runner::{Config, TestCaseError, TestError, TestRunner};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::go_normalized::{self, semantic};

/// Why an object did not convert through the webhook.
#[derive(Debug, thiserror::Error)]
pub enum ReviewError {
    /// The object did not print as JSON.
    #[error("failed to print the object")]
    Encode(#[source] serde_json::Error),
    /// The webhook answered with an HTTP status other than 200.
    #[error("the webhook answered HTTP {status}: {body}")]
    Http {
        /// The HTTP status.
        status: u16,
        /// The response body.
        body: String,
    },
    /// The review's `result` is a Failure (a conversion error).
    #[error("conversion failed (code {code}): {message}")]
    Failed {
        /// `result.code` (422 for a conversion error).
        code: i64,
        /// `result.message`.
        message: String,
    },
    /// The response is not a review holding one converted object of the expected type.
    #[error("unexpected response review: {0}")]
    Response(String),
}

/// A round trip that lost or changed something, with proptest's minimal failing input.
#[derive(Debug, thiserror::Error)]
#[error("{direction}: {message}")]
pub struct LosslessError {
    /// `hub -> spoke -> hub` or `spoke -> hub -> spoke`.
    pub direction: &'static str,
    /// proptest's report: the minimal input and what differed.
    pub message: String,
}

/// Converts `object` to `desired_api_version` as the API server has a webhook do it: a
/// `ConversionReview` request holding the object's JSON goes through
/// [`handle_bytes`], and the review's converted object is read as `Out`.
///
/// # Errors
/// When the object does not print, the webhook does not answer 200, the review's result is
/// a Failure, or the converted object does not read as `Out`.
pub fn convert_via_review<In: Serialize, Out: DeserializeOwned>(
    converter: &dyn ObjectConverter,
    object: &In,
    desired_api_version: &str,
) -> Result<Out, ReviewError> {
    let object = serde_json::to_value(object).map_err(ReviewError::Encode)?;
    let request = json!({
        "apiVersion": REVIEW_API_VERSION,
        "kind": REVIEW_KIND,
        "request": {"uid": "assert-lossless", "desiredAPIVersion": desired_api_version, "objects": [object]},
    });
    let body = serde_json::to_vec(&request).map_err(ReviewError::Encode)?;
    let response = handle_bytes(converter, &body);
    let text = String::from_utf8_lossy(&response.body).into_owned();
    if response.status != 200 {
        return Err(ReviewError::Http {
            status: response.status,
            body: text,
        });
    }
    let mut review: Value =
        serde_json::from_str(&text).map_err(|e| ReviewError::Response(format!("{e}: {text}")))?;
    let result = &review["response"]["result"];
    if result["status"] != "Success" {
        return Err(ReviewError::Failed {
            code: result["code"].as_i64().unwrap_or_default(),
            message: result["message"].as_str().unwrap_or_default().to_owned(),
        });
    }
    let converted = match review["response"]["convertedObjects"].take() {
        Value::Array(mut objects) if objects.len() == 1 => objects.remove(0),
        other => {
            return Err(ReviewError::Response(format!(
                "expected one converted object, got {other}"
            )));
        }
    };
    serde_json::from_value(converted).map_err(|e| ReviewError::Response(e.to_string()))
}

/// How [`check_lossless`] runs.
pub struct Options<H, S> {
    /// Cases per direction. [`Options::default`] takes `PROPTEST_CASES` when set, else 256.
    pub cases: u32,
    /// Applied to a generated hub (after the JSON path) and to the hub that comes back:
    /// what a version legitimately normalises (upstream's hub fuzzer functions, e.g. making
    /// references resolvable).
    pub normalize_hub: fn(H) -> H,
    /// The same for spokes (upstream's spoke fuzzer functions).
    pub normalize_spoke: fn(S) -> S,
}

impl<H, S> Default for Options<H, S> {
    fn default() -> Self {
        Self {
            cases: std::env::var("PROPTEST_CASES")
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(256),
            normalize_hub: std::convert::identity,
            normalize_spoke: std::convert::identity,
        }
    }
}

impl<H, S> Debug for Options<H, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Options")
            .field("cases", &self.cases)
            .finish_non_exhaustive()
    }
}

fn case_error(e: impl std::fmt::Display) -> TestCaseError {
    TestCaseError::fail(e.to_string())
}

fn runner(cases: u32) -> TestRunner {
    TestRunner::new(Config {
        cases,
        // A library run has no source file to keep regressions beside.
        failure_persistence: None,
        ..Config::default()
    })
}

fn report<T: Debug>(
    direction: &'static str,
    result: Result<(), TestError<T>>,
) -> Result<(), LosslessError> {
    result.map_err(|e| LosslessError {
        direction,
        message: e.to_string(),
    })
}

/// A JSON value's text for a comparison message.
fn shown<T: Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_else(|e| format!("<unprintable: {e}>"))
}

/// A round trip's result against what went in: equal, or a failure showing both.
fn came_back_as<T: Serialize + PartialEq>(back: &T, expected: &T) -> Result<(), TestCaseError> {
    if back == expected {
        return Ok(());
    }
    Err(TestCaseError::fail(format!(
        "came back as\n  {}\nexpected\n  {}",
        shown(back),
        shown(expected)
    )))
}

/// hub -> spoke -> hub, then spoke -> hub -> spoke, through the webhook (module docs).
///
/// # Errors
/// The first direction that fails, with the minimal failing input.
pub fn check_lossless<H, S>(
    converter: &dyn ObjectConverter,
    hubs: impl Strategy<Value = H>,
    spokes: impl Strategy<Value = S>,
    options: &Options<H, S>,
) -> Result<(), LosslessError>
where
    H: Hub + Clone + Debug + PartialEq,
    S: Spoke<H> + Clone + Debug + PartialEq,
{
    let hub_version = H::api_version(&()).into_owned();
    let spoke_version = S::api_version(&()).into_owned();
    let (normalize_hub, normalize_spoke) = (options.normalize_hub, options.normalize_spoke);

    let hub_spoke_hub = runner(options.cases).run(&hubs, |generated| {
        let hub = normalize_hub(go_normalized::json(&generated).map_err(case_error)?);
        let spoke: S = convert_via_review(converter, &hub, &spoke_version).map_err(case_error)?;
        let annotated = spoke
            .meta()
            .annotations
            .as_ref()
            .is_some_and(|a| a.contains_key(CONVERSION_DATA_ANNOTATION));
        if !annotated {
            return Err(TestCaseError::fail(format!(
                "the spoke has no {CONVERSION_DATA_ANNOTATION} annotation: {}",
                shown(&spoke)
            )));
        }
        // The API server may send the spoke's metadata alone.
        let bare = json!({"apiVersion": spoke_version, "kind": S::kind(&()),
            "metadata": {"labels": spoke.meta().labels, "annotations": spoke.meta().annotations}});
        let _: H = convert_via_review(converter, &bare, &hub_version)
            .map_err(|e| case_error(format!("a spoke with metadata only: {e}")))?;
        let back: H = convert_via_review(converter, &spoke, &hub_version).map_err(case_error)?;
        came_back_as(&semantic(normalize_hub(back)), &semantic(hub))
    });
    report("hub -> spoke -> hub", hub_spoke_hub)?;

    let spoke_hub_spoke = runner(options.cases).run(&spokes, |generated| {
        let spoke = normalize_spoke(go_normalized::json(&generated).map_err(case_error)?);
        let hub: H = convert_via_review(converter, &spoke, &hub_version).map_err(case_error)?;
        let mut back: S =
            convert_via_review(converter, &hub, &spoke_version).map_err(case_error)?;
        let removed = back
            .meta_mut()
            .annotations
            .as_mut()
            .and_then(|a| a.remove(CONVERSION_DATA_ANNOTATION));
        if removed.is_none() {
            return Err(TestCaseError::fail(format!(
                "the spoke has no {CONVERSION_DATA_ANNOTATION} annotation: {}",
                shown(&back)
            )));
        }
        came_back_as(&semantic(normalize_spoke(back)), &semantic(spoke))
    });
    report("spoke -> hub -> spoke", spoke_hub_spoke)
}

/// [`check_lossless`] with [`Options::default`], for a test.
///
/// # Panics
/// When a round trip loses or changes something (the message holds the minimal input).
pub fn assert_lossless<H, S>(
    converter: &dyn ObjectConverter,
    hubs: impl Strategy<Value = H>,
    spokes: impl Strategy<Value = S>,
) where
    H: Hub + Clone + Debug + PartialEq,
    S: Spoke<H> + Clone + Debug + PartialEq,
{
    assert_lossless_with(converter, hubs, spokes, &Options::default());
}

/// [`check_lossless`] with `options`, for a test.
///
/// # Panics
/// When a round trip loses or changes something (the message holds the minimal input).
pub fn assert_lossless_with<H, S>(
    converter: &dyn ObjectConverter,
    hubs: impl Strategy<Value = H>,
    spokes: impl Strategy<Value = S>,
    options: &Options<H, S>,
) where
    H: Hub + Clone + Debug + PartialEq,
    S: Spoke<H> + Clone + Debug + PartialEq,
{
    #[allow(clippy::panic)]
    if let Err(e) = check_lossless(converter, hubs, spokes, options) {
        panic!("{e}");
    }
}
