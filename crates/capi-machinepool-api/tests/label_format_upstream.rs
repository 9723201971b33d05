//! `label_format` against upstream's own `util/labels/format` (Cluster API v1.14.2, through
//! the Go oracle `tests/go/oracle`): generated strings, valid label values and not, must be
//! formatted to the same bytes, and `equal_value` must agree with `MustEqualValue`.
#![allow(clippy::unwrap_used, clippy::panic)]

use capi_machinepool_api::label_format::{equal_value, format_value};
use capi_test_support::oracle::oracle;
use proptest::prelude::*;

fn check(value: &str) -> Result<(), TestCaseError> {
    let Some(oracle) = oracle() else {
        return Ok(());
    };
    let ours = format_value(value);
    let answer = oracle.format_label(value, Some(&ours));
    let theirs = answer.value();
    prop_assert_eq!(theirs["formatted"].as_str().unwrap(), ours.as_ref());
    prop_assert_eq!(
        theirs["equal"].as_bool().unwrap(),
        equal_value(value, &ours)
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(capi_test_support::proptest_cases(200)))]

    #[test]
    fn any_string_formats_as_upstream(value in ".{0,80}") {
        check(&value)?;
    }

    #[test]
    fn label_like_strings_format_as_upstream(value in "[a-zA-Z0-9._-]{0,70}") {
        check(&value)?;
    }
}
