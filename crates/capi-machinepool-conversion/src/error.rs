//! Conversion errors.

use capi_contract::labels::ContractVersionError;
use capi_diagnostics::excerpt::printable;

/// Why an apiVersion could not be resolved for a GroupKind.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResolveError {
    /// No CRD (or static entry) is known for the GroupKind.
    #[error(
        "failed to get apiVersion for kind {} (group {group:?}): no CustomResourceDefinition {} is known",
        printable(.kind),
        printable(.crd_name)
    )]
    NotFound {
        /// API group.
        group: String,
        /// Kind.
        kind: String,
        /// The CRD name looked for.
        crd_name: String,
    },
    /// The CRD exists but its contract labels give no version.
    #[error("failed to get apiVersion for kind {} (group {group:?})", printable(.kind))]
    Contract {
        /// API group.
        group: String,
        /// Kind.
        kind: String,
        /// The contract label problem.
        #[source]
        source: ContractVersionError,
    },
}

/// Why an object could not be converted.
///
/// `Display` is this error's own layer; the cause (a serde error, a
/// contract-label problem) is its [`std::error::Error::source`], as Rust error chains go.
/// Print the whole chain on one line with [`capi_diagnostics::error_chain`] (what a
/// review's `result.message` holds) or [`capi_diagnostics::ErrorChain`]:
///
/// ```
/// use capi_machinepool_conversion::{ConversionError, ObjectConverter, machine_pool_converter, StaticResolver};
/// let converter = machine_pool_converter(StaticResolver::new());
/// let bad = serde_json::json!({"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "MachinePool", "spec": {"replicas": "three"}});
/// let err = converter.convert_value(&bad, "cluster.x-k8s.io/v1beta2").unwrap_err();
/// assert_eq!(err.to_string(), "failed to decode cluster.x-k8s.io/v1beta1 object");
/// let chain = capi_diagnostics::error_chain(&err);
/// assert!(chain.starts_with("failed to decode cluster.x-k8s.io/v1beta1 object: "), "{chain}");
/// assert!(chain.ends_with("invalid type: string \"three\", expected i32"), "{chain}");
/// ```
#[derive(Debug, thiserror::Error)]
pub enum ConversionError {
    /// The object has no string `apiVersion` or `kind`.
    #[error("object has no {field}")]
    MissingTypeMeta {
        /// `apiVersion` or `kind`.
        field: &'static str,
    },
    /// The object is of another kind than the converter handles.
    #[error("cannot convert kind {found:?}: this converter handles {expected:?}")]
    WrongKind {
        /// The object's kind.
        found: String,
        /// The converter's kind.
        expected: String,
    },
    /// The object's apiVersion (or the desired one) is not served by the converter.
    #[error("unsupported apiVersion {api_version:?}: expected one of {supported:?}")]
    UnsupportedApiVersion {
        /// The apiVersion asked for or found.
        api_version: String,
        /// The apiVersions the converter knows.
        supported: Vec<String>,
    },
    /// The object does not decode as its apiVersion's type.
    #[error("failed to decode {} object", printable(.api_version))]
    Decode {
        /// The apiVersion decoded as.
        api_version: String,
        /// The decode error (with the field path where serde gives one).
        #[source]
        source: serde_json::Error,
    },
    /// A v1beta1 reference's apiVersion is not a GroupVersion.
    #[error("failed to parse apiVersion: unexpected GroupVersion string: {}", printable(.0))]
    InvalidGroupVersion(String),
    /// A reference's apiVersion could not be resolved. Its text is the [`ResolveError`]'s:
    /// the caller names the object being converted, once.
    #[error(transparent)]
    Resolve(#[from] ResolveError),
    /// The conversion-data annotation does not decode as the hub type.
    #[error("failed to read the cluster.x-k8s.io/conversion-data annotation")]
    ConversionData(#[source] serde_json::Error),
    /// The converted object failed to encode (never expected).
    #[error("failed to encode the converted object")]
    Encode(#[source] serde_json::Error),
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 65: a kind or apiVersion from the review is escaped in the message (the
    /// webhook logs it; before, a U+202E in the kind reached the log raw).
    #[test]
    fn input_in_messages_is_escaped() {
        let err = ResolveError::NotFound {
            group: "infrastructure.cluster.x-k8s.io".into(),
            kind: "Evil\u{202e}Pool\n::error::x".into(),
            crd_name: "evil\u{1b}[31m.infrastructure.cluster.x-k8s.io".into(),
        };
        let text = err.to_string();
        assert!(
            !text.contains('\u{202e}') && !text.contains('\n') && !text.contains('\u{1b}'),
            "{text:?}"
        );
        assert!(text.contains("Evil\\u{202e}Pool\\u{a}::error::x"), "{text}");
        let err = ConversionError::InvalidGroupVersion("a/b/c\u{2028}".into());
        assert!(err.to_string().ends_with("a/b/c\\u{2028}"), "{err}");
    }
}
