//! Builds a MachinePool's v1beta2 status end to end from sample InfraMachinePool and
//! bootstrap objects, and prints the MachinePool as YAML.
//!
//! `cargo run -p capi-machinepool-examples --example machine_pool_status`

use capi_contract::Contract;
use capi_contract::reader::InfraMachinePoolReader;
use capi_machinepool_api::v1beta2::MachinePool;
use capi_machinepool_status::conditions::{
    self as machine_pool, External, Inputs, MachinePoolMachines,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use k8s_openapi::jiff::Timestamp;
use kube_core::DynamicObject;
use serde_json::Value;

fn documents(text: &str) -> Result<Vec<Value>, String> {
    serde_saphyr::from_multiple(text).map_err(|e| e.to_string())
}

fn main() -> Result<(), String> {
    let pools = documents(include_str!("machinepools.yaml"))?;
    let mut mp: MachinePool =
        serde_json::from_value(pools[0].clone()).map_err(|e| e.to_string())?;
    capi_machinepool_admission::default_machine_pool(&mut mp, None).map_err(|e| e.to_string())?;
    mp.metadata.generation = Some(1);

    // The InfraMachinePool and bootstrap config, as `kube::Api::<DynamicObject>` returns them.
    let inputs_docs = documents(include_str!("status-inputs.yaml"))?;
    let dynamic = |v: &Value| -> Result<DynamicObject, String> {
        serde_json::from_value(v.clone()).map_err(|e| e.to_string())
    };
    let (infra, bootstrap) = (dynamic(&inputs_docs[0])?, dynamic(&inputs_docs[1])?);

    // What the MachinePool controller copies from the InfraMachinePool under the contract.
    let reader = InfraMachinePoolReader::new(&infra.data, Contract::V1Beta2);
    mp.status.replicas = Some(reader.replicas().map_err(|e| e.to_string())?);
    mp.spec.provider_id_list = Some(reader.provider_id_list().map_err(|e| e.to_string())?);
    mp.status.initialization.infrastructure_provisioned =
        Some(reader.provisioned().map_err(|e| e.to_string())?);
    mp.status.initialization.bootstrap_data_secret_created =
        bootstrap.data["status"]["initialization"]["dataSecretCreated"].as_bool();

    let now = Time(Timestamp::from_second(1_796_000_000).map_err(|e| e.to_string())?);
    let inputs = Inputs {
        infra: External::Found(&infra),
        infra_contract: Contract::V1Beta2,
        bootstrap: External::Found(&bootstrap),
        // The InfraMachinePool says whether it provides MachinePool Machines; a controller
        // passes the Machines it listed with `kube::Api::<views::Machine>` (here: none).
        machines: MachinePoolMachines::detect(External::Found(&infra), Some(&[])),
        cluster_paused: false,
        now: &now,
    };
    // The pool is updated in place: the inputs do not borrow it.
    machine_pool::apply(&mut mp, &inputs);
    let yaml = serde_saphyr::to_string(&mp).map_err(|e| e.to_string())?;
    print!("{yaml}");
    Ok(())
}
