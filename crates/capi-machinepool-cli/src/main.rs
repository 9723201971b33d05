//! `capi-machinepool`: the MachinePool CRD, validation, conversion, and InfraMachinePool
//! contract checks for provider CI.

mod cmd;
mod documents;
mod report;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

/// Cluster API MachinePool toolkit.
#[derive(Parser)]
#[command(name = "capi-machinepool", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Output format of `check`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Human readable, grouped by CRD and version.
    Text,
    /// One JSON document with every finding.
    Json,
    /// JUnit XML (one testsuite per CRD, one testcase per rule check).
    Junit,
}

/// Target version of `convert`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Version {
    /// cluster.x-k8s.io/v1beta1
    V1beta1,
    /// cluster.x-k8s.io/v1beta2
    V1beta2,
}

/// Contract version of `check`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Contract {
    /// The current contract (accepts v1beta1 providers under the temporary compatibility).
    V1beta2,
    /// The deprecated contract.
    V1beta1,
}

#[derive(Subcommand)]
enum Command {
    /// Print the multi-version MachinePool CRD as YAML.
    Crd,
    /// Default and validate every MachinePool of a YAML/JSON file (exit 1 on any error).
    Validate {
        /// Multi-document YAML or JSON file (`-` for stdin).
        #[arg(short = 'f', long = "file")]
        file: PathBuf,
    },
    /// Convert every MachinePool of a YAML stream; other documents pass through untouched.
    Convert {
        /// Target version.
        #[arg(long = "to", value_enum)]
        to: Version,
        /// CRDs (files or directories) used to resolve reference apiVersions (v1beta1 target).
        #[arg(long = "crds")]
        crds: Vec<PathBuf>,
        /// Static reference versions, `group/Kind=apiVersion` (repeatable).
        #[arg(long = "map")]
        map: Vec<String>,
        /// Input file (`-` for stdin).
        #[arg(short = 'f', long = "file")]
        file: PathBuf,
    },
    /// Read a ConversionReview JSON on stdin, write the response on stdout.
    Review {
        /// CRDs (files or directories) used to resolve reference apiVersions.
        #[arg(long = "crds")]
        crds: Vec<PathBuf>,
        /// Static reference versions, `group/Kind=apiVersion` (repeatable).
        #[arg(long = "map")]
        map: Vec<String>,
    },
    /// Check provider CRDs (and objects) against the InfraMachinePool contract.
    Check {
        /// CRD files, directories (with kustomization.yaml labels) or rendered bundles.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Contract version to check against.
        #[arg(long, value_enum, default_value = "v1beta2")]
        contract: Contract,
        /// InfraMachinePool objects to check too.
        #[arg(long)]
        objects: Option<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        /// Fail, instead of warn, on forms accepted only under the temporary v1beta1 compatibility.
        #[arg(long)]
        no_v1beta1_compat: bool,
        /// Also list every passing check in text output.
        #[arg(short, long)]
        verbose: bool,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Crd => cmd::crd::run(),
        Command::Validate { file } => cmd::validate::run(&file),
        Command::Convert {
            to,
            crds,
            map,
            file,
        } => cmd::convert::run(to, &crds, &map, &file),
        Command::Review { crds, map } => cmd::review::run(&crds, &map),
        Command::Check {
            paths,
            contract,
            objects,
            format,
            no_v1beta1_compat,
            verbose,
        } => cmd::check::run(&cmd::check::Args {
            paths,
            contract,
            objects,
            format,
            no_v1beta1_compat,
            verbose,
        }),
    };
    match result {
        Ok(code) => code,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}
