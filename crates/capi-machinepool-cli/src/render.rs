//! Rendering a kustomization directory with the real kustomize (`--kustomize`).
//!
//! What is run: `kustomize build --load-restrictor LoadRestrictionsRootOnly DIR`, or
//! `kubectl kustomize --load-restrictor LoadRestrictionsRootOnly
//! --server=unix:///capi-machinepool/no-api-server DIR`, with the environment cleared except
//! `PATH`, `HOME` set to a fresh empty temporary directory, `KUBECONFIG=/dev/null`, standard
//! input closed, killed after 120 seconds, and its output read up to 64 MiB (more is an
//! error). The tree is first checked by `capi_manifests::kustomize::preflight` (nothing
//! remote in any field kustomize loads, no plugins, KRM functions or Helm).
//!
//! kustomize also runs in a sandbox, so that a field the preflight missed still fetches
//! nothing and a patch bomb cannot take the machine's memory: in a network namespace of its
//! own with no interfaces but a loopback that is down (`unshare --user --map-root-user
//! --net`, util-linux), and, where `prlimit` (util-linux) works, with its data segment
//! limited to 1 GiB (the Go runtime then stops with "out of memory", reported as that
//! limit). The network namespace is required: where it cannot be made (`unshare` missing,
//! unprivileged user namespaces denied) kustomize is not run and `check DIR` stops with the
//! reason and the ways out, among them `--kustomize never` (the emulator, which runs
//! nothing). It never runs unsandboxed.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The longest a rendering may take.
const TIMEOUT: Duration = Duration::from_secs(120);
/// The most output read from kustomize (the documented 64 MiB document limit).
const MAX_OUTPUT: u64 = 64 * 1024 * 1024;
/// The API server kubectl is pointed at: a socket path that does not exist, so it can never
/// reach a cluster (`kubectl version --client` otherwise tries localhost:8080).
const NO_SERVER: &str = "--server=unix:///capi-machinepool/no-api-server";
/// The most of kustomize's error output kept for messages.
const MAX_STDERR: u64 = 16 * 1024;
/// The data segment kustomize may use (`RLIMIT_DATA`): a normal provider tree needs about
/// 100 MiB; twelve JSON-patch `copy` operations on an 11 KB CRD need 2.5 GiB.
const MAX_DATA: u64 = 1 << 30;

/// The sandbox wrappers this machine has (probed once): `unshare` that can make a user and
/// network namespace (or why it cannot), and `prlimit`.
struct Sandbox {
    unshare: Result<PathBuf, String>,
    prlimit: Option<PathBuf>,
}

fn sandbox() -> &'static Sandbox {
    static SANDBOX: std::sync::OnceLock<Sandbox> = std::sync::OnceLock::new();
    SANDBOX.get_or_init(|| {
        let run = |program: &Path, args: &[&str]| {
            Command::new(program)
                .args(args)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .output()
        };
        let unshare = match on_path("unshare") {
            None => Err("`unshare` (util-linux) is not on PATH".to_owned()),
            Some(p) => match run(&p, &["--user", "--map-root-user", "--net", "--", "true"]) {
                Ok(out) if out.status.success() => Ok(p),
                Ok(out) => Err(format!(
                    "`unshare --user --map-root-user --net` cannot make a namespace here ({}): unprivileged user namespaces are denied",
                    capi_diagnostics::excerpt::Excerpt::with_max_chars(
                        String::from_utf8_lossy(&out.stderr).trim(),
                        200
                    )
                )),
                Err(e) => Err(format!("`unshare` cannot be run: {e}")),
            },
        };
        let prlimit = on_path("prlimit").filter(|p| {
            run(p, &["--data=1073741824", "--", "true"]).is_ok_and(|o| o.status.success())
        });
        Sandbox { unshare, prlimit }
    })
}

/// Why kustomize is not run here, when it cannot be put in a network namespace of its own:
/// the sandbox fails closed (a kustomization the preflight misread could fetch a remote base
/// or run `git`), with the ways out.
fn unsandboxed(why: &str) -> String {
    format!(
        "kustomize is not run without its sandbox, and it cannot be sandboxed here: {why}. \
         Ways out: install util-linux (`unshare`); allow unprivileged user namespaces \
         (`sysctl -w user.max_user_namespaces=15000`; on Ubuntu 23.10 and later, as on GitHub's \
         ubuntu-24.04 runners, `sysctl -w kernel.apparmor_restrict_unprivileged_userns=0`); or \
         render with the built-in emulator, which runs nothing: `--kustomize never`"
    )
}

/// `--kustomize`: which kustomize renders directories with a kustomization.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    /// `kustomize` on PATH, else `kubectl kustomize`, else the emulator.
    Auto,
    /// The emulator only.
    Never,
    /// This kustomize (or kubectl) binary.
    Path(PathBuf),
}

impl std::str::FromStr for Mode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Ok(match s {
            "auto" => Self::Auto,
            "never" => Self::Never,
            "" => return Err("auto, never or a path to kustomize or kubectl".into()),
            path => Self::Path(PathBuf::from(path)),
        })
    }
}

/// A kustomize to run.
#[derive(Clone, Debug)]
pub struct Kustomize {
    program: PathBuf,
    /// True for `kubectl kustomize`.
    kubectl: bool,
}

fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

impl Kustomize {
    /// The kustomize `mode` selects; `None` for the emulator.
    pub fn find(mode: &Mode) -> Option<Self> {
        let from = |program: PathBuf| {
            let kubectl = program
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("kubectl"));
            Self { program, kubectl }
        };
        match mode {
            Mode::Never => None,
            Mode::Path(p) => Some(from(p.clone())),
            Mode::Auto => on_path("kustomize")
                .or_else(|| on_path("kubectl"))
                .map(from),
        }
    }

    /// The command run for `args`, sandboxed (see the module docs).
    fn command(&self, home: &Path, args: &[&std::ffi::OsStr]) -> Command {
        let sandbox = sandbox();
        let mut chain: Vec<std::ffi::OsString> = Vec::new();
        if let Ok(unshare) = &sandbox.unshare {
            chain.push(unshare.into());
            chain.extend(["--user", "--map-root-user", "--net", "--"].map(Into::into));
        }
        if let Some(prlimit) = &sandbox.prlimit {
            chain.push(prlimit.into());
            chain.push(format!("--data={MAX_DATA}").into());
            chain.push("--".into());
        }
        chain.push(self.program.clone().into());
        let mut cmd = Command::new(&chain[0]);
        cmd.args(&chain[1..]);
        cmd.env_clear();
        if let Some(path) = std::env::var_os("PATH") {
            cmd.env("PATH", path);
        }
        cmd.env("HOME", home)
            .env("KUBECONFIG", "/dev/null")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .args(args);
        cmd
    }

    /// Runs the sandboxed command; its standard output.
    fn run(&self, args: &[&std::ffi::OsStr]) -> Result<Vec<u8>, String> {
        if let Err(why) = &sandbox().unshare {
            return Err(unsandboxed(why));
        }
        let home = tempfile::tempdir().map_err(|e| format!("cannot make a temporary HOME: {e}"))?;
        let mut child = self
            .command(home.path(), args)
            .spawn()
            .map_err(|e| format!("cannot run {}: {e}", self.program.display()))?;
        let stdout = child.stdout.take();
        let stderr = child.stderr.take();
        let out = std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(s) = stdout {
                let _ = s.take(MAX_OUTPUT + 1).read_to_end(&mut bytes);
            }
            bytes
        });
        let err = std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(s) = stderr {
                let _ = s.take(MAX_STDERR).read_to_end(&mut bytes);
            }
            bytes
        });
        let start = Instant::now();
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break status,
                Ok(None) if start.elapsed() > TIMEOUT => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(format!(
                        "{} did not finish within {} s; killed",
                        self.name(),
                        TIMEOUT.as_secs()
                    ));
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(20)),
                Err(e) => return Err(format!("cannot wait for {}: {e}", self.name())),
            }
        };
        let out = out.join().unwrap_or_default();
        let err = err.join().unwrap_or_default();
        if out.len() as u64 > MAX_OUTPUT {
            return Err(format!(
                "{} wrote more than {MAX_OUTPUT} bytes",
                self.name()
            ));
        }
        if !status.success() {
            let text = String::from_utf8_lossy(&err);
            if sandbox().prlimit.is_some() && text.contains("out of memory") {
                return Err(format!(
                    "{} exceeded its memory limit ({} MiB of data, RLIMIT_DATA) and was stopped",
                    self.name(),
                    MAX_DATA >> 20
                ));
            }
            let text = capi_diagnostics::excerpt::Excerpt::with_max_chars(text.trim(), 600);
            return Err(format!("{} failed: {text}", self.name()));
        }
        Ok(out)
    }

    /// `kustomize` or `kubectl kustomize`.
    pub fn name(&self) -> &'static str {
        if self.kubectl {
            "kubectl kustomize"
        } else {
            "kustomize"
        }
    }

    /// The kustomize version (`v5.5.0`), or `unknown version`.
    pub fn version(&self) -> String {
        let args: &[&std::ffi::OsStr] = if self.kubectl {
            &["version".as_ref(), "--client".as_ref(), NO_SERVER.as_ref()]
        } else {
            &["version".as_ref()]
        };
        let text = self
            .run(args)
            .map(|o| String::from_utf8_lossy(&o).into_owned())
            .unwrap_or_default();
        let line = if self.kubectl {
            text.lines()
                .find_map(|l| l.strip_prefix("Kustomize Version:"))
                .unwrap_or_default()
        } else {
            text.lines().next().unwrap_or_default()
        };
        let v = line.trim();
        if v.is_empty() {
            "unknown version".into()
        } else {
            capi_diagnostics::excerpt::excerpt(v)
        }
    }

    /// Renders `dir` (see the module docs for what is run).
    ///
    /// # Errors
    /// kustomize fails, times out or writes too much.
    pub fn build(&self, dir: &Path) -> Result<Vec<u8>, String> {
        let restrict: [&std::ffi::OsStr; 2] = [
            "--load-restrictor".as_ref(),
            "LoadRestrictionsRootOnly".as_ref(),
        ];
        let mut args: Vec<&std::ffi::OsStr> = Vec::new();
        if self.kubectl {
            args.push("kustomize".as_ref());
            args.extend(restrict);
            args.push(NO_SERVER.as_ref());
        } else {
            args.push("build".as_ref());
            args.extend(restrict);
        }
        args.push(dir.as_os_str());
        self.run(&args)
    }
}
