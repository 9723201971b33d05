//! `conversion-webhook`: serves MachinePool ConversionReviews over HTTPS (the command line is
//! [`conversion_webhook::cli`]).

use std::process::ExitCode;

#[tokio::main]
async fn main() -> ExitCode {
    conversion_webhook::cli::run(std::env::args_os()).await
}
