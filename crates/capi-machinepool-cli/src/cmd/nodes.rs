//! `capi-machinepool nodes --objects POOL.yaml --nodes NODES.yaml` (alias: `check --objects
//! POOL.yaml --nodes NODES.yaml`): matches the `spec.providerIDList` of every object of
//! `--objects` (MachinePools or InfraMachinePools) with the workload cluster's Nodes, the way upstream's MachinePool controller does, and explains
//! what goes wrong (cluster-api#10541, #8258, #8856). All pools are matched together: a Node no
//! given pool lists is no pool's error. The work is `capi_contract::provider_ids::match_pools`;
//! this module reads and renders.

use std::fmt::Write as _;
use std::io::Read as _;
use std::path::Path;

use capi_manifests::load::StreamDocument;
use std::process::ExitCode;

use capi_contract::fields::infra_machine_pool::{PROVIDER_ID_LIST, REPLICAS};
use capi_contract::fields::machine_pool::INFRASTRUCTURE_REF;
use capi_contract::provider_ids::{
    ClusterNodeReport, Difference, NodeMatching, NodeReport, OwnedList, Ownership,
    UNINITIALIZED_TAINT, joining_allowance, match_pools, nodes_from_value, ownership,
};
use capi_diagnostics::excerpt::excerpt;
use serde_json::{Value, json};

use crate::Format;
use crate::output::{Failure, Output};

/// An object of `--objects` with a `spec.providerIDList`.
struct Pool {
    kind: String,
    name: String,
    source: String,
    list: Vec<String>,
    replicas: Option<i64>,
    /// The MachinePool that owns the list (`namespace/name`): the pool itself, or for an
    /// InfraMachinePool the MachinePool its owner reference names, or the given MachinePool
    /// whose `infrastructureRef` names it, else its own name.
    owner: String,
    /// `owner` is a MachinePool's name (not a guess from the InfraMachinePool's own name).
    owner_known: bool,
    /// How many listed IDs may be without a Node because the pool is scaling up, and why.
    joining: (usize, String),
    /// An InfraMachinePool's owner reference to its MachinePool (`namespace/name`).
    owner_ref: Option<String>,
    /// Whether upstream matches its Nodes (not for a deleting pool; an InfraMachinePool
    /// follows its MachinePool).
    matching: NodeMatching,
    /// A MachinePool's `spec.template.spec.infrastructureRef` (`kind`, `namespace/name`).
    infra_ref: Option<(String, String)>,
}

impl Pool {
    fn is_clean(&self, r: &NodeReport) -> bool {
        self.matching.is_deleting() || r.is_clean_while_joining(self.joining.0)
    }
}

/// A file holding one `List` document is streamed item by item, so that neither the
/// per-document limits nor the memory of the whole YAML tree apply to it (`kubectl get nodes -o
/// yaml` of a cluster of several thousand Nodes, issue 31); `None` for standard input and for a
/// file within the document limit that is not one List (read as a stream of documents).
fn stream_big_list(path: &Path) -> Result<Option<Vec<k8s_openapi::api::core::v1::Node>>, Failure> {
    let limits = crate::input::limits();
    let Some(size) = std::fs::metadata(path)
        .ok()
        .filter(|m| path != Path::new("-") && m.is_file())
        .map(|m| m.len())
    else {
        return Ok(None);
    };
    let big = size > limits.max_document_bytes as u64;
    let name = capi_manifests::display_path(path);
    let file = std::fs::File::open(path).map_err(|e| format!("{name}: cannot read: {e}"))?;
    let reader = std::io::BufReader::with_capacity(256 * 1024, file);
    let mut nodes = Vec::new();
    let streamed = capi_manifests::list::for_each_item(reader, &name, &limits, |source, item| {
        nodes.extend(item_nodes(&source, item)?);
        Ok::<(), String>(())
    });
    match streamed {
        Ok(result) => result.map(|()| Some(nodes)).map_err(Failure::from),
        // A smaller file that is not one List (a stream of Node documents, a single Node) is
        // read document by document; its errors are reported there.
        Err(_) if !big => Ok(None),
        Err(e) => Err(crate::input::message(&e).into()),
    }
}

/// The Nodes of a List item (an item of a NodeList without a kind is a Node, as
/// apimachinery's `decodeToList` reads it).
fn item_nodes(
    source: &capi_manifests::Source,
    mut item: Value,
) -> Result<Vec<k8s_openapi::api::core::v1::Node>, String> {
    if item["kind"].as_str().is_none_or(str::is_empty) {
        item["kind"] = Value::String("Node".to_owned());
    }
    nodes_from_value(&item).map_err(|e| format!("{source}: {e}"))
}

/// A reader that keeps a copy of what it read, up to `max` bytes (then none), so that a
/// stream that turns out not to be one List can be read again from its start.
struct Replayable<R> {
    inner: R,
    kept: std::rc::Rc<std::cell::RefCell<Option<Vec<u8>>>>,
    max: usize,
}

impl<R: std::io::Read> std::io::Read for Replayable<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        let mut kept = self.kept.borrow_mut();
        if let Some(copy) = kept.as_mut() {
            if copy.len() + n > self.max {
                *kept = None;
            } else {
                copy.extend_from_slice(&buf[..n]);
            }
        }
        Ok(n)
    }
}

/// Standard input: one `List` document is streamed item by item as a file is (so `kubectl get
/// nodes -o yaml | capi-machinepool check --nodes -` of a large cluster is neither refused by
/// the document limit nor held whole); anything else (a stream of Node documents) is read
/// again from a copy of what the List attempt read, kept until the first item arrives (then
/// it is a List) or up to the per-document limit (a first document over it is refused either
/// way).
fn read_stdin_nodes(
    each: &mut dyn FnMut(StreamDocument) -> Result<(), Failure>,
) -> Result<Option<Vec<k8s_openapi::api::core::v1::Node>>, Failure> {
    let limits = crate::input::limits();
    let kept = std::rc::Rc::new(std::cell::RefCell::new(Some(Vec::new())));
    let stdin = std::io::stdin();
    let mut reader = Replayable {
        inner: stdin.lock(),
        kept: std::rc::Rc::clone(&kept),
        max: limits.max_document_bytes + (1 << 20),
    };
    let mut nodes = Vec::new();
    let streamed = capi_manifests::list::for_each_item(
        std::io::BufReader::with_capacity(256 * 1024, &mut reader),
        "-",
        &limits,
        |source, item| {
            // An item arrived: the input is a List; the copy is no longer needed.
            kept.borrow_mut().take();
            nodes.extend(item_nodes(&source, item)?);
            Ok::<(), String>(())
        },
    );
    let copy = kept.borrow_mut().take();
    match (streamed, copy) {
        (Ok(result), _) => result.map(|()| Some(nodes)).map_err(Failure::from),
        (Err(_), Some(copy)) => {
            // Not one List: the documents, from the copy and then the rest of the input. The
            // List reader's own buffer read ahead into the copy, so nothing is lost.
            let again = std::io::Cursor::new(copy).chain(reader.inner);
            crate::input::for_each_document_in(
                Box::new(std::io::BufReader::new(again)),
                "-",
                each,
            )?;
            Ok(None)
        }
        (Err(e), None) => Err(crate::input::message(&e).into()),
    }
}

fn read_nodes(path: &Path) -> Result<Vec<k8s_openapi::api::core::v1::Node>, Failure> {
    let mut nodes = Vec::new();
    let mut each = |item: StreamDocument| -> Result<(), Failure> {
        if let Some(value) = item.value.filter(|v| !v.is_null()) {
            let more = nodes_from_value(&value).map_err(|e| format!("{}: {e}", item.raw.source))?;
            nodes.extend(more);
        }
        Ok(())
    };
    if path == Path::new("-") {
        if let Some(listed) = read_stdin_nodes(&mut each)? {
            return Ok(listed);
        }
        return Ok(nodes);
    }
    if let Some(listed) = stream_big_list(path)? {
        return Ok(listed);
    }
    crate::input::for_each_document(path, each)?;
    Ok(nodes)
}

fn pool(value: &Value, source: String) -> Result<Option<Pool>, Failure> {
    let list = match PROVIDER_ID_LIST.get(value) {
        Ok(list) => list,
        Err(e) if e.is_missing() => return Ok(None),
        Err(e) => return Err(format!("{source}: {e}").into()),
    };
    let meta = &value["metadata"];
    let namespace = meta["namespace"].as_str().unwrap_or_default();
    let name = match (meta["namespace"].as_str(), meta["name"].as_str()) {
        (Some(ns), Some(n)) => format!("{ns}/{n}"),
        (None, Some(n)) => n.to_owned(),
        _ => "<no name>".to_owned(),
    };
    let qualified = |n: &str| {
        if namespace.is_empty() {
            n.to_owned()
        } else {
            format!("{namespace}/{n}")
        }
    };
    let kind = value["kind"].as_str().unwrap_or("<no kind>").to_owned();
    let is_machine_pool = kind == "MachinePool";
    let owner_ref = meta["ownerReferences"]
        .as_array()
        .and_then(|refs| refs.iter().find(|r| r["kind"] == "MachinePool"))
        .and_then(|r| r["name"].as_str())
        .map(qualified);
    let infra = INFRASTRUCTURE_REF.node(value).unwrap_or(&Value::Null);
    let infra_ref = match (
        is_machine_pool,
        infra["kind"].as_str(),
        infra["name"].as_str(),
    ) {
        (true, Some(k), Some(n)) => Some((k.to_owned(), qualified(n))),
        _ => None,
    };
    // A MachinePool's phase and counters say whether instances are on their way (upstream's
    // phase reads the Node-based ready replicas: v1beta2 status.deprecated.v1beta1, v1beta1
    // status.readyReplicas).
    let joining = if is_machine_pool {
        let status = &value["status"];
        let phase = status["phase"].as_str();
        let desired = value["spec"]["replicas"].as_i64();
        let ready = status["deprecated"]["v1beta1"]["readyReplicas"]
            .as_i64()
            .or_else(|| status["readyReplicas"].as_i64());
        let n = joining_allowance(phase, desired, ready);
        (
            n,
            format!(
                "phase {}, {} of {} replicas ready",
                phase.unwrap_or("unset"),
                ready.unwrap_or(0),
                desired.unwrap_or(0)
            ),
        )
    } else {
        (0, String::new())
    };
    Ok(Some(Pool {
        owner: if is_machine_pool {
            name.clone()
        } else {
            owner_ref.clone().unwrap_or_else(|| name.clone())
        },
        owner_known: is_machine_pool || owner_ref.is_some(),
        kind,
        name,
        source,
        list,
        replicas: REPLICAS.node(value).ok().and_then(Value::as_i64),
        joining,
        owner_ref,
        infra_ref,
        matching: NodeMatching::of_pool(meta["deletionTimestamp"].as_str()),
    }))
}

/// What an InfraMachinePool takes from its MachinePool: the owner, the scale-up allowance and
/// whether upstream matches Nodes.
type Inherited = (String, (usize, String), NodeMatching);

fn read_pools(path: &Path) -> Result<Vec<Pool>, Failure> {
    let mut pools = Vec::new();
    crate::input::for_each_object(path, |source, value| {
        if let Some(p) = pool(&value, source.to_string())? {
            pools.push(p);
        }
        Ok(())
    })?;
    if pools.is_empty() {
        return Err(format!(
            "{}: no object with {} (a MachinePool or an InfraMachinePool)",
            path.display(),
            PROVIDER_ID_LIST.dotted()
        )
        .into());
    }
    Ok(joined(pools))
}

/// The objects with a `spec.providerIDList` among `objects` (`(source, object)`), each
/// InfraMachinePool joined to its MachinePool.
fn pools_of(objects: Vec<(String, Value)>) -> Result<Vec<Pool>, Failure> {
    let mut pools = Vec::new();
    for (source, value) in objects {
        if let Some(p) = pool(&value, source)? {
            pools.push(p);
        }
    }
    Ok(joined(pools))
}

/// Joins each InfraMachinePool to its MachinePool (owner, scale-up allowance, matching).
fn joined(mut pools: Vec<Pool>) -> Vec<Pool> {
    // An InfraMachinePool without an owner reference belongs to the given MachinePool whose
    // infrastructureRef names it, and scales with it.
    let machine_pools: Vec<(String, &Pool)> = pools
        .iter()
        .filter_map(|p| {
            let (kind, name) = p.infra_ref.clone()?;
            Some((format!("{kind} {name}"), p))
        })
        .collect();
    let mut inherited: Vec<Option<Inherited>> = Vec::new();
    for p in &pools {
        let key = format!("{} {}", p.kind, p.name);
        let from = (p.kind != "MachinePool")
            .then(|| {
                machine_pools.iter().find(|(k, _)| *k == key).or_else(|| {
                    machine_pools
                        .iter()
                        .find(|(_, mp)| Some(&mp.name) == p.owner_ref.as_ref())
                })
            })
            .flatten();
        inherited
            .push(from.map(|(_, mp)| (mp.name.clone(), mp.joining.clone(), mp.matching.clone())));
    }
    for (p, from) in pools.iter_mut().zip(inherited) {
        let Some((owner, joining, matching)) = from else {
            continue;
        };
        if p.owner_ref.is_none() {
            p.owner = owner;
            p.owner_known = true;
        }
        p.joining = joining;
        if !p.matching.is_deleting() {
            p.matching = matching;
        }
    }
    pools
}

fn difference_text(d: Difference) -> &'static str {
    match d {
        Difference::Whitespace => "whitespace",
        Difference::Case => "case",
        Difference::Slashes => "slashes after the scheme",
        Difference::TrailingSlash => "a trailing slash",
    }
}

fn hints(out: &mut String, r: &NodeReport, id: &str) {
    for miss in r.near_misses.iter().filter(|m| m.listed == id) {
        let what: Vec<&str> = miss
            .differences
            .iter()
            .map(|d| difference_text(*d))
            .collect();
        let _ = writeln!(
            out,
            "    hint: Node {} has {} (differs only in {})",
            miss.node.name,
            excerpt(&miss.node.provider_id),
            what.join(", ")
        );
    }
}

fn render_problems(out: &mut String, p: &Pool, r: &NodeReport) {
    let joining = r.only_joining(p.joining.0);
    for id in &r.ids_without_node {
        if joining {
            let _ = writeln!(
                out,
                "  INFO  not joined yet: {} (the pool is scaling up: {}; upstream waits for it at severity Info, WaitingForReplicasReady)",
                excerpt(id),
                p.joining.1
            );
        } else {
            let _ = writeln!(out, "  ERROR provider ID without Node: {}", excerpt(id));
        }
        hints(out, r, id);
    }
    for d in &r.listed_more_than_once {
        let node = d.node.as_deref().map_or_else(
            || "no Node yet".to_owned(),
            |n| {
                format!(
                    "upstream references Node {n} {} times and counts it {} times in the ready/available replicas",
                    d.occurrences, d.occurrences
                )
            },
        );
        let _ = writeln!(
            out,
            "  ERROR {} is listed {} times: {node}",
            excerpt(&d.provider_id),
            d.occurrences
        );
    }
    for s in &r.shared_by_nodes {
        let _ = writeln!(
            out,
            "  ERROR Nodes {} share {}: upstream references one of them, which one depends on the order of its cached Node list",
            s.nodes.join(", "),
            excerpt(&s.provider_id),
        );
    }
    for u in &r.uninitialized {
        let _ = writeln!(
            out,
            "  WARN  Node {} still has the {UNINITIALIZED_TAINT} taint: it is matched, so the MachinePool controller removes it on its next reconcile (stuck only if it stays)",
            u.node.name
        );
    }
}

/// An instance another pool claims: what upstream's controller does with it.
const TWO_OWNERS: &str = "both pools reference the Node and count it, each reconcile writes its own owner annotations over the other's (patchNodes), and when one pool drops the ID its deleteRetiredNodes deletes the Node the other still runs (machinepool_controller_noderef.go)";

fn render_ownership(out: &mut String, p: &Pool, o: &Ownership) {
    let (shared, claimed) = o.of_pool(&p.owner);
    for s in shared {
        let others: Vec<&str> = s
            .pools
            .iter()
            .filter(|q| **q != p.owner)
            .map(String::as_str)
            .collect();
        let node = s
            .node
            .as_deref()
            .map_or_else(|| "no Node yet".to_owned(), |n| format!("Node {n}"));
        let _ = writeln!(
            out,
            "  ERROR {} ({node}) is also listed by MachinePool {}: {TWO_OWNERS}",
            excerpt(&s.provider_id),
            others.join(", ")
        );
    }
    for c in claimed {
        let _ = writeln!(
            out,
            "  ERROR Node {} ({}) carries the owner annotations of MachinePool {}: that pool referenced it; {TWO_OWNERS}",
            c.node,
            excerpt(&c.provider_id),
            c.owner
        );
    }
}

fn render_upstream(out: &mut String, p: &Pool, r: &NodeReport) {
    let u = r.upstream;
    let replicas = p
        .replicas
        .map_or_else(|| "unset".to_owned(), |n| n.to_string());
    let _ = writeln!(
        out,
        "  upstream: {} Node references to {} distinct Nodes, {} ready replicas ({} {replicas})",
        u.node_refs,
        u.distinct_nodes,
        u.ready_replicas,
        REPLICAS.dotted()
    );
    if u.overcounts_ready(p.replicas) {
        let _ = writeln!(
            out,
            "  ERROR upstream marks the replicas ready, but only {} distinct Nodes exist",
            u.distinct_nodes
        );
    }
}

/// The one summary of Nodes no given pool lists, and the Nodes without a provider ID.
fn render_cluster(out: &mut String, pools: &[Pool], c: &ClusterNodeReport) {
    if c.unlisted > 0 {
        let _ = writeln!(
            out,
            "{} Nodes are in no given pool's providerIDList (control-plane Nodes, pools not given): not an error, upstream only looks up listed IDs",
            c.unlisted
        );
    }
    if !c.lookalikes.is_empty() {
        let _ = writeln!(
            out,
            "  INFO  {} of them look like a given pool's (same provider ID prefix): not listed yet, or a pool not given",
            c.lookalikes.len()
        );
        for l in &c.lookalikes {
            let mut like: Vec<&str> = Vec::new();
            for name in l
                .pools
                .iter()
                .filter_map(|i| pools.get(*i).map(|p| p.name.as_str()))
            {
                if !like.contains(&name) {
                    like.push(name);
                }
            }
            let taint = if l.uninitialized {
                format!(
                    ", still tainted {UNINITIALIZED_TAINT}: no listed ID, so nothing removes it"
                )
            } else {
                String::new()
            };
            let _ = writeln!(
                out,
                "    Node {} {} (like {}){taint}",
                l.node.name,
                excerpt(&l.node.provider_id),
                like.join(", ")
            );
        }
    }
    for n in &c.nodes_without_provider_id {
        let _ = writeln!(
            out,
            "  WARN  Node {n} has no provider ID yet: upstream skips it until the cloud controller manager sets one"
        );
    }
}

/// A deleting pool: what upstream does instead of matching, and how far the deletion is.
fn render_deleting(out: &mut String, since: &str, r: &NodeReport) {
    let _ = writeln!(
        out,
        "  deleting (deletionTimestamp {}): {}",
        excerpt(since),
        NodeMatching::DELETING
    );
    let listed = r.matched.len() + r.ids_without_node.len();
    let _ = writeln!(
        out,
        "  INFO  {} of {listed} listed instances still have a Node, {} have none: the deletion under way, not an error",
        r.matched.len(),
        r.ids_without_node.len()
    );
}

fn text(pools: &[Pool], c: &ClusterNodeReport, o: &Ownership, node_count: usize) -> String {
    let mut out = String::new();
    for (p, r) in pools.iter().zip(&c.pools) {
        let distinct = r.matched.len() + r.ids_without_node.len();
        let _ = writeln!(
            out,
            "{} {} ({}): {} provider IDs ({distinct} distinct), {node_count} Nodes",
            p.kind,
            p.name,
            p.source,
            p.list.iter().filter(|id| !id.is_empty()).count()
        );
        if let NodeMatching::Deleting { since } = &p.matching {
            render_deleting(&mut out, since, r);
            render_ownership(&mut out, p, o);
            let (shared, claimed) = o.of_pool(&p.owner);
            if shared.is_empty() && claimed.is_empty() {
                out.push_str("  OK deleting: no Node matching\n");
            }
            continue;
        }
        let ready = r.matched.iter().filter(|m| m.ready).count();
        let _ = writeln!(out, "  matched: {} ({ready} Ready)", r.matched.len());
        render_problems(&mut out, p, r);
        render_ownership(&mut out, p, o);
        render_upstream(&mut out, p, r);
        let (shared, claimed) = o.of_pool(&p.owner);
        if shared.is_empty() && claimed.is_empty() {
            if r.is_clean() {
                out.push_str("  OK every provider ID has one Node\n");
            } else if p.is_clean(r) {
                let _ = writeln!(
                    out,
                    "  OK every joined instance has one Node; {} on their way",
                    r.ids_without_node.len()
                );
            }
        }
    }
    render_cluster(&mut out, pools, c);
    out
}

fn json(
    pools: &[Pool],
    c: &ClusterNodeReport,
    o: &Ownership,
    passes: bool,
) -> Result<String, Failure> {
    let objects: Vec<Value> = pools
        .iter()
        .zip(&c.pools)
        .map(|(p, r)| {
            json!({"kind": p.kind, "name": p.name, "source": p.source, "owner": p.owner,
                   "replicas": p.replicas, "joining": p.joining.0, "nodeMatching": p.matching,
                   "clean": p.is_clean(r), "report": r})
        })
        .collect();
    serde_json::to_string_pretty(&json!({"passes": passes, "objects": objects,
        "ownership": o, "unlisted": c.unlisted, "lookalikes": c.lookalikes,
        "nodesWithoutProviderID": c.nodes_without_provider_id}))
    .map(|s| capi_diagnostics::excerpt::escape_json_text(&s).into_owned() + "\n")
    .map_err(|e| Failure::Message(e.to_string()))
}

/// Runs the Node matching of `check --nodes`; exit status 1 when a pool is not clean.
pub fn run(objects: &Path, nodes: &Path, format: Format) -> Result<ExitCode, Failure> {
    let node_list = read_nodes(nodes)?;
    let pools = read_pools(objects)?;
    let (rendered, code) = render(&pools, &node_list, format)?;
    let mut out = Output::stdout();
    out.write(rendered.as_bytes(), code)?;
    out.flush(code)?;
    Ok(code)
}

/// The matching `nodes` prints for `objects` (`(source, object)`, as `--objects` reads them)
/// and `node_list`, in `format`, with its exit status; `None` when no object has a
/// `spec.providerIDList` (the `nodes` command refuses such an input).
pub fn matching(
    objects: Vec<(String, Value)>,
    node_list: &[k8s_openapi::api::core::v1::Node],
    format: Format,
) -> Result<Option<(String, ExitCode)>, Failure> {
    let pools = pools_of(objects)?;
    if pools.is_empty() {
        return Ok(None);
    }
    render(&pools, node_list, format).map(Some)
}

/// Matches and renders; exit status 1 when a pool is not clean.
fn render(
    pools: &[Pool],
    node_list: &[k8s_openapi::api::core::v1::Node],
    format: Format,
) -> Result<(String, ExitCode), Failure> {
    let lists: Vec<&[String]> = pools.iter().map(|p| p.list.as_slice()).collect();
    let report = match_pools(&lists, node_list);
    let owned: Vec<OwnedList<'_, String>> = pools
        .iter()
        .map(|p| OwnedList {
            owner: p.owner.as_str(),
            known: p.owner_known,
            list: p.list.as_slice(),
        })
        .collect();
    let owners = ownership(&owned, node_list);
    let passes = owners.is_clean() && pools.iter().zip(&report.pools).all(|(p, r)| p.is_clean(r));
    let code = if passes {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    };
    let rendered = match format {
        Format::Text => text(pools, &report, &owners, node_list.len()),
        Format::Json => json(pools, &report, &owners, passes)?,
        Format::Junit | Format::Github | Format::Sarif => {
            return Err("nodes supports --format text and json".to_owned().into());
        }
    };
    Ok((rendered, code))
}

/// The Nodes of one object of the workload cluster (a Node).
pub fn node_of(
    source: &str,
    value: &Value,
) -> Result<Vec<k8s_openapi::api::core::v1::Node>, Failure> {
    nodes_from_value(value).map_err(|e| format!("{source}: {e}").into())
}
