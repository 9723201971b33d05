//! `Paused` for any object: upstream's `util/paused` `pausedCondition` / `EnsurePausedCondition`.
//!
//! An object is paused when its Cluster has `spec.paused: true` or when it carries the
//! `cluster.x-k8s.io/paused` annotation. A provider's controller sets the condition on its own
//! objects with [`set_paused`] and stops reconciling when it returns `true`.

use capi_machinepool_api::constants::PAUSED_ANNOTATION;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};
use kube_core::Resource;

use crate::access::{ConditionsMut, ObjectIdentity};
use crate::setter::{new_condition, set};
use crate::types::{FALSE, TRUE, condition as ct, reason};

/// Whether `meta` has the `cluster.x-k8s.io/paused` annotation (any value, as upstream's
/// `annotations.HasPaused`).
#[must_use]
pub fn has_paused_annotation(meta: &kube_core::ObjectMeta) -> bool {
    meta.annotations
        .as_ref()
        .is_some_and(|a| a.contains_key(PAUSED_ANNOTATION))
}

/// The `Paused` condition of `obj`, of kind `kind`, whose Cluster is paused or not: upstream's
/// `pausedCondition` (its reasons and messages; `observedGeneration` is stamped by
/// [`set`]).
///
/// ```
/// use capi_conditions::paused::paused_condition_for;
/// let mut meta = kube_core::ObjectMeta::default();
/// meta.annotations = Some([("cluster.x-k8s.io/paused".to_owned(), String::new())].into());
/// let c = paused_condition_for("FooMachinePool", &meta, true);
/// assert_eq!((c.status.as_str(), c.reason.as_str()), ("True", "Paused"));
/// assert_eq!(c.message, "Cluster spec.paused is set to true, FooMachinePool has the cluster.x-k8s.io/paused annotation");
/// ```
#[must_use]
pub fn paused_condition_for(
    kind: &str,
    meta: &kube_core::ObjectMeta,
    cluster_paused: bool,
) -> Condition {
    let mut why = Vec::new();
    if cluster_paused {
        why.push("Cluster spec.paused is set to true".to_owned());
    }
    if has_paused_annotation(meta) {
        why.push(format!("{kind} has the {PAUSED_ANNOTATION} annotation"));
    }
    if why.is_empty() {
        new_condition(ct::PAUSED, FALSE, reason::NOT_PAUSED, "")
    } else {
        new_condition(ct::PAUSED, TRUE, reason::PAUSED, &why.join(", "))
    }
}

/// [`paused_condition_for`] of a typed object (its kind from `kube_core::Resource`).
#[must_use]
pub fn paused_condition<K: Resource<DynamicType = ()>>(obj: &K, cluster_paused: bool) -> Condition {
    paused_condition_for(&K::kind(&()), obj.meta(), cluster_paused)
}

/// Sets `Paused` on `obj` (with [`set`]'s rules) and returns whether the object is paused:
/// upstream's `EnsurePausedCondition` without the patch, which the caller's status apply
/// does.
pub fn set_paused<K>(obj: &mut K, cluster_paused: bool, now: &Time) -> bool
where
    K: Resource<DynamicType = ()> + ConditionsMut + ObjectIdentity,
{
    let condition = paused_condition(obj, cluster_paused);
    let paused = condition.status == TRUE;
    set(obj, condition, now);
    paused
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(annotations: &[(&str, &str)]) -> kube_core::ObjectMeta {
        kube_core::ObjectMeta {
            annotations: (!annotations.is_empty()).then(|| {
                annotations
                    .iter()
                    .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                    .collect()
            }),
            ..Default::default()
        }
    }

    /// Rows of upstream util/paused/paused_test.go TestEnsurePausedCondition (unpaused,
    /// paused Cluster, paused annotation, both), plus: the annotation counts whatever its
    /// value and other annotations do not (util/annotations/helpers.go HasPaused tests the
    /// key only).
    #[test]
    fn upstream_rows() {
        let rows = [
            (false, meta(&[]), FALSE, reason::NOT_PAUSED, ""),
            (
                true,
                meta(&[]),
                TRUE,
                reason::PAUSED,
                "Cluster spec.paused is set to true",
            ),
            (
                false,
                meta(&[(PAUSED_ANNOTATION, "")]),
                TRUE,
                reason::PAUSED,
                "Foo has the cluster.x-k8s.io/paused annotation",
            ),
            (
                true,
                meta(&[(PAUSED_ANNOTATION, "true"), ("other", "x")]),
                TRUE,
                reason::PAUSED,
                "Cluster spec.paused is set to true, Foo has the cluster.x-k8s.io/paused annotation",
            ),
            (
                false,
                meta(&[("other", "x")]),
                FALSE,
                reason::NOT_PAUSED,
                "",
            ),
        ];
        for (cluster_paused, meta, status, why, message) in rows {
            let c = paused_condition_for("Foo", &meta, cluster_paused);
            assert_eq!(
                (
                    c.type_.as_str(),
                    c.status.as_str(),
                    c.reason.as_str(),
                    c.message.as_str()
                ),
                (ct::PAUSED, status, why, message)
            );
        }
    }
}
