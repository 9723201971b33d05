//! Go programs under `tests/` that the Rust tests run as oracles (a real API server,
//! upstream Cluster API's own functions): built with `go build` into the target directory
//! (Go's build cache makes a second build cheap), or a visible skip where no Go toolchain is.
//!
//! `CAPI_REQUIRE_GO=1` (set by `.ci/run`) turns the skip into a failure, so CI can never
//! silently pass without the Go tier.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock};

use crate::workspace_root;

/// The environment variable that makes a missing Go toolchain a test failure.
pub const REQUIRE_GO: &str = "CAPI_REQUIRE_GO";

/// Whether `CAPI_REQUIRE_GO` asks for the Go tier (set, and not `0` or empty).
#[must_use]
pub fn go_required() -> bool {
    std::env::var(REQUIRE_GO).is_ok_and(|v| !v.is_empty() && v != "0")
}

/// The `go` command: `$GO` when set, else `go` on `PATH`, else the usual install path.
#[must_use]
pub fn go_command() -> Option<PathBuf> {
    if let Some(go) = std::env::var_os("GO") {
        return Some(PathBuf::from(go));
    }
    let on_path = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join("go"))
            .find(|candidate| candidate.is_file())
    });
    on_path.or_else(|| {
        let usual = PathBuf::from("/usr/local/go/bin/go");
        usual.is_file().then_some(usual)
    })
}

/// The target directory the Go binaries are written to (`<target>/go-bin`).
#[must_use]
pub fn go_bin_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| workspace_root().join("target"), PathBuf::from);
    target.join("go-bin")
}

/// Builds the Go package `package` (e.g. `"."` or `"./cmd/apiserver"`) of the module at
/// `module` (relative to the workspace root, e.g. `"tests/go/kubeapiserver"`) into
/// `<target>/go-bin/<name>`, once per process.
///
/// Returns `None`, after printing `skipped: no Go toolchain` to stderr, when there is no Go
/// toolchain and `CAPI_REQUIRE_GO` is not set.
///
/// # Panics
/// When the build fails, or when Go is missing and `CAPI_REQUIRE_GO` is set.
#[must_use]
pub fn build_go_tool(module: &str, package: &str, name: &str) -> Option<PathBuf> {
    once_per_process(name, || build_uncached(module, package, name))
}

/// [`build_go_tool`] with `-ldflags` (e.g. `-X` of a version variable, so that the program
/// reports a real version).
///
/// # Panics
/// As [`build_go_tool`].
#[must_use]
pub fn build_go_tool_with_ldflags(
    module: &str,
    package: &str,
    name: &str,
    ldflags: &str,
) -> Option<PathBuf> {
    once_per_process(name, || {
        let Some(go) = go_command() else {
            return build_uncached(module, package, name);
        };
        build_with(&go, module, package, name, None, Some(ldflags))
    })
}

/// The binary `name`, built by `build` the first time a test of this process asks for it.
fn once_per_process(name: &str, build: impl FnOnce() -> Option<PathBuf>) -> Option<PathBuf> {
    static BUILT: OnceLock<Mutex<std::collections::BTreeMap<String, Option<PathBuf>>>> =
        OnceLock::new();
    let built = BUILT.get_or_init(Default::default);
    let mut built = built
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(known) = built.get(name) {
        return known.clone();
    }
    let result = build();
    built.insert(name.to_owned(), result.clone());
    result
}

/// A test-only file added to a package of a Go module dependency at build time, to reach its
/// unexported functions: the module is copied from the Go module cache into
/// `<target>/go-src/<module>@<version>` (never committed), the file is written into the copy's
/// package, and the program is built against the copy through a Go workspace
/// (`<target>/go-src/<name>.go.work`, `replace` of the module) with `tag` set.
#[derive(Clone, Copy, Debug)]
pub struct Reexport<'a> {
    /// The dependency's module path (`sigs.k8s.io/cluster-api`).
    pub module: &'a str,
    /// The package directory inside it (`exp/topology/desiredstate`).
    pub package_dir: &'a str,
    /// The file to add, relative to the workspace root.
    pub file: &'a str,
    /// The build tag the program's files using the re-exports are built with.
    pub tag: &'a str,
}

/// [`build_go_tool`] with a [`Reexport`]: the program is built against a copy of the
/// dependency with the re-export file added.
///
/// # Panics
/// As [`build_go_tool`], and when the dependency cannot be located or copied.
#[must_use]
pub fn build_go_tool_reexporting(
    module: &str,
    package: &str,
    name: &str,
    reexport: &Reexport<'_>,
) -> Option<PathBuf> {
    once_per_process(name, || {
        go_command().map_or_else(
            || build_uncached(module, package, name),
            |go| {
                let work = reexport_workspace(&go, module, name, reexport);
                build_with(
                    &go,
                    module,
                    package,
                    name,
                    Some((&work, reexport.tag)),
                    None,
                )
            },
        )
    })
}

/// Copies the dependency (once per version), writes the re-export file and the workspace
/// file; returns the workspace file.
fn reexport_workspace(go: &Path, module: &str, name: &str, reexport: &Reexport<'_>) -> PathBuf {
    // Go compares workspace paths as written: no `..` in them.
    let module_dir = std::fs::canonicalize(workspace_root().join(module)).unwrap();
    let out = Command::new(go)
        .current_dir(&module_dir)
        .args(["mod", "download", "-json", reexport.module])
        .output()
        .unwrap_or_else(|e| panic!("running go mod download in {module}: {e}"));
    assert!(
        out.status.success(),
        "go mod download {} failed",
        reexport.module
    );
    let info: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let (Some(dir), Some(version)) = (info["Dir"].as_str(), info["Version"].as_str()) else {
        panic!("go mod download {}: no Dir or Version", reexport.module);
    };
    let src = go_bin_dir().with_file_name("go-src");
    std::fs::create_dir_all(&src).unwrap();
    let src = std::fs::canonicalize(src).unwrap();
    let copy = src.join(format!("{}@{version}", reexport.module.replace('/', "_")));
    let marker = copy.join(".capi-copied");
    if !marker.exists() {
        copy_tree(Path::new(dir), &copy);
        std::fs::write(&marker, version).unwrap();
    }
    let shim = std::fs::read(workspace_root().join(reexport.file)).unwrap();
    let target = copy
        .join(reexport.package_dir)
        .join("zz_capi_oracle_reexport.go");
    std::fs::write(&target, shim).unwrap();
    let go_version = std::fs::read_to_string(module_dir.join("go.mod"))
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("go ").map(str::to_owned))
        .unwrap_or_else(|| "1.26.0".to_owned());
    let work = src.join(format!("{name}.go.work"));
    std::fs::write(
        &work,
        format!(
            "go {go_version}\n\nuse {}\n\nreplace {} {version} => {}\n",
            module_dir.display(),
            reexport.module,
            copy.display()
        ),
    )
    .unwrap();
    work
}

/// Copies a directory tree (files become writable by their owner, so a later copy can
/// replace them).
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let dest = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &dest);
        } else {
            std::fs::copy(entry.path(), &dest).unwrap();
            let mut perms = std::fs::metadata(&dest).unwrap().permissions();
            #[allow(clippy::permissions_set_readonly_false)]
            perms.set_readonly(false);
            std::fs::set_permissions(&dest, perms).unwrap();
        }
    }
}

fn build_uncached(module: &str, package: &str, name: &str) -> Option<PathBuf> {
    let Some(go) = go_command() else {
        assert!(
            !go_required(),
            "{REQUIRE_GO} is set but no Go toolchain was found (PATH, $GO, /usr/local/go/bin/go)"
        );
        eprintln!("skipped: no Go toolchain (install Go 1.26+ to run the {name} tests)");
        return None;
    };
    build_with(&go, module, package, name, None, None)
}

/// `go build` of `package` of `module` into `<target>/go-bin/<name>`, in the Go workspace
/// `work` with a build tag when given, with `ldflags` when given.
fn build_with(
    go: &Path,
    module: &str,
    package: &str,
    name: &str,
    work: Option<(&Path, &str)>,
    ldflags: Option<&str>,
) -> Option<PathBuf> {
    let dir = go_bin_dir();
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join(name);
    let module_dir = workspace_root().join(module);
    let mut command = Command::new(go);
    command.current_dir(&module_dir);
    match work {
        Some((work, tag)) => {
            command
                .env("GOWORK", work)
                .args(["build", "-tags", tag, "-o"]);
        }
        None => {
            command.args(["build", "-mod=readonly", "-o"]);
        }
    }
    command.arg(&out);
    if let Some(ldflags) = ldflags {
        command.arg("-ldflags").arg(ldflags);
    }
    let status = command
        .arg(package)
        .status()
        .unwrap_or_else(|e| panic!("running {} build in {}: {e}", go.display(), module));
    assert!(
        status.success(),
        "go build of {module} {package} failed: {status}"
    );
    Some(out)
}
