//! `capi-machinepool check`: InfraMachinePool contract conformance for provider CI.
//!
//! Exit 0 when no MUST rule fails, 1 when one does, 2 when an input cannot be read.

use std::path::PathBuf;
use std::process::ExitCode;

use capi_contract::load::{load_crds, read_documents};
use capi_contract::object_check::check_object;
use capi_contract::{CheckOptions, check_crds};

use crate::{Contract, Format};

pub struct Args {
    pub paths: Vec<PathBuf>,
    pub contract: Contract,
    pub objects: Option<PathBuf>,
    pub format: Format,
    pub no_v1beta1_compat: bool,
    pub verbose: bool,
}

pub fn run(args: &Args) -> Result<ExitCode, String> {
    let contract = match args.contract {
        Contract::V1beta2 => "v1beta2",
        Contract::V1beta1 => "v1beta1",
    };
    let opts = CheckOptions {
        contract: contract.to_owned(),
        v1beta1_compat: !args.no_v1beta1_compat,
    };
    let (crds, _) =
        load_crds(&args.paths).map_err(|e| capi_machinepool_conversion::error_chain(&e))?;
    if crds.is_empty() {
        return Err(format!(
            "no CustomResourceDefinition found in {:?}",
            args.paths
        ));
    }
    let mut report = check_crds(&crds, &opts);
    if let Some(objects) = &args.objects {
        for doc in
            read_documents(objects).map_err(|e| capi_machinepool_conversion::error_chain(&e))?
        {
            check_object(&doc, contract, &mut report);
        }
    }
    let out = match args.format {
        Format::Text => crate::report::text::render(&report, args.verbose),
        Format::Json => crate::report::json::render(&report),
        Format::Junit => crate::report::junit::render(&report),
    };
    print!("{out}");
    Ok(if report.has_failures() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
