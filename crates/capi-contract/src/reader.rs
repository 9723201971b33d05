//! Contract-aware reads of an unstructured InfraMachinePool, for controllers.
//!
//! Every getter distinguishes a missing field ([`ReadError::Missing`]) from a field of the
//! wrong type ([`ReadError::WrongType`]), so a caller can apply the contract's defaults
//! ("missing means not provisioned") without hiding broken providers.
//!
//! ```
//! use capi_contract::reader::InfraMachinePoolReader;
//! let obj = serde_json::json!({
//!     "spec": {"providerIDList": ["aws:///a/i-1"]},
//!     "status": {"initialization": {"provisioned": true}, "replicas": 1}
//! });
//! let r = InfraMachinePoolReader::new(&obj, capi_contract::Contract::V1Beta2);
//! assert_eq!(r.provisioned().unwrap(), true);
//! assert_eq!(r.replicas().unwrap(), 1);
//! assert_eq!(r.provider_id_list().unwrap(), ["aws:///a/i-1"]);
//! assert!(r.infrastructure_machine_kind().unwrap_err().is_missing());
//! ```

use serde_json::Value;

use crate::Contract;
use crate::fields::{Field, infra_machine_pool as pool};

pub use crate::read_error::{ReadError, ReadResultExt};

/// Reads contract fields of one InfraMachinePool object for a contract version.
#[derive(Debug, Clone, Copy)]
pub struct InfraMachinePoolReader<'a> {
    object: &'a Value,
    contract: Contract,
}

impl<'a> InfraMachinePoolReader<'a> {
    /// A reader for `object` implementing contract `contract`.
    #[must_use]
    pub fn new(object: &'a Value, contract: Contract) -> Self {
        Self { object, contract }
    }

    /// The contract the reader applies.
    #[must_use]
    pub fn contract(&self) -> Contract {
        self.contract
    }

    /// The field `status.initialization.provisioned` (v1beta2) or `status.ready` (v1beta1):
    /// where the reader's contract reports that initialization completed
    /// ([`PROVISIONED`](pool::PROVISIONED) at [`Self::contract`]; every contract has it).
    #[must_use]
    pub fn provisioned_field(&self) -> Option<&'static Field<bool>> {
        pool::PROVISIONED.at(self.contract)
    }

    /// Initialization completed: `status.initialization.provisioned` (v1beta2; falling back to
    /// `status.ready` under the temporary v1beta1 compatibility when the former is missing) or
    /// `status.ready` (v1beta1).
    ///
    /// # Errors
    /// Missing (treat as `false`, see [`ReadResultExt::or_missing`]) or not a boolean.
    pub fn provisioned(&self) -> Result<bool, ReadError> {
        pool::PROVISIONED.get(self.object, self.contract)
    }

    /// `status.replicas` as int32.
    ///
    /// # Errors
    /// Missing, not an integer, or outside the int32 range.
    pub fn replicas(&self) -> Result<i32, ReadError> {
        pool::REPLICAS.get(self.object)
    }

    /// `spec.providerIDList`.
    ///
    /// # Errors
    /// Missing, or not a list of strings.
    pub fn provider_id_list(&self) -> Result<Vec<String>, ReadError> {
        pool::PROVIDER_ID_LIST.get(self.object)
    }

    /// `status.infrastructureMachineKind` (MachinePool Machines support).
    ///
    /// # Errors
    /// Missing, or not a string.
    pub fn infrastructure_machine_kind(&self) -> Result<String, ReadError> {
        pool::INFRASTRUCTURE_MACHINE_KIND.get(self.object)
    }

    /// `status.failureReason` (v1beta1 contract; read under the compatibility for v1beta2).
    ///
    /// # Errors
    /// Missing, or not a string.
    pub fn failure_reason(&self) -> Result<String, ReadError> {
        pool::FAILURE_REASON.get(self.object, self.contract)
    }

    /// `status.failureMessage`.
    ///
    /// # Errors
    /// Missing, or not a string.
    pub fn failure_message(&self) -> Result<String, ReadError> {
        pool::FAILURE_MESSAGE.get(self.object, self.contract)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn provisioned_by_contract() {
        let ready_only = json!({"status": {"ready": true}});
        assert_eq!(
            InfraMachinePoolReader::new(&ready_only, Contract::V1Beta1).provisioned(),
            Ok(true)
        );
        assert_eq!(
            InfraMachinePoolReader::new(&ready_only, Contract::V1Beta2).provisioned(),
            Ok(true),
            "compat fallback"
        );
        let both = json!({"status": {"ready": true, "initialization": {"provisioned": false}}});
        assert_eq!(
            InfraMachinePoolReader::new(&both, Contract::V1Beta2).provisioned(),
            Ok(false),
            "v1beta2 field wins"
        );
        let none = json!({});
        let err = InfraMachinePoolReader::new(&none, Contract::V1Beta2)
            .provisioned()
            .unwrap_err();
        assert_eq!(
            err,
            ReadError::Missing {
                path: "status.initialization.provisioned".into()
            }
        );
        assert_eq!(
            InfraMachinePoolReader::new(&none, Contract::V1Beta2)
                .provisioned()
                .or_missing(false),
            Ok(false)
        );
        let wrong = json!({"status": {"initialization": {"provisioned": "yes"}}});
        assert!(matches!(
            InfraMachinePoolReader::new(&wrong, Contract::V1Beta2).provisioned(),
            Err(ReadError::WrongType { .. })
        ));
    }

    #[test]
    fn replicas_range_and_type() {
        let r = |v: Value| InfraMachinePoolReader::new(&v, Contract::V1Beta2).replicas();
        assert_eq!(r(json!({"status": {"replicas": 3}})), Ok(3));
        assert!(matches!(
            r(json!({"status": {"replicas": 2147483648u64}})),
            Err(ReadError::WrongType { .. })
        ));
        assert!(matches!(
            r(json!({"status": {"replicas": "3"}})),
            Err(ReadError::WrongType { .. })
        ));
        assert!(
            r(json!({"status": {"replicas": null}}))
                .unwrap_err()
                .is_missing()
        );
    }

    #[test]
    fn provider_ids_must_be_strings() {
        let obj = json!({"spec": {"providerIDList": ["a", 1]}});
        let r = InfraMachinePoolReader::new(&obj, Contract::V1Beta2);
        assert!(matches!(
            r.provider_id_list(),
            Err(ReadError::WrongType { .. })
        ));
    }
}
