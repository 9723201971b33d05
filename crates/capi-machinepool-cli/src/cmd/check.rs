//! `capi-machinepool check`: InfraMachinePool contract conformance for provider CI.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use capi_contract::Contract;
use capi_contract_check::{CheckOptions, Checker, CrdInput, render};
use capi_manifests::Document;

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
}

/// Feeds one document to the checker: CRDs are checked, anything else is listed as skipped.
fn add(checker: &mut Checker, doc: Document, crds: &mut usize) {
    if doc.value["kind"] == "CustomResourceDefinition" {
        *crds += 1;
        checker.add_crd(&CrdInput::from(doc));
    } else {
        let kind = doc.value["kind"].as_str().unwrap_or("<no kind>");
        let reason = format!(
            "{}: {} is not a CustomResourceDefinition",
            doc.source,
            capi_diagnostics::excerpt::excerpt(kind)
        );
        checker.skip(reason);
    }
}

fn read(checker: &mut Checker, path: &Path, crds: &mut usize) -> Result<(), Failure> {
    let is_dir = path != Path::new("-") && std::fs::metadata(path).is_ok_and(|m| m.is_dir());
    if is_dir {
        let loaded = capi_manifests::load::load(&[path.to_path_buf()], crate::input::limits())
            .map_err(|e| crate::input::message(&e))?;
        checker.add_notes(&loaded.notes);
        for doc in loaded.documents {
            add(checker, doc, crds);
        }
        return Ok(());
    }
    crate::input::for_each_document(path, |item| {
        if let Some(value) = item.value.filter(|v| !v.is_null()) {
            add(checker, Document::new(item.raw.source, value), crds);
        }
        Ok(())
    })
}

pub fn run(args: &Args) -> Result<ExitCode, Failure> {
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
    let mut crds = 0;
    for path in &args.paths {
        read(&mut checker, path, &mut crds)?;
    }
    if crds == 0 {
        return Err(format!(
            "no CustomResourceDefinition found in {}",
            args.paths
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )
        .into());
    }
    if let Some(objects) = &args.objects {
        crate::input::for_each_document(objects, |item| {
            if let Some(value) = item.value.filter(|v| !v.is_null()) {
                checker.add_object(&value, Some(&item.raw.source));
            }
            Ok(())
        })?;
    }
    let report = checker.finish();
    let code = if report.passes() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    };
    let text = match args.format {
        Format::Text => render::text(&report, args.verbose),
        Format::Json => render::json(&report),
        Format::Junit => render::junit(&report),
        Format::Github => render::github(&report),
    };
    let mut out = Output::stdout();
    out.write(text.as_bytes(), code)?;
    out.flush(code)?;
    Ok(code)
}
