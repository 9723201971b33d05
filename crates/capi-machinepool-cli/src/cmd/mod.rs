//! One module per subcommand.

pub mod check;
pub mod convert;
pub mod crd;
pub mod resolver;
pub mod review;
pub mod validate;
