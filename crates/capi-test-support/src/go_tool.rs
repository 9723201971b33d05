//! Go programs under `tests/` that the Rust tests run as oracles (a real API server,
//! upstream Cluster API's own functions): built with `go build` into the target directory
//! (Go's build cache makes a second build cheap), or a visible skip where no Go toolchain is.
//!
//! `CAPI_REQUIRE_GO=1` (set by `.ci/run`) turns the skip into a failure, so CI can never
//! silently pass without the Go tier.

use std::path::PathBuf;
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
/// `module` (relative to the workspace root, e.g. `"tests/go/apiserver"`) into
/// `<target>/go-bin/<name>`, once per process.
///
/// Returns `None`, after printing `skipped: no Go toolchain` to stderr, when there is no Go
/// toolchain and `CAPI_REQUIRE_GO` is not set.
///
/// # Panics
/// When the build fails, or when Go is missing and `CAPI_REQUIRE_GO` is set.
#[must_use]
pub fn build_go_tool(module: &str, package: &str, name: &str) -> Option<PathBuf> {
    static BUILT: OnceLock<Mutex<std::collections::BTreeMap<String, Option<PathBuf>>>> =
        OnceLock::new();
    let built = BUILT.get_or_init(Default::default);
    let mut built = built
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(known) = built.get(name) {
        return known.clone();
    }
    let result = build_uncached(module, package, name);
    built.insert(name.to_owned(), result.clone());
    result
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
    let dir = go_bin_dir();
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join(name);
    let module_dir = workspace_root().join(module);
    let status = Command::new(&go)
        .current_dir(&module_dir)
        .args(["build", "-mod=readonly", "-o"])
        .arg(&out)
        .arg(package)
        .status()
        .unwrap_or_else(|e| panic!("running {} build in {}: {e}", go.display(), module));
    assert!(
        status.success(),
        "go build of {module} {package} failed: {status}"
    );
    Some(out)
}
