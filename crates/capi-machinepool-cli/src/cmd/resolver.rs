//! The reference resolver of `convert` and `review`: `--map` entries first, then `--crds`.

use std::path::PathBuf;

use capi_machinepool_conversion::{ApiVersionResolver, CrdResolver, ResolveError, StaticResolver};

pub struct CliResolver {
    fixed: StaticResolver,
    crds: CrdResolver,
}

impl ApiVersionResolver for CliResolver {
    fn api_version(&self, group: &str, kind: &str) -> Result<String, ResolveError> {
        match self.fixed.api_version(group, kind) {
            Err(ResolveError::NotFound { .. }) => self.crds.api_version(group, kind),
            other => other,
        }
    }
}

/// Builds the resolver from `--crds` paths and `--map group/Kind=apiVersion` entries.
pub fn build(crd_paths: &[PathBuf], map: &[String]) -> Result<CliResolver, String> {
    let mut fixed = StaticResolver::new();
    for entry in map {
        let parsed = entry
            .split_once('=')
            .and_then(|(gk, v)| gk.rsplit_once('/').map(|(g, k)| (g, k, v)));
        let Some((group, kind, api_version)) =
            parsed.filter(|(_, k, v)| !k.is_empty() && !v.is_empty())
        else {
            return Err(format!(
                "--map {entry:?}: expected group/Kind=apiVersion, e.g. infrastructure.cluster.x-k8s.io/DockerMachinePool=infrastructure.cluster.x-k8s.io/v1beta2"
            ));
        };
        fixed.insert(group, kind, api_version);
    }
    let mut crds = CrdResolver::default();
    if !crd_paths.is_empty() {
        let (inputs, _) = capi_contract::load::load_crds(crd_paths).map_err(|e| e.to_string())?;
        for input in &inputs {
            crds.add_crd_json(&input.crd);
        }
    }
    Ok(CliResolver { fixed, crds })
}
