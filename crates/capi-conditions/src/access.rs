//! Access to an object's v1beta2 conditions, and the identity used in merged messages.
//!
//! * [`HasConditions`] / [`ConditionsMut`]: where the conditions are. Implement them with
//!   [`impl_conditions!`](crate::impl_conditions) in one line per type.
//! * [`ObjectIdentity`]: kind, name and generation, for aggregate messages and
//!   `observedGeneration`. Every `kube_core::Resource` (with a static type, as derived with
//!   `#[derive(CustomResource)]`) has it through a blanket implementation: nothing to write.

use std::borrow::Cow;

use capi_machinepool_api::{v1beta1, v1beta2, views};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use kube_core::Resource;

/// An object with a list of v1beta2 (`metav1.Condition`) conditions.
pub trait HasConditions {
    /// The conditions.
    fn conditions(&self) -> &[Condition];
}

/// An object whose v1beta2 conditions can be changed.
pub trait ConditionsMut: HasConditions {
    /// The conditions, mutably (created empty when the object has none).
    fn conditions_mut(&mut self) -> &mut Vec<Condition>;
}

/// Kind, name and generation of the object holding conditions.
pub trait ObjectIdentity {
    /// Kind, for aggregate messages (`Machines m1, m2: ...`).
    fn object_kind(&self) -> Cow<'_, str>;
    /// Name, for aggregate messages.
    fn object_name(&self) -> Cow<'_, str>;
    /// `metadata.generation`, stamped into `observedGeneration` by [`crate::set`].
    fn object_generation(&self) -> Option<i64>;
    /// True for a control-plane Machine (listed first in aggregate messages).
    fn is_control_plane_machine(&self) -> bool {
        false
    }
}

impl<K: Resource<DynamicType = ()>> ObjectIdentity for K {
    fn object_kind(&self) -> Cow<'_, str> {
        K::kind(&())
    }
    fn object_name(&self) -> Cow<'_, str> {
        Cow::Borrowed(self.meta().name.as_deref().unwrap_or_default())
    }
    fn object_generation(&self) -> Option<i64> {
        self.meta().generation
    }
}

/// An object with conditions and an identity: what [`crate::aggregate::aggregate`] reads.
pub trait ConditionSource: HasConditions + ObjectIdentity {}

impl<T: HasConditions + ObjectIdentity + ?Sized> ConditionSource for T {}

/// A field holding conditions: a list, or an optional list (Go's nil vs empty).
pub trait ConditionList {
    /// The conditions.
    fn as_conditions(&self) -> &[Condition];
    /// The conditions, mutably (an absent list is created empty).
    fn as_conditions_mut(&mut self) -> &mut Vec<Condition>;
}

impl ConditionList for Vec<Condition> {
    fn as_conditions(&self) -> &[Condition] {
        self
    }
    fn as_conditions_mut(&mut self) -> &mut Vec<Condition> {
        self
    }
}

impl ConditionList for Option<Vec<Condition>> {
    fn as_conditions(&self) -> &[Condition] {
        self.as_deref().unwrap_or_default()
    }
    fn as_conditions_mut(&mut self) -> &mut Vec<Condition> {
        self.get_or_insert_with(Vec::new)
    }
}

/// Implements [`ObjectIdentity`] for a type that is not a `kube_core::Resource` (those have it
/// already) and holds its identity in fields: `kind` and `name` (`String`s), `generation`
/// (an `Option<i64>`) and optionally `control_plane_machine` (a `bool`, else false).
///
/// ```
/// use capi_conditions::{impl_object_identity, ObjectIdentity};
/// struct Owner { kind: String, name: String, generation: Option<i64> }
/// impl_object_identity!(Owner => kind: kind, name: name, generation: generation);
/// let owner = Owner { kind: "Machine".into(), name: "m1".into(), generation: Some(2) };
/// assert_eq!((owner.object_kind(), owner.object_name()), ("Machine".into(), "m1".into()));
/// assert_eq!(owner.object_generation(), Some(2));
/// assert!(!owner.is_control_plane_machine());
/// ```
#[macro_export]
macro_rules! impl_object_identity {
    (
        $ty:ty => kind: $kind:ident, name: $name:ident, generation: $generation:ident
        $(, control_plane_machine: $control_plane:ident)? $(,)?
    ) => {
        impl $crate::ObjectIdentity for $ty {
            fn object_kind(&self) -> ::std::borrow::Cow<'_, str> {
                ::std::borrow::Cow::Borrowed(&self.$kind)
            }
            fn object_name(&self) -> ::std::borrow::Cow<'_, str> {
                ::std::borrow::Cow::Borrowed(&self.$name)
            }
            fn object_generation(&self) -> Option<i64> {
                self.$generation
            }
            $(
                fn is_control_plane_machine(&self) -> bool {
                    self.$control_plane
                }
            )?
        }
    };
}

/// Implements [`HasConditions`] and [`ConditionsMut`] for a type whose conditions are at a
/// field path (a `Vec<Condition>` or an `Option<Vec<Condition>>`). Write `status?.conditions`
/// when `status` is an `Option` (as `#[derive(CustomResource)]` generates it); a missing
/// status reads as no conditions and is created when conditions are set.
///
/// ```
/// use capi_conditions::{impl_conditions, HasConditions};
/// use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
/// #[derive(Default)]
/// struct Status { conditions: Vec<Condition> }
/// #[derive(Default)]
/// struct FooMachinePool { status: Status }
/// impl_conditions!(FooMachinePool => status.conditions);
/// assert!(FooMachinePool::default().conditions().is_empty());
/// ```
#[macro_export]
macro_rules! impl_conditions {
    ($ty:ty => $status:ident ? . $($field:ident).+) => {
        impl $crate::HasConditions for $ty {
            fn conditions(&self) -> &[$crate::Condition] {
                self.$status
                    .as_ref()
                    .map_or(&[], |s| $crate::ConditionList::as_conditions(&s.$($field).+))
            }
        }
        impl $crate::ConditionsMut for $ty {
            fn conditions_mut(&mut self) -> &mut Vec<$crate::Condition> {
                $crate::ConditionList::as_conditions_mut(
                    &mut self.$status.get_or_insert_with(Default::default).$($field).+,
                )
            }
        }
    };
    ($ty:ty => $($field:ident).+) => {
        impl $crate::HasConditions for $ty {
            fn conditions(&self) -> &[$crate::Condition] {
                $crate::ConditionList::as_conditions(&self.$($field).+)
            }
        }
        impl $crate::ConditionsMut for $ty {
            fn conditions_mut(&mut self) -> &mut Vec<$crate::Condition> {
                $crate::ConditionList::as_conditions_mut(&mut self.$($field).+)
            }
        }
    };
}

crate::impl_conditions!(v1beta2::MachinePool => status.conditions);

// A Machine as a controller lists it with `kube::Api::<views::Machine>`: the conditions code
// (aggregation, the MachinePool conditions) reads it directly; its kind and name come from
// `kube_core::Resource`.
crate::impl_conditions!(views::Machine => status.conditions);

/// On a v1beta1 MachinePool the v1beta2 conditions live in `status.v1beta2.conditions`.
impl HasConditions for v1beta1::MachinePool {
    fn conditions(&self) -> &[Condition] {
        self.status
            .v1beta2
            .as_ref()
            .map_or(&[], |s| s.conditions.as_conditions())
    }
}

impl ConditionsMut for v1beta1::MachinePool {
    fn conditions_mut(&mut self) -> &mut Vec<Condition> {
        self.status
            .v1beta2
            .get_or_insert_with(Default::default)
            .conditions
            .as_conditions_mut()
    }
}

/// A plain holder of conditions with a kind and name, for objects that have no Rust type (or
/// for tests). A Machine needs none: [`views::Machine`] implements [`HasConditions`] and
/// [`ObjectIdentity`]; `ConditionSet::from(&machine)` copies one when an owned holder is needed.
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

crate::impl_conditions!(ConditionSet => conditions);

crate::impl_object_identity!(ConditionSet => kind: kind, name: name, generation: generation,
    control_plane_machine: control_plane_machine);

/// The label upstream puts on control-plane Machines (`cluster.x-k8s.io/control-plane`).
const CONTROL_PLANE_LABEL: &str = "cluster.x-k8s.io/control-plane";

impl From<&views::Machine> for ConditionSet {
    fn from(machine: &views::Machine) -> Self {
        Self {
            kind: "Machine".to_owned(),
            name: machine.object_name().into_owned(),
            generation: machine.metadata.generation,
            conditions: machine.conditions().to_vec(),
            control_plane_machine: machine
                .metadata
                .labels
                .as_ref()
                .is_some_and(|l| l.contains_key(CONTROL_PLANE_LABEL)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{get, new_condition};

    /// A Machine as `kube::Api::<views::Machine>` returns it feeds the conditions code directly,
    /// and converts to a [`ConditionSet`] with the same identity and conditions.
    #[test]
    fn machine_view_is_a_condition_source() {
        let machine: views::Machine = serde_json::from_value(serde_json::json!({
            "apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "Machine",
            "metadata": {"name": "cp-0", "generation": 2, "labels": {"cluster.x-k8s.io/control-plane": ""}},
            "status": {"conditions": [{"type": "Ready", "status": "True", "reason": "Ready",
                "message": "", "lastTransitionTime": "2026-11-30T10:00:00Z"}]}
        }))
        .unwrap_or_default();
        assert_eq!(
            get(&machine, "Ready").map(|c| c.status.as_str()),
            Some("True")
        );
        assert_eq!(machine.object_kind(), "Machine");
        let set = ConditionSet::from(&machine);
        assert_eq!(
            set,
            ConditionSet {
                kind: "Machine".into(),
                name: "cp-0".into(),
                generation: Some(2),
                conditions: vec![{
                    let mut c = new_condition("Ready", "True", "Ready", "");
                    c.last_transition_time = machine.conditions()[0].last_transition_time.clone();
                    c
                }],
                control_plane_machine: true,
            }
        );
    }
}
