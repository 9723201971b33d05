//! Shared wiring of the MachinePool root types of both versions: TypeMeta-checked serde,
//! JSON schema, `kube_core::Resource` and `CustomResourceExt`.

/// Checks a decoded TypeMeta (absent fields are accepted, as Go does); the error names the
/// field, what was found and what was expected.
pub(crate) fn check_type_meta(
    api_version: Option<&str>,
    kind: Option<&str>,
    expected_api_version: &str,
    expected_kind: &str,
) -> Result<(), String> {
    for (field, found, expected) in [
        ("apiVersion", api_version, expected_api_version),
        ("kind", kind, expected_kind),
    ] {
        if let Some(found) = found.filter(|f| *f != expected) {
            return Err(format!(
                "unexpected {field} {found:?}, expected {expected:?}"
            ));
        }
    }
    Ok(())
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
                map.serialize_entry("metadata", &self.metadata)?;
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
                #[derive(serde::Deserialize)]
                struct Wire {
                    #[serde(rename = "apiVersion", default)]
                    api_version: Option<String>,
                    #[serde(default)]
                    kind: Option<String>,
                    #[serde(default)]
                    metadata: Option<kube_core::ObjectMeta>,
                    #[serde(default)]
                    spec: Option<$spec>,
                    #[serde(default)]
                    status: Option<$status>,
                }
                let wire = Wire::deserialize(deserializer)?;
                crate::resource::check_type_meta(wire.api_version.as_deref(), wire.kind.as_deref(), $api_version, crate::constants::KIND)
                    .map_err(serde::de::Error::custom)?;
                Ok(Self {
                    metadata: wire.metadata.unwrap_or_default(),
                    spec: wire.spec.unwrap_or_default(),
                    status: wire.status.unwrap_or_default(),
                })
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
                #[derive(serde::Deserialize)]
                struct Wire {
                    #[serde(rename = "apiVersion", default)]
                    api_version: Option<String>,
                    #[serde(default)]
                    kind: Option<String>,
                    #[serde(default)]
                    metadata: Option<k8s_openapi::apimachinery::pkg::apis::meta::v1::ListMeta>,
                    #[serde(default)]
                    items: Option<Vec<$root>>,
                }
                let wire = Wire::deserialize(deserializer)?;
                crate::resource::check_type_meta(wire.api_version.as_deref(), wire.kind.as_deref(), $api_version, crate::constants::LIST_KIND)
                    .map_err(serde::de::Error::custom)?;
                Ok(Self { metadata: wire.metadata.unwrap_or_default(), items: wire.items.unwrap_or_default() })
            }
        }
    };
}

pub(crate) use machine_pool_resource;
