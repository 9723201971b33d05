//! `capi-machinepool preflight --cluster NAMESPACE/NAME [--to VERSION]`: reads one Cluster
//! from the management cluster and its Nodes from the workload cluster ([`crate::live`]),
//! then gives the verdicts the file commands give for the same objects: `validate -f` on the
//! management objects followed by the Nodes, and `nodes --objects` (management objects)
//! `--nodes` (the Nodes). With `--to`, the pools that block the version and a safe order
//! ([`crate::upgrade_order`]), and for a ClusterClass cluster the step upstream's topology
//! controller takes next once `spec.topology.version` says VERSION.
//!
//! Nothing is written to either cluster.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use capi_diagnostics::workflow_command::{data, property};
use capi_machinepool_rollout::topology::TopologyInputs;
use capi_machinepool_rollout::upgrade_plan::next_versions;
use serde_json::{Value, json};

use crate::live::{self, ClusterRead, Target};
use crate::output::{Failure, Output};
use crate::upgrade_order::{self, Order};
use crate::{Format, PreflightFormat};

/// The command line of `preflight`.
pub struct Args {
    /// The Cluster.
    pub cluster: Target,
    /// `--to`.
    pub to: Option<String>,
    /// The management cluster's kubeconfig flags.
    pub server: crate::server::ServerArgs,
    /// `--workload-kubeconfig`.
    pub workload_kubeconfig: Option<PathBuf>,
    /// Output format.
    pub format: PreflightFormat,
}

/// The verdicts on what was read.
struct Verdicts {
    pools_text: String,
    report: capi_machinepool_rollout::ValidationReport,
    nodes: Option<(String, ExitCode)>,
    order: Option<Order>,
    upstream: Option<String>,
}

impl Verdicts {
    fn passes(&self) -> bool {
        self.report.passes()
            && self
                .nodes
                .as_ref()
                .is_none_or(|(_, code)| *code == ExitCode::SUCCESS)
            && self.order.as_ref().is_none_or(Order::can_upgrade_now)
    }
}

/// The running kube-apiserver versions of the Cluster's control plane (`status.versions`,
/// else `status.version`, else the desired `spec.version`), as the control-plane contract
/// writes them.
fn control_plane_versions(read: &ClusterRead) -> Vec<String> {
    let Some(cluster) = read.management.first() else {
        return Vec::new();
    };
    let r = &cluster["spec"]["controlPlaneRef"];
    let Some(cp) = read
        .management
        .iter()
        .find(|o| o["kind"] == r["kind"] && o["metadata"]["name"] == r["name"])
    else {
        return Vec::new();
    };
    let listed: Vec<String> = cp["status"]["versions"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| v["version"].as_str().map(str::to_owned))
        .collect();
    if !listed.is_empty() {
        return listed;
    }
    cp["status"]["version"]
        .as_str()
        .or_else(|| cp["spec"]["version"].as_str())
        .map(|v| vec![v.to_owned()])
        .unwrap_or_default()
}

/// What upstream's topology controller writes next once `spec.topology.version` is `to`.
fn upstream_next(read: &ClusterRead, target: &Target, to: &str) -> Option<String> {
    let mut inputs = TopologyInputs::default();
    for o in read.management.iter().chain(&read.nodes) {
        inputs.add(o);
    }
    let mut plan = inputs.state_for(&target.namespace, &target.name)?;
    plan.state.topology_version = to.to_owned();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "upstream next (Cluster API's topology controller, spec.topology.version {}):",
        capi_diagnostics::excerpt::printable(to)
    );
    match next_versions(&plan.state) {
        Err(e) => {
            let _ = writeln!(out, "  refuses the cluster: {e}");
        }
        Ok(next) => {
            let hold = next
                .hold
                .as_ref()
                .map_or_else(String::new, |h| format!(" (holds: {h:?})"));
            let _ = writeln!(
                out,
                "  {} spec.version {}{hold}",
                plan.control_plane, next.control_plane
            );
            for w in next.machine_pools.iter().chain(&next.machine_deployments) {
                let _ = writeln!(out, "  {} version {} ({:?})", w.name, w.version, w.step);
            }
        }
    }
    Some(out)
}

fn verdicts(read: &ClusterRead, args: &Args) -> Result<Verdicts, Failure> {
    // `validate -f`: the management objects, then the Nodes, one stream.
    let (report, pools_text) = super::validate::verdicts(
        read.management
            .iter()
            .map(|o| (live::MANAGEMENT.to_owned(), o))
            .chain(read.nodes.iter().map(|n| (live::WORKLOAD.to_owned(), n))),
    )?;
    // `nodes --objects --nodes`.
    let mut node_list = Vec::with_capacity(read.nodes.len());
    for n in &read.nodes {
        node_list.extend(super::nodes::node_of(live::WORKLOAD, n)?);
    }
    let objects = read
        .management
        .iter()
        .map(|o| (live::MANAGEMENT.to_owned(), o.clone()))
        .collect();
    let nodes = super::nodes::matching(
        objects,
        &node_list,
        match args.format {
            PreflightFormat::Text | PreflightFormat::Github => Format::Text,
            PreflightFormat::Json => Format::Json,
        },
    )?;
    let order = args
        .to
        .as_deref()
        .map(|to| upgrade_order::order(to, &control_plane_versions(read), &report.pools));
    let upstream = args
        .to
        .as_deref()
        .and_then(|to| upstream_next(read, &args.cluster, to));
    Ok(Verdicts {
        pools_text,
        report,
        nodes,
        order,
        upstream,
    })
}

fn text(read: &ClusterRead, args: &Args, v: &Verdicts) -> String {
    let mut out = String::new();
    let counts: Vec<String> = read
        .counts()
        .iter()
        .map(|(k, n)| {
            if *n == 1 {
                format!("1 {k}")
            } else {
                format!("{n} {k}(s)")
            }
        })
        .collect();
    let _ = writeln!(
        out,
        "Cluster {}/{}: read {} from the management cluster {}, {} Nodes from the workload cluster {}",
        args.cluster.namespace,
        args.cluster.name,
        counts.join(", "),
        read.management_url,
        read.nodes.len(),
        read.workload
    );
    for m in &read.missing {
        let _ = writeln!(out, "  not found: {m} (named by a reference)");
    }
    out.push_str(&v.pools_text);
    match &v.nodes {
        Some((nodes, _)) => out.push_str(nodes),
        None => out.push_str("no MachinePool lists provider IDs yet: no Node matching\n"),
    }
    if let Some(order) = &v.order {
        out.push_str(&upgrade_order::text(order));
    }
    if let Some(upstream) = &v.upstream {
        out.push_str(upstream);
    }
    let _ = writeln!(
        out,
        "preflight: {} MachinePool(s), {} invalid; Node matching {}{}",
        v.report.pools.len(),
        v.report.invalid(),
        match &v.nodes {
            None => "not run",
            Some((_, code)) if *code == ExitCode::SUCCESS => "passes",
            Some(_) => "fails",
        },
        match &v.order {
            None => String::new(),
            Some(o) if o.can_upgrade_now() => format!("; {} can be set now", o.to),
            Some(o) => format!("; {} cannot be set now", o.to),
        }
    );
    out
}

/// GitHub Actions workflow commands, then the text summary line.
fn github(read: &ClusterRead, args: &Args, v: &Verdicts) -> String {
    let mut out = String::new();
    let mut annotate = |command: &str, title: &str, message: &str| {
        let _ = writeln!(
            out,
            "::{command} title={}::{}",
            property(&format!("preflight {title}")),
            data(&capi_diagnostics::excerpt::printable(message))
        );
    };
    for pool in &v.report.pools {
        let title = format!("MachinePool {}", pool.name);
        for f in &pool.findings {
            let command = match f.severity() {
                Some(capi_diagnostics::Severity::Error) => "error",
                Some(capi_diagnostics::Severity::Warning) => "warning",
                _ => "notice",
            };
            annotate(command, &title, &f.to_string());
        }
    }
    if let Some((nodes, _)) = &v.nodes {
        let mut header = String::new();
        for line in nodes.lines() {
            if !line.starts_with(' ') {
                header = line.split(" (").next().unwrap_or(line).to_owned();
            } else if let Some(m) = line.trim_start().strip_prefix("ERROR ") {
                annotate("error", &format!("Node matching {header}"), m.trim());
            } else if let Some(m) = line.trim_start().strip_prefix("WARN ") {
                annotate("warning", &format!("Node matching {header}"), m.trim());
            }
        }
    }
    if let Some(order) = &v.order {
        let title = format!("--to {}", order.to);
        for b in &order.blocking {
            annotate(
                "error",
                &title,
                &format!("{} blocks it: {}", b.pool, b.reason),
            );
        }
        for line in upgrade_order::text(order).lines().filter(|l| {
            l.trim_start()
                .split_once(". ")
                .is_some_and(|(n, _)| n.parse::<usize>().is_ok())
        }) {
            annotate("notice", &title, line.trim());
        }
    }
    let text = text(read, args, v);
    if let Some(summary) = text.lines().last() {
        out.push_str(summary);
        out.push('\n');
    }
    out
}

fn json_report(read: &ClusterRead, args: &Args, v: &Verdicts) -> Result<String, Failure> {
    let pools: Vec<Value> = v
        .report
        .pools
        .iter()
        .map(|p| {
            let findings: Vec<Value> = p
                .findings
                .iter()
                .map(|f| {
                    json!({"severity": f.severity().map(|s| format!("{s:?}").to_lowercase()),
                           "message": f.to_string()})
                })
                .collect();
            json!({"name": p.name, "apiVersion": p.api_version, "valid": p.is_valid(),
                   "findings": findings})
        })
        .collect();
    let nodes = match &v.nodes {
        Some((text, _)) => serde_json::from_str::<Value>(text).map_err(|e| e.to_string())?,
        None => Value::Null,
    };
    let counts: serde_json::Map<String, Value> = read
        .counts()
        .into_iter()
        .map(|(k, n)| (k, json!(n)))
        .collect();
    let document = json!({
        "cluster": format!("{}/{}", args.cluster.namespace, args.cluster.name),
        "passes": v.passes(),
        "management": {"server": read.management_url, "read": counts, "missing": read.missing},
        "workload": {"server": read.workload, "nodes": read.nodes.len()},
        "machinePools": pools,
        "nodeMatching": nodes,
        "upgrade": v.order,
        "upstreamNext": v.upstream,
    });
    serde_json::to_string_pretty(&document)
        .map(|s| capi_diagnostics::excerpt::escape_json_text(&s).into_owned() + "\n")
        .map_err(|e| Failure::Message(e.to_string()))
}

/// Runs `preflight`: exit status 0 when every verdict passes (and with `--to`, the version
/// can be set now), 1 otherwise, 2 when the clusters cannot be read.
pub fn run(args: &Args) -> Result<ExitCode, Failure> {
    if let Some(to) = &args.to {
        super::validate::parse_control_plane_version(to).map_err(|e| format!("--to: {e}"))?;
    }
    let server = crate::server::ServerArgs {
        server: true,
        ..args.server.clone()
    };
    let read = live::read(&server, args.workload_kubeconfig.as_deref(), &args.cluster)?;
    let v = verdicts(&read, args)?;
    let code = if v.passes() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    };
    let rendered = match args.format {
        PreflightFormat::Text => text(&read, args, &v),
        PreflightFormat::Json => json_report(&read, args, &v)?,
        PreflightFormat::Github => github(&read, args, &v),
    };
    let mut out = Output::stdout();
    out.write(rendered.as_bytes(), code)?;
    out.flush(code)?;
    Ok(code)
}
