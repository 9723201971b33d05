//! `capi-machinepool`: the MachinePool CRD, validation, conversion, and InfraMachinePool
//! contract checks for provider CI. Argument parsing, I/O and rendering only: the work is done
//! by the library crates.

mod cmd;
mod input;
mod live;
mod output;
mod render;
mod server;
mod upgrade_order;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};

const EXIT_CODES: &str = "\
Exit status:
  0  success (check: no MUST rule violated; validate: every MachinePool is valid)
  1  check: a MUST rule is violated; nodes (and check --nodes): a listed provider ID without
     exactly one Node, or listed twice (Nodes no given pool lists are no error); validate: a
     MachinePool is invalid or breaks the version skew policy
  2  an input cannot be read, or the command line is wrong
A closed standard output (e.g. `| head`) ends a command quietly.";

const CHECK_EXIT_CODES: &str = "\
Exit status:
  0  no MUST rule is violated (WARN and INFO findings do not fail)
  1  a MUST rule is violated (with --nodes: or a pool's Node matching fails; with
     --require-judged: or a CRD's validation by the API server was not judged in full)
  2  an input cannot be read, the API server (--server) cannot be asked, or the command line
     is wrong
A closed standard output (e.g. `| head`) ends the command quietly.";

const NODES_EXIT_CODES: &str = "\
Exit status:
  0  every listed provider ID has exactly one Node (Nodes no given pool lists are no error)
  1  a listed provider ID has no Node or several, or is listed twice
  2  an input cannot be read, or the command line is wrong
A closed standard output (e.g. `| head`) ends the command quietly.";

const VALIDATE_EXIT_CODES: &str = "\
Exit status:
  0  every MachinePool is valid (warnings do not fail)
  1  a MachinePool is invalid, or breaks the Kubernetes version skew policy
  2  an input cannot be read, the API server (--server) cannot be asked, or the command line
     is wrong
A closed standard output (e.g. `| head`) ends the command quietly.";

const CONVERT_EXIT_CODES: &str = "\
Exit status:
  0  every MachinePool converted; the whole stream was written
  2  an input cannot be read or a MachinePool cannot be converted (with --strict: a field
     would be dropped), or the command line is wrong; nothing was written
A closed standard output (e.g. `| head`) ends the command quietly.";

const REVIEW_EXIT_CODES: &str = "\
Exit status:
  0  the request was answered (the response may still report a failed conversion)
  2  standard input is not a ConversionReview (a 400 Failure response is still printed), or
     the command line is wrong
A closed standard output (e.g. `| head`) ends the command quietly.";

const PREFLIGHT_EXIT_CODES: &str = "\
Exit status:
  0  every verdict passes: no MachinePool is invalid or breaks the version skew policy, every
     listed provider ID has exactly one Node; with --to: no pool blocks the version and the
     control plane is at most one minor behind it
  1  a verdict fails, or (--to) the version cannot be set now (the order is printed)
  2  a cluster cannot be read (the error names the verb and resource refused), or the
     command line is wrong
A closed standard output (e.g. `| head`) ends the command quietly.";

/// The name kubectl runs the binary under as a plugin (`kubectl capi-machinepool`: a dash of
/// the plugin's name is an underscore in the file's).
const KUBECTL_PLUGIN: &str = "kubectl-capi_machinepool";

const CRD_EXIT_CODES: &str = "\
Exit status:
  0  the CRD was printed
  2  the command line is wrong
A closed standard output (e.g. `| head`) ends the command quietly.";

/// Cluster API MachinePool toolkit.
#[derive(Parser)]
#[command(name = "capi-machinepool", version, about, after_help = EXIT_CODES)]
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
    /// GitHub Actions workflow commands (annotations on the files of a pull request).
    Github,
    /// SARIF 2.1.0, for code scanning (`github/codeql-action/upload-sarif`).
    Sarif,
}

/// Output format of `nodes`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum NodesFormat {
    /// Human readable, one block per pool.
    Text,
    /// One JSON document with every pool's matching.
    Json,
}

impl From<NodesFormat> for Format {
    fn from(f: NodesFormat) -> Self {
        match f {
            NodesFormat::Text => Self::Text,
            NodesFormat::Json => Self::Json,
        }
    }
}

/// Output format of `preflight`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum PreflightFormat {
    /// Human readable: what was read, the verdicts as `validate` and `nodes` print them, the
    /// upgrade order.
    Text,
    /// One JSON document: what was read, each pool's findings, the Node matching as `nodes
    /// --format json` gives it, the upgrade order.
    Json,
    /// GitHub Actions workflow commands: `::error` / `::warning` / `::notice` for each
    /// finding, Node matching problem, blocking pool and step, then the summary line.
    Github,
}

/// An API version of MachinePool.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Version {
    /// cluster.x-k8s.io/v1beta1
    V1beta1,
    /// cluster.x-k8s.io/v1beta2
    V1beta2,
}

/// `--only-contract`: a contract version as [`capi_contract::Contract`] parses it, the
/// possible values (newest first) and their help taken from its version policy.
fn contract_parser() -> impl clap::builder::TypedValueParser<Value = capi_contract::Contract> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    let values = capi_contract::Contract::ALL.iter().rev().map(|c| {
        let help = if c.is_deprecated() {
            "A deprecated contract (read by the current core under the temporary compatibility)"
        } else {
            "The current contract"
        };
        PossibleValue::new(c.as_str()).help(help)
    });
    PossibleValuesParser::new(values).try_map(|s| s.parse::<capi_contract::Contract>())
}

#[derive(Subcommand)]
enum Command {
    /// Print the multi-version MachinePool CRD as YAML.
    #[command(after_help = CRD_EXIT_CODES)]
    Crd,
    /// Default and validate every MachinePool of a YAML/JSON stream as the API server would,
    /// and check the Kubernetes version skew against its control plane.
    #[command(after_help = VALIDATE_EXIT_CODES)]
    Validate {
        /// Multi-document YAML or JSON file (`-` for stdin).
        #[arg(short = 'f', long = "file")]
        file: PathBuf,
        /// Control plane (kube-apiserver) version for MachinePools whose control plane is not
        /// in the stream, e.g. v1.34.0 (a semantic version).
        #[arg(long, value_name = "VERSION", value_parser = cmd::validate::parse_control_plane_version)]
        control_plane_version: Option<String>,
        /// The stored objects the stream updates (file or `-`): runs the API server's update
        /// validation and says what each change will do (rollouts, bootstrap config edits).
        #[arg(long, value_name = "FILE")]
        old: Option<PathBuf>,
        #[command(flatten)]
        server: server::ServerArgs,
    },
    /// Convert every MachinePool of a YAML stream; other documents pass through untouched.
    #[command(after_help = CONVERT_EXIT_CODES)]
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
        /// Fail (exit 2, nothing written) instead of warning when the conversion drops a field
        /// the MachinePool API does not know.
        #[arg(long)]
        strict: bool,
    },
    /// Read a ConversionReview JSON on stdin, write the response on stdout.
    #[command(after_help = REVIEW_EXIT_CODES)]
    Review {
        /// CRDs (files or directories) used to resolve reference apiVersions.
        #[arg(long = "crds")]
        crds: Vec<PathBuf>,
        /// Static reference versions, `group/Kind=apiVersion` (repeatable).
        #[arg(long = "map")]
        map: Vec<String>,
    },
    /// Match the providerIDList of MachinePools or InfraMachinePools with a cluster's Nodes:
    /// every listed provider ID must have exactly one Node (`check --nodes` is an alias).
    #[command(after_help = NODES_EXIT_CODES)]
    Nodes {
        /// MachinePools or InfraMachinePools (a file, or `-`): the objects whose
        /// `spec.providerIDList` is matched.
        #[arg(long, value_name = "FILE|-")]
        objects: PathBuf,
        /// The Nodes (`kubectl get nodes -o yaml`: Node objects, a NodeList or a List; a file
        /// or `-`).
        #[arg(long, value_name = "FILE|-")]
        nodes: PathBuf,
        /// Output format.
        #[arg(long, value_enum, default_value = "text")]
        format: NodesFormat,
    },
    /// Ask the live clusters: read one Cluster (its ClusterClass, control plane, MachinePools
    /// and InfraMachinePools, Machines, MachineDeployments) from the management cluster and
    /// the Nodes of its workload cluster, read-only, and give the verdicts `validate -f` and
    /// `nodes` give for the same objects; with --to, which pools block the version and the
    /// safe order.
    #[command(after_help = PREFLIGHT_EXIT_CODES)]
    Preflight {
        /// The Cluster, NAMESPACE/NAME.
        #[arg(long, value_name = "NAMESPACE/NAME")]
        cluster: live::Target,
        /// The Kubernetes version to upgrade the control plane to, e.g. v1.35.0.
        #[arg(long, value_name = "VERSION")]
        to: Option<String>,
        /// The management cluster's kubeconfig (else $KUBECONFIG, else ~/.kube/config, else
        /// the in-cluster service account).
        #[arg(long, value_name = "FILE")]
        kubeconfig: Option<PathBuf>,
        /// The kubeconfig context of the management cluster.
        #[arg(long, value_name = "NAME")]
        context: Option<String>,
        /// Run a kubeconfig user's `exec` credential plugin, as kubectl does (refused
        /// otherwise).
        #[arg(long)]
        allow_exec_plugin: bool,
        /// The workload cluster's kubeconfig, instead of the Secret NAME-kubeconfig (key
        /// `value`) in the Cluster's namespace that Cluster API reads.
        #[arg(long, value_name = "FILE")]
        workload_kubeconfig: Option<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value = "text")]
        format: PreflightFormat,
    },
    /// Check provider CRDs (and objects) against the InfraMachinePool contract.
    #[command(after_help = CHECK_EXIT_CODES)]
    Check {
        /// CRD files, directories (a provider's config/crd: its kustomization is applied as
        /// `kustomize build` would) or rendered bundles; `-` reads standard input.
        paths: Vec<PathBuf>,
        /// Same as a path argument (repeatable), as in kubectl: `-f config/crd -f -`.
        #[arg(short = 'f', long = "filename", value_name = "FILE|DIR|-")]
        files: Vec<PathBuf>,
        /// Check only the CRD versions labelled for this contract (default: every contract the
        /// current core reads, the current one and the older ones it still reads). A CRD with
        /// no version labelled for it is reported as INFO, not failed.
        #[arg(long, value_parser = contract_parser(), alias = "contract", value_name = "CONTRACT")]
        only_contract: Option<capi_contract::Contract>,
        /// Objects to check too (a file, or `-`): InfraMachinePools, their InfraMachines
        /// (MachinePool Machines), ClusterClasses and Clusters with a topology, judged one by
        /// one and as a set.
        #[arg(long)]
        objects: Option<PathBuf>,
        /// Match the providerIDList of the objects of --objects with these Nodes (as
        /// `capi-machinepool nodes --objects .. --nodes ..`); with CRD paths too, the CRDs and
        /// objects are checked first and the Nodes matched after (text output), and the exit
        /// status is the worse of the two.
        #[arg(long, value_name = "FILE|-", requires = "objects")]
        nodes: Option<PathBuf>,
        /// Print the capability report (text or json) instead of the findings: per
        /// InfraMachinePool kind, the contract, MachinePool Machines, ClusterClass support and
        /// what cannot be known statically.
        #[arg(long)]
        capabilities: bool,
        /// Output format.
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        /// Fail, instead of warn, on forms accepted only under the temporary v1beta1 compatibility.
        #[arg(long)]
        no_v1beta1_compat: bool,
        /// Also list every passing check and every skipped input in text output.
        #[arg(short, long)]
        verbose: bool,
        /// Leave out the INFO findings a CRD derived with kube-derive cannot act on (`listKind`
        /// not written, `apiVersion`/`kind`/`metadata` implicit in the schema: the API server
        /// supplies both).
        #[arg(long)]
        hide_derive_info: bool,
        /// Fail `crd-valid` (exit status 1) when a CRD is not judged in full: a CEL rule left
        /// to the API server, or a server (--server) that gave no verdict. Without it they are
        /// INFO, and the summary line counts them.
        #[arg(long)]
        require_judged: bool,
        /// How directories with a kustomization are rendered: `auto` (`kustomize` on PATH,
        /// else `kubectl kustomize`, else the built-in emulator), `never` (the emulator; what
        /// it does not reproduce exactly is an error) or the path of a kustomize or kubectl
        /// binary. The real kustomize runs sandboxed (see docs/contract.md, Rendering).
        #[arg(long, value_name = "auto|never|PATH", default_value = "auto")]
        kustomize: render::Mode,
        #[command(flatten)]
        server: server::ServerArgs,
    },
}

/// The command line; under the kubectl plugin's name, usage and help say
/// `kubectl capi-machinepool`.
fn parse() -> Cli {
    let plugin = std::env::args_os()
        .next()
        .map(PathBuf::from)
        .and_then(|p| p.file_stem().map(|s| s == KUBECTL_PLUGIN))
        .unwrap_or(false);
    if !plugin {
        return Cli::parse();
    }
    let mut command = Cli::command().bin_name("kubectl capi-machinepool");
    let matches = command.clone().get_matches();
    Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.format(&mut command).exit())
}

fn main() -> ExitCode {
    let cli = parse();
    let result = match cli.command {
        Command::Crd => cmd::crd::run(),
        Command::Validate {
            file,
            control_plane_version,
            old,
            server,
        } => cmd::validate::run(
            &file,
            old.as_deref(),
            control_plane_version.as_deref(),
            server.selected(),
        ),
        Command::Convert {
            to,
            crds,
            map,
            file,
            strict,
        } => cmd::convert::run(to, &crds, &map, &file, strict),
        Command::Review { crds, map } => cmd::review::run(&crds, &map),
        Command::Nodes {
            objects,
            nodes,
            format,
        } => cmd::nodes::run(&objects, &nodes, format.into()),
        Command::Preflight {
            cluster,
            to,
            kubeconfig,
            context,
            allow_exec_plugin,
            workload_kubeconfig,
            format,
        } => cmd::preflight::run(&cmd::preflight::Args {
            cluster,
            to,
            server: server::ServerArgs {
                server: true,
                kubeconfig,
                context,
                allow_exec_plugin,
            },
            workload_kubeconfig,
            format,
        }),
        Command::Check {
            mut paths,
            files,
            only_contract,
            objects,
            nodes,
            format,
            no_v1beta1_compat,
            verbose,
            hide_derive_info,
            require_judged,
            capabilities,
            kustomize,
            server,
        } => {
            paths.extend(files);
            cmd::check::run(&cmd::check::Args {
                paths,
                only_contract,
                objects,
                nodes,
                format,
                no_v1beta1_compat,
                verbose,
                hide_derive_info,
                require_judged,
                capabilities,
                kustomize,
                server: server.selected(),
            })
        }
    };
    match result {
        Ok(code) => code,
        Err(output::Failure::Closed(code)) => code,
        Err(output::Failure::Message(message)) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}
