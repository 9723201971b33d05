//! Builds a MachinePool's v1beta2 status end to end from sample InfraMachinePool and
//! bootstrap objects, and prints the MachinePool as YAML.
//!
//! `cargo run -p capi-machinepool-examples --example machine_pool_status`

use capi_conditions::machine_pool::{self, External, Inputs};
use capi_machinepool_api::v1beta2::MachinePool;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use k8s_openapi::jiff::Timestamp;
use serde_json::Value;

fn documents(text: &str) -> Result<Vec<Value>, String> {
    serde_saphyr::from_multiple(text).map_err(|e| e.to_string())
}

fn main() -> Result<(), String> {
    let pools = documents(include_str!("machinepools.yaml"))?;
    let mut mp: MachinePool =
        serde_json::from_value(pools[0].clone()).map_err(|e| e.to_string())?;
    capi_machinepool_api::admission::default_machine_pool(&mut mp, None)
        .map_err(|e| e.to_string())?;
    mp.metadata.generation = Some(1);

    let inputs_docs = documents(include_str!("status-inputs.yaml"))?;
    let (infra, bootstrap) = (&inputs_docs[0], &inputs_docs[1]);

    // What the MachinePool controller copies from the InfraMachinePool under the contract.
    let reader = capi_contract::reader::InfraMachinePoolReader::new(infra, "v1beta2");
    mp.status.replicas = Some(reader.replicas().map_err(|e| e.to_string())?);
    mp.spec.provider_id_list = reader.provider_id_list().map_err(|e| e.to_string())?;
    mp.status.initialization.infrastructure_provisioned =
        Some(reader.provisioned().map_err(|e| e.to_string())?);
    mp.status.initialization.bootstrap_data_secret_created =
        bootstrap["status"]["initialization"]["dataSecretCreated"].as_bool();

    let now = Time(Timestamp::from_second(1_796_000_000).map_err(|e| e.to_string())?);
    let snapshot = mp.clone();
    let inputs = Inputs {
        machine_pool: &snapshot,
        infra: External::Found(infra),
        infra_contract: "v1beta2",
        bootstrap: External::Found(bootstrap),
        machines: None,
        cluster_paused: false,
        now: &now,
    };
    machine_pool::apply(&mut mp, &inputs);
    let yaml = serde_saphyr::to_string(&mp).map_err(|e| e.to_string())?;
    print!("{yaml}");
    Ok(())
}
