//! What Go's `omitempty` makes of an object when it is printed and read back: nil and empty
//! lists and maps, empty strings of `ObjectMeta` and `ObjectReference`, and a zero
//! `generation` or condition `observedGeneration` all read back as unset. Kubernetes' own
//! semantic equality treats these as equal too.

use std::collections::BTreeMap;

use capi_machinepool_api::k8s_openapi::api::core::v1::ObjectReference;
use capi_machinepool_api::k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use capi_machinepool_api::{v1beta1, v1beta2};

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

fn meta(m: &mut capi_machinepool_api::kube_core::ObjectMeta) {
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

/// A v1beta2 object as Go prints and reads it back.
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

/// A v1beta1 object as Go prints and reads it back.
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
