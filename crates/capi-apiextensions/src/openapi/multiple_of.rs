//! `multipleOf`, as kube-openapi's `numberValidator` checks it (`validate/values.go`): with the
//! value's native type when the factor fits the schema's type (`MultipleOfInt` on an integer,
//! the factor truncated), else as floats (`MultipleOf`: `data / factor`, or `1 / factor * data`
//! for a factor below 1, an integer as go-openapi's `swag.IsFloat64AJSONInteger` decides).

use serde_json::Value;

use super::Outcome;
use crate::go_text::go_float;

/// How the factor is printed and whether the value is a multiple; `None` when kube-openapi
/// reports a factor that is not positive (not reproduced: counted as not judged).
pub(super) fn check(
    int: Option<i64>,
    number: f64,
    ty: &str,
    format: &str,
    factor: f64,
) -> Option<Result<(), String>> {
    let native = match ty {
        "integer" => {
            factor.fract() == 0.0
                && if format == "int32" {
                    i32::try_from(factor as i64).is_ok() && factor.abs() < 2.2e9
                } else {
                    factor.abs() < 9.2e18
                }
        }
        _ => true,
    };
    match int {
        Some(i) if native => {
            let f = factor as i64;
            if f <= 0 {
                return None;
            }
            Some(if i.wrapping_div(f).wrapping_mul(f) == i {
                Ok(())
            } else {
                Err(f.to_string())
            })
        }
        _ => {
            if factor <= 0.0 {
                return None;
            }
            let mult = if factor < 1.0 {
                1.0 / factor * number
            } else {
                number / factor
            };
            Some(if json_integer(mult) {
                Ok(())
            } else {
                Err(go_float(factor))
            })
        }
    }
}

/// go-openapi `swag.IsFloat64AJSONInteger` (v0.23): within ±(2^53-1), equal to its conversion
/// to an integer, or within a relative 1e-9 of its truncation.
fn json_integer(f: f64) -> bool {
    const MAX: f64 = 9_007_199_254_740_991.0;
    if f.is_nan() || f.is_infinite() || !(-MAX..=MAX).contains(&f) {
        return false;
    }
    if f == f.trunc() {
        return true;
    }
    if f < 0.0 {
        // Go's `uint64(f)` of a negative float is far from it: only exact integers pass.
        return false;
    }
    let g = f.trunc();
    if g == 0.0 {
        return false;
    }
    (f - g).abs() / (f + g) < 1e-9
}

/// Records kube-openapi's `NotMultipleOf` for `value` named `name`, or what was not judged.
pub(super) fn record(
    verdict: Option<Result<(), String>>,
    value: &Value,
    name: &str,
    out: &mut Outcome,
) {
    match verdict {
        Some(Ok(())) => {}
        Some(Err(factor)) => super::value::invalid(
            out,
            name,
            crate::BadValue::Json(value.clone()),
            format!("{name} in body should be a multiple of {factor}"),
        ),
        None => out
            .not_judged
            .push(format!("{name}: multipleOf must be positive")),
    }
}

#[cfg(test)]
mod tests {
    use super::check;

    #[test]
    fn multiples_as_kube_openapi_finds_them() {
        assert_eq!(check(Some(10), 10.0, "integer", "", 5.0), Some(Ok(())));
        assert_eq!(
            check(Some(7), 7.0, "integer", "", 5.0),
            Some(Err("5".into()))
        );
        assert_eq!(check(None, 0.7, "number", "", 0.5), Some(Err("0.5".into())));
        assert_eq!(check(None, 0.3, "number", "", 0.1), Some(Ok(())));
        assert_eq!(check(Some(3), 3.0, "integer", "", 1.5), Some(Ok(())));
        assert_eq!(
            check(Some(4), 4.0, "integer", "", 1.5),
            Some(Err("1.5".into()))
        );
        assert_eq!(check(Some(7), 7.0, "number", "", 0.5), None);
    }
}
