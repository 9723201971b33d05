//! Access to an object's v1beta2 conditions.

use std::borrow::Cow;

use capi_machinepool_api::{v1beta1, v1beta2};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, ObjectMeta};

/// An object with a list of v1beta2 (`metav1.Condition`) conditions.
pub trait HasConditions {
    /// The conditions.
    fn conditions(&self) -> &[Condition];
    /// `metadata.generation`, stamped into `observedGeneration` by [`crate::set`].
    fn generation(&self) -> Option<i64> {
        None
    }
    /// Kind, for aggregate messages.
    fn kind(&self) -> Cow<'_, str>;
    /// Name, for aggregate messages.
    fn name(&self) -> Cow<'_, str>;
    /// True for a control-plane Machine (listed first in aggregate messages).
    fn is_control_plane_machine(&self) -> bool {
        false
    }
}

/// An object whose v1beta2 conditions can be changed.
pub trait ConditionsMut: HasConditions {
    /// The conditions, mutably.
    fn conditions_mut(&mut self) -> &mut Vec<Condition>;
}

fn name_of(meta: &ObjectMeta) -> Cow<'_, str> {
    Cow::Borrowed(meta.name.as_deref().unwrap_or_default())
}

impl HasConditions for v1beta2::MachinePool {
    fn conditions(&self) -> &[Condition] {
        &self.status.conditions
    }
    fn generation(&self) -> Option<i64> {
        self.metadata.generation
    }
    fn kind(&self) -> Cow<'_, str> {
        Cow::Borrowed("MachinePool")
    }
    fn name(&self) -> Cow<'_, str> {
        name_of(&self.metadata)
    }
}

impl ConditionsMut for v1beta2::MachinePool {
    fn conditions_mut(&mut self) -> &mut Vec<Condition> {
        &mut self.status.conditions
    }
}

/// On a v1beta1 MachinePool the v1beta2 conditions live in `status.v1beta2.conditions`.
impl HasConditions for v1beta1::MachinePool {
    fn conditions(&self) -> &[Condition] {
        self.status
            .v1beta2
            .as_ref()
            .map_or(&[], |s| s.conditions.as_slice())
    }
    fn generation(&self) -> Option<i64> {
        self.metadata.generation
    }
    fn kind(&self) -> Cow<'_, str> {
        Cow::Borrowed("MachinePool")
    }
    fn name(&self) -> Cow<'_, str> {
        name_of(&self.metadata)
    }
}

impl ConditionsMut for v1beta1::MachinePool {
    fn conditions_mut(&mut self) -> &mut Vec<Condition> {
        &mut self
            .status
            .v1beta2
            .get_or_insert_with(Default::default)
            .conditions
    }
}

/// A plain holder of conditions with a kind and name (e.g. one Machine of a pool).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ConditionSet {
    /// Kind of the owner.
    pub kind: String,
    /// Name of the owner.
    pub name: String,
    /// Generation of the owner.
    pub generation: Option<i64>,
    /// The conditions.
    pub conditions: Vec<Condition>,
    /// Whether the owner is a control-plane Machine.
    pub control_plane_machine: bool,
}

impl HasConditions for ConditionSet {
    fn conditions(&self) -> &[Condition] {
        &self.conditions
    }
    fn generation(&self) -> Option<i64> {
        self.generation
    }
    fn kind(&self) -> Cow<'_, str> {
        Cow::Borrowed(&self.kind)
    }
    fn name(&self) -> Cow<'_, str> {
        Cow::Borrowed(&self.name)
    }
    fn is_control_plane_machine(&self) -> bool {
        self.control_plane_machine
    }
}

impl ConditionsMut for ConditionSet {
    fn conditions_mut(&mut self) -> &mut Vec<Condition> {
        &mut self.conditions
    }
}
