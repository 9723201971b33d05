//! One module per subcommand.

pub mod check;
pub mod convert;
pub mod crd;
pub mod nodes;
pub mod preflight;
pub mod review;
pub mod validate;

use std::path::PathBuf;

use capi_machinepool_conversion::{ChainResolver, CrdResolver, StaticResolver};

/// The reference resolver of `convert` and `review`: `--map` entries first, then the contract
/// labels of the CRDs of `--crds`.
pub fn resolver(crd_paths: &[PathBuf], map: &[String]) -> Result<ChainResolver, String> {
    let mut fixed = StaticResolver::new();
    for entry in map {
        fixed
            .insert_entry(entry)
            .map_err(|e| format!("--map {e}"))?;
    }
    let loaded = capi_manifests::load::load(crd_paths, crate::input::limits())
        .map_err(|e| crate::input::message(&e))?;
    let crds = CrdResolver::from_documents(loaded.documents.iter().map(|d| &d.value));
    Ok(ChainResolver::new().with(fixed).with(crds))
}
