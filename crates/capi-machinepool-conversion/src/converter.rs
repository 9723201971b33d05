//! Hub-and-spoke conversion of objects given as JSON text, generic over the types.
//!
//! An object arrives as JSON text ([`RawValue`]), its `apiVersion` and `kind` are read
//! without building it, it is decoded straight into the typed source version, converted
//! through the hub, and printed as Go prints it ([`wire`]). An object that is already a
//! `serde_json::Value` ([`ObjectConverter::convert_value`]) takes the same steps from and to
//! a `Value`, with no text in between; the answer is the one the text path gives (a test
//! holds the two to each other on upstream's answers).

use std::borrow::Cow;
use std::cell::Cell;
use std::collections::BTreeMap;
use std::marker::PhantomData;
use std::sync::Arc;

use capi_machinepool_api::wire;
use kube_core::Resource;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::{ApiVersionResolver, ConversionError};

/// The hub (storage) version of a kind. Every spoke converts to and from it.
pub trait Hub: Serialize + DeserializeOwned + Resource<DynamicType = ()> + Send + Sync {}

/// A spoke version of a kind, convertible to and from the hub `H`.
///
/// Provider authors implement [`crate::LosslessSpoke`] (field mappings only; every
/// `LosslessSpoke` is a `Spoke`) for each older version of their own types and reuse
/// [`HubSpokeConverter`] and [`crate::review`] unchanged. Implement `Spoke` directly only to
/// handle the conversion-data annotation yourself, as [`crate::machine_pool`] does to match
/// upstream's bytes.
pub trait Spoke<H: Hub>:
    Serialize + DeserializeOwned + Resource<DynamicType = ()> + Send + Sync
{
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

/// The `apiVersion` and `kind` of an object, read from its JSON text without building it.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Deserialize)]
pub struct TypeMetaRef<'a> {
    /// `apiVersion`, when present.
    #[serde(rename = "apiVersion", borrow, default)]
    pub api_version: Option<Cow<'a, str>>,
    /// `kind`, when present.
    #[serde(borrow, default)]
    pub kind: Option<Cow<'a, str>>,
}

impl<'a> TypeMetaRef<'a> {
    /// Reads `apiVersion` and `kind` of a JSON object (every other field is skipped).
    ///
    /// # Errors
    /// When the text is not a JSON object, or `apiVersion` / `kind` are not strings.
    pub fn read(object: &'a RawValue) -> Result<Self, ConversionError> {
        if let Some(leading) = leading::type_meta(object.get()) {
            return Ok(leading);
        }
        let mut out = TypeMetaRef::default();
        let mut deserializer = serde_json::Deserializer::from_str(object.get());
        let read = serde::Deserializer::deserialize_map(&mut deserializer, probe::Probe(&mut out))
            .and_then(|()| deserializer.end());
        match read {
            Ok(()) => Ok(out),
            // The probe stops with an error as soon as it holds both fields (the rest of the
            // object is not scanned: the typed decode reads it once, next); any other error
            // comes before that.
            Err(_) if out.api_version.is_some() && out.kind.is_some() => Ok(out),
            Err(source) => Err(unknown_decode(source)),
        }
    }

    /// The `apiVersion` and `kind` of an object already parsed; `None` when `object` is not
    /// an object, or holds either member as something other than a string (what
    /// [`TypeMetaRef::read`] refuses).
    fn of_value(object: &'a Value) -> Option<Self> {
        let member = |name: &str| match object.get(name) {
            None => Some(None),
            Some(Value::String(text)) => Some(Some(Cow::Borrowed(text.as_str()))),
            Some(_) => None,
        };
        if !object.is_object() {
            return None;
        }
        Some(TypeMetaRef {
            api_version: member("apiVersion")?,
            kind: member("kind")?,
        })
    }

    /// The API group of `apiVersion` (`""` for the core group or when absent).
    #[must_use]
    pub fn group(&self) -> &str {
        self.api_version
            .as_deref()
            .map_or("", |v| capi_versions::GroupVersion::split(v).group)
    }
}

/// The common case read without a parser: an object whose first two members are
/// `apiVersion` and `kind` (in either order), strings without escapes, as the API server
/// sends them. Anything else is left to [`probe`] (`None`), which reads the same values. The
/// text is a `RawValue`'s, or a list's from an object on, whose syntax the decode that follows
/// checks from the object's first byte.
mod leading {
    use std::borrow::Cow;

    use super::TypeMetaRef;
    use crate::json_cursor::Cursor;

    pub(super) fn type_meta(text: &str) -> Option<TypeMetaRef<'_>> {
        let mut cursor = Cursor::new(text);
        if !cursor.take(b'{') {
            return None;
        }
        let (mut api_version, mut kind) = (None, None);
        for first in [true, false] {
            let key = cursor.key()?;
            let slot = match key {
                "apiVersion" if api_version.is_none() => &mut api_version,
                "kind" if kind.is_none() => &mut kind,
                _ => return None,
            };
            *slot = Some(Cow::Borrowed(cursor.plain_string()?));
            if first && !cursor.take(b',') {
                return None;
            }
        }
        Some(TypeMetaRef { api_version, kind })
    }

    #[cfg(test)]
    mod tests {
        use super::super::probe;
        use super::*;

        /// What the serde probe reads (the reference): the fast path agrees with it whenever it
        /// answers, and answers for the API server's layout.
        fn by_probe(text: &str) -> (Option<String>, Option<String>) {
            let mut out = TypeMetaRef::default();
            let mut de = serde_json::Deserializer::from_str(text);
            let _ = serde::Deserializer::deserialize_map(&mut de, probe::Probe(&mut out));
            (
                out.api_version.map(Cow::into_owned),
                out.kind.map(Cow::into_owned),
            )
        }

        #[test]
        fn agrees_with_the_probe_or_leaves_the_object_to_it() {
            let answered = [
                r#"{"apiVersion":"cluster.x-k8s.io/v1beta1","kind":"MachinePool","spec":{}}"#,
                r#" { "kind" : "MachinePool" , "apiVersion" : "v1" } "#,
                r#"{"kind":"K","apiVersion":"","metadata":{"name":"\u003c"}}"#,
            ];
            let left = [
                r#"{"metadata":{},"apiVersion":"v1","kind":"K"}"#,
                r#"{"apiVersion":"v\u0031","kind":"K"}"#,
                r#"{"apiVersion":"v1","apiVersion":"v2","kind":"K"}"#,
                r#"{"apiVersion":null,"kind":"K"}"#,
                r#"{"apiVersion":"v1"}"#,
                r#"{}"#,
                r#"[]"#,
                r#""apiVersion""#,
            ];
            for text in answered {
                let fast = type_meta(text).unwrap_or_else(|| panic!("not answered: {text}"));
                let fast = (
                    fast.api_version.map(Cow::into_owned),
                    fast.kind.map(Cow::into_owned),
                );
                assert_eq!(fast, by_probe(text), "{text}");
            }
            for text in left {
                assert!(type_meta(text).is_none(), "{text}");
            }
        }
    }
}

/// Reading `apiVersion` and `kind` and stopping there.
mod probe {
    use std::borrow::Cow;
    use std::fmt;

    use serde::de::{self, IgnoredAny, MapAccess, Visitor};

    use super::TypeMetaRef;

    /// A string borrowed from the input when it has no escapes.
    struct CowStr<'de>(Option<Cow<'de, str>>);

    impl<'de> de::Deserialize<'de> for CowStr<'de> {
        fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct V;
            impl<'de> Visitor<'de> for V {
                type Value = CowStr<'de>;
                fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    f.write_str("a string or null")
                }
                fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                    Ok(CowStr(Some(Cow::Borrowed(v))))
                }
                fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                    Ok(CowStr(Some(Cow::Owned(v.to_owned()))))
                }
                fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                    Ok(CowStr(None))
                }
                fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
                    Ok(CowStr(None))
                }
            }
            d.deserialize_any(V)
        }
    }

    pub(super) struct Probe<'s, 'de>(pub(super) &'s mut TypeMetaRef<'de>);

    impl<'de> Visitor<'de> for Probe<'_, 'de> {
        type Value = ();

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a JSON object")
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            while let Some(key) = map.next_key::<CowStr<'de>>()? {
                match key.0.as_deref() {
                    Some("apiVersion") => self.0.api_version = map.next_value::<CowStr<'de>>()?.0,
                    Some("kind") => self.0.kind = map.next_value::<CowStr<'de>>()?.0,
                    _ => {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
                if self.0.api_version.is_some() && self.0.kind.is_some() {
                    // Stops the scan; `TypeMetaRef::read` recognises it by the two fields.
                    return Err(de::Error::custom("type meta read"));
                }
            }
            Ok(())
        }
    }
}

/// Converts objects of one or more kinds to a desired apiVersion. Object safe, `Send` and
/// `Sync`, so one converter can live in a web server's shared state.
pub trait ObjectConverter: Send + Sync {
    /// The `(group, kind)` pairs handled.
    fn group_kinds(&self) -> Vec<(String, String)>;

    /// Every apiVersion handled (hubs first).
    fn api_versions(&self) -> Vec<String>;

    /// Converts `object`, whose `apiVersion` and `kind` were already read into `type_meta`, to
    /// `desired_api_version`. An object already at that version is returned unchanged.
    ///
    /// # Errors
    /// Wrong kind, unknown apiVersion, undecodable object, or a conversion failure.
    fn convert_read(
        &self,
        object: &RawValue,
        type_meta: &TypeMetaRef<'_>,
        desired_api_version: &str,
    ) -> Result<Box<RawValue>, ConversionError>;

    /// [`ObjectConverter::convert_read`] appending the converted object's JSON text to `out`
    /// (an object already at `desired_api_version` is appended unchanged). On an error `out`
    /// is left as it was.
    ///
    /// [`crate::review`] builds a response this way: each object is printed straight into the
    /// response body, with no buffer and no validation pass of its own. The default appends
    /// what [`ObjectConverter::convert_read`] returns; [`HubSpokeConverter`] and
    /// [`ConverterSet`] print directly.
    ///
    /// # Errors
    /// See [`ObjectConverter::convert_read`].
    fn convert_read_into(
        &self,
        object: &RawValue,
        type_meta: &TypeMetaRef<'_>,
        desired_api_version: &str,
        out: &mut Vec<u8>,
    ) -> Result<(), ConversionError> {
        let converted = self.convert_read(object, type_meta, desired_api_version)?;
        out.extend_from_slice(converted.get().as_bytes());
        Ok(())
    }

    /// Converts the JSON object at the start of `text`, which may go on after it (the rest
    /// of a list: `, {...}]`), appending the converted object to `out` as
    /// [`ObjectConverter::convert_read_into`] does, and returns how many bytes of `text` the
    /// object took (white space before it included). On an error `out` is left as it was.
    ///
    /// The answer is the one the default gives: the object read as a [`RawValue`] (which
    /// checks its syntax), then [`ObjectConverter::convert_read_into`]. [`crate::review`]
    /// reads a request's objects this way, in one pass over the body, and
    /// [`HubSpokeConverter`] and [`ConverterSet`] read each object only once for it: an
    /// object whose `apiVersion` and `kind` are its first two members (as the API server sends
    /// them) is decoded straight from `text` by the decode that converts it (which checks its
    /// syntax as it goes and finds its end), and read as the default reads it when that
    /// decode fails (for the default's answer) or for any other object.
    ///
    /// ```
    /// use capi_machinepool_conversion::{ObjectConverter, StaticResolver, machine_pool_converter};
    /// let converter = machine_pool_converter(StaticResolver::new());
    /// let list = r#"{"apiVersion":"cluster.x-k8s.io/v1beta1","kind":"MachinePool","spec":{"clusterName":"c"}}, {"next":1}]"#;
    /// let mut out = Vec::new();
    /// let used = converter.convert_leading_into(list, "cluster.x-k8s.io/v1beta2", &mut out).unwrap();
    /// assert_eq!(&list[used..], r#", {"next":1}]"#);
    /// let converted: serde_json::Value = serde_json::from_slice(&out).unwrap();
    /// assert_eq!(converted["apiVersion"], "cluster.x-k8s.io/v1beta2");
    /// ```
    ///
    /// # Errors
    /// See [`ObjectConverter::convert_read`]; a `text` that does not start with a JSON value
    /// is a decode error.
    fn convert_leading_into(
        &self,
        text: &str,
        desired_api_version: &str,
        out: &mut Vec<u8>,
    ) -> Result<usize, ConversionError> {
        convert_leading_as_raw(self, text, desired_api_version, out)
    }

    /// Converts the JSON text of an object to `desired_api_version`; the output is what Go's
    /// `encoding/json` prints for the converted object.
    ///
    /// # Errors
    /// See [`ObjectConverter::convert_read`]; a text that is not an object is a decode error.
    fn convert(
        &self,
        object: &RawValue,
        desired_api_version: &str,
    ) -> Result<Box<RawValue>, ConversionError> {
        let type_meta = TypeMetaRef::read(object)?;
        self.convert_read(object, &type_meta, desired_api_version)
    }

    /// [`ObjectConverter::convert`] for a `serde_json::Value`: the same answer as printing
    /// `object`, converting the text and parsing the result.
    ///
    /// The default does exactly that; [`HubSpokeConverter`] and [`ConverterSet`] decode the
    /// typed object from `object` itself and build the answer as a `Value`, without text in
    /// between. An object whose `apiVersion` or `kind` is not a string, or that nests deeper
    /// than [`VALUE_PATH_MAX_DEPTH`], still goes through the text, for the same answer. The
    /// one difference: a decode error's serde message has no `at line 1 column N` (a
    /// position in the text the converter printed itself, not in anything the caller wrote).
    ///
    /// # Errors
    /// See [`ObjectConverter::convert`].
    fn convert_value(
        &self,
        object: &Value,
        desired_api_version: &str,
    ) -> Result<Value, ConversionError> {
        convert_value_as_text(self, object, desired_api_version)
    }
}

/// How deeply a `serde_json::Value` may nest arrays and objects for
/// [`ObjectConverter::convert_value`] of [`HubSpokeConverter`] and [`ConverterSet`] to read
/// it directly; a deeper one goes through JSON text, whose parser refuses more than 128
/// levels (the `Value` path has no limit of its own), so that both give the same answer.
pub const VALUE_PATH_MAX_DEPTH: usize = 100;

/// Whether `value` nests arrays and objects more than `levels` deep (a scalar is 0 deep, `{}`
/// 1). Iterative: any depth is safe to ask about.
///
/// ```
/// use capi_machinepool_conversion::nests_deeper_than;
/// let value = serde_json::json!({"a": [1, {"b": 2}]});
/// assert!(nests_deeper_than(&value, 2));
/// assert!(!nests_deeper_than(&value, 3));
/// ```
#[must_use]
pub fn nests_deeper_than(value: &Value, levels: usize) -> bool {
    // Each entry: a value and how many containers enclose it.
    let mut stack = vec![(value, 0usize)];
    while let Some((value, enclosing)) = stack.pop() {
        match value {
            Value::Array(_) | Value::Object(_) if enclosing >= levels => return true,
            Value::Array(items) => stack.extend(items.iter().map(|c| (c, enclosing + 1))),
            Value::Object(map) => stack.extend(map.values().map(|c| (c, enclosing + 1))),
            _ => {}
        }
    }
    false
}

/// [`ObjectConverter::convert_value`] through the JSON text: `object` printed, converted,
/// the answer parsed.
fn convert_value_as_text<C: ObjectConverter + ?Sized>(
    converter: &C,
    object: &Value,
    desired_api_version: &str,
) -> Result<Value, ConversionError> {
    let raw = serde_json::value::to_raw_value(object).map_err(ConversionError::Encode)?;
    let converted = converter.convert(&raw, desired_api_version)?;
    serde_json::from_str(converted.get()).map_err(ConversionError::Encode)
}

/// [`ObjectConverter::convert_leading_into`] through a [`RawValue`]: the object read (and its
/// syntax checked) as one, then converted by [`ObjectConverter::convert_read_into`].
fn convert_leading_as_raw<C: ObjectConverter + ?Sized>(
    converter: &C,
    text: &str,
    desired_api_version: &str,
    out: &mut Vec<u8>,
) -> Result<usize, ConversionError> {
    let (object, used) = read_leading::<&RawValue>(text).map_err(unknown_decode)?;
    let type_meta = TypeMetaRef::read(object)?;
    converter.convert_read_into(object, &type_meta, desired_api_version, out)?;
    Ok(used)
}

/// A decode error of an object whose apiVersion is not known yet.
fn unknown_decode(source: serde_json::Error) -> ConversionError {
    ConversionError::Decode {
        api_version: "<unknown>".into(),
        source,
    }
}

/// A spoke with its type erased: an object (text or `Value`) to hub, hub to an object.
trait ErasedSpoke<H>: Send + Sync {
    fn spoke_to_hub(
        &self,
        object: Source<'_>,
        resolver: &dyn ApiVersionResolver,
    ) -> Result<H, ConversionError>;
    /// Writes the spoke converted from `hub` to `out` (see [`Sink::encode`]).
    fn hub_to_spoke(
        &self,
        hub: H,
        resolver: &dyn ApiVersionResolver,
        out: Sink<'_>,
    ) -> Result<(), ConversionError>;
}

/// An object to convert: its JSON text, the text of a list from the object on (with where
/// the object ends written to the cell), or a `Value` already parsed (read without printing it).
#[derive(Clone, Copy)]
enum Source<'a> {
    Text(&'a str),
    Leading(&'a str, &'a Cell<usize>),
    Value(&'a Value),
}

impl Source<'_> {
    /// Decodes the object as its version's type ([`crate::conversion_data::decode_root`]: an
    /// object without `spec`, as the API server may send, is read with `spec: {}`).
    fn decode<T: DeserializeOwned>(self, api_version: &str) -> Result<T, ConversionError> {
        match self {
            Source::Text(text) => crate::conversion_data::decode_root(text),
            // The same decode as `decode_root`'s first, with no second one for an object
            // without `metadata` or `spec` (the caller then reads the object as text).
            Source::Leading(text, used) => read_leading(text).map(|(decoded, length)| {
                used.set(length);
                decoded
            }),
            Source::Value(value) => crate::conversion_data::decode_root_value(value),
        }
        .map_err(|source| ConversionError::Decode {
            api_version: api_version.to_owned(),
            source,
        })
    }
}

/// Reads the JSON value at the start of `text`, which may go on after it, and how many bytes
/// it took (white space before it included): serde_json's own reader finds its end, checking
/// its syntax. As a `&RawValue` it is the value's text; as a typed object, the one read of
/// an object in a list.
pub(crate) fn read_leading<'a, T: Deserialize<'a>>(
    text: &'a str,
) -> Result<(T, usize), serde_json::Error> {
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<T>();
    let value = stream
        .next()
        .unwrap_or_else(|| Err(serde::de::Error::custom("no JSON value")))?;
    Ok((value, stream.byte_offset()))
}

/// Where a converted object goes: printed at the end of a buffer, or built as a `Value`.
enum Sink<'a> {
    Text(&'a mut Vec<u8>),
    Value(&'a mut Value),
}

impl Sink<'_> {
    /// Writes a converted object: printed as Go prints it at the end of the buffer (left as it
    /// was on an error), or as the `Value` that printing and parsing it back would give (the
    /// types serialize Go's members; only string escaping, which a `Value` does not hold,
    /// is [`wire`]'s).
    fn encode<T: Serialize>(self, object: &T) -> Result<(), ConversionError> {
        match self {
            Sink::Text(out) => wire::append_to_vec(out, object),
            Sink::Value(out) => serde_json::to_value(object).map(|value| *out = value),
        }
        .map_err(ConversionError::Encode)
    }
}

struct SpokeOf<S>(PhantomData<fn() -> S>);

/// A printed object as a `RawValue` (checked: [`ObjectConverter::convert_read`] promises
/// JSON text whatever the printer).
fn into_raw_value(printed: Vec<u8>) -> Result<Box<RawValue>, ConversionError> {
    let text = String::from_utf8(printed)
        .map_err(|e| ConversionError::Encode(serde::ser::Error::custom(e)))?;
    RawValue::from_string(text).map_err(ConversionError::Encode)
}

/// The buffer a converted object is printed into: the source object's size and an eighth
/// (fields renamed between versions, the conversion-data annotation's escaping of small
/// values), so that most prints never grow their buffer.
fn output_capacity(source: &RawValue) -> usize {
    let len = source.get().len();
    len.saturating_add(len / 8).saturating_add(256)
}

impl<H: Hub, S: Spoke<H>> ErasedSpoke<H> for SpokeOf<S> {
    fn spoke_to_hub(
        &self,
        object: Source<'_>,
        resolver: &dyn ApiVersionResolver,
    ) -> Result<H, ConversionError> {
        object.decode::<S>(&S::api_version(&()))?.to_hub(resolver)
    }

    fn hub_to_spoke(
        &self,
        hub: H,
        resolver: &dyn ApiVersionResolver,
        out: Sink<'_>,
    ) -> Result<(), ConversionError> {
        out.encode(&S::from_hub(hub, resolver)?)
    }
}

/// An [`ObjectConverter`] for a hub type `H` and any number of spokes.
///
/// ```
/// use capi_machinepool_api::{v1beta1, v1beta2};
/// use capi_machinepool_conversion::{HubSpokeConverter, ObjectConverter, StaticResolver};
/// let converter = HubSpokeConverter::<v1beta2::MachinePool>::new(StaticResolver::new())
///     .with_spoke::<v1beta1::MachinePool>();
/// assert_eq!(converter.api_versions(), ["cluster.x-k8s.io/v1beta2", "cluster.x-k8s.io/v1beta1"]);
/// fn shareable<T: Send + Sync + 'static>(_: &T) {}
/// shareable(&converter);
/// ```
pub struct HubSpokeConverter<H> {
    resolver: Arc<dyn ApiVersionResolver>,
    hub_api_version: String,
    spokes: Vec<(String, Box<dyn ErasedSpoke<H>>)>,
}

impl<H> std::fmt::Debug for HubSpokeConverter<H> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HubSpokeConverter")
            .field("hub", &self.hub_api_version)
            .field(
                "spokes",
                &self.spokes.iter().map(|(v, _)| v).collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

/// Where an object goes: nowhere (already there) or from a version to another.
enum Route<'s> {
    Same,
    Convert { source: &'s str },
}

impl<H: Hub + 'static> HubSpokeConverter<H> {
    /// A converter with no spoke yet; `resolver` is handed to every spoke conversion.
    #[must_use]
    pub fn new(resolver: impl ApiVersionResolver + 'static) -> Self {
        Self::with_shared_resolver(Arc::new(resolver))
    }

    /// A converter using a resolver shared with other converters.
    #[must_use]
    pub fn with_shared_resolver(resolver: Arc<dyn ApiVersionResolver>) -> Self {
        Self {
            resolver,
            hub_api_version: H::api_version(&()).into_owned(),
            spokes: Vec::new(),
        }
    }

    /// Registers a spoke version.
    #[must_use]
    pub fn with_spoke<S: Spoke<H> + 'static>(mut self) -> Self {
        self.spokes.push((
            S::api_version(&()).into_owned(),
            Box::new(SpokeOf::<S>(PhantomData)),
        ));
        self
    }

    /// The resolver handed to spoke conversions.
    #[must_use]
    pub fn resolver(&self) -> &Arc<dyn ApiVersionResolver> {
        &self.resolver
    }

    fn spoke(&self, api_version: &str) -> Option<&dyn ErasedSpoke<H>> {
        self.spokes
            .iter()
            .find(|(v, _)| v == api_version)
            .map(|(_, s)| s.as_ref())
    }

    fn knows(&self, api_version: &str) -> bool {
        api_version == self.hub_api_version || self.spokes.iter().any(|(v, _)| v == api_version)
    }

    /// Checks kind and versions and decides what to do.
    fn route<'s>(
        &self,
        type_meta: &'s TypeMetaRef<'_>,
        desired: &str,
    ) -> Result<Route<'s>, ConversionError> {
        let kind = type_meta
            .kind
            .as_deref()
            .ok_or(ConversionError::MissingTypeMeta { field: "kind" })?;
        let expected_kind = H::kind(&());
        if kind != expected_kind {
            return Err(ConversionError::WrongKind {
                found: kind.to_owned(),
                expected: expected_kind.into_owned(),
            });
        }
        let source = type_meta
            .api_version
            .as_deref()
            .ok_or(ConversionError::MissingTypeMeta {
                field: "apiVersion",
            })?;
        for version in [desired, source] {
            if !self.knows(version) {
                return Err(ConversionError::UnsupportedApiVersion {
                    api_version: version.to_owned(),
                    supported: self.api_versions(),
                });
            }
        }
        Ok(if source == desired {
            Route::Same
        } else {
            Route::Convert { source }
        })
    }

    /// Decodes `object` (at `source`), converts it through the hub and writes it to `out`.
    fn convert_through_hub(
        &self,
        object: Source<'_>,
        source: &str,
        desired: &str,
        out: Sink<'_>,
    ) -> Result<(), ConversionError> {
        let resolver = self.resolver.as_ref();
        let hub: H = match self.spoke(source) {
            Some(spoke) => spoke.spoke_to_hub(object, resolver)?,
            None => object.decode(source)?,
        };
        match self.spoke(desired) {
            Some(spoke) => spoke.hub_to_spoke(hub, resolver, out),
            None => out.encode(&hub),
        }
    }

    /// [`HubSpokeConverter::convert_through_hub`] of a text, printed at the end of `out` (left
    /// as it was on an error) in a buffer grown once to the size the object will print at.
    fn print_converted(
        &self,
        object: &RawValue,
        source: &str,
        desired: &str,
        out: &mut Vec<u8>,
    ) -> Result<(), ConversionError> {
        out.reserve(output_capacity(object));
        self.convert_through_hub(Source::Text(object.get()), source, desired, Sink::Text(out))
    }
}

impl<H: Hub + 'static> ObjectConverter for HubSpokeConverter<H> {
    fn group_kinds(&self) -> Vec<(String, String)> {
        vec![(H::group(&()).into_owned(), H::kind(&()).into_owned())]
    }

    fn api_versions(&self) -> Vec<String> {
        std::iter::once(self.hub_api_version.clone())
            .chain(self.spokes.iter().map(|(v, _)| v.clone()))
            .collect()
    }

    fn convert_read(
        &self,
        object: &RawValue,
        type_meta: &TypeMetaRef<'_>,
        desired: &str,
    ) -> Result<Box<RawValue>, ConversionError> {
        let Route::Convert { source } = self.route(type_meta, desired)? else {
            return Ok(object.to_owned());
        };
        let mut printed = Vec::new();
        self.print_converted(object, source, desired, &mut printed)?;
        into_raw_value(printed)
    }

    fn convert_read_into(
        &self,
        object: &RawValue,
        type_meta: &TypeMetaRef<'_>,
        desired: &str,
        out: &mut Vec<u8>,
    ) -> Result<(), ConversionError> {
        match self.route(type_meta, desired)? {
            Route::Same => out.extend_from_slice(object.get().as_bytes()),
            Route::Convert { source } => self.print_converted(object, source, desired, out)?,
        }
        Ok(())
    }

    fn convert_leading_into(
        &self,
        text: &str,
        desired: &str,
        out: &mut Vec<u8>,
    ) -> Result<usize, ConversionError> {
        let Some(type_meta) = leading::type_meta(text) else {
            return convert_leading_as_raw(self, text, desired, out);
        };
        let Route::Convert { source } = self.route(&type_meta, desired)? else {
            return convert_leading_as_raw(self, text, desired, out);
        };
        let used = Cell::new(0);
        let object = Source::Leading(text, &used);
        match self.convert_through_hub(object, source, desired, Sink::Text(out)) {
            Ok(()) => Ok(used.get()),
            // The object read whole gives the answer: its text's decode is retried without
            // `metadata` or `spec` (`decode_root`), and its error is the one `convert` gives.
            Err(ConversionError::Decode { .. }) => convert_leading_as_raw(self, text, desired, out),
            Err(e) => Err(e),
        }
    }

    fn convert_value(&self, object: &Value, desired: &str) -> Result<Value, ConversionError> {
        let type_meta = TypeMetaRef::of_value(object)
            .filter(|_| !nests_deeper_than(object, VALUE_PATH_MAX_DEPTH));
        let Some(type_meta) = type_meta else {
            return convert_value_as_text(self, object, desired);
        };
        match self.route(&type_meta, desired)? {
            Route::Same => Ok(object.clone()),
            Route::Convert { source } => {
                let mut converted = Value::Null;
                let out = Sink::Value(&mut converted);
                self.convert_through_hub(Source::Value(object), source, desired, out)?;
                Ok(converted)
            }
        }
    }
}

/// Several converters, one per kind, behind one [`ObjectConverter`]: each object goes to the
/// converter of its group and kind. A webhook serving a provider's AWSMachinePool and
/// AWSManagedMachinePool holds one of these.
///
/// ```
/// use capi_machinepool_api::{v1beta1, v1beta2};
/// use capi_machinepool_conversion::{ConverterSet, HubSpokeConverter, ObjectConverter, StaticResolver};
/// let set = ConverterSet::new()
///     .with(HubSpokeConverter::<v1beta2::MachinePool>::new(StaticResolver::new()).with_spoke::<v1beta1::MachinePool>());
/// assert_eq!(set.group_kinds(), [("cluster.x-k8s.io".to_owned(), "MachinePool".to_owned())]);
/// ```
#[derive(Default)]
pub struct ConverterSet {
    by_kind: BTreeMap<(String, String), Arc<dyn ObjectConverter>>,
}

impl std::fmt::Debug for ConverterSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConverterSet")
            .field("kinds", &self.by_kind.keys().collect::<Vec<_>>())
            .finish()
    }
}

impl ConverterSet {
    /// An empty set.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a converter for every group and kind it handles (replacing earlier ones).
    #[must_use]
    pub fn with(mut self, converter: impl ObjectConverter + 'static) -> Self {
        self.add(Arc::new(converter));
        self
    }

    /// The converter of an object's group and kind.
    fn converter_of(
        &self,
        type_meta: &TypeMetaRef<'_>,
    ) -> Result<&dyn ObjectConverter, ConversionError> {
        let kind = type_meta
            .kind
            .as_deref()
            .ok_or(ConversionError::MissingTypeMeta { field: "kind" })?;
        let key = (type_meta.group().to_owned(), kind.to_owned());
        match self.by_kind.get(&key) {
            Some(converter) => Ok(converter.as_ref()),
            None => Err(ConversionError::WrongKind {
                found: format!("{}/{kind}", key.0),
                expected: self
                    .by_kind
                    .keys()
                    .map(|(g, k)| format!("{g}/{k}"))
                    .collect::<Vec<_>>()
                    .join(", "),
            }),
        }
    }

    /// Adds a shared converter for every group and kind it handles.
    pub fn add(&mut self, converter: Arc<dyn ObjectConverter>) {
        for group_kind in converter.group_kinds() {
            self.by_kind.insert(group_kind, Arc::clone(&converter));
        }
    }
}

impl ObjectConverter for ConverterSet {
    fn group_kinds(&self) -> Vec<(String, String)> {
        self.by_kind.keys().cloned().collect()
    }

    fn api_versions(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for converter in self.by_kind.values() {
            for v in converter.api_versions() {
                if !out.contains(&v) {
                    out.push(v);
                }
            }
        }
        out
    }

    fn convert_read(
        &self,
        object: &RawValue,
        type_meta: &TypeMetaRef<'_>,
        desired: &str,
    ) -> Result<Box<RawValue>, ConversionError> {
        self.converter_of(type_meta)?
            .convert_read(object, type_meta, desired)
    }

    fn convert_read_into(
        &self,
        object: &RawValue,
        type_meta: &TypeMetaRef<'_>,
        desired: &str,
        out: &mut Vec<u8>,
    ) -> Result<(), ConversionError> {
        self.converter_of(type_meta)?
            .convert_read_into(object, type_meta, desired, out)
    }

    fn convert_leading_into(
        &self,
        text: &str,
        desired: &str,
        out: &mut Vec<u8>,
    ) -> Result<usize, ConversionError> {
        match leading::type_meta(text) {
            Some(type_meta) => self
                .converter_of(&type_meta)?
                .convert_leading_into(text, desired, out),
            None => convert_leading_as_raw(self, text, desired, out),
        }
    }

    fn convert_value(&self, object: &Value, desired: &str) -> Result<Value, ConversionError> {
        match TypeMetaRef::of_value(object) {
            Some(type_meta) => self
                .converter_of(&type_meta)?
                .convert_value(object, desired),
            None => convert_value_as_text(self, object, desired),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use serde_json::json;

    use super::*;
    use crate::{StaticResolver, machine_pool_converter};

    fn converter() -> HubSpokeConverter<capi_machinepool_api::v1beta2::MachinePool> {
        machine_pool_converter(StaticResolver::new().with(
            "infrastructure.cluster.x-k8s.io",
            "DockerMachinePool",
            "infrastructure.cluster.x-k8s.io/v1beta2",
        ))
    }

    /// A v1beta1 MachinePool whose `managedFields[0].fieldsV1` (a free-form `Value`) makes
    /// the whole object nest `levels` deep: the text parser refuses it beyond 128.
    fn deep(levels: usize) -> Value {
        // Root, metadata, managedFields and its item: four levels before the chain.
        let mut chain = json!(1);
        for _ in 0..levels - 4 {
            chain = json!({ "f:a": chain });
        }
        let object = json!({
            "apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "MachinePool",
            "metadata": {"name": "a", "managedFields": [{"manager": "m", "fieldsV1": chain}]},
        });
        assert!(nests_deeper_than(&object, levels - 1) && !nests_deeper_than(&object, levels));
        object
    }

    /// The text path's answer for `object`: printed, converted, parsed (the reference).
    fn by_text(object: &Value, desired: &str) -> Result<Value, String> {
        convert_value_as_text(&converter(), object, desired).map_err(|e| e.to_string())
    }

    /// `convert_leading_into` answers as `convert` does, for the hub-and-spoke converter and a
    /// set holding it, whatever follows the object, and says where the object ends.
    #[test]
    fn the_leading_object_converts_as_the_object_alone() {
        let mut objects: Vec<String> = [
            json!({"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "MachinePool", "metadata": {"name": "a"}}),
            json!({"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "MachinePool", "spec": {"replicas": 2, "unknown": [{"]": "}"}]}}),
            json!({"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "MachinePool", "spec": {"replicas": "two"}}),
            json!({"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "Machine"}),
            json!({"apiVersion": "cluster.x-k8s.io/v1alpha3", "kind": "MachinePool"}),
            json!({"kind": "MachinePool"}),
            json!([1, 2]),
            deep(130),
        ]
        .iter()
        .map(Value::to_string)
        .collect();
        objects.extend([
            r#"{"kind":"MachinePool","apiVersion":"cluster.x-k8s.io/v1beta1","spec":{"replicas":1,"replicas":2}}"#.to_owned(),
            r#" {"apiVersion":"cluster.x-k8s.io/v1beta1","kind":"MachinePool","metadata":{"name":"\ud800"}}"#.to_owned(),
            r#"{"spec":{},"apiVersion":"cluster.x-k8s.io/v1beta1","kind":"MachinePool"}"#.to_owned(),
        ]);
        let set = ConverterSet::new().with(converter());
        let converters: [&dyn ObjectConverter; 2] = [&converter(), &set];
        for object in &objects {
            let raw: &RawValue = serde_json::from_str(object).unwrap();
            for desired in ["cluster.x-k8s.io/v1beta2", "cluster.x-k8s.io/v1beta1"] {
                for converter in converters {
                    let expected = converter
                        .convert(raw, desired)
                        .map(|c| c.get().to_owned())
                        .map_err(|e| e.to_string());
                    for rest in ["", " ", r#",{"a":1}]"#, "]}}"] {
                        let text = format!("{object}{rest}");
                        let mut out = b"[".to_vec();
                        let ours = converter.convert_leading_into(&text, desired, &mut out);
                        let ours = ours.map(|used| {
                            assert_eq!(&text[used..], rest, "{text}");
                            String::from_utf8(out[1..].to_vec()).unwrap()
                        });
                        if ours.is_err() {
                            assert_eq!(out, b"[", "{text}: out changed on an error");
                        }
                        assert_eq!(
                            ours.map_err(|e| e.to_string()),
                            expected,
                            "{text} to {desired}"
                        );
                    }
                }
            }
        }
    }

    /// Objects the upstream answers do not hold, each through both paths: no `spec` (read as
    /// `{}` on the second decode), no `metadata`, already at the desired version, a TypeMeta
    /// member that is not a string, not an object at all, another kind.
    #[test]
    fn the_value_path_answers_as_the_text_path_on_unusual_objects() {
        let objects = [
            json!({"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "MachinePool", "metadata": {"name": "a"}}),
            json!({"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "MachinePool", "spec": {"replicas": 2}}),
            json!({"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "MachinePool", "metadata": {"name": "a"}, "spec": {"replicas": 2, "unknown": 1}}),
            json!({"apiVersion": 1, "kind": "MachinePool", "spec": {}}),
            json!({"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": ["MachinePool"]}),
            json!({"apiVersion": "cluster.x-k8s.io/v1beta1"}),
            json!({"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "Machine"}),
            json!({"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "MachinePool", "spec": {"replicas": "two"}}),
            json!([1, 2]),
            json!("MachinePool"),
            deep(VALUE_PATH_MAX_DEPTH),
            deep(127),
            deep(200),
        ];
        let set = ConverterSet::new().with(converter());
        for object in &objects {
            for desired in ["cluster.x-k8s.io/v1beta2", "cluster.x-k8s.io/v1beta1"] {
                let expected = by_text(object, desired);
                let ours = converter().convert_value(object, desired);
                assert_eq!(
                    ours.map_err(|e| e.to_string()),
                    expected,
                    "{object} to {desired}"
                );
                // The set names the group in a wrong-kind error; it answers as it does for text.
                let set_text =
                    convert_value_as_text(&set, object, desired).map_err(|e| e.to_string());
                let set_value = set
                    .convert_value(object, desired)
                    .map_err(|e| e.to_string());
                assert_eq!(set_value, set_text, "{object} to {desired} (set)");
            }
        }
    }
}
