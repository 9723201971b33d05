//! A `KubeadmConfig` spec at one API version, so that the stored object (which the API server
//! returns at v1beta2) and a manifest written at v1beta1 compare equal when their content is
//! (issue 29: "Bootstrap config compared across API versions").
//!
//! [`spec_at_v1beta2`] follows upstream's v1beta1 -> v1beta2 conversion
//! (`api/bootstrap/kubeadm/v1beta1/conversion.go` at ae7ff047) for the fields that change shape:
//!
//! * every `extraArgs` / `kubeletExtraArgs` map becomes the v1beta2 list of `{name, value}`,
//!   sorted by name then value, as `ConvertToArgs` (`api/bootstrap/kubeadm/v1beta2/conversion.go`
//!   line 26) does: `nodeRegistration.kubeletExtraArgs` of `initConfiguration` and
//!   `joinConfiguration` (where `node-labels` lives), `clusterConfiguration.apiServer`,
//!   `.controllerManager`, `.scheduler` and `.etcd.local` `extraArgs`;
//! * `useExperimentalRetryJoin` is dropped ("v1beta2 KubeadmConfigSpec does not have
//!   UseExperimentalRetryJoin anymore");
//!
//! and both sides are then normalised the way the API server's v1beta2 serialisation makes them
//! look: empty objects, empty lists and nulls are dropped (v1beta2 uses `omitzero` structs where
//! v1beta1 had pointers). Timeouts (`apiServer.timeoutForControlPlane`, `discovery.timeout`)
//! move to `timeouts` at v1beta2 in a hub-level conversion that is not reproduced: a config
//! setting them may still compare different.

use serde_json::{Map, Value};

/// Where v1beta1 keeps a `map[string]string` that v1beta2 keeps as a list of args.
const ARG_MAPS: [&[&str]; 6] = [
    &["initConfiguration", "nodeRegistration", "kubeletExtraArgs"],
    &["joinConfiguration", "nodeRegistration", "kubeletExtraArgs"],
    &["clusterConfiguration", "apiServer", "extraArgs"],
    &["clusterConfiguration", "controllerManager", "extraArgs"],
    &["clusterConfiguration", "scheduler", "extraArgs"],
    &["clusterConfiguration", "etcd", "local", "extraArgs"],
];

fn at_mut<'a>(value: &'a mut Value, path: &[&str]) -> Option<&'a mut Value> {
    path.iter().try_fold(value, |v, key| v.get_mut(*key))
}

/// `ConvertToArgs`: a map of arguments as the v1beta2 list, sorted by name, then value.
fn to_args(map: &Map<String, Value>) -> Value {
    let mut args: Vec<(String, String)> = map
        .iter()
        .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_owned()))
        .collect();
    args.sort();
    Value::Array(
        args.into_iter()
            .map(|(name, value)| serde_json::json!({"name": name, "value": value}))
            .collect(),
    )
}

/// Drops nulls, empty objects and empty lists, recursively.
fn prune(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for v in map.values_mut() {
                prune(v);
            }
            map.retain(|_, v| !is_empty(v));
        }
        Value::Array(items) => items.iter_mut().for_each(prune),
        _ => {}
    }
}

fn is_empty(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Object(m) => m.is_empty(),
        Value::Array(a) => a.is_empty(),
        _ => false,
    }
}

/// A `KubeadmConfig` (or `KubeadmConfigTemplate` `template.spec`) spec written at `api_version`
/// (`bootstrap.cluster.x-k8s.io/v1beta1` or `/v1beta2`), as v1beta2 content; see the module
/// documentation for what is converted.
///
/// ```
/// use capi_machinepool_rollout::kubeadm_config::spec_at_v1beta2;
/// let v1beta1 = serde_json::json!({"joinConfiguration": {"nodeRegistration": {
///     "kubeletExtraArgs": {"node-labels": "pool=a", "eviction-hard": "nodefs.available<0%"}}},
///     "useExperimentalRetryJoin": true, "files": []});
/// let v1beta2 = serde_json::json!({"joinConfiguration": {"nodeRegistration": {
///     "kubeletExtraArgs": [{"name": "eviction-hard", "value": "nodefs.available<0%"},
///                          {"name": "node-labels", "value": "pool=a"}]}}});
/// assert_eq!(
///     spec_at_v1beta2("bootstrap.cluster.x-k8s.io/v1beta1", &v1beta1),
///     spec_at_v1beta2("bootstrap.cluster.x-k8s.io/v1beta2", &v1beta2)
/// );
/// ```
#[must_use]
pub fn spec_at_v1beta2(api_version: &str, spec: &Value) -> Value {
    let mut out = spec.clone();
    if api_version.ends_with("/v1beta1") {
        for path in ARG_MAPS {
            if let Some(slot) = at_mut(&mut out, path)
                && let Some(map) = slot.as_object()
            {
                *slot = to_args(map);
            }
        }
        if let Some(map) = out.as_object_mut() {
            map.remove("useExperimentalRetryJoin");
        }
    }
    prune(&mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_arg_map_is_converted_and_sorted() {
        let spec = json!({"clusterConfiguration": {
            "apiServer": {"extraArgs": {"b": "2", "a": "1"}},
            "controllerManager": {"extraArgs": {"x": "y"}},
            "scheduler": {"extraArgs": {}},
            "etcd": {"local": {"extraArgs": {"e": "f"}}}},
            "initConfiguration": {"nodeRegistration": {"kubeletExtraArgs": {"k": "v"}}}});
        let got = spec_at_v1beta2("bootstrap.cluster.x-k8s.io/v1beta1", &spec);
        assert_eq!(
            got,
            json!({"clusterConfiguration": {
                "apiServer": {"extraArgs": [{"name": "a", "value": "1"}, {"name": "b", "value": "2"}]},
                "controllerManager": {"extraArgs": [{"name": "x", "value": "y"}]},
                "etcd": {"local": {"extraArgs": [{"name": "e", "value": "f"}]}}},
                "initConfiguration": {"nodeRegistration": {"kubeletExtraArgs": [{"name": "k", "value": "v"}]}}})
        );
        // v1beta2 content is left as written (only pruned).
        let v2 = json!({"joinConfiguration": {"nodeRegistration": {"kubeletExtraArgs": [{"name": "b", "value": "1"}, {"name": "a", "value": "2"}]}}});
        assert_eq!(
            spec_at_v1beta2("bootstrap.cluster.x-k8s.io/v1beta2", &v2),
            v2
        );
    }
}
