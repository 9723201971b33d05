//! An error and its sources, on one line.

use std::error::Error;
use std::fmt;

/// Displays an error and its sources as one line: `outer: inner: innermost`.
///
/// Each layer of a well-made error adds its own context once, so the chain reads as a path
/// from what was being done to what went wrong.
///
/// ```
/// use capi_diagnostics::ErrorChain;
/// let err = std::io::Error::other("disk full");
/// assert_eq!(ErrorChain(&err).to_string(), "disk full");
/// ```
#[derive(Clone, Copy)]
pub struct ErrorChain<'a>(pub &'a dyn Error);

impl fmt::Display for ErrorChain<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)?;
        let mut source = self.0.source();
        while let Some(s) = source {
            write!(f, ": {s}")?;
            source = s.source();
        }
        Ok(())
    }
}

impl fmt::Debug for ErrorChain<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// [`ErrorChain`] rendered as a `String`.
#[must_use]
pub fn error_chain(err: &dyn Error) -> String {
    ErrorChain(err).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct Layer(&'static str, Option<Box<Layer>>);

    impl fmt::Display for Layer {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(self.0)
        }
    }

    impl Error for Layer {
        fn source(&self) -> Option<&(dyn Error + 'static)> {
            self.1.as_deref().map(|l| l as &(dyn Error + 'static))
        }
    }

    #[test]
    fn every_source_once_in_order() {
        let err = Layer(
            "failed to convert object",
            Some(Box::new(Layer(
                "failed to parse apiVersion",
                Some(Box::new(Layer(
                    "unexpected GroupVersion string: a/b/c",
                    None,
                ))),
            ))),
        );
        assert_eq!(
            error_chain(&err),
            "failed to convert object: failed to parse apiVersion: unexpected GroupVersion string: a/b/c"
        );
    }
}
