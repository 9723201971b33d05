//! `--server`: the real API server as the judge, through the kube client.
//!
//! Every request is a server-side dry run (`dryRun=All`): the server runs its whole create
//! path (decoding, defaulting, validation, admission) and stores nothing. The kubeconfig is
//! read as kubectl reads it: `--kubeconfig`, else `$KUBECONFIG`, else `~/.kube/config`, else
//! the in-cluster service account; `--context` picks a context.
//!
//! A kubeconfig runs only what kubectl runs, and less unless asked ([`runs_nothing`]): the
//! `gcp` and `azure` auth providers, which client-go removed (Kubernetes 1.26) and whose
//! `cmd-path` the kube client would still run, are refused; an `exec` credential plugin runs
//! only with `--allow-exec-plugin`.

use std::path::PathBuf;
use std::time::Duration;

use capi_contract_check::{CrdJudge, ServerCause, ServerVerdict};
use serde_json::Value;

/// The command-line flags that select the server (`check` and `validate` share them).
#[derive(Clone, Debug, Default, clap::Args)]
pub struct ServerArgs {
    /// Have the real API server judge (server-side dry-run create; nothing is stored): the
    /// cluster of the kubeconfig (`--kubeconfig`, else $KUBECONFIG, else ~/.kube/config, else
    /// the in-cluster service account).
    #[arg(long)]
    pub server: bool,
    /// The kubeconfig file of `--server`.
    #[arg(long, value_name = "FILE", requires = "server")]
    pub kubeconfig: Option<PathBuf>,
    /// The kubeconfig context of `--server`.
    #[arg(long, value_name = "NAME", requires = "server")]
    pub context: Option<String>,
    /// Run the kubeconfig user's `exec` credential plugin, as kubectl does. Without it a
    /// kubeconfig that names one is refused: a kubeconfig a pull request can supply must not
    /// run programs on the CI machine.
    #[arg(long, requires = "server")]
    pub allow_exec_plugin: bool,
}

impl ServerArgs {
    /// The flags when `--server` is given.
    pub fn selected(self) -> Option<Self> {
        self.server.then_some(self)
    }
}

/// How long one request may take before the server counts as unreachable.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// Where CRDs are created.
const CRDS: &str = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";

/// The field manager named on dry-run applies.
const FIELD_MANAGER: &str = "capi-machinepool-check";

/// A connected API server.
pub struct ApiServer {
    runtime: tokio::runtime::Runtime,
    client: kube::Client,
    url: String,
    /// The kubeconfig context used (named in authentication and authorization failures).
    context: String,
    /// The first error that made a verdict impossible (reported as exit status 2 at the end).
    failure: std::sync::Mutex<Option<String>>,
}

impl std::fmt::Debug for ApiServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApiServer")
            .field("url", &self.url)
            .field("context", &self.context)
            .finish_non_exhaustive()
    }
}

/// What the server answered to a dry-run write.
pub enum Answer {
    /// The server would store it.
    Accepted,
    /// A refusal that judges the object (HTTP 400, 409, 422: `BadRequest`, `AlreadyExists`,
    /// `Invalid`), or any other answer of the server (a 404) for the caller to read.
    Refused(Box<kube::core::Status>),
}

/// What a request asks the server to do, for messages: `create customresourcedefinitions`.
struct Action<'a> {
    verb: &'a str,
    resource: &'a str,
}

impl ApiServer {
    /// Reads the kubeconfig and asks the server for its version, so that an unreachable or
    /// misconfigured server, or credentials it refuses, are an error before anything is
    /// judged.
    pub fn connect(args: &ServerArgs) -> Result<Self, String> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| format!("--server: cannot start the client runtime: {e}"))?;
        let (config, context) = runtime.block_on(config(args, "--server"))?;
        let url = config.cluster_url.to_string();
        // The client spawns its buffer task: it is built inside the runtime.
        let client = runtime
            .block_on(async { kube::Client::try_from(config) })
            .map_err(|e| format!("--server: cannot build a client for {url}: {e}"))?;
        let server = Self {
            runtime,
            client,
            url,
            context,
            failure: std::sync::Mutex::new(None),
        };
        let request = http::Request::get("/version")
            .body(Vec::new())
            .map_err(|e| format!("--server: cannot build the request GET /version: {e}"))?;
        let action = Action {
            verb: "get",
            resource: "the server version",
        };
        match server.send(request, &action) {
            Ok(Answer::Accepted) => Ok(server),
            Ok(Answer::Refused(status)) => Err(format!(
                "--server: the API server {} answered {} to GET /version: {}",
                server.url, status.code, status.message
            )),
            Err(Failure::Access(reason)) => Err(format!("--server: {reason}")),
            Err(Failure::Transport(e)) => Err(format!(
                "--server: the API server {} cannot be reached: {e}",
                server.url
            )),
        }
    }

    /// The server's URL.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Sends one request. The reply is read as text and never parsed when it is a success (a
    /// 2xx is the verdict): a reply of any depth the server writes is read back. `Err` when
    /// no verdict came back (transport error, timeout, credentials refused, action forbidden,
    /// server error).
    fn send(
        &self,
        request: http::Request<Vec<u8>>,
        action: &Action<'_>,
    ) -> Result<Answer, Failure> {
        let (method, path) = (request.method().clone(), request.uri().path().to_owned());
        let sent = self.runtime.block_on(async {
            tokio::time::timeout(REQUEST_TIMEOUT, self.client.request_text(request)).await
        });
        match sent {
            Err(_) => Err(Failure::Transport(format!(
                "{method} {path}: no answer within {}s",
                REQUEST_TIMEOUT.as_secs()
            ))),
            Ok(Ok(_)) => Ok(Answer::Accepted),
            Ok(Err(kube::Error::Api(status))) if judges(status.code) || status.code == 404 => {
                Ok(Answer::Refused(status))
            }
            Ok(Err(kube::Error::Api(status))) if status.code == 401 => {
                Err(Failure::Access(format!(
                    "unauthorized: the API server refused the credentials of context {} ({} answered 401 to {method} {path}: {})",
                    self.context, self.url, status.message
                )))
            }
            Ok(Err(kube::Error::Api(status))) if status.code == 403 => {
                Err(Failure::Access(format!(
                    "forbidden: the user of context {} cannot {} {} on the API server {} (a dry run needs the same permission as the write; the server says: {})",
                    self.context, action.verb, action.resource, self.url, status.message
                )))
            }
            Ok(Err(kube::Error::Api(status))) => Err(Failure::Transport(format!(
                "{method} {path}: {} {}: {}",
                status.code, status.reason, status.message
            ))),
            Ok(Err(e)) => Err(Failure::Transport(format!("{method} {path}: {e}"))),
        }
    }

    /// Dry-run create of `object` at `path` (a collection URL), with kube's `PostParams`.
    pub fn dry_run_create(&self, path: &str, object: &Value) -> Result<Answer, String> {
        let body = serde_json::to_vec(object).map_err(|e| format!("cannot write JSON: {e}"))?;
        let params = kube::api::PostParams {
            dry_run: true,
            field_manager: None,
        };
        let request = kube::core::Request::new(path)
            .create(&params, body)
            .map_err(|e| format!("cannot build the request POST {path}: {e}"))?;
        let resource = path.rsplit('/').next().unwrap_or(path);
        self.send(
            request,
            &Action {
                verb: "create",
                resource,
            },
        )
        .map_err(Failure::into_reason)
    }

    /// Dry-run server-side apply of `object` as `name` under `collection`, with kube's
    /// `PatchParams`: how the server judges a CRD that is already installed
    /// (`kubectl apply --server-side --dry-run=server`).
    pub fn dry_run_apply(
        &self,
        collection: &str,
        name: &str,
        object: &Value,
    ) -> Result<Answer, String> {
        let params = kube::api::PatchParams::apply(FIELD_MANAGER)
            .force()
            .dry_run();
        let request = kube::core::Request::new(collection)
            .patch(name, &params, &kube::api::Patch::Apply(object))
            .map_err(|e| format!("cannot build the request PATCH {collection}/{name}: {e}"))?;
        let resource = collection.rsplit('/').next().unwrap_or(collection);
        self.send(
            request,
            &Action {
                verb: "patch",
                resource,
            },
        )
        .map_err(Failure::into_reason)
    }

    /// The first error that left something unjudged, if any.
    pub fn failure(&self) -> Option<String> {
        self.failure.lock().ok().and_then(|f| f.clone())
    }

    fn remember_failure(&self, reason: &str) {
        if let Ok(mut failure) = self.failure.lock()
            && failure.is_none()
        {
            *failure = Some(reason.to_owned());
        }
    }
}

/// Why a request brought back no verdict.
enum Failure {
    /// The server refused the credentials (401) or the action (403).
    Access(String),
    /// No answer, or an answer that is no verdict (a server error, a proxy's page).
    Transport(String),
}

impl Failure {
    fn into_reason(self) -> String {
        match self {
            Self::Access(reason) | Self::Transport(reason) => reason,
        }
    }
}

/// HTTP statuses that are the server's verdict on the object, not a failure to judge it
/// (`BadRequest`, `AlreadyExists`/`Conflict`, `Invalid`). A 404 is a verdict only where the
/// caller says so (a namespace that does not exist), not when the resource is not served.
fn judges(code: u16) -> bool {
    matches!(code, 400 | 409 | 422)
}

/// The kube client configuration the flags select (kubectl's order: `--kubeconfig`, else
/// $KUBECONFIG, else ~/.kube/config, else in-cluster), and the name of the context it comes
/// from (`in-cluster` for the service account); `flag` names the option in errors.
pub async fn config(args: &ServerArgs, flag: &str) -> Result<(kube::Config, String), String> {
    let options = kube::config::KubeConfigOptions {
        context: args.context.clone(),
        ..kube::config::KubeConfigOptions::default()
    };
    let kubeconfig = match &args.kubeconfig {
        Some(path) => Some(
            kube::config::Kubeconfig::read_from(path)
                .map_err(|e| format!("--kubeconfig {}: {e}", path.display()))?,
        ),
        None => match kube::config::Kubeconfig::read() {
            Ok(kubeconfig) => Some(kubeconfig),
            Err(e) if args.context.is_some() => {
                return Err(format!("{flag}: cannot read the kubeconfig: {e}"));
            }
            Err(_) => None,
        },
    };
    let Some(kubeconfig) = kubeconfig else {
        return kube::Config::incluster()
            .map(|config| (config, "in-cluster (the service account)".to_owned()))
            .map_err(|e| format!("{flag}: no kubeconfig or in-cluster configuration: {e}"));
    };
    runs_nothing(
        &kubeconfig,
        args.context.as_deref(),
        args.allow_exec_plugin,
        flag,
    )?;
    let context = args
        .context
        .clone()
        .or_else(|| kubeconfig.current_context.clone())
        .map_or_else(
            || "(none)".to_owned(),
            |name| capi_diagnostics::excerpt::excerpt(&name),
        );
    kube::Config::from_custom_kubeconfig(kubeconfig, &options)
        .await
        .map(|config| (config, context))
        .map_err(|e| format!("{flag}: cannot read the kubeconfig: {e}"))
}

/// Refuses a kubeconfig whose user (of `context`, else the current context) would run a
/// program: a removed auth provider (`gcp`, `azure`: client-go dropped them in Kubernetes
/// 1.26 and kubectl runs nothing for them, while the kube client still runs their
/// `cmd-path`), or an `exec` credential plugin unless `allow_exec`; `flag` names the option in errors.
pub fn runs_nothing(
    kubeconfig: &kube::config::Kubeconfig,
    context: Option<&str>,
    allow_exec: bool,
    flag: &str,
) -> Result<(), String> {
    let Some(name) = context.or(kubeconfig.current_context.as_deref()) else {
        return Ok(());
    };
    let user = kubeconfig
        .contexts
        .iter()
        .find(|c| c.name == name)
        .and_then(|c| c.context.as_ref())
        .and_then(|c| c.user.as_deref());
    let Some(user) = user else {
        return Ok(());
    };
    let Some(auth) = kubeconfig
        .auth_infos
        .iter()
        .find(|a| a.name == user)
        .and_then(|a| a.auth_info.as_ref())
    else {
        return Ok(());
    };
    let shown = capi_diagnostics::excerpt::excerpt(user);
    if let Some(provider) = &auth.auth_provider
        && matches!(provider.name.as_str(), "gcp" | "azure")
    {
        return Err(format!(
            "{flag}: the kubeconfig user {shown} uses the `{}` auth provider, which client-go removed in Kubernetes 1.26 (kubectl runs nothing for it); refused here, since its `cmd-path` would run a program: use the provider's exec plugin (gke-gcloud-auth-plugin, kubelogin) with --allow-exec-plugin",
            provider.name
        ));
    }
    if let Some(exec) = &auth.exec
        && !allow_exec
    {
        let command = exec.command.as_deref().unwrap_or_default();
        return Err(format!(
            "{flag}: the kubeconfig user {shown} runs a credential plugin (`exec` command {}); a kubeconfig a pull request can supply must not run programs, so it is refused unless you pass --allow-exec-plugin (kubectl would run it)",
            capi_diagnostics::excerpt::excerpt(command)
        ));
    }
    Ok(())
}

/// The causes of a refusal, as the server lists them.
pub fn causes(status: &kube::core::Status) -> Vec<ServerCause> {
    status
        .details
        .as_ref()
        .map(|d| {
            d.causes
                .iter()
                .map(|c| ServerCause {
                    field: c.field.clone(),
                    message: c.message.clone(),
                })
                .collect()
        })
        .unwrap_or_default()
}

impl CrdJudge for ApiServer {
    fn server(&self) -> String {
        format!("the API server {}", self.url)
    }

    fn judge(&self, crd: &Value) -> ServerVerdict {
        let mut answer = self.dry_run_create(CRDS, crd);
        if let Ok(Answer::Refused(status)) = &answer
            && status.reason == "AlreadyExists"
            && let Some(name) = crd["metadata"]["name"].as_str()
        {
            // Installed already: judged as the update `kubectl apply` would make.
            answer = self.dry_run_apply(CRDS, name, crd);
        }
        match answer {
            Ok(Answer::Accepted) => ServerVerdict::Accepted,
            Ok(Answer::Refused(status)) if !judges(status.code) => {
                let reason = format!(
                    "{} {}: {} (is apiextensions.k8s.io/v1 served?)",
                    status.code, status.reason, status.message
                );
                self.remember_failure(&reason);
                ServerVerdict::NotJudged { reason }
            }
            Ok(Answer::Refused(status)) => ServerVerdict::Refused {
                causes: causes(&status),
                message: status.message,
            },
            Err(reason) => {
                self.remember_failure(&reason);
                ServerVerdict::NotJudged { reason }
            }
        }
    }
}
