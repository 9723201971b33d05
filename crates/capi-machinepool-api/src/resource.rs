//! Shared wiring of the MachinePool root types of both versions: TypeMeta-checked serde,
//! JSON schema, `kube_core::Resource` and `CustomResourceExt`.

use std::fmt;
use std::marker::PhantomData;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ListMeta;
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

/// The sections of an object other than its TypeMeta, read key by key by [`TypeMetaChecked`].
trait Sections<'de>: Default {
    /// What the object reads as.
    type Output;
    /// Reads the value of `key` (never `apiVersion` or `kind`).
    fn read<A: MapAccess<'de>>(&mut self, key: RootField, map: &mut A) -> Result<(), A::Error>;
    /// The object, absent and `null` sections read as their zero value.
    fn finish(self) -> Self::Output;
}

/// Reads an object in one pass, checking `apiVersion` and `kind` on the way (absent ones are
/// accepted, as Go does) and handing every other key to the sections `S`.
struct TypeMetaChecked<S> {
    api_version: &'static str,
    kind: &'static str,
    sections: PhantomData<fn() -> S>,
}

impl<'de, S: Sections<'de>> Visitor<'de> for TypeMetaChecked<S> {
    type Value = S::Output;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a {} {} object", self.api_version, self.kind)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut sections = S::default();
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
                key => sections.read(key, &mut map)?,
            }
        }
        Ok(sections.finish())
    }
}

/// Reads an object whose sections are `S`, checking its TypeMeta.
fn deserialize_checked<'de, D: Deserializer<'de>, S: Sections<'de>>(
    deserializer: D,
    api_version: &'static str,
    kind: &'static str,
) -> Result<S::Output, D::Error> {
    deserializer.deserialize_map(TypeMetaChecked::<S> {
        api_version,
        kind,
        sections: PhantomData,
    })
}

/// `metadata`, `spec` and `status` of a root object; other keys are ignored.
#[derive(Default)]
struct ObjectSections<S, T> {
    metadata: Option<Option<kube_core::ObjectMeta>>,
    spec: Option<Option<S>>,
    status: Option<Option<T>>,
}

impl<'de, S: Deserialize<'de> + Default, T: Deserialize<'de> + Default> Sections<'de>
    for ObjectSections<S, T>
{
    type Output = (kube_core::ObjectMeta, S, T);
    fn read<A: MapAccess<'de>>(&mut self, key: RootField, map: &mut A) -> Result<(), A::Error> {
        match key {
            // k8s-openapi's ObjectMeta reads integers as serde_json does: `-0` needs the wrapper.
            RootField::Metadata => once_go_integers(&mut self.metadata, "metadata", map),
            RootField::Spec => once(&mut self.spec, "spec", map),
            RootField::Status => once(&mut self.status, "status", map),
            _ => map.next_value::<IgnoredAny>().map(drop),
        }
    }
    fn finish(self) -> Self::Output {
        (
            self.metadata.flatten().unwrap_or_default(),
            self.spec.flatten().unwrap_or_default(),
            self.status.flatten().unwrap_or_default(),
        )
    }
}

/// `metadata` and `items` of a list object; other keys are ignored.
#[derive(Default)]
struct ListSections<R> {
    metadata: Option<Option<ListMeta>>,
    items: Option<Option<Vec<R>>>,
}

impl<'de, R: Deserialize<'de> + Default> Sections<'de> for ListSections<R> {
    type Output = (ListMeta, Vec<R>);
    fn read<A: MapAccess<'de>>(&mut self, key: RootField, map: &mut A) -> Result<(), A::Error> {
        match key {
            RootField::Metadata => once_go_integers(&mut self.metadata, "metadata", map),
            RootField::Items => once(&mut self.items, "items", map),
            _ => map.next_value::<IgnoredAny>().map(drop),
        }
    }
    fn finish(self) -> Self::Output {
        (
            self.metadata.flatten().unwrap_or_default(),
            self.items.flatten().unwrap_or_default(),
        )
    }
}

/// Reads the value of a key that may appear once; `null` is kept as `Some(None)`.
fn once<'de, A: MapAccess<'de>, V: Deserialize<'de>>(
    slot: &mut Option<Option<V>>,
    name: &'static str,
    map: &mut A,
) -> Result<(), A::Error> {
    once_seed(slot, name, map, PhantomData)
}

/// [`once`], integers read as Go reads them ([`GoIntegers`](crate::wire::int::GoIntegers)).
fn once_go_integers<'de, A: MapAccess<'de>, V: Deserialize<'de>>(
    slot: &mut Option<Option<V>>,
    name: &'static str,
    map: &mut A,
) -> Result<(), A::Error> {
    once_seed(slot, name, map, crate::wire::int::GoSeed(PhantomData))
}

/// Reads the value of a key that may appear once through `seed`.
fn once_seed<'de, A: MapAccess<'de>, V, S: DeserializeSeed<'de, Value = Option<V>>>(
    slot: &mut Option<Option<V>>,
    name: &'static str,
    map: &mut A,
    seed: S,
) -> Result<(), A::Error> {
    if slot.is_some() {
        return Err(A::Error::duplicate_field(name));
    }
    *slot = Some(map.next_value_seed(seed)?);
    Ok(())
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
    deserialize_checked::<D, ObjectSections<S, T>>(deserializer, api_version, kind)
}

/// Reads a list object (`metadata` and `items`), checking `apiVersion` and `kind`.
pub(crate) fn deserialize_list<'de, D, R>(
    deserializer: D,
    api_version: &'static str,
    kind: &'static str,
) -> Result<(ListMeta, Vec<R>), D::Error>
where
    D: Deserializer<'de>,
    R: Deserialize<'de> + Default,
{
    deserialize_checked::<D, ListSections<R>>(deserializer, api_version, kind)
}

/// `kube_core::Resource` for a namespaced type with a `metadata: ObjectMeta` field and a
/// static GroupVersionKind: `namespaced_resource!(Type, group, version, kind, plural)`. `api_version` saves the allocation of kube-core's default
/// (`group/version`) where the joined string is a constant.
macro_rules! namespaced_resource {
    ($ty:ty, $group:expr, $version:expr, $kind:expr, $plural:expr $(, api_version = $api_version:expr)?) => {
        impl kube_core::Resource for $ty {
            type DynamicType = ();
            type Scope = kube_core::NamespaceResourceScope;

            fn kind(_: &()) -> std::borrow::Cow<'_, str> {
                $kind.into()
            }
            fn group(_: &()) -> std::borrow::Cow<'_, str> {
                $group.into()
            }
            fn version(_: &()) -> std::borrow::Cow<'_, str> {
                $version.into()
            }
            $(
                fn api_version(_: &()) -> std::borrow::Cow<'_, str> {
                    $api_version.into()
                }
            )?
            fn plural(_: &()) -> std::borrow::Cow<'_, str> {
                $plural.into()
            }
            fn meta(&self) -> &kube_core::ObjectMeta {
                &self.metadata
            }
            fn meta_mut(&mut self) -> &mut kube_core::ObjectMeta {
                &mut self.metadata
            }
        }
    };
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

        crate::resource::namespaced_resource!(
            $root,
            crate::constants::GROUP,
            $version,
            crate::constants::KIND,
            crate::constants::PLURAL,
            api_version = $api_version
        );

        impl kube_core::CustomResourceExt for $root {
            /// This version's CRD alone (served and storage), as kube-derive's `crd()`; the
            /// multi-version MachinePool CRD is `capi_machinepool_api::machine_pool_crd()`, their
            /// merge.
            fn crd() -> k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition {
                #[allow(clippy::expect_used)]
                serde_json::from_value(Self::crd_value())
                    .expect("the generated CRD is a valid CustomResourceDefinition (checked by tests)")
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
            /// This version's CRD alone as JSON (integers kept as integers): what
            /// [`kube_core::CustomResourceExt::crd`] returns, before typing.
            #[must_use]
            pub fn crd_value() -> serde_json::Value {
                crate::crd_version::version_crd_value(
                    $version,
                    crate::schema::structural_schema_for::<Self>(),
                )
            }

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

pub(crate) use {machine_pool_resource, namespaced_resource};

#[cfg(test)]
mod tests {
    use kube_core::Resource;
    use serde_json::json;

    use crate::{v1beta1, v1beta2, views};

    #[test]
    fn objects_and_lists_check_their_type_meta_alike() {
        let object = |v| serde_json::from_value::<v1beta2::MachinePool>(v);
        let list = |v| serde_json::from_value::<v1beta2::MachinePoolList>(v);
        // Absent or null TypeMeta is accepted, as Go's decoder does.
        assert!(object(json!({"metadata": {"name": "a"}})).is_ok());
        assert!(list(json!({"apiVersion": null, "kind": null, "items": []})).is_ok());
        let err = object(json!({"kind": "MachinePoolList"})).unwrap_err();
        assert!(
            err.to_string()
                .starts_with(r#"unexpected kind "MachinePoolList", expected "MachinePool""#),
            "{err}"
        );
        let err = list(json!({"kind": "MachinePool"})).unwrap_err();
        assert!(
            err.to_string()
                .starts_with(r#"unexpected kind "MachinePool", expected "MachinePoolList""#),
            "{err}"
        );
        for err in [
            object(json!({"apiVersion": "cluster.x-k8s.io/v1beta1"})).unwrap_err(),
            list(json!({"apiVersion": "cluster.x-k8s.io/v1beta1"})).unwrap_err(),
        ] {
            assert!(
                err.to_string().starts_with(
                    r#"unexpected apiVersion "cluster.x-k8s.io/v1beta1", expected "cluster.x-k8s.io/v1beta2""#
                ),
                "{err}"
            );
        }
    }

    #[test]
    fn sections_read_once_null_as_zero_and_unknown_keys_ignored() {
        let text = r#"{"metadata":{"name":"a"},"metadata":{"name":"b"}}"#;
        let err = serde_json::from_str::<v1beta2::MachinePool>(text).unwrap_err();
        assert!(
            err.to_string().starts_with("duplicate field `metadata`"),
            "{err}"
        );
        let text = r#"{"items":[],"items":[]}"#;
        let err = serde_json::from_str::<v1beta1::MachinePoolList>(text).unwrap_err();
        assert!(
            err.to_string().starts_with("duplicate field `items`"),
            "{err}"
        );
        let mp: v1beta2::MachinePool =
            serde_json::from_str(r#"{"spec":null,"status":null,"items":[1],"extra":{}}"#).unwrap();
        assert_eq!(mp, v1beta2::MachinePool::default());
        let list: v1beta2::MachinePoolList = serde_json::from_str(
            r#"{"metadata":null,"items":[{"metadata":{"name":"a"}}],"spec":1}"#,
        )
        .unwrap();
        assert_eq!(list.items.len(), 1);
        assert_eq!(list.items[0].metadata.name.as_deref(), Some("a"));
    }

    /// The constant `api_version` a root type gives equals kube-core's own `group/version`
    /// join, which the views use.
    #[test]
    fn every_resource_names_its_group_version_kind() {
        fn gvk<K: Resource<DynamicType = ()>>() -> [String; 5] {
            [
                K::group(&()),
                K::version(&()),
                K::kind(&()),
                K::plural(&()),
                K::api_version(&()),
            ]
            .map(|s| s.into_owned())
        }
        let expected = |group: &str, version: &str, kind: &str, plural: &str| {
            [group, version, kind, plural, &format!("{group}/{version}")].map(str::to_owned)
        };
        let (core, control_plane) = ("cluster.x-k8s.io", "controlplane.cluster.x-k8s.io");
        for (found, (group, version, kind, plural)) in [
            (
                gvk::<v1beta1::MachinePool>(),
                (core, "v1beta1", "MachinePool", "machinepools"),
            ),
            (
                gvk::<v1beta2::MachinePool>(),
                (core, "v1beta2", "MachinePool", "machinepools"),
            ),
            (
                gvk::<views::Cluster>(),
                (core, "v1beta2", "Cluster", "clusters"),
            ),
            (
                gvk::<views::Machine>(),
                (core, "v1beta2", "Machine", "machines"),
            ),
            (
                gvk::<views::KubeadmControlPlane>(),
                (
                    control_plane,
                    "v1beta2",
                    "KubeadmControlPlane",
                    "kubeadmcontrolplanes",
                ),
            ),
        ] {
            assert_eq!(found, expected(group, version, kind, plural));
        }
    }
}
