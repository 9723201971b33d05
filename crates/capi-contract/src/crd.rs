//! What the contract reads in a CustomResourceDefinition, as a view over the CRD as written
//! (unstructured JSON, so that a broken CRD can still be judged): its names, scope, contract
//! labels, and each version's `served` flag and schema, a contract field's schema being found
//! through its accessor in [`crate::fields`].
//!
//! The view never fails: what is absent or of another type reads as absent (`None`, `false`,
//! empty), which is what the rules that judge a CRD report on.
//!
//! ```
//! use capi_contract::Contract;
//! use capi_contract::crd::CrdView;
//! use capi_contract::fields::infra_machine_pool::PROVIDER_ID_LIST;
//! let crd = serde_json::json!({
//!     "kind": "CustomResourceDefinition",
//!     "metadata": {"name": "foomachinepools.infrastructure.example.com",
//!                  "labels": {"cluster.x-k8s.io/v1beta2": "v1alpha1_v1alpha2"}},
//!     "spec": {"group": "infrastructure.example.com", "scope": "Namespaced",
//!              "names": {"kind": "FooMachinePool", "listKind": "FooMachinePoolList"},
//!              "versions": [{"name": "v1alpha2", "served": true, "schema": {"openAPIV3Schema": {
//!                  "properties": {"spec": {"properties": {"providerIDList": {"type": "array"}}}}}}}]}
//! });
//! let view = CrdView::new(&crd);
//! assert_eq!(view.kind(), Some("FooMachinePool"));
//! assert!(view.namespaced());
//! assert_eq!(view.contract_versions(Contract::V1Beta2), ["v1alpha1", "v1alpha2"]);
//! let v = view.version("v1alpha2").unwrap();
//! assert!(v.served());
//! assert_eq!(v.field_schema(&PROVIDER_ID_LIST).unwrap()["type"], "array");
//! assert!(view.declares(&PROVIDER_ID_LIST));
//! ```

use std::collections::BTreeMap;

use serde_json::Value;

use crate::Contract;
use crate::fields::Field;
use crate::labels::{contract_labels, crd_labels, string_entries};

/// A CRD as the contract reads it.
#[derive(Clone, Copy, Debug)]
pub struct CrdView<'a> {
    crd: &'a Value,
}

fn text(v: &Value) -> Option<&str> {
    v.as_str()
}

impl<'a> CrdView<'a> {
    /// A view over `crd` (any JSON value; a non-CRD reads as an empty CRD).
    #[must_use]
    pub fn new(crd: &'a Value) -> Self {
        Self { crd }
    }

    /// The CRD as given.
    #[must_use]
    pub fn value(&self) -> &'a Value {
        self.crd
    }

    /// True when `kind` is `CustomResourceDefinition`.
    #[must_use]
    pub fn is_crd(&self) -> bool {
        self.crd["kind"] == "CustomResourceDefinition"
    }

    /// `apiVersion` (`apiextensions.k8s.io/v1`).
    #[must_use]
    pub fn api_version(&self) -> Option<&'a str> {
        text(&self.crd["apiVersion"])
    }

    /// `metadata.name`.
    #[must_use]
    pub fn name(&self) -> Option<&'a str> {
        text(&self.crd["metadata"]["name"])
    }

    /// `spec.group`.
    #[must_use]
    pub fn group(&self) -> Option<&'a str> {
        text(&self.crd["spec"]["group"])
    }

    /// `spec.names.kind`.
    #[must_use]
    pub fn kind(&self) -> Option<&'a str> {
        text(&self.crd["spec"]["names"]["kind"])
    }

    /// `spec.names.listKind`.
    #[must_use]
    pub fn list_kind(&self) -> Option<&'a str> {
        text(&self.crd["spec"]["names"]["listKind"])
    }

    /// `spec.names.categories` (its string items).
    #[must_use]
    pub fn categories(&self) -> Vec<&'a str> {
        self.crd["spec"]["names"]["categories"]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default()
    }

    /// `spec.scope`.
    #[must_use]
    pub fn scope(&self) -> Option<&'a str> {
        text(&self.crd["spec"]["scope"])
    }

    /// True when `spec.scope` is `Namespaced`.
    #[must_use]
    pub fn namespaced(&self) -> bool {
        self.scope() == Some("Namespaced")
    }

    /// `metadata.labels` (its string values).
    #[must_use]
    pub fn labels(&self) -> BTreeMap<String, String> {
        crd_labels(self.crd)
    }

    /// `metadata.annotations` (its string values).
    #[must_use]
    pub fn annotations(&self) -> BTreeMap<String, String> {
        string_entries(&self.crd["metadata"]["annotations"])
    }

    /// Contract (`v1beta2`, and retired ones) -> the versions its label lists.
    #[must_use]
    pub fn contract_labels(&self) -> BTreeMap<String, Vec<String>> {
        contract_labels(&self.labels())
    }

    /// The versions the label of `contract` lists, in label order (empty when unlabelled).
    #[must_use]
    pub fn contract_versions(&self, contract: Contract) -> Vec<String> {
        self.contract_labels()
            .remove(contract.as_str())
            .unwrap_or_default()
    }

    /// `spec.versions`, in order.
    pub fn versions(&self) -> impl Iterator<Item = CrdVersionView<'a>> + use<'a> {
        self.crd["spec"]["versions"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default()
            .iter()
            .map(|entry| CrdVersionView { entry })
    }

    /// The version named `name`.
    #[must_use]
    pub fn version(&self, name: &str) -> Option<CrdVersionView<'a>> {
        self.versions().find(|v| v.name() == Some(name))
    }

    /// True when the schema of some version declares `field`.
    #[must_use]
    pub fn declares<T>(&self, field: &Field<T>) -> bool {
        self.versions().any(|v| v.field_schema(field).is_some())
    }
}

/// One entry of a CRD's `spec.versions`.
#[derive(Clone, Copy, Debug)]
pub struct CrdVersionView<'a> {
    entry: &'a Value,
}

impl<'a> CrdVersionView<'a> {
    /// The entry as given.
    #[must_use]
    pub fn value(&self) -> &'a Value {
        self.entry
    }

    /// `name`.
    #[must_use]
    pub fn name(&self) -> Option<&'a str> {
        text(&self.entry["name"])
    }

    /// `served` (`false` when absent).
    #[must_use]
    pub fn served(&self) -> bool {
        self.entry["served"].as_bool().unwrap_or(false)
    }

    /// `storage` (`false` when absent).
    #[must_use]
    pub fn storage(&self) -> bool {
        self.entry["storage"].as_bool().unwrap_or(false)
    }

    /// `schema.openAPIV3Schema` (`Value::Null` when absent).
    #[must_use]
    pub fn schema(&self) -> &'a Value {
        &self.entry["schema"]["openAPIV3Schema"]
    }

    /// The schema of `field` in this version (a non-null node), following `properties`.
    #[must_use]
    pub fn field_schema<T>(&self, field: &Field<T>) -> Option<&'a Value> {
        field.schema(self.schema()).filter(|node| !node.is_null())
    }

    /// True when `subresources.status` is set.
    #[must_use]
    pub fn has_status_subresource(&self) -> bool {
        self.entry["subresources"]["status"].is_object()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::fields::infra_machine_pool::{PROVIDER_ID_LIST, REPLICAS};

    #[test]
    fn a_broken_crd_reads_as_absent_never_fails() {
        for crd in [
            json!(null),
            json!([1]),
            json!({"spec": {"versions": {"name": "v1"}, "names": 3}}),
        ] {
            let v = CrdView::new(&crd);
            assert!(!v.is_crd() && !v.namespaced());
            assert_eq!((v.name(), v.kind(), v.group()), (None, None, None));
            assert_eq!(v.versions().count(), 0);
            assert!(v.categories().is_empty() && v.labels().is_empty());
            assert!(!v.declares(&PROVIDER_ID_LIST));
        }
    }

    #[test]
    fn versions_and_field_schemas() {
        let crd = json!({"spec": {"versions": [
            {"name": "v1beta1", "served": false, "storage": false},
            {"name": "v1beta2", "served": true, "storage": true, "subresources": {"status": {}},
             "schema": {"openAPIV3Schema": {"properties": {"status": {"properties": {"replicas": {"type": "integer"}}}}}}}
        ]}});
        let view = CrdView::new(&crd);
        let names: Vec<_> = view.versions().map(|v| v.name()).collect();
        assert_eq!(names, [Some("v1beta1"), Some("v1beta2")]);
        let old = view.version("v1beta1").unwrap();
        assert!(!old.served() && !old.storage() && old.schema().is_null());
        let new = view.version("v1beta2").unwrap();
        assert!(new.served() && new.storage() && new.has_status_subresource());
        assert_eq!(new.field_schema(&REPLICAS).unwrap()["type"], "integer");
        assert!(view.declares(&REPLICAS) && !view.declares(&PROVIDER_ID_LIST));
        assert!(view.version("v2").is_none());
    }
}
