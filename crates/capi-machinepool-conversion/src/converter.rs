//! Hub-and-spoke conversion of unstructured objects, generic over the types.

use std::marker::PhantomData;

use kube_core::Resource;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::{ApiVersionResolver, ConversionError};

/// The hub (storage) version of a kind. Every spoke converts to and from it.
pub trait Hub: Serialize + DeserializeOwned + Resource<DynamicType = ()> {}

/// A spoke version of a kind, convertible to and from the hub `H`.
///
/// Provider authors implement this for each older version of their own types and reuse
/// [`HubSpokeConverter`] and [`crate::review`] unchanged.
pub trait Spoke<H: Hub>: Serialize + DeserializeOwned + Resource<DynamicType = ()> {
    /// Spoke -> hub.
    ///
    /// # Errors
    /// When the object cannot be represented in the hub.
    fn to_hub(self, resolver: &dyn ApiVersionResolver) -> Result<H, ConversionError>;

    /// Hub -> spoke.
    ///
    /// # Errors
    /// When the object cannot be represented in the spoke (e.g. an unresolvable reference).
    fn from_hub(hub: H, resolver: &dyn ApiVersionResolver) -> Result<Self, ConversionError>;
}

/// Converts an unstructured object to an apiVersion. Object safe, so that a webhook can hold
/// converters for several kinds.
pub trait ObjectConverter {
    /// The kind handled.
    fn kind(&self) -> String;

    /// Every apiVersion handled (the hub first).
    fn api_versions(&self) -> Vec<String>;

    /// Converts `object` to `desired_api_version`. An object already at that version is
    /// returned unchanged.
    ///
    /// # Errors
    /// Wrong kind, unknown apiVersion, undecodable object, or a conversion failure.
    fn convert(&self, object: Value, desired_api_version: &str) -> Result<Value, ConversionError>;

    /// Like [`ObjectConverter::convert`], from and to JSON text. The default goes through
    /// `serde_json::Value`; [`HubSpokeConverter`] decodes and encodes the typed objects directly.
    ///
    /// # Errors
    /// See [`ObjectConverter::convert`]; invalid JSON is a decode error.
    fn convert_json(
        &self,
        object: &str,
        desired_api_version: &str,
    ) -> Result<String, ConversionError> {
        let value: Value =
            serde_json::from_str(object).map_err(|source| ConversionError::Decode {
                api_version: "<unknown>".into(),
                source,
            })?;
        let converted = self.convert(value, desired_api_version)?;
        serde_json::to_string(&converted).map_err(ConversionError::Encode)
    }
}

trait ErasedSpoke<H> {
    fn api_version(&self) -> String;
    fn convert_to_hub(
        &self,
        object: Value,
        resolver: &dyn ApiVersionResolver,
    ) -> Result<H, ConversionError>;
    fn convert_from_hub(
        &self,
        hub: H,
        resolver: &dyn ApiVersionResolver,
    ) -> Result<Value, ConversionError>;
    fn hub_from_json(
        &self,
        object: &str,
        resolver: &dyn ApiVersionResolver,
    ) -> Result<H, ConversionError>;
    fn json_from_hub(
        &self,
        hub: H,
        resolver: &dyn ApiVersionResolver,
    ) -> Result<String, ConversionError>;
}

struct SpokeOf<S>(PhantomData<fn() -> S>);

fn decode<T: DeserializeOwned>(object: Value, api_version: String) -> Result<T, ConversionError> {
    serde_json::from_value(object).map_err(|source| ConversionError::Decode {
        api_version,
        source,
    })
}

fn encode<T: Serialize>(value: &T) -> Result<Value, ConversionError> {
    serde_json::to_value(value).map_err(ConversionError::Encode)
}

impl<H: Hub, S: Spoke<H>> ErasedSpoke<H> for SpokeOf<S> {
    fn api_version(&self) -> String {
        S::api_version(&()).into_owned()
    }

    fn convert_to_hub(
        &self,
        object: Value,
        resolver: &dyn ApiVersionResolver,
    ) -> Result<H, ConversionError> {
        decode::<S>(object, self.api_version())?.to_hub(resolver)
    }

    fn convert_from_hub(
        &self,
        hub: H,
        resolver: &dyn ApiVersionResolver,
    ) -> Result<Value, ConversionError> {
        encode(&S::from_hub(hub, resolver)?)
    }

    fn hub_from_json(
        &self,
        object: &str,
        resolver: &dyn ApiVersionResolver,
    ) -> Result<H, ConversionError> {
        decode_str::<S>(object, self.api_version())?.to_hub(resolver)
    }

    fn json_from_hub(
        &self,
        hub: H,
        resolver: &dyn ApiVersionResolver,
    ) -> Result<String, ConversionError> {
        serde_json::to_string(&S::from_hub(hub, resolver)?).map_err(ConversionError::Encode)
    }
}

fn decode_str<T: DeserializeOwned>(
    object: &str,
    api_version: String,
) -> Result<T, ConversionError> {
    serde_json::from_str(object).map_err(|source| ConversionError::Decode {
        api_version,
        source,
    })
}

/// The apiVersion and kind of a JSON object, read without building the object.
#[derive(serde::Deserialize)]
struct TypeProbe<'a> {
    #[serde(rename = "apiVersion", borrow, default)]
    api_version: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow, default)]
    kind: Option<std::borrow::Cow<'a, str>>,
}

/// Where an object goes: nowhere (already there) or from a version to another.
enum Route {
    Same,
    Convert { source: String },
}

/// An [`ObjectConverter`] for a hub type `H` and any number of spokes.
///
/// ```
/// use capi_machinepool_api::{v1beta1, v1beta2};
/// use capi_machinepool_conversion::{HubSpokeConverter, ObjectConverter, StaticResolver};
/// let resolver = StaticResolver::new();
/// let converter = HubSpokeConverter::<v1beta2::MachinePool>::new(&resolver).with_spoke::<v1beta1::MachinePool>();
/// assert_eq!(converter.api_versions(), ["cluster.x-k8s.io/v1beta2", "cluster.x-k8s.io/v1beta1"]);
/// ```
pub struct HubSpokeConverter<'r, H> {
    resolver: &'r dyn ApiVersionResolver,
    spokes: Vec<Box<dyn ErasedSpoke<H> + 'r>>,
}

impl<'r, H: Hub + 'r> HubSpokeConverter<'r, H> {
    /// A converter with no spoke yet; `resolver` is handed to every spoke conversion.
    #[must_use]
    pub fn new(resolver: &'r dyn ApiVersionResolver) -> Self {
        Self {
            resolver,
            spokes: Vec::new(),
        }
    }

    /// Registers a spoke version.
    #[must_use]
    pub fn with_spoke<S: Spoke<H> + 'r>(mut self) -> Self {
        self.spokes.push(Box::new(SpokeOf::<S>(PhantomData)));
        self
    }

    fn hub_api_version() -> String {
        H::api_version(&()).into_owned()
    }

    fn unsupported(&self, api_version: &str) -> ConversionError {
        ConversionError::UnsupportedApiVersion {
            api_version: api_version.to_owned(),
            supported: self.api_versions(),
        }
    }

    fn spoke(&self, api_version: &str) -> Option<&(dyn ErasedSpoke<H> + 'r)> {
        self.spokes
            .iter()
            .find(|s| s.api_version() == api_version)
            .map(AsRef::as_ref)
    }
}

impl<'r, H: Hub + 'r> ObjectConverter for HubSpokeConverter<'r, H> {
    fn kind(&self) -> String {
        H::kind(&()).into_owned()
    }

    fn api_versions(&self) -> Vec<String> {
        std::iter::once(Self::hub_api_version())
            .chain(self.spokes.iter().map(|s| s.api_version()))
            .collect()
    }

    fn convert(&self, object: Value, desired: &str) -> Result<Value, ConversionError> {
        let kind = object.get("kind").and_then(Value::as_str);
        let source = object.get("apiVersion").and_then(Value::as_str);
        let Route::Convert { source } = self.route(kind, source, desired)? else {
            return Ok(object);
        };
        let hub: H = match self.spoke(&source) {
            Some(spoke) => spoke.convert_to_hub(object, self.resolver)?,
            None => decode(object, source)?,
        };
        match self.spoke(desired) {
            Some(spoke) => spoke.convert_from_hub(hub, self.resolver),
            None => encode(&hub),
        }
    }

    fn convert_json(&self, object: &str, desired: &str) -> Result<String, ConversionError> {
        let probe: TypeProbe<'_> =
            serde_json::from_str(object).map_err(|source| ConversionError::Decode {
                api_version: "<unknown>".into(),
                source,
            })?;
        let Route::Convert { source } =
            self.route(probe.kind.as_deref(), probe.api_version.as_deref(), desired)?
        else {
            return Ok(object.to_owned());
        };
        let hub: H = match self.spoke(&source) {
            Some(spoke) => spoke.hub_from_json(object, self.resolver)?,
            None => decode_str(object, source)?,
        };
        match self.spoke(desired) {
            Some(spoke) => spoke.json_from_hub(hub, self.resolver),
            None => serde_json::to_string(&hub).map_err(ConversionError::Encode),
        }
    }
}

impl<'r, H: Hub + 'r> HubSpokeConverter<'r, H> {
    /// Checks kind and versions and decides what to do.
    fn route(
        &self,
        kind: Option<&str>,
        source: Option<&str>,
        desired: &str,
    ) -> Result<Route, ConversionError> {
        let kind = kind.ok_or(ConversionError::MissingTypeMeta { field: "kind" })?;
        let expected_kind = H::kind(&());
        if kind != expected_kind {
            return Err(ConversionError::WrongKind {
                found: kind.to_owned(),
                expected: expected_kind.into_owned(),
            });
        }
        let source = source.ok_or(ConversionError::MissingTypeMeta {
            field: "apiVersion",
        })?;
        let hub_version = Self::hub_api_version();
        let known = |v: &str| v == hub_version || self.spoke(v).is_some();
        if !known(desired) {
            return Err(self.unsupported(desired));
        }
        if !known(source) {
            return Err(self.unsupported(source));
        }
        Ok(if source == desired {
            Route::Same
        } else {
            Route::Convert {
                source: source.to_owned(),
            }
        })
    }
}
