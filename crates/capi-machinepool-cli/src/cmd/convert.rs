//! `capi-machinepool convert`: rewrite every MachinePool of a YAML stream to one version, one
//! document at a time; other documents (and comment-only pieces) pass through byte for byte.
//!
//! Nothing is written until the whole stream is known good: with `| kubectl apply -f -` and no
//! `pipefail`, a partial output would be a partial set applied. The converted stream is spooled
//! to an anonymous temporary file (deleted by the system when closed, whatever happens) and
//! copied to standard output only once every document has converted. Memory stays bounded by
//! the largest document; the temporary directory holds one copy of the output.
//!
//! A `List` or `<Kind>List` document (`kubectl get machinepools -o yaml`) is read item by item
//! as kubectl reads it and written back as one list, its MachinePools converted, items in
//! order. Fields the typed API does not know are dropped by conversion (the API server would
//! prune them too): each dropped field path is a warning on standard error, and with
//! `--strict` an error (nothing is written).

use std::fs::File;
use std::io::{BufWriter, Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use capi_diagnostics::error_chain;
use capi_machinepool_api::constants::{API_VERSION_V1BETA1, API_VERSION_V1BETA2, is_machine_pool};
use capi_machinepool_api::{v1beta1, v1beta2};
use capi_machinepool_conversion::{
    ConversionError, HubSpokeConverter, ObjectConverter, Spoke, VALUE_PATH_MAX_DEPTH,
    machine_pool_converter, nests_deeper_than,
};
use capi_manifests::Source;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::Version;
use crate::output::{Failure, Output};

/// The converted stream, held on disk until it is complete.
struct Spool {
    file: BufWriter<File>,
}

impl Spool {
    fn new() -> Result<Self, Failure> {
        let file = tempfile::tempfile()
            .map_err(|e| format!("cannot create a temporary file for the output: {e}"))?;
        Ok(Self {
            file: BufWriter::with_capacity(256 * 1024, file),
        })
    }

    fn write(&mut self, bytes: &[u8]) -> Result<(), Failure> {
        self.file
            .write_all(bytes)
            .map_err(|e| Failure::from(format!("temporary output file: {e}")))
    }

    /// Copies the whole spool to standard output.
    fn copy_to(self, out: &mut Output, ok: ExitCode) -> Result<(), Failure> {
        let error = |e: std::io::Error| Failure::from(format!("temporary output file: {e}"));
        let mut file = self.file.into_inner().map_err(|e| error(e.into_error()))?;
        file.rewind().map_err(error)?;
        let mut buffer = vec![0; 256 * 1024];
        loop {
            let read = file.read(&mut buffer).map_err(error)?;
            if read == 0 {
                return Ok(());
            }
            out.write(&buffer[..read], ok)?;
        }
    }
}

/// Decodes a MachinePool as its version's type `T`, warning about each field the type does
/// not carry (conversion drops it), or, `strict`, refusing the object. One decode finds both
/// ([`capi_machinepool_admission::decode_with_unknown_fields`]).
fn decode_warning<T: DeserializeOwned>(
    source: &Source,
    value: &Value,
    target: &str,
    strict: bool,
) -> Result<T, Failure> {
    let (typed, dropped) = capi_machinepool_admission::decode_with_unknown_fields::<T>(value)
        .map_err(|source_error| {
            let api_version = value["apiVersion"].as_str().unwrap_or_default().to_owned();
            conversion_failure(
                source,
                target,
                &ConversionError::Decode {
                    api_version,
                    source: source_error,
                },
            )
        })?;
    warn_dropped(source, &dropped, strict)?;
    Ok(typed)
}

/// Warns about each dropped field, or, `strict`, refuses the object at the first.
fn warn_dropped(source: &Source, dropped: &[String], strict: bool) -> Result<(), Failure> {
    for path in dropped {
        let path = capi_diagnostics::excerpt::excerpt(path);
        if strict {
            return Err(format!(
                "{source}: {path}: unknown field, conversion would drop it (--strict); nothing was written"
            )
            .into());
        }
        eprintln!("warning: {source}: {path}: unknown field, dropped by the conversion");
    }
    Ok(())
}

fn conversion_failure(source: &Source, target: &str, error: &ConversionError) -> Failure {
    format!(
        "{source}: cannot convert to {target}: {}; nothing was written",
        error_chain(error)
    )
    .into()
}

/// Converts one object when it is a MachinePool not at the target version; `None` leaves it
/// untouched. Dropped fields are warned about (or, `strict`, refused).
///
/// A v1beta1 or v1beta2 object is decoded once, for the dropped-field check and the
/// conversion both, and converted through the `Spoke` implementation the converter uses
/// (the converter's `convert_value` gives the same `Value`, a conversion-crate test holds
/// it to the text path); any other version goes to the converter, which names the versions
/// it serves, and so does an object nested deeper than the converter reads from a `Value`
/// ([`VALUE_PATH_MAX_DEPTH`]), for the webhook's answer.
fn convert_object(
    converter: &HubSpokeConverter<v1beta2::MachinePool>,
    source: &Source,
    value: &Value,
    target: &str,
    strict: bool,
) -> Result<Option<Value>, Failure> {
    // Already at the target version: untouched, like every other document.
    if !is_machine_pool(value) || value["apiVersion"] == target {
        return Ok(None);
    }
    let resolver = converter.resolver().as_ref();
    let (v1beta1_source, v1beta2_source) = (
        value["apiVersion"] == API_VERSION_V1BETA1,
        value["apiVersion"] == API_VERSION_V1BETA2,
    );
    let converted = if nests_deeper_than(value, VALUE_PATH_MAX_DEPTH) {
        // Through the converter's JSON text, whose parser limits nesting: the answer the
        // webhook gives for the same object.
        let dropped = if v1beta1_source {
            capi_machinepool_admission::unknown_fields::<v1beta1::MachinePool>(value)
        } else if v1beta2_source {
            capi_machinepool_admission::unknown_fields::<v1beta2::MachinePool>(value)
        } else {
            Vec::new()
        };
        warn_dropped(source, &dropped, strict)?;
        converter.convert_value(value, target)
    } else if v1beta1_source && target == API_VERSION_V1BETA2 {
        let spoke: v1beta1::MachinePool = decode_warning(source, value, target, strict)?;
        spoke.to_hub(resolver).and_then(|hub| to_value(&hub))
    } else if v1beta2_source && target == API_VERSION_V1BETA1 {
        let hub: v1beta2::MachinePool = decode_warning(source, value, target, strict)?;
        v1beta1::MachinePool::from_hub(hub, resolver).and_then(|spoke| to_value(&spoke))
    } else {
        converter.convert_value(value, target)
    };
    converted
        .map(Some)
        .map_err(|e| conversion_failure(source, target, &e))
}

/// A converted object as the `Value` its printed JSON parses to.
fn to_value<T: serde::Serialize>(object: &T) -> Result<Value, ConversionError> {
    serde_json::to_value(object).map_err(ConversionError::Encode)
}

/// Converts the MachinePools among the items of a `List` document; `None` when none changed.
fn convert_list(
    converter: &HubSpokeConverter<v1beta2::MachinePool>,
    source: &Source,
    mut list: Value,
    target: &str,
    strict: bool,
) -> Result<Option<Value>, Failure> {
    let items =
        capi_manifests::list::items(source, list.clone()).map_err(|e| crate::input::message(&e))?;
    let mut changed = false;
    let mut out = Vec::with_capacity(items.len());
    for ((item_source, item), raw) in items.into_iter().zip(
        list["items"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default(),
    ) {
        match convert_object(converter, &item_source, &item, target, strict)? {
            Some(converted) => {
                changed = true;
                out.push(converted);
            }
            // Untouched items stay as they were written (no inferred kind added).
            None => out.push(raw.clone()),
        }
    }
    if !changed {
        return Ok(None);
    }
    list["items"] = Value::Array(out);
    Ok(Some(list))
}

pub fn run(
    to: Version,
    crds: &[PathBuf],
    map: &[String],
    file: &Path,
    strict: bool,
) -> Result<ExitCode, Failure> {
    crate::input::stdin_once(crds.iter().map(PathBuf::as_path).chain([file]))?;
    let converter = machine_pool_converter(super::resolver(crds, map)?);
    let target = match to {
        Version::V1beta1 => API_VERSION_V1BETA1,
        Version::V1beta2 => API_VERSION_V1BETA2,
    };
    let ok = ExitCode::SUCCESS;
    let mut spool = Spool::new()?;
    crate::input::for_each_document(file, |doc| {
        if doc.raw.empty {
            // Comments and blank lines between documents stay where they were.
            spool.write(doc.raw.text.as_bytes())?;
            return Ok(());
        }
        spool.write(b"---\n")?;
        let source = &doc.raw.source;
        let converted = match doc.value {
            Some(value) if capi_manifests::list::is_list(&value) => {
                convert_list(&converter, source, value, target, strict)?
            }
            Some(value) => convert_object(&converter, source, &value, target, strict)?,
            None => None,
        };
        match converted {
            Some(converted) => {
                let yaml = serde_saphyr::to_string(&converted)
                    .map_err(|e| format!("{source}: {e}; nothing was written"))?;
                spool.write(yaml.as_bytes())?;
            }
            None => {
                spool.write(doc.raw.text.as_bytes())?;
                if !doc.raw.text.ends_with('\n') {
                    spool.write(b"\n")?;
                }
            }
        }
        Ok(())
    })
    .map_err(|e| match e {
        Failure::Message(m) if !m.ends_with("nothing was written") => {
            Failure::Message(format!("{m}; nothing was written"))
        }
        other => other,
    })?;
    let mut out = Output::stdout();
    spool.copy_to(&mut out, ok)?;
    out.flush(ok)?;
    Ok(ok)
}
