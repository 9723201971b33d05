//! Integers as Go's `encoding/json` reads them: the JSON text `-0` is the integer 0 (`serde_json`
//! reads it as the float `-0.0` and would refuse it for an integer field); fractions and
//! exponents stay errors, as in Go.

use std::fmt;
use std::marker::PhantomData;

use serde::Deserializer;
use serde::de::{Error, Visitor};

struct IntVisitor<T>(PhantomData<T>);

impl<'de, T: TryFrom<i64> + TryFrom<u64>> Visitor<'de> for IntVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(std::any::type_name::<T>())
    }

    fn visit_i64<E: Error>(self, v: i64) -> Result<T, E> {
        T::try_from(v).map_err(|_| E::invalid_value(serde::de::Unexpected::Signed(v), &self))
    }

    fn visit_u64<E: Error>(self, v: u64) -> Result<T, E> {
        T::try_from(v).map_err(|_| E::invalid_value(serde::de::Unexpected::Unsigned(v), &self))
    }

    fn visit_f64<E: Error>(self, v: f64) -> Result<T, E> {
        // Only `-0` reaches here as an integer literal.
        if v == 0.0 && v.is_sign_negative() {
            self.visit_i64(0)
        } else {
            Err(E::invalid_type(serde::de::Unexpected::Float(v), &self))
        }
    }
}

/// `deserialize_with` for an `i32` field.
pub(crate) fn i32<'de, D: Deserializer<'de>>(d: D) -> Result<i32, D::Error> {
    d.deserialize_any(IntVisitor(PhantomData))
}

/// `deserialize_with` for an `i64` field.
pub(crate) fn i64<'de, D: Deserializer<'de>>(d: D) -> Result<i64, D::Error> {
    d.deserialize_any(IntVisitor(PhantomData))
}

/// `deserialize_with` for an `Option<i32>` field (`null` is `None`).
pub(crate) fn opt_i32<'de, D: Deserializer<'de>>(d: D) -> Result<Option<i32>, D::Error> {
    struct Opt;
    impl<'de> Visitor<'de> for Opt {
        type Value = Option<i32>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("an integer (i32) or null")
        }
        fn visit_none<E: Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_unit<E: Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            i32(d).map(Some)
        }
    }
    d.deserialize_option(Opt)
}

#[cfg(test)]
mod tests {
    #[derive(serde::Deserialize)]
    struct T {
        #[serde(deserialize_with = "super::i32")]
        a: i32,
        #[serde(default, deserialize_with = "super::opt_i32")]
        b: Option<i32>,
    }

    #[test]
    fn minus_zero_is_zero_like_go() {
        let t: T = serde_json::from_str(r#"{"a": -0, "b": -0}"#).unwrap();
        assert_eq!((t.a, t.b), (0, Some(0)));
        assert!(serde_json::from_str::<T>(r#"{"a": 1.5}"#).is_err());
        assert!(serde_json::from_str::<T>(r#"{"a": 1e2}"#).is_err());
        assert!(serde_json::from_str::<T>(r#"{"a": 2147483648}"#).is_err());
        let t: T = serde_json::from_str(r#"{"a": 1, "b": null}"#).unwrap();
        assert_eq!(t.b, None);
    }
}
