//! Go normalisation: what an object becomes when Go prints it and reads it back, on the two
//! paths an object takes.
//!
//! * The in-memory path ([`v1beta1()`], [`v1beta2()`] for MachinePools): Go's `omitempty`
//!   makes nil and empty lists and maps, empty strings of `ObjectMeta` and
//!   `ObjectReference`, and a zero `generation` or condition `observedGeneration` read back as
//!   unset. Kubernetes' own semantic equality treats these as equal too.
//! * The JSON path ([`json`], [`semantic_meta`], [`v1beta1_json`]): what the API server
//!   stores and sends a webhook is the object printed and read back, so a generated value is
//!   compared after that round trip; an empty `annotations` map equals an absent one
//!   (`apiequality.Semantic.DeepEqual`); and a v1beta1 MachinePool's empty `status.v1beta2`
//!   block is dropped, as upstream's spoke fuzzer drops it (the hub holds nothing that
//!   would bring it back).

use std::collections::BTreeMap;

use capi_machinepool_api::k8s_openapi::api::core::v1::ObjectReference;
use capi_machinepool_api::k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use capi_machinepool_api::{v1beta1, v1beta2};
use kube_core::{ObjectMeta, Resource};
use serde::Serialize;
use serde::de::DeserializeOwned;

fn list<T>(l: &mut Option<Vec<T>>) {
    if l.as_ref().is_some_and(Vec::is_empty) {
        *l = None;
    }
}

fn map(m: &mut Option<BTreeMap<String, String>>) {
    if m.as_ref().is_some_and(BTreeMap::is_empty) {
        *m = None;
    }
}

fn string(s: &mut Option<String>) {
    if s.as_deref() == Some("") {
        *s = None;
    }
}

fn meta(m: &mut ObjectMeta) {
    for s in [
        &mut m.name,
        &mut m.namespace,
        &mut m.generate_name,
        &mut m.uid,
    ] {
        string(s);
    }
    map(&mut m.labels);
    map(&mut m.annotations);
    list(&mut m.finalizers);
    if m.generation == Some(0) {
        m.generation = None;
    }
}

fn template_meta(m: &mut v1beta2::ObjectMeta) {
    map(&mut m.labels);
    map(&mut m.annotations);
}

fn reference(r: &mut ObjectReference) {
    for s in [
        &mut r.api_version,
        &mut r.kind,
        &mut r.name,
        &mut r.namespace,
        &mut r.uid,
        &mut r.resource_version,
        &mut r.field_path,
    ] {
        string(s);
    }
}

fn references(l: &mut Option<Vec<ObjectReference>>) {
    l.iter_mut().flatten().for_each(reference);
    list(l);
}

fn conditions(l: &mut Option<Vec<Condition>>) {
    for c in l.iter_mut().flatten() {
        if c.observed_generation == Some(0) {
            c.observed_generation = None;
        }
    }
    list(l);
}

/// A v1beta2 MachinePool as Go prints and reads it back (the in-memory path).
#[must_use]
pub fn v1beta2(mut mp: v1beta2::MachinePool) -> v1beta2::MachinePool {
    meta(&mut mp.metadata);
    list(&mut mp.spec.provider_id_list);
    list(&mut mp.spec.failure_domains);
    template_meta(&mut mp.spec.template.metadata);
    list(&mut mp.spec.template.spec.readiness_gates);
    list(&mut mp.spec.template.spec.taints);
    let s = &mut mp.status;
    conditions(&mut s.conditions);
    references(&mut s.node_refs);
    list(&mut s.versions);
    if let Some(d) = s.deprecated.as_mut().and_then(|d| d.v1beta1.as_mut()) {
        list(&mut d.conditions);
    }
    mp
}

/// A v1beta1 MachinePool as Go prints and reads it back (the in-memory path).
#[must_use]
pub fn v1beta1(mut mp: v1beta1::MachinePool) -> v1beta1::MachinePool {
    meta(&mut mp.metadata);
    list(&mut mp.spec.provider_id_list);
    list(&mut mp.spec.failure_domains);
    template_meta(&mut mp.spec.template.metadata);
    let m = &mut mp.spec.template.spec;
    list(&mut m.readiness_gates);
    list(&mut m.taints);
    reference(&mut m.infrastructure_ref);
    if let Some(r) = m.bootstrap.config_ref.as_mut() {
        reference(r);
    }
    let s = &mut mp.status;
    references(&mut s.node_refs);
    list(&mut s.conditions);
    list(&mut s.versions);
    if let Some(b) = s.v1beta2.as_mut() {
        conditions(&mut b.conditions);
    }
    mp
}

/// `value` printed as JSON and read back: what the API server holds and sends for it.
///
/// # Errors
/// When the value does not print, or what it prints does not read back as its type (a
/// serde attribute pair that disagrees, e.g. a field skipped when empty that has no
/// `default`).
pub fn json<T: Serialize + DeserializeOwned>(value: &T) -> Result<T, serde_json::Error> {
    serde_json::from_value(serde_json::to_value(value)?)
}

/// An empty `annotations` or `labels` map is an absent one (`apiequality.Semantic.DeepEqual`
/// holds an empty map equal to a nil one: apimachinery
/// `third_party/forked/golang/reflect/deep_equal.go`).
pub fn semantic_meta(meta: &mut ObjectMeta) {
    map(&mut meta.annotations);
    map(&mut meta.labels);
}

/// [`semantic_meta`] of a resource's metadata.
pub fn semantic<K: Resource>(mut object: K) -> K {
    semantic_meta(object.meta_mut());
    object
}

/// A v1beta1 MachinePool on the JSON path: [`v1beta1()`], and an empty `status.v1beta2` block
/// is none (a hub without v1beta2 status fields converts to a spoke without the block).
pub fn v1beta1_json(mp: v1beta1::MachinePool) -> v1beta1::MachinePool {
    let mut mp = v1beta1(mp);
    empty_v1beta2_status(&mut mp);
    mp
}

/// An empty `status.v1beta2` block of a v1beta1 MachinePool is none: a hub without v1beta2
/// status fields converts to a spoke without the block.
pub fn empty_v1beta2_status(mp: &mut v1beta1::MachinePool) {
    if mp
        .status
        .v1beta2
        .as_ref()
        .is_some_and(|b| *b == v1beta1::MachinePoolV1Beta2Status::default())
    {
        mp.status.v1beta2 = None;
    }
}
