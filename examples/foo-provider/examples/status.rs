//! One reconcile's status for a FooMachinePool carrying the `cluster.x-k8s.io/paused`
//! annotation: the server-side apply body a controller sends to the status subresource, and
//! whether to stop there.
//!
//! `cargo run -p foo-provider --example status`

use foo_provider::{status_update, v1beta1};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use k8s_openapi::jiff::Timestamp;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut pool = v1beta1::FooMachinePool::new("pool", Default::default());
    pool.metadata.namespace = Some("default".into());
    pool.metadata.generation = Some(3);
    pool.metadata.annotations =
        Some([("cluster.x-k8s.io/paused".to_owned(), String::new())].into());
    let now = Time(Timestamp::from_second(1_800_000_000)?);
    let update = status_update(&mut pool, false, &now);
    println!("paused: {}", update.paused);
    println!("{}", serde_json::to_string_pretty(&update.apply)?);
    Ok(())
}
