//! Prints the FooMachinePool and FooMachinePoolTemplate CRDs as YAML, ready for
//! `capi-machinepool check`:
//!
//! `cargo run -p foo-provider --example crds > foo-crds.yaml && cargo run -p capi-machinepool-cli -- check foo-crds.yaml`

fn main() -> Result<(), String> {
    for crd in foo_provider::crds() {
        let yaml = serde_saphyr::to_string(&crd).map_err(|e| e.to_string())?;
        print!("---\n{yaml}");
    }
    Ok(())
}
