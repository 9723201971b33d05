//! `capi-machinepool check`: InfraMachinePool contract conformance for provider CI.
//!
//! The CRD paths are read with `capi_manifests::load` (files, directories with their
//! kustomization, `-`) and checked with `capi_contract_check::Checker`; `--objects` is
//! streamed one document at a time into the same checker.

use std::path::PathBuf;
use std::process::ExitCode;

use capi_contract::Contract;
use capi_contract_check::{CheckOptions, Checker, Report, capabilities, render};

use crate::Format;
use crate::output::{Failure, Output};

pub struct Args {
    pub paths: Vec<PathBuf>,
    pub only_contract: Option<Contract>,
    pub objects: Option<PathBuf>,
    /// Nodes to match with the `providerIDList` of the objects (`--nodes`).
    pub nodes: Option<PathBuf>,
    pub format: Format,
    pub no_v1beta1_compat: bool,
    pub verbose: bool,
    pub capabilities: bool,
}

/// Reads the CRD paths into the checker; fails when none holds a CRD.
fn read_crds(checker: &mut Checker, paths: &[PathBuf]) -> Result<(), Failure> {
    let loaded = capi_manifests::load::load(paths, crate::input::limits())
        .map_err(|e| crate::input::message(&e))?;
    checker.add_notes(&loaded.notes);
    checker.add_documents(loaded.documents);
    if checker.crds_read() == 0 {
        let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        return Err(format!("no CustomResourceDefinition found in {}", names.join(", ")).into());
    }
    Ok(())
}

/// Streams the objects into the checker.
fn read_objects(checker: &mut Checker, objects: &std::path::Path) -> Result<(), Failure> {
    crate::input::for_each_object(objects, |source, value| {
        checker.add_object(&value, Some(&source));
        Ok(())
    })
}

/// The report (or, with `--capabilities`, the capability table) in the asked format.
fn render(report: &Report, args: &Args) -> Result<String, Failure> {
    if args.capabilities {
        return match args.format {
            Format::Text => Ok(capabilities::table(&report.capabilities)),
            Format::Json => {
                let value = serde_json::json!({ "capabilities": report.capabilities });
                serde_json::to_string_pretty(&value)
                    .map(|t| t + "\n")
                    .map_err(|e| format!("cannot write JSON: {e}").into())
            }
            Format::Junit | Format::Github => Err("--capabilities is written as text or json"
                .to_owned()
                .into()),
        };
    }
    Ok(match args.format {
        Format::Text => render::text(report, args.verbose),
        Format::Json => render::json(report),
        Format::Junit => render::junit(report),
        Format::Github => render::github(report),
    })
}

pub fn run(args: &Args) -> Result<ExitCode, Failure> {
    crate::input::stdin_once(
        args.paths
            .iter()
            .chain(&args.objects)
            .chain(&args.nodes)
            .map(PathBuf::as_path),
    )?;
    if let (Some(nodes), Some(objects)) = (&args.nodes, &args.objects) {
        return super::nodes::run(objects, nodes, args.format);
    }
    if args.paths.is_empty() {
        return Err("no input: give CRD files, directories or `-` (see --help)"
            .to_owned()
            .into());
    }
    let opts = CheckOptions {
        only_contract: args.only_contract,
        v1beta1_compat: !args.no_v1beta1_compat,
    };
    let mut checker = Checker::new(opts);
    read_crds(&mut checker, &args.paths)?;
    if let Some(objects) = &args.objects {
        read_objects(&mut checker, objects)?;
    }
    let report = checker.finish();
    let code = if report.passes() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    };
    let text = render(&report, args)?;
    let mut out = Output::stdout();
    out.write(text.as_bytes(), code)?;
    out.flush(code)?;
    Ok(code)
}
