//! Shared wiring of the MachinePool root types of both versions: TypeMeta-checked serde,
//! JSON schema, `kube_core::Resource` and `CustomResourceExt`.

use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::{DeserializeSeed, Deserializer, Error as _, IgnoredAny, MapAccess, Visitor};

/// Keys of a root object.
enum RootField {
    ApiVersion,
    Kind,
    Metadata,
    Spec,
    Status,
    Items,
    Other,
}

impl<'de> Deserialize<'de> for RootField {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct FieldVisitor;
        impl Visitor<'_> for FieldVisitor {
            type Value = RootField;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a field name")
            }
            fn visit_str<E>(self, v: &str) -> Result<RootField, E> {
                Ok(match v {
                    "apiVersion" => RootField::ApiVersion,
                    "kind" => RootField::Kind,
                    "metadata" => RootField::Metadata,
                    "spec" => RootField::Spec,
                    "status" => RootField::Status,
                    "items" => RootField::Items,
                    _ => RootField::Other,
                })
            }
        }
        deserializer.deserialize_identifier(FieldVisitor)
    }
}

/// Reads a TypeMeta string and compares it with the expected value without allocating; an
/// absent or `null` value is accepted (as Go does), another value is an error naming the
/// field, what was found and what was expected.
struct Expect {
    field: &'static str,
    expected: &'static str,
}

impl<'de> DeserializeSeed<'de> for Expect {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_option(self)
    }
}

impl<'de> Visitor<'de> for Expect {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the string {:?}", self.expected)
    }
    fn visit_str<E: serde::de::Error>(self, found: &str) -> Result<(), E> {
        if found == self.expected {
            Ok(())
        } else {
            Err(E::custom(format_args!(
                "unexpected {} {found:?}, expected {:?}",
                self.field, self.expected
            )))
        }
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_none<E>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_str(self)
    }
}

/// Reads `metadata`, `spec` and `status` of a root object in one pass, checking `apiVersion`
/// and `kind` on the way (absent ones are accepted, as Go does); `null` sections read as
/// their zero value, unknown keys are ignored.
pub(crate) fn deserialize_root<'de, D, S, T>(
    deserializer: D,
    api_version: &'static str,
    kind: &'static str,
) -> Result<(kube_core::ObjectMeta, S, T), D::Error>
where
    D: Deserializer<'de>,
    S: Deserialize<'de> + Default,
    T: Deserialize<'de> + Default,
{
    struct RootVisitor<S, T> {
        api_version: &'static str,
        kind: &'static str,
        marker: PhantomData<fn() -> (S, T)>,
    }

    impl<'de, S: Deserialize<'de> + Default, T: Deserialize<'de> + Default> Visitor<'de>
        for RootVisitor<S, T>
    {
        type Value = (kube_core::ObjectMeta, S, T);
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "a {} {} object", self.api_version, self.kind)
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let (mut metadata, mut spec, mut status) = (None, None, None);
            while let Some(key) = map.next_key::<RootField>()? {
                match key {
                    RootField::ApiVersion => map.next_value_seed(Expect {
                        field: "apiVersion",
                        expected: self.api_version,
                    })?,
                    RootField::Kind => map.next_value_seed(Expect {
                        field: "kind",
                        expected: self.kind,
                    })?,
                    RootField::Metadata => once(&mut metadata, "metadata", &mut map)?,
                    RootField::Spec => once(&mut spec, "spec", &mut map)?,
                    RootField::Status => once(&mut status, "status", &mut map)?,
                    RootField::Items | RootField::Other => {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
            }
            Ok((
                metadata.flatten().unwrap_or_default(),
                spec.flatten().unwrap_or_default(),
                status.flatten().unwrap_or_default(),
            ))
        }
    }

    deserializer.deserialize_map(RootVisitor {
        api_version,
        kind,
        marker: PhantomData,
    })
}

/// Reads the value of a key that may appear once; `null` is kept as `Some(None)`.
fn once<'de, A: MapAccess<'de>, V: Deserialize<'de>>(
    slot: &mut Option<Option<V>>,
    name: &'static str,
    map: &mut A,
) -> Result<(), A::Error> {
    if slot.is_some() {
        return Err(A::Error::duplicate_field(name));
    }
    *slot = Some(map.next_value::<Option<V>>()?);
    Ok(())
}

/// Reads a list object (`metadata` and `items`), checking `apiVersion` and `kind`.
pub(crate) fn deserialize_list<'de, D, R>(
    deserializer: D,
    api_version: &'static str,
    kind: &'static str,
) -> Result<
    (
        k8s_openapi::apimachinery::pkg::apis::meta::v1::ListMeta,
        Vec<R>,
    ),
    D::Error,
>
where
    D: Deserializer<'de>,
    R: Deserialize<'de>,
{
    struct ListVisitor<R> {
        api_version: &'static str,
        kind: &'static str,
        marker: PhantomData<fn() -> R>,
    }

    impl<'de, R: Deserialize<'de>> Visitor<'de> for ListVisitor<R> {
        type Value = (
            k8s_openapi::apimachinery::pkg::apis::meta::v1::ListMeta,
            Vec<R>,
        );
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "a {} {} object", self.api_version, self.kind)
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let (mut metadata, mut items) = (None, None);
            while let Some(key) = map.next_key::<RootField>()? {
                match key {
                    RootField::ApiVersion => map.next_value_seed(Expect {
                        field: "apiVersion",
                        expected: self.api_version,
                    })?,
                    RootField::Kind => map.next_value_seed(Expect {
                        field: "kind",
                        expected: self.kind,
                    })?,
                    RootField::Metadata => once(&mut metadata, "metadata", &mut map)?,
                    RootField::Items => once(&mut items, "items", &mut map)?,
                    RootField::Spec | RootField::Status | RootField::Other => {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
            }
            Ok((
                metadata.flatten().unwrap_or_default(),
                items.flatten().unwrap_or_default(),
            ))
        }
    }

    deserializer.deserialize_map(ListVisitor {
        api_version,
        kind,
        marker: PhantomData,
    })
}

macro_rules! machine_pool_resource {
    (
        $root:ident, $list:ident, $spec:ident, $status:ident,
        version = $version:expr,
        api_version = $api_version:expr,
        omit_zero_spec_status = $omit:expr,
        required = [$($required:expr),*]
    ) => {
        impl serde::Serialize for $root {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                use serde::ser::SerializeMap;
                let omit: bool = $omit;
                let mut map = serializer.serialize_map(None)?;
                // Go emits TypeMeta as `kind` then `apiVersion`.
                map.serialize_entry("kind", crate::constants::KIND)?;
                map.serialize_entry("apiVersion", $api_version)?;
                map.serialize_entry("metadata", &crate::wire::GoObjectMeta(&self.metadata))?;
                if !(omit && crate::omit::is_zero(&self.spec)) {
                    map.serialize_entry("spec", &self.spec)?;
                }
                if !(omit && crate::omit::is_zero(&self.status)) {
                    map.serialize_entry("status", &self.status)?;
                }
                map.end()
            }
        }

        impl<'de> serde::Deserialize<'de> for $root {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let (metadata, spec, status) = crate::resource::deserialize_root::<D, $spec, $status>(
                    deserializer,
                    $api_version,
                    crate::constants::KIND,
                )?;
                Ok(Self { metadata, spec, status })
            }
        }

        impl schemars::JsonSchema for $root {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                concat!("MachinePool_", stringify!($root)).into()
            }

            fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
                let required: Vec<&str> = vec![$($required),*];
                let mut schema = schemars::json_schema!({
                    "type": "object",
                    "description": "MachinePool is a pool of machines managed as one unit by an infrastructure provider.",
                    "properties": {
                        "apiVersion": { "type": "string", "description": "Versioned schema of this representation of an object." },
                        "kind": { "type": "string", "description": "REST resource this object represents." },
                        "metadata": crate::common::root_metadata_schema(generator),
                        "spec": generator.subschema_for::<$spec>(),
                        "status": generator.subschema_for::<$status>(),
                    }
                });
                if !required.is_empty() {
                    schema.insert("required".into(), serde_json::json!(required));
                }
                schema
            }
        }

        impl kube_core::Resource for $root {
            type DynamicType = ();
            type Scope = kube_core::NamespaceResourceScope;

            fn kind(_: &()) -> std::borrow::Cow<'_, str> {
                crate::constants::KIND.into()
            }
            fn group(_: &()) -> std::borrow::Cow<'_, str> {
                crate::constants::GROUP.into()
            }
            fn version(_: &()) -> std::borrow::Cow<'_, str> {
                $version.into()
            }
            fn api_version(_: &()) -> std::borrow::Cow<'_, str> {
                $api_version.into()
            }
            fn plural(_: &()) -> std::borrow::Cow<'_, str> {
                crate::constants::PLURAL.into()
            }
            fn meta(&self) -> &kube_core::ObjectMeta {
                &self.metadata
            }
            fn meta_mut(&mut self) -> &mut kube_core::ObjectMeta {
                &mut self.metadata
            }
        }

        impl kube_core::CustomResourceExt for $root {
            /// The full multi-version MachinePool CRD (both versions share one CRD).
            fn crd() -> k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition {
                crate::crd::machine_pool_crd()
            }
            fn crd_name() -> &'static str {
                crate::constants::CRD_NAME
            }
            fn api_resource() -> kube_core::discovery::ApiResource {
                kube_core::discovery::ApiResource::erase::<Self>(&())
            }
            fn shortnames() -> &'static [&'static str] {
                crate::constants::SHORT_NAMES
            }
        }

        impl $root {
            /// A MachinePool with the given name and spec, everything else empty.
            #[must_use]
            pub fn new(name: &str, spec: $spec) -> Self {
                Self {
                    metadata: kube_core::ObjectMeta { name: Some(name.to_owned()), ..Default::default() },
                    spec,
                    status: Default::default(),
                }
            }
        }

        impl serde::Serialize for $list {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                use serde::ser::SerializeMap;
                let mut map = serializer.serialize_map(Some(4))?;
                map.serialize_entry("kind", crate::constants::LIST_KIND)?;
                map.serialize_entry("apiVersion", $api_version)?;
                map.serialize_entry("metadata", &self.metadata)?;
                map.serialize_entry("items", &self.items)?;
                map.end()
            }
        }

        impl<'de> serde::Deserialize<'de> for $list {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let (metadata, items) = crate::resource::deserialize_list::<D, $root>(
                    deserializer,
                    $api_version,
                    crate::constants::LIST_KIND,
                )?;
                Ok(Self { metadata, items })
            }
        }
    };
}

pub(crate) use machine_pool_resource;
