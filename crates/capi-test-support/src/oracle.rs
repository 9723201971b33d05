//! Upstream Cluster API as a live oracle: the Go program `tests/go/oracle` (built with
//! [`build_go_tool_reexporting`]) answers JSON requests, one per line, with
//! upstream's own functions (MachinePool conversion, `util/conversion` conversion data,
//! `util/labels/format`, `util/conditions` summary and mirror, the topology controller's
//! upgrade plan and version computation). One process per test binary, shared by its tests.
//!
//! The topology controller's version computation is unexported upstream: the oracle is built
//! against a copy of Cluster API made at build time with `tests/go/oracle/reexport/desiredstate.go.txt`
//! added ([`REEXPORT`]); nothing of upstream is committed.
//!
//! Without a Go toolchain [`oracle`] returns `None` after a visible
//! `skipped: no Go toolchain`; with `CAPI_REQUIRE_GO=1` it fails instead.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::{Mutex, OnceLock};

use serde_json::Value;

use crate::go_tool::{Reexport, build_go_tool_reexporting};

/// The Go module of the oracle, relative to the workspace root.
pub const MODULE: &str = "tests/go/oracle";

/// The re-export the oracle is built with (`topology-next-versions`).
pub const REEXPORT: Reexport<'static> = Reexport {
    module: "sigs.k8s.io/cluster-api",
    package_dir: "exp/topology/desiredstate",
    file: "tests/go/oracle/reexport/desiredstate.go.txt",
    tag: "oracle_reexport",
};

/// A running oracle process.
pub struct Oracle {
    io: Mutex<Io>,
}

struct Io {
    // Kept so that the process lives as long as the oracle (it exits when stdin closes).
    _child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

/// One answer of the oracle: upstream's value and the exact bytes Go's `encoding/json`
/// wrote for it, or upstream's error message.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// The call succeeded.
    Ok {
        /// The value, parsed.
        value: Value,
        /// The exact JSON text Go wrote.
        bytes: String,
    },
    /// The call returned an error (Go's message).
    Err(String),
}

impl Answer {
    /// The bytes of a successful answer.
    ///
    /// # Panics
    /// When the answer is an error.
    #[must_use]
    pub fn bytes(&self) -> &str {
        match self {
            Self::Ok { bytes, .. } => bytes,
            Self::Err(e) => panic!("upstream failed: {e}"),
        }
    }

    /// The value of a successful answer.
    ///
    /// # Panics
    /// When the answer is an error.
    #[must_use]
    pub fn value(&self) -> &Value {
        match self {
            Self::Ok { value, .. } => value,
            Self::Err(e) => panic!("upstream failed: {e}"),
        }
    }
}

/// The oracle of this test binary, started on first use; `None` (after printing
/// `skipped: no Go toolchain`) where Go is missing and not required.
///
/// # Panics
/// When the build fails, the process cannot start, or Go is required but missing.
#[must_use]
pub fn oracle() -> Option<&'static Oracle> {
    static ORACLE: OnceLock<Option<Oracle>> = OnceLock::new();
    ORACLE
        .get_or_init(|| {
            let bin = build_go_tool_reexporting(MODULE, ".", "capi-oracle", &REEXPORT)?;
            let mut child = Command::new(&bin)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .spawn()
                .unwrap_or_else(|e| panic!("starting {}: {e}", bin.display()));
            let stdin = child.stdin.take().unwrap();
            let stdout = BufReader::new(child.stdout.take().unwrap());
            Some(Oracle {
                io: Mutex::new(Io {
                    _child: child,
                    stdin,
                    stdout,
                }),
            })
        })
        .as_ref()
}

impl Oracle {
    /// Sends one request (an object with `op`) and reads its answer.
    ///
    /// # Panics
    /// When the process is gone or answers something that is not an answer.
    #[must_use]
    pub fn call(&self, request: &Value) -> Answer {
        let mut io = self
            .io
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut line = serde_json::to_string(request).unwrap();
        line.push('\n');
        io.stdin.write_all(line.as_bytes()).unwrap();
        io.stdin.flush().unwrap();
        let mut answer = String::new();
        let n = io.stdout.read_line(&mut answer).unwrap();
        assert!(n > 0, "the oracle process exited");
        let answer: Value = serde_json::from_str(&answer).unwrap();
        if let Some(error) = answer.get("error") {
            return Answer::Err(error.as_str().unwrap_or_default().to_owned());
        }
        let bytes = answer["ok_bytes"].as_str().unwrap().to_owned();
        let value = answer.get("ok").cloned().unwrap_or(Value::Null);
        Answer::Ok { value, bytes }
    }

    /// Upstream's conversion webhook function for MachinePool (`ConvertMachinePoolV1Beta1ToHub`
    /// for `to = "v1beta2"`, `ConvertMachinePoolHubToV1Beta1` for `"v1beta1"`) on `object`
    /// (decoded as the API server and controller-runtime decode it), with `map`
    /// (`group/Kind` -> apiVersion) answering the reference look-ups.
    #[must_use]
    pub fn convert_machine_pool(&self, object: &Value, to: &str, map: &[(&str, &str)]) -> Answer {
        let map: serde_json::Map<String, Value> = map
            .iter()
            .map(|(k, v)| ((*k).to_owned(), Value::from(*v)))
            .collect();
        self.call(&serde_json::json!({
            "op": "convert-machinepool", "to": to, "object": object, "map": map,
        }))
    }

    /// `util/conversion.UnmarshalData` of an object with `annotations` into a v1beta2
    /// MachinePool: `{"found", "restored", "annotations"}` (the annotations left).
    #[must_use]
    pub fn unmarshal_data(&self, annotations: &Value) -> Answer {
        self.call(&serde_json::json!({"op": "unmarshal-data", "annotations": annotations}))
    }

    /// `util/conversion.MarshalDataUnsafeNoCopy` (`unsafe`) or `MarshalData` of a v1beta2
    /// MachinePool: the annotation's text.
    #[must_use]
    pub fn marshal_data(&self, hub: &Value, unsafe_no_copy: bool) -> Answer {
        self.call(
            &serde_json::json!({"op": "marshal-data", "object": hub, "unsafe": unsafe_no_copy}),
        )
    }

    /// `util/labels/format.MustFormatValue(value)` (and `MustEqualValue(value, label)` when
    /// `label` is given): `{"formatted", "equal"?}`.
    #[must_use]
    pub fn format_label(&self, value: &str, label: Option<&str>) -> Answer {
        let mut request = serde_json::json!({"op": "format-label", "value": value});
        if let Some(label) = label {
            request["label"] = Value::from(label);
        }
        self.call(&request)
    }
}
