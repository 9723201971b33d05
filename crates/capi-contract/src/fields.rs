//! Every contract field once: its path and a typed get/set, as Cluster API's
//! `internal/contract` gives each field a `Path()` and `Get()`/`Set()`. The runtime
//! [`reader`](crate::reader), the contract checker's schema checks and capability report, and
//! the CLI read the fields through these accessors, so a path is written in one place.
//!
//! ```
//! use capi_contract::fields::infra_machine_pool::{PROVIDER_ID_LIST, REPLICAS};
//! let mut obj = serde_json::json!({"spec": {"providerIDList": ["aws:///a/i-1"]}});
//! assert_eq!(PROVIDER_ID_LIST.path(), ["spec", "providerIDList"]);
//! assert_eq!(PROVIDER_ID_LIST.get(&obj).unwrap(), ["aws:///a/i-1"]);
//! assert!(REPLICAS.get(&obj).unwrap_err().is_missing());
//! REPLICAS.set(&mut obj, 1);
//! assert_eq!(obj["status"]["replicas"], 1);
//! // The same path in a CRD version's openAPIV3Schema:
//! let schema = serde_json::json!({"properties": {"status": {"properties": {"replicas": {"type": "integer"}}}}});
//! assert_eq!(REPLICAS.schema(&schema).unwrap()["type"], "integer");
//! ```

use std::marker::PhantomData;

use capi_diagnostics::excerpt::Excerpt;
use serde_json::{Map, Value};

use crate::Contract;
use crate::read_error::ReadError;

/// A value type a contract field holds.
pub trait FieldValue: Sized {
    /// What the contract expects, for [`ReadError::WrongType`] (`boolean`, `int32`, ...).
    const EXPECTED: &'static str;

    /// The value, or the node that is not of this type (for lists: the offending item).
    ///
    /// # Errors
    /// The offending JSON node.
    fn from_json(value: &Value) -> Result<Self, &Value>;

    /// The value as JSON.
    fn into_json(self) -> Value;
}

impl FieldValue for bool {
    const EXPECTED: &'static str = "boolean";
    fn from_json(value: &Value) -> Result<Self, &Value> {
        value.as_bool().ok_or(value)
    }
    fn into_json(self) -> Value {
        Value::Bool(self)
    }
}

impl FieldValue for String {
    const EXPECTED: &'static str = "string";
    fn from_json(value: &Value) -> Result<Self, &Value> {
        value.as_str().map(str::to_owned).ok_or(value)
    }
    fn into_json(self) -> Value {
        Value::String(self)
    }
}

impl FieldValue for i32 {
    const EXPECTED: &'static str = "int32";
    fn from_json(value: &Value) -> Result<Self, &Value> {
        value
            .as_i64()
            .and_then(|n| i32::try_from(n).ok())
            .ok_or(value)
    }
    fn into_json(self) -> Value {
        Value::from(self)
    }
}

impl FieldValue for Vec<String> {
    const EXPECTED: &'static str = "list of strings";
    fn from_json(value: &Value) -> Result<Self, &Value> {
        value
            .as_array()
            .ok_or(value)?
            .iter()
            .map(String::from_json)
            .collect()
    }
    fn into_json(self) -> Value {
        Value::Array(self.into_iter().map(Value::String).collect())
    }
}

/// One contract field: where it lives and what it holds.
#[derive(Debug)]
pub struct Field<T> {
    path: &'static [&'static str],
    value: PhantomData<fn() -> T>,
}

impl<T> Clone for Field<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Field<T> {}

impl<T> Field<T> {
    /// The field at `path` (object keys from the root).
    #[must_use]
    pub const fn new(path: &'static [&'static str]) -> Self {
        Self {
            path,
            value: PhantomData,
        }
    }

    /// The path, key by key (`["status", "replicas"]`).
    #[must_use]
    pub const fn path(&self) -> &'static [&'static str] {
        self.path
    }

    /// The dotted path (`status.replicas`), as findings and errors name the field.
    #[must_use]
    pub fn dotted(&self) -> String {
        self.path.join(".")
    }

    /// The field's JSON node in `object`, absent or `null` being missing.
    ///
    /// # Errors
    /// [`ReadError::Missing`].
    pub fn node<'v>(&self, object: &'v Value) -> Result<&'v Value, ReadError> {
        self.path
            .iter()
            .try_fold(object, |v, key| v.get(*key).filter(|n| !n.is_null()))
            .ok_or_else(|| ReadError::Missing {
                path: self.dotted(),
            })
    }

    /// The field's schema in a CRD version's `openAPIV3Schema`, following `properties`.
    #[must_use]
    pub fn schema<'s>(&self, schema: &'s Value) -> Option<&'s Value> {
        self.path
            .iter()
            .try_fold(schema, |s, key| s.get("properties")?.get(*key))
    }
}

impl<T: FieldValue> Field<T> {
    /// The field's value in `object`.
    ///
    /// # Errors
    /// [`ReadError::Missing`] when absent or `null`; [`ReadError::WrongType`] when of another
    /// type (or out of range).
    pub fn get(&self, object: &Value) -> Result<T, ReadError> {
        T::from_json(self.node(object)?).map_err(|found| ReadError::WrongType {
            path: self.dotted(),
            expected: T::EXPECTED,
            found: Excerpt::with_max_chars(&found.to_string(), 80).to_string(),
        })
    }

    /// Sets the field in `object`, creating the objects on its path (a non-object on the
    /// path is replaced by an object).
    pub fn set(&self, object: &mut Value, value: T) {
        let mut node = object;
        for key in self.path {
            if !node.is_object() {
                *node = Value::Object(Map::new());
            }
            let Value::Object(map) = node else {
                return;
            };
            node = map.entry(*key).or_insert(Value::Null);
        }
        *node = value.into_json();
    }
}

/// A contract field whose path depends on the contract version, as upstream's
/// `InfrastructureMachine().Provisioned(contractVersion)`: rows of `(contract, field)`, each
/// saying where the field lives from that contract on. A row's field applies to its contract
/// and every later one until the next row; a `None` row says the field is gone from that
/// contract on; a contract older than every row does not have the field.
///
/// Adding a contract version therefore changes no accessor unless the new contract moves or
/// drops the field (then it is one row).
///
/// ```
/// use capi_contract::Contract;
/// use capi_contract::fields::infra_machine_pool::{FAILURE_REASON, PROVISIONED};
/// assert_eq!(PROVISIONED.at(Contract::V1Beta2).unwrap().dotted(), "status.initialization.provisioned");
/// assert_eq!(PROVISIONED.at(Contract::V1Beta1).unwrap().dotted(), "status.ready");
/// // Newer contracts inherit the newest row: the path is written once.
/// assert_eq!(PROVISIONED.at(Contract::current()), PROVISIONED.at(Contract::V1Beta2));
/// // A `None` row drops the field: v1beta2 has no failureReason.
/// assert!(FAILURE_REASON.at(Contract::V1Beta2).is_none());
/// // A v1beta2 core reads `status.ready` while `status.initialization.provisioned` is missing
/// // (the temporary v1beta1 compatibility):
/// let obj = serde_json::json!({"status": {"ready": true}});
/// assert_eq!(PROVISIONED.get(&obj, Contract::V1Beta2), Ok(true));
/// ```
#[derive(Debug)]
pub struct ContractField<T: 'static> {
    rows: &'static [(Contract, Option<Field<T>>)],
}

impl<T> Clone for ContractField<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for ContractField<T> {}

impl<T> PartialEq for Field<T> {
    fn eq(&self, other: &Self) -> bool {
        self.path == other.path
    }
}

impl<T> ContractField<T> {
    /// The field, `rows` saying from which contract on it lives where (`None`: gone).
    #[must_use]
    pub const fn new(rows: &'static [(Contract, Option<Field<T>>)]) -> Self {
        Self { rows }
    }

    /// The field in `contract` (the row of the newest contract not after it), or `None` when
    /// that contract does not have it.
    #[must_use]
    pub const fn at(&self, contract: Contract) -> Option<&'static Field<T>> {
        let rows = self.rows;
        let mut best: Option<&'static (Contract, Option<Field<T>>)> = None;
        let mut i = 0;
        while i < rows.len() {
            let row = &rows[i];
            let applies = row.0 as u8 <= contract as u8;
            let newer = match best {
                Some(b) => row.0 as u8 > b.0 as u8,
                None => true,
            };
            if applies && newer {
                best = Some(row);
            }
            i += 1;
        }
        match best {
            Some((_, Some(field))) => Some(field),
            _ => None,
        }
    }

    /// The field's path in `contract`, empty when that contract does not have it (for rule
    /// tables, which are constants; a test checks that no rule names an empty path).
    #[must_use]
    pub const fn path_in(&self, contract: Contract) -> &'static [&'static str] {
        match self.at(contract) {
            Some(field) => field.path(),
            None => &[],
        }
    }

    /// The rows: from which contract on the field lives where (`None`: gone).
    #[must_use]
    pub const fn rows(&self) -> &'static [(Contract, Option<Field<T>>)] {
        self.rows
    }

    /// Every path the field has in some contract, in row order.
    #[must_use]
    pub fn paths(&self) -> Vec<&'static [&'static str]> {
        self.rows
            .iter()
            .filter_map(|(_, f)| f.as_ref().map(Field::path))
            .collect()
    }
}

impl<T: FieldValue> ContractField<T> {
    /// The value a core at `contract` reads: the field at `contract`'s path, or, while that is
    /// missing, at the path of each older contract the core still reads
    /// ([`Contract::compatible`], upstream's temporary v1beta1 compatibility).
    ///
    /// # Errors
    /// The error at `contract`'s own path ([`ReadError::Missing`] when no compatible path holds
    /// a value either, [`ReadError::WrongType`] when the value there is of another type).
    pub fn get(&self, object: &Value, contract: Contract) -> Result<T, ReadError> {
        let mut first: Option<ReadError> = None;
        let mut seen: Vec<&Field<T>> = Vec::new();
        for c in contract.compatible() {
            let Some(field) = self.at(c) else { continue };
            if seen.contains(&field) {
                continue;
            }
            seen.push(field);
            match field.get(object) {
                Err(e) if e.is_missing() || first.is_some() => {
                    first.get_or_insert(e);
                }
                other => return other,
            }
        }
        Err(first.unwrap_or(ReadError::NotInContract { contract }))
    }
}

/// Any accessor, as the lists of every contract path see it.
pub trait Accessor: Sync {
    /// Every path the accessor reads in some contract.
    fn paths(&self) -> Vec<&'static [&'static str]>;
}

impl<T> Accessor for Field<T> {
    fn paths(&self) -> Vec<&'static [&'static str]> {
        vec![self.path]
    }
}

impl<T> Accessor for ContractField<T> {
    fn paths(&self) -> Vec<&'static [&'static str]> {
        ContractField::paths(self)
    }
}

/// Declares a module's accessors and, from the same list, its `ACCESSORS` (every accessor
/// of the module, so that [`all_paths`] and the tests that look for contract paths written
/// elsewhere never depend on a hand-kept list).
macro_rules! accessors {
    ($( $(#[$doc:meta])* $name:ident: $ty:ty = $value:expr; )+) => {
        $( $(#[$doc])* pub const $name: $ty = $value; )+

        /// Every accessor above, in order.
        pub const ACCESSORS: &[&dyn super::Accessor] = &[$( &$name, )+];
    };
}

/// The InfraMachinePool contract's fields.
pub mod infra_machine_pool {
    use super::{ContractField, Field};
    use crate::Contract::{V1Beta1, V1Beta2};

    accessors! {
        /// `spec.providerID` (optional, informational: nobody in core Cluster API reads it).
        PROVIDER_ID: Field<String> = Field::new(&["spec", "providerID"]);
        /// `spec.providerIDList`: the provider IDs of the pool's instances.
        PROVIDER_ID_LIST: Field<Vec<String>> = Field::new(&["spec", "providerIDList"]);
        /// Initialization completed: `status.initialization.provisioned` (v1beta2 contract on),
        /// `status.ready` (v1beta1 contract, read under the compatibility for v1beta2).
        PROVISIONED: ContractField<bool> = ContractField::new(&[
            (V1Beta1, Some(Field::new(&["status", "ready"]))),
            (
                V1Beta2,
                Some(Field::new(&["status", "initialization", "provisioned"])),
            ),
        ]);
        /// `status.initialization`, the object holding [`PROVISIONED`] (v1beta2 contract on).
        INITIALIZATION: ContractField<()> =
            ContractField::new(&[(V1Beta2, Some(Field::new(&["status", "initialization"])))]);
        /// `status.replicas`.
        REPLICAS: Field<i32> = Field::new(&["status", "replicas"]);
        /// `status.conditions`.
        CONDITIONS: Field<()> = Field::new(&["status", "conditions"]);
        /// `status.infrastructureMachineKind`: MachinePool Machines support.
        INFRASTRUCTURE_MACHINE_KIND: Field<String> =
            Field::new(&["status", "infrastructureMachineKind"]);
        /// `status.instances` (optional instance list).
        INSTANCES: Field<()> = Field::new(&["status", "instances"]);
        /// `status.failureReason` (v1beta1 terminal failure, dropped in v1beta2; read under
        /// the compatibility).
        FAILURE_REASON: ContractField<String> = ContractField::new(&[
            (V1Beta1, Some(Field::new(&["status", "failureReason"]))),
            (V1Beta2, None),
        ]);
        /// `status.failureMessage` (v1beta1 terminal failure, dropped in v1beta2; read under
        /// the compatibility).
        FAILURE_MESSAGE: ContractField<String> = ContractField::new(&[
            (V1Beta1, Some(Field::new(&["status", "failureMessage"]))),
            (V1Beta2, None),
        ]);
    }
}

/// The InfraMachine (MachinePool Machine) contract's fields.
pub mod infra_machine {
    use super::{ContractField, Field};
    use crate::Contract::{V1Beta1, V1Beta2};

    accessors! {
        /// `spec.providerID`.
        PROVIDER_ID: Field<String> = Field::new(&["spec", "providerID"]);
        /// Initialization completed: `status.initialization.provisioned` (v1beta2 contract on),
        /// `status.ready` (v1beta1 contract), as upstream's `Provisioned(contractVersion)`.
        PROVISIONED: ContractField<bool> = ContractField::new(&[
            (V1Beta1, Some(Field::new(&["status", "ready"]))),
            (
                V1Beta2,
                Some(Field::new(&["status", "initialization", "provisioned"])),
            ),
        ]);
    }
}

/// The InfraMachinePoolTemplate contract's fields.
pub mod infra_machine_pool_template {
    use super::Field;

    accessors! {
        /// `spec.template.spec`: what the topology controller copies into each InfraMachinePool.
        TEMPLATE_SPEC: Field<()> = Field::new(&["spec", "template", "spec"]);
    }
}

/// Core MachinePool fields that are read or named where a MachinePool is handled as an
/// unstructured object (among provider objects, before it is decoded into
/// `capi_machinepool_api`'s types), and that share their paths with contract fields: the
/// pool's copies of [`infra_machine_pool::PROVIDER_ID_LIST`] and
/// [`infra_machine_pool::REPLICAS`], and the reference that names the InfraMachinePool.
pub mod machine_pool {
    use super::Field;

    accessors! {
        /// `spec.providerIDList`: the MachinePool's copy of the InfraMachinePool's list.
        PROVIDER_ID_LIST: Field<Vec<String>> = super::infra_machine_pool::PROVIDER_ID_LIST;
        /// `status.replicas`: the MachinePool's copy of the InfraMachinePool's count.
        REPLICAS: Field<i32> = super::infra_machine_pool::REPLICAS;
        /// `spec.template.spec.infrastructureRef`: which InfraMachinePool the pool uses.
        INFRASTRUCTURE_REF: Field<()> =
            Field::new(&["spec", "template", "spec", "infrastructureRef"]);
    }
}

/// ClusterClass fields the checker reads to find the InfraMachinePoolTemplates (and their
/// bootstrap templates) a topology uses. A ClusterClass's API version is a core API version,
/// so the template references are [`ContractField`]s chosen by it.
pub mod cluster_class {
    use super::{ContractField, Field};
    use crate::Contract::{V1Beta1, V1Beta2};

    accessors! {
        /// `spec.workers.machinePools`: the ClusterClass's MachinePool classes.
        MACHINE_POOL_CLASSES: Field<()> = Field::new(&["spec", "workers", "machinePools"]);
        /// In one MachinePool class, the InfraMachinePoolTemplate its pools are made from:
        /// `template.infrastructure.ref` (v1beta1), `infrastructure.templateRef` (v1beta2 on).
        INFRASTRUCTURE_TEMPLATE: ContractField<()> = ContractField::new(&[
            (V1Beta1, Some(Field::new(&["template", "infrastructure", "ref"]))),
            (V1Beta2, Some(Field::new(&["infrastructure", "templateRef"]))),
        ]);
        /// In one MachinePool class, its bootstrap config template: `template.bootstrap.ref`
        /// (v1beta1), `bootstrap.templateRef` (v1beta2 on).
        BOOTSTRAP_TEMPLATE: ContractField<()> = ContractField::new(&[
            (V1Beta1, Some(Field::new(&["template", "bootstrap", "ref"]))),
            (V1Beta2, Some(Field::new(&["bootstrap", "templateRef"]))),
        ]);
    }
}

/// Every contract path of every accessor above (deduplicated, sorted): what the test that
/// looks for contract paths written outside this module looks for.
#[must_use]
pub fn all_paths() -> Vec<&'static [&'static str]> {
    let mut out: Vec<&'static [&'static str]> = [
        infra_machine_pool::ACCESSORS,
        infra_machine::ACCESSORS,
        infra_machine_pool_template::ACCESSORS,
        machine_pool::ACCESSORS,
        cluster_class::ACCESSORS,
    ]
    .concat()
    .iter()
    .flat_map(|a| a.paths())
    .collect();
    out.sort_unstable();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::infra_machine_pool::*;
    use crate::Contract;

    #[test]
    fn get_tells_missing_from_wrong_type_and_set_round_trips() {
        let mut obj = json!({"status": {"replicas": "3", "ready": null}, "spec": 1});
        assert!(
            PROVISIONED
                .get(&obj, Contract::V1Beta1)
                .unwrap_err()
                .is_missing()
        );
        assert_eq!(
            REPLICAS.get(&obj).unwrap_err().to_string(),
            "status.replicas: expected int32, found \"3\""
        );
        assert!(PROVIDER_ID_LIST.get(&obj).unwrap_err().is_missing());
        PROVIDER_ID_LIST.set(&mut obj, vec!["a".into()]);
        if let Some(f) = PROVISIONED.at(Contract::V1Beta2) {
            f.set(&mut obj, true);
        }
        REPLICAS.set(&mut obj, i32::MAX);
        assert_eq!(
            obj,
            json!({"spec": {"providerIDList": ["a"]}, "status": {"replicas": i32::MAX, "ready": null, "initialization": {"provisioned": true}}})
        );
        assert_eq!(PROVIDER_ID_LIST.get(&obj).unwrap(), ["a"]);
        assert_eq!(REPLICAS.get(&obj), Ok(i32::MAX));
        let over = json!({"status": {"replicas": 2_147_483_648_i64}});
        assert!(!REPLICAS.get(&over).unwrap_err().is_missing());
        let list = json!({"spec": {"providerIDList": ["a", 1]}});
        assert_eq!(
            PROVIDER_ID_LIST.get(&list).unwrap_err().to_string(),
            "spec.providerIDList: expected list of strings, found 1"
        );
    }

    /// Upstream `internal/contract/infrastructure_machine.go` at ae7ff047 (`Provisioned`):
    /// `status.ready` for contract v1beta1, `status.initialization.provisioned` otherwise; the
    /// MachinePool controller (`reconcile_phases.go`) reads the v1beta1 field while the
    /// v1beta2 one is missing. Expected values are written from those lines, not from `at`.
    #[test]
    fn provisioned_is_chosen_by_contract_and_falls_back_under_the_compatibility() {
        for field in [PROVISIONED, super::infra_machine::PROVISIONED] {
            for &c in Contract::ALL {
                let expected = if c == Contract::V1Beta1 {
                    "status.ready"
                } else {
                    "status.initialization.provisioned"
                };
                assert_eq!(
                    field.at(c).map(super::Field::dotted).as_deref(),
                    Some(expected)
                );
            }
        }
        let ready = json!({"status": {"ready": true}});
        assert_eq!(PROVISIONED.get(&ready, Contract::V1Beta2), Ok(true));
        let both = json!({"status": {"ready": true, "initialization": {"provisioned": false}}});
        assert_eq!(PROVISIONED.get(&both, Contract::V1Beta2), Ok(false));
        assert_eq!(PROVISIONED.get(&both, Contract::V1Beta1), Ok(true));
        // A v1beta1 core never reads the v1beta2 path.
        let v2 = json!({"status": {"initialization": {"provisioned": true}}});
        assert!(
            PROVISIONED
                .get(&v2, Contract::V1Beta1)
                .unwrap_err()
                .is_missing()
        );
        // The error names the contract's own path, also when the fallback is of another type.
        let wrong_ready = json!({"status": {"ready": "yes"}});
        assert_eq!(
            PROVISIONED
                .get(&wrong_ready, Contract::V1Beta2)
                .unwrap_err()
                .to_string(),
            "status.initialization.provisioned is missing"
        );
        // Terminal failures exist in v1beta1 only and are read under the compatibility.
        let failed = json!({"status": {"failureReason": "InsufficientCapacity"}});
        assert_eq!(
            FAILURE_REASON
                .at(Contract::V1Beta2)
                .map(super::Field::dotted),
            None
        );
        assert_eq!(FAILURE_REASON.path_in(Contract::V1Beta2), [] as [&str; 0]);
        assert_eq!(
            FAILURE_REASON.get(&failed, Contract::V1Beta2).as_deref(),
            Ok("InsufficientCapacity")
        );
    }
}
