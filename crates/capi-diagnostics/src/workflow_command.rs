//! GitHub Actions workflow-command encoding (`::error file=…,line=…::message`): what the
//! runner decodes, so that a message or a property never ends the command early or starts
//! another one. Input that reaches a command is escaped first ([`excerpt`](mod@crate::excerpt)); this is
//! the encoding of the command syntax itself.
//!
//! ```
//! use capi_diagnostics::workflow_command::{data, property};
//! assert_eq!(data("50%\nnext"), "50%25%0Anext");
//! assert_eq!(property("a:b,c"), "a%3Ab%2Cc");
//! ```

/// Encodes a workflow-command message: `%`, CR and LF.
#[must_use]
pub fn data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Encodes a workflow-command property value: as [`data`], and `:` and `,`.
#[must_use]
pub fn property(s: &str) -> String {
    data(s).replace(':', "%3A").replace(',', "%2C")
}
