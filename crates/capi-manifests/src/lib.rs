//! Reading Kubernetes manifests from places someone else controls.
//!
//! * [`split`]: a YAML stream split into documents exactly as a YAML parser sees them
//!   (`--- {inline}`, `...`, comments, BOM, CRLF), one document at a time, nothing dropped.
//! * [`parse`]: one document into a JSON value, within [`Limits`], errors naming the file,
//!   document and line and quoting no more than a short excerpt.
//! * [`tree`]: a directory tree read without following links out of it, without loops,
//!   without devices or FIFOs, without reading more than the limits.
//! * [`kustomize`]: what `kustomize build` does to resources' labels, annotations and
//!   patches, and notes naming what is not emulated.
//! * [`list`]: `List` and `<Kind>List` documents read item by item, as kubectl reads them.
//! * [`load`]: all of it for a list of paths (`-` is standard input).
//!
//! ```
//! use capi_manifests::{Limits, load::load};
//! let dir = std::env::temp_dir().join(format!("capi-manifests-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir).unwrap();
//! std::fs::write(dir.join("crd.yaml"), "kind: CustomResourceDefinition\nmetadata: {name: a}\n").unwrap();
//! std::fs::write(dir.join("kustomization.yaml"), "resources: [crd.yaml]\nlabels:\n- pairs: {x: z}\n").unwrap();
//! let loaded = load(&[dir.clone()], Limits::default()).unwrap();
//! assert_eq!(loaded.documents[0].value["metadata"]["labels"]["x"], "z");
//! std::fs::remove_dir_all(dir).unwrap();
//! ```
#![deny(missing_docs)]

pub mod budget;
pub mod compare;
mod error;
pub mod kustomize;
mod limits;
pub mod list;
pub mod load;
pub mod numbers;
pub mod parse;
pub mod position;
mod source;
pub mod split;
pub mod tree;

pub use error::{ManifestError, display_path};
pub use limits::Limits;
pub use parse::{Document, SetBy};
pub use position::{Position, Positions};
pub use source::Source;
