//! Status computation from typed objects (issue 33.4), on the fixtures of the upgrade table
//! (`tests/fixtures/upgrade/`, MachinePools derived from the corpus `machine-pool.yaml`, see its
//! SOURCE.md).
//!
//! The oracle is the untyped path the table of states is tested on (`conditions::apply` on the
//! v1beta2 pool with the InfraMachinePool as a `DynamicObject`): the typed path — the pool at
//! v1beta1 (converted by `capi-machinepool-conversion`, whose round trips are tested against
//! upstream's conversion elsewhere), the InfraMachinePool as a typed resource — must compute
//! the same conditions, counters and upgrade verdict. v1beta1 keeps the v1beta2 conditions and
//! counters in `status.v1beta2` (upstream `internal/api/core/v1beta1/machinepool_types.go`,
//! `MachinePoolV1Beta2Status`).
#![allow(clippy::unwrap_used, clippy::panic)]

use std::borrow::Cow;

use capi_contract::Contract;
use capi_machinepool_api::v1beta2::MachinePool;
use capi_machinepool_api::views::Machine;
use capi_machinepool_conversion::StaticResolver;
use capi_machinepool_conversion::machine_pool::from_hub;
use capi_machinepool_status::conditions::{self, External, Inputs, MachinePoolMachines};
use capi_machinepool_status::typed::{ExternalObject, apply_to, verdict_of};
use capi_machinepool_status::upgrade::upgrade_verdict;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use k8s_openapi::jiff::Timestamp;
use kube_core::{ApiResource, DynamicObject, GroupVersionKind, ObjectMeta, Resource};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// 2026-12-01T00:00:00Z, a day after the fixtures' transition times.
const NOW: i64 = 1_796_083_200;

const FIXTURES: [&str; 9] = [
    "not-supported-node-joining.yaml",
    "not-supported-scaled-to-zero.yaml",
    "not-supported-upgrade-halfway.yaml",
    "not-supported-upgrade-started.yaml",
    "not-supported-upgraded.yaml",
    "not-supported-vendor-suffix.yaml",
    "support-unknown.yaml",
    "supported-no-machines-yet.yaml",
    "supported-upgrade-started.yaml",
];

/// A provider's typed InfraMachinePool, as a `#[derive(CustomResource)]` type would be: spec
/// and status typed by the provider (here kept as JSON), `apiVersion`/`kind` from `Resource`
/// (its kind known at run time, as each fixture uses another provider).
#[derive(Clone, Debug, Serialize, Deserialize)]
struct TypedInfra {
    metadata: ObjectMeta,
    #[serde(default, skip_serializing_if = "Value::is_null")]
    spec: Value,
    #[serde(default, skip_serializing_if = "Value::is_null")]
    status: Value,
}

impl Resource for TypedInfra {
    type DynamicType = ApiResource;
    type Scope = kube_core::NamespaceResourceScope;
    fn kind(dt: &ApiResource) -> Cow<'_, str> {
        dt.kind.as_str().into()
    }
    fn group(dt: &ApiResource) -> Cow<'_, str> {
        dt.group.as_str().into()
    }
    fn version(dt: &ApiResource) -> Cow<'_, str> {
        dt.version.as_str().into()
    }
    fn plural(dt: &ApiResource) -> Cow<'_, str> {
        dt.plural.as_str().into()
    }
    fn meta(&self) -> &ObjectMeta {
        &self.metadata
    }
    fn meta_mut(&mut self) -> &mut ObjectMeta {
        &mut self.metadata
    }
}

struct Fixture {
    docs: Vec<Value>,
    pool: MachinePool,
    infra: Option<Value>,
    machines: Vec<Machine>,
}

fn load(name: &str) -> Fixture {
    let path = format!(
        "{}/tests/fixtures/upgrade/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    let docs: Vec<Value> =
        serde_saphyr::from_multiple(&std::fs::read_to_string(path).unwrap()).unwrap();
    let pool_doc = docs.iter().find(|d| d["kind"] == "MachinePool").unwrap();
    let pool: MachinePool = serde_json::from_value(pool_doc.clone()).unwrap();
    let infra_kind = pool.spec.template.spec.infrastructure_ref.kind.clone();
    let infra = docs
        .iter()
        .find(|d| d["kind"] == infra_kind.as_str())
        .cloned();
    let machines = docs
        .iter()
        .filter(|d| d["kind"] == "Machine")
        .map(|d| serde_json::from_value(d.clone()).unwrap())
        .collect();
    Fixture {
        docs,
        pool,
        infra,
        machines,
    }
}

/// The pool at v1beta1, as the API server serves it (references resolved from the fixture's
/// own objects; the bootstrap config's kind at its v1beta2 group version).
///
/// The v1beta1 pool names its references by apiVersion.
fn at_v1beta1(f: &Fixture) -> capi_machinepool_api::v1beta1::MachinePool {
    let mut resolver = StaticResolver::new().with(
        "bootstrap.cluster.x-k8s.io",
        "KubeadmConfig",
        "bootstrap.cluster.x-k8s.io/v1beta2",
    );
    // An InfraMachinePool that is not among the objects (it could not be read) is at v1beta2,
    // the contract version of every provider in the fixtures.
    let infra = &f.pool.spec.template.spec.infrastructure_ref;
    resolver.insert(
        &infra.api_group,
        &infra.kind,
        &format!("{}/v1beta2", infra.api_group),
    );
    for d in &f.docs {
        let api_version = d["apiVersion"].as_str().unwrap();
        let group = api_version.rsplit_once('/').map_or("", |(g, _)| g);
        resolver.insert(group, d["kind"].as_str().unwrap(), api_version);
    }
    from_hub(&f.pool, &resolver).unwrap()
}

fn api_resource(doc: &Value) -> ApiResource {
    let api_version = doc["apiVersion"].as_str().unwrap();
    let (group, version) = api_version.rsplit_once('/').unwrap();
    ApiResource::from_gvk(&GroupVersionKind::gvk(
        group,
        version,
        doc["kind"].as_str().unwrap(),
    ))
}

#[test]
fn typed_pool_and_infra_compute_what_the_untyped_path_computes() {
    let now = Time(Timestamp::from_second(NOW).unwrap());
    for name in FIXTURES {
        let f = load(name);
        // Untyped: the v1beta2 pool, the InfraMachinePool as a DynamicObject.
        let dynamic: Option<DynamicObject> =
            f.infra.clone().map(|d| serde_json::from_value(d).unwrap());
        let infra = dynamic.as_ref().map_or(External::NotFound, External::Found);
        let inputs = Inputs {
            infra,
            infra_contract: Contract::V1Beta2,
            bootstrap: External::NotFound,
            machines: MachinePoolMachines::detect(infra, Some(&f.machines)),
            cluster_paused: false,
            now: &now,
        };
        let mut expected = f.pool.clone();
        let expected_changed = conditions::apply(&mut expected, &inputs);

        // Typed: the InfraMachinePool as a typed resource, the pool at both versions.
        let typed = f.infra.as_ref().map(|d| {
            let obj: TypedInfra = serde_json::from_value(d.clone()).unwrap();
            ExternalObject::of_with(&obj, &api_resource(d)).unwrap()
        });
        let infra = typed
            .as_ref()
            .map_or(External::NotFound, ExternalObject::found);
        assert_eq!(
            typed.as_ref().map(|t| t.as_dynamic()),
            dynamic.as_ref(),
            "{name}: the typed InfraMachinePool reads as the document does"
        );
        let inputs = Inputs {
            infra,
            machines: MachinePoolMachines::detect(infra, Some(&f.machines)),
            ..inputs
        };

        let mut v1beta2 = f.pool.clone();
        assert_eq!(
            apply_to(&mut v1beta2, &inputs).unwrap(),
            expected_changed,
            "{name}"
        );
        assert_eq!(v1beta2, expected, "{name}");

        let mut v1beta1 = at_v1beta1(&f);
        assert_eq!(
            apply_to(&mut v1beta1, &inputs).unwrap(),
            expected_changed,
            "{name}"
        );
        let block = v1beta1.status.v1beta2.clone().unwrap_or_default();
        assert_eq!(block.conditions, expected.status.conditions, "{name}");
        assert_eq!(
            (
                block.ready_replicas,
                block.available_replicas,
                block.up_to_date_replicas
            ),
            (
                expected.status.ready_replicas,
                expected.status.available_replicas,
                expected.status.up_to_date_replicas
            ),
            "{name}"
        );
        assert_eq!(
            verdict_of(&v1beta1).unwrap(),
            upgrade_verdict(&expected),
            "{name}"
        );
        assert_eq!(
            verdict_of(&v1beta2).unwrap(),
            upgrade_verdict(&expected),
            "{name}"
        );
        // Before the status computation the verdicts agree as well (upstream's status).
        assert_eq!(
            verdict_of(&at_v1beta1(&f)).unwrap(),
            upgrade_verdict(&f.pool),
            "{name}"
        );
    }
}

/// An object that is not a JSON object cannot be an external input.
#[test]
fn a_non_object_is_an_error() {
    #[derive(Serialize)]
    struct NotAnObject(Vec<u8>);
    let meta = ObjectMeta {
        name: Some("x".into()),
        ..ObjectMeta::default()
    };
    struct Wrapper(NotAnObject, ObjectMeta);
    impl Serialize for Wrapper {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            self.0.serialize(s)
        }
    }
    impl Resource for Wrapper {
        type DynamicType = ();
        type Scope = kube_core::NamespaceResourceScope;
        fn kind(_: &()) -> Cow<'_, str> {
            "FooMachinePool".into()
        }
        fn group(_: &()) -> Cow<'_, str> {
            "infrastructure.foo.example.com".into()
        }
        fn version(_: &()) -> Cow<'_, str> {
            "v1beta1".into()
        }
        fn plural(_: &()) -> Cow<'_, str> {
            "foomachinepools".into()
        }
        fn meta(&self) -> &ObjectMeta {
            &self.1
        }
        fn meta_mut(&mut self) -> &mut ObjectMeta {
            &mut self.1
        }
    }
    let err = ExternalObject::of(&Wrapper(NotAnObject(vec![1]), meta)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the FooMachinePool x could not be read as a JSON object"
    );
}
