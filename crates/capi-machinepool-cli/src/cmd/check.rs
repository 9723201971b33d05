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
use crate::render::{Kustomize, Mode};

#[derive(Clone)]
pub struct Args {
    pub paths: Vec<PathBuf>,
    pub only_contract: Option<Contract>,
    pub objects: Option<PathBuf>,
    /// Nodes to match with the `providerIDList` of the objects (`--nodes`).
    pub nodes: Option<PathBuf>,
    pub format: Format,
    pub no_v1beta1_compat: bool,
    pub verbose: bool,
    /// `--hide-derive-info`: [`Report::without_derive_info`].
    pub hide_derive_info: bool,
    /// `--require-judged`: [`CheckOptions::require_judged`].
    pub require_judged: bool,
    pub capabilities: bool,
    /// `--kustomize`.
    pub kustomize: crate::render::Mode,
    /// `--server`: the API server that judges `crd-valid`.
    pub server: Option<crate::server::ServerArgs>,
}

/// Reads the CRD paths into the checker; fails when none holds a CRD. Directories with a
/// kustomization are rendered by the real kustomize when one is selected (`--kustomize`),
/// else by the emulator, which then refuses what it does not reproduce exactly. Returns the
/// line that says which renderer ran, when a kustomization was rendered.
fn read_crds(
    checker: &mut Checker,
    paths: &[PathBuf],
    mode: &Mode,
) -> Result<Option<String>, Failure> {
    let kustomize = Kustomize::find(mode);
    let mut renderer = None;
    for path in paths {
        let kustomized = path != std::path::Path::new("-")
            && path.is_dir()
            && capi_manifests::kustomize::kustomization_file(path).is_some();
        match (&kustomize, kustomized) {
            (Some(k), true) => {
                if renderer.is_none() {
                    renderer = Some(format!(
                        "rendered with {} (kustomize {})",
                        k.name(),
                        k.version()
                    ));
                }
                read_rendered(checker, path, k)?;
            }
            _ => {
                let loaded =
                    capi_manifests::load::load(std::slice::from_ref(path), crate::input::limits())
                        .map_err(|e| crate::input::message(&e))?;
                if kustomized {
                    if renderer.is_none() {
                        renderer = Some(
                            "rendered with the built-in kustomize emulator (no kustomize used: --kustomize never, or none found)"
                                .to_owned(),
                        );
                    }
                    capi_manifests::kustomize::require_emulated(&loaded.notes)
                        .map_err(|e| crate::input::message(&e))?;
                }
                checker.add_notes(&loaded.notes);
                checker.add_documents(loaded.documents);
            }
        }
    }
    if checker.crds_read() == 0 {
        let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        return Err(format!("no CustomResourceDefinition found in {}", names.join(", ")).into());
    }
    Ok(renderer)
}

/// Renders one kustomization directory with the real kustomize (after the preflight), and
/// gives each rendered object the source file and line the emulator finds for it.
fn read_rendered(
    checker: &mut Checker,
    dir: &std::path::Path,
    k: &Kustomize,
) -> Result<(), Failure> {
    let limits = crate::input::limits();
    let mut tree =
        capi_manifests::tree::Tree::new(dir, limits).map_err(|e| crate::input::message(&e))?;
    capi_manifests::kustomize::preflight(&mut tree, dir, 0)
        .map_err(|e| crate::input::message(&e))?;
    let bytes = k.build(dir)?;
    let name = format!("{} {}", k.name(), capi_manifests::display_path(dir));
    let mut rendered = Vec::new();
    for item in capi_manifests::load::stream(bytes.as_slice(), &name, limits) {
        let item = item.map_err(|e| crate::input::message(&e))?;
        if let Some(value) = item.value.filter(|v| !v.is_null()) {
            rendered.push(capi_manifests::Document::new(item.raw.source, value));
        }
    }
    let emulated = capi_manifests::load::load(&[dir.to_path_buf()], limits);
    let emulated = match emulated {
        Ok(loaded) => Some(loaded.documents),
        Err(e) => {
            eprintln!(
                "note: the emulator cannot render {} ({}); findings point into {}'s output",
                capi_manifests::display_path(dir),
                crate::input::message(&e),
                k.name()
            );
            None
        }
    };
    let (documents, differences) =
        capi_manifests::compare::reconcile(rendered, emulated.as_deref());
    for d in differences {
        eprintln!("note: {d}; following {}", k.name());
    }
    checker.add_documents(documents);
    Ok(())
}

/// Streams the objects into the checker, each read with where its values are written, so
/// that an object's finding points at its field's line (items of a `List` included).
fn read_objects(checker: &mut Checker, objects: &std::path::Path) -> Result<(), Failure> {
    let limits = crate::input::limits();
    crate::input::for_each_document(objects, |doc| {
        let Some((value, positions)) = doc
            .raw
            .parse_with_positions(&limits)
            .map_err(|e| crate::input::message(&e))?
        else {
            return Ok(());
        };
        if value.is_null() {
            return Ok(());
        }
        let doc = capi_manifests::Document::new(doc.raw.source, value).with_positions(positions);
        for item in capi_manifests::list::expand(doc).map_err(|e| crate::input::message(&e))? {
            checker.add_object_document(&item);
        }
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
                    .map(|t| capi_diagnostics::excerpt::escape_json_text(&t).into_owned() + "\n")
                    .map_err(|e| format!("cannot write JSON: {e}").into())
            }
            Format::Junit | Format::Github | Format::Sarif => {
                Err("--capabilities is written as text or json"
                    .to_owned()
                    .into())
            }
        };
    }
    Ok(match args.format {
        Format::Text => render::text(report, args.verbose),
        Format::Json => render::json(report),
        Format::Junit => render::junit(report),
        Format::Github => render::github(report),
        Format::Sarif => render::sarif(report),
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
        if args.paths.is_empty() {
            return super::nodes::run(objects, nodes, args.format);
        }
        if args.format != Format::Text {
            return Err(format!(
                "--nodes with CRD paths prints two reports: use --format text, or run `check PATHS --objects {}` and `nodes --objects {} --nodes {}` apart",
                objects.display(),
                objects.display(),
                nodes.display()
            )
            .into());
        }
        let checked = run(&Args {
            nodes: None,
            ..args.clone()
        })?;
        let matched = super::nodes::run(objects, nodes, args.format)?;
        return Ok(if checked == ExitCode::SUCCESS {
            matched
        } else {
            checked
        });
    }
    if args.paths.is_empty() {
        return Err("no input: give CRD files, directories or `-` (see --help)"
            .to_owned()
            .into());
    }
    let opts = CheckOptions {
        only_contract: args.only_contract,
        v1beta1_compat: !args.no_v1beta1_compat,
        require_judged: args.require_judged,
    };
    let mut checker = Checker::new(opts);
    let judge = match &args.server {
        Some(server) => {
            let server = std::sync::Arc::new(crate::server::ApiServer::connect(server)?);
            checker = checker.with_crd_judge(std::sync::Arc::clone(&server));
            Some(server)
        }
        None => None,
    };
    let renderer = read_crds(&mut checker, &args.paths, &args.kustomize)?;
    if let Some(objects) = &args.objects {
        read_objects(&mut checker, objects)?;
    }
    let report = checker.finish();
    if let Some(reason) = judge.as_ref().and_then(|s| s.failure()) {
        return Err(format!(
            "--server: the API server {} gave no verdict: {reason}",
            judge.as_ref().map_or("", |s| s.url())
        )
        .into());
    }
    let report = if args.hide_derive_info {
        report.without_derive_info()
    } else {
        report
    };
    if args.capabilities && report.capabilities.is_empty() {
        // A header alone would read as "nothing supported"; say why there is no row.
        let why = report
            .findings
            .iter()
            .find(|f| {
                f.rule.id == "inframachinepool-crd"
                    && f.outcome == capi_contract_check::Outcome::Fail
            })
            .map_or_else(
                || "no InfraMachinePool CRD among the inputs".to_owned(),
                |f| f.message.clone(),
            );
        eprintln!("capabilities: no InfraMachinePool kind recognised: {why}");
        return Ok(ExitCode::from(1));
    }
    let code = if report.passes() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    };
    let mut text = render(&report, args)?;
    if let Some(line) = renderer {
        // Text reports start with the renderer; the other formats are read by programs and
        // keep their shape, so there it goes to stderr.
        if matches!(args.format, Format::Text) && !args.capabilities {
            text = format!("{line}\n{text}");
        } else {
            eprintln!("{line}");
        }
    }
    let mut out = Output::stdout();
    out.write(text.as_bytes(), code)?;
    out.flush(code)?;
    Ok(code)
}
