//! Integers as Go's `encoding/json` reads them: the JSON text `-0` is the integer 0 (Go's
//! decoder hands the literal to `strconv.ParseInt`, which reads `-0` as 0; `serde_json` reads
//! it as the float `-0.0` and would refuse it for an integer field); fractions and exponents
//! stay errors, as in Go. One difference remains: `serde_json` hands `-0.0` and `-0e0` over
//! as the same float as `-0`, so they read as 0 too, where Go refuses them.
//!
//! Every integer field of the API types takes [`value`] or [`option`] as its
//! `deserialize_with`; the root `metadata` (k8s-openapi's `ObjectMeta`) is read through
//! [`GoIntegers`]. `tests/go_integers.rs` walks the generated CRD schema of both versions and
//! the `ObjectMeta` schema, and fails for an integer field that misses the rule.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{DeserializeSeed, EnumAccess, Error, MapAccess, SeqAccess, Unexpected, Visitor};
use serde::{Deserialize, Deserializer};

/// An integer of type `T` read as Go reads it (see the module docs).
pub(crate) struct GoInt<T>(pub(crate) T);

impl<'de, T: TryFrom<i64> + TryFrom<u64>> Deserialize<'de> for GoInt<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer
            .deserialize_any(IntVisitor(PhantomData))
            .map(GoInt)
    }
}

struct IntVisitor<T>(PhantomData<T>);

impl<'de, T: TryFrom<i64> + TryFrom<u64>> Visitor<'de> for IntVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(std::any::type_name::<T>())
    }

    fn visit_i64<E: Error>(self, v: i64) -> Result<T, E> {
        T::try_from(v).map_err(|_| E::invalid_value(Unexpected::Signed(v), &self))
    }

    fn visit_u64<E: Error>(self, v: u64) -> Result<T, E> {
        T::try_from(v).map_err(|_| E::invalid_value(Unexpected::Unsigned(v), &self))
    }

    fn visit_f64<E: Error>(self, v: f64) -> Result<T, E> {
        // Only `-0` reaches here as an integer literal.
        if v == 0.0 && v.is_sign_negative() {
            self.visit_i64(0)
        } else {
            Err(E::invalid_type(Unexpected::Float(v), &self))
        }
    }
}

/// `deserialize_with` for an integer field (`i32`, `i64`).
pub(crate) fn value<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: TryFrom<i64> + TryFrom<u64>,
{
    GoInt::deserialize(deserializer).map(|GoInt(v)| v)
}

/// `deserialize_with` for an `Option` integer field (Go's `*int32`, `*int64`; `null` is
/// `None`).
pub(crate) fn option<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: TryFrom<i64> + TryFrom<u64>,
{
    Option::<GoInt<T>>::deserialize(deserializer).map(|v| v.map(|GoInt(v)| v))
}

/// A deserializer that reads every integer below it as [`GoInt`] does, at any depth, for a
/// type whose `Deserialize` this crate does not own (k8s-openapi's `ObjectMeta`, whose
/// `generation` and `deletionGracePeriodSeconds` Go reads from `-0` too). Enum contents are
/// passed through unchanged (`ObjectMeta` has none).
pub(crate) struct GoIntegers<D>(pub(crate) D);

/// A seed read through [`GoIntegers`].
pub(crate) struct GoSeed<S>(pub(crate) S);

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for GoSeed<S> {
    type Value = S::Value;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<S::Value, D::Error> {
        self.0.deserialize(GoIntegers(deserializer))
    }
}

/// The visitor of a [`GoIntegers`] request: reads `-0` as 0 when an integer was asked for,
/// and keeps reading nested values through [`GoIntegers`].
struct GoVisitor<V> {
    visitor: V,
    integer: bool,
}

macro_rules! forward_visits {
    ($($method:ident($($arg:ident: $ty:ty),*);)*) => {
        $(
            fn $method<E: Error>(self, $($arg: $ty),*) -> Result<V::Value, E> {
                self.visitor.$method($($arg),*)
            }
        )*
    };
}

impl<'de, V: Visitor<'de>> Visitor<'de> for GoVisitor<V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.visitor.expecting(f)
    }

    forward_visits! {
        visit_bool(v: bool);
        visit_i8(v: i8);
        visit_i16(v: i16);
        visit_i32(v: i32);
        visit_i64(v: i64);
        visit_i128(v: i128);
        visit_u8(v: u8);
        visit_u16(v: u16);
        visit_u32(v: u32);
        visit_u64(v: u64);
        visit_u128(v: u128);
        visit_f32(v: f32);
        visit_char(v: char);
        visit_str(v: &str);
        visit_borrowed_str(v: &'de str);
        visit_string(v: String);
        visit_bytes(v: &[u8]);
        visit_borrowed_bytes(v: &'de [u8]);
        visit_byte_buf(v: Vec<u8>);
        visit_none();
        visit_unit();
    }

    fn visit_f64<E: Error>(self, v: f64) -> Result<V::Value, E> {
        if self.integer && v == 0.0 && v.is_sign_negative() {
            self.visitor.visit_i64(0)
        } else {
            self.visitor.visit_f64(v)
        }
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<V::Value, D::Error> {
        self.visitor.visit_some(GoIntegers(d))
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<V::Value, D::Error> {
        self.visitor.visit_newtype_struct(GoIntegers(d))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        self.visitor.visit_seq(GoIntegers(seq))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        self.visitor.visit_map(GoIntegers(map))
    }

    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<V::Value, A::Error> {
        self.visitor.visit_enum(data)
    }
}

impl<'de, A: SeqAccess<'de>> SeqAccess<'de> for GoIntegers<A> {
    type Error = A::Error;
    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, A::Error> {
        self.0.next_element_seed(GoSeed(seed))
    }
    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for GoIntegers<A> {
    type Error = A::Error;
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        self.0.next_key_seed(seed)
    }
    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, A::Error> {
        self.0.next_value_seed(GoSeed(seed))
    }
    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}

macro_rules! forward_requests {
    ($integer:literal: $($method:ident($($arg:ident: $ty:ty),*);)*) => {
        $(
            fn $method<V: Visitor<'de>>(self, $($arg: $ty,)* visitor: V) -> Result<V::Value, D::Error> {
                self.0.$method($($arg,)* GoVisitor { visitor, integer: $integer })
            }
        )*
    };
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for GoIntegers<D> {
    type Error = D::Error;

    forward_requests! { true:
        deserialize_i8();
        deserialize_i16();
        deserialize_i32();
        deserialize_i64();
        deserialize_i128();
        deserialize_u8();
        deserialize_u16();
        deserialize_u32();
        deserialize_u64();
        deserialize_u128();
    }

    forward_requests! { false:
        deserialize_any();
        deserialize_bool();
        deserialize_f32();
        deserialize_f64();
        deserialize_char();
        deserialize_str();
        deserialize_string();
        deserialize_bytes();
        deserialize_byte_buf();
        deserialize_option();
        deserialize_unit();
        deserialize_unit_struct(name: &'static str);
        deserialize_newtype_struct(name: &'static str);
        deserialize_seq();
        deserialize_tuple(len: usize);
        deserialize_tuple_struct(name: &'static str, len: usize);
        deserialize_map();
        deserialize_struct(name: &'static str, fields: &'static [&'static str]);
        deserialize_enum(name: &'static str, variants: &'static [&'static str]);
        deserialize_identifier();
        deserialize_ignored_any();
    }

    fn is_human_readable(&self) -> bool {
        self.0.is_human_readable()
    }
}

#[cfg(test)]
mod tests {
    #[derive(serde::Deserialize)]
    struct T {
        #[serde(deserialize_with = "super::value")]
        a: i32,
        #[serde(default, deserialize_with = "super::option")]
        b: Option<i32>,
        #[serde(default, deserialize_with = "super::option")]
        c: Option<i64>,
    }

    #[test]
    fn minus_zero_is_zero_like_go() {
        // The premise: serde_json alone refuses `-0` for an integer.
        assert!(serde_json::from_str::<i32>("-0").is_err());
        let t: T = serde_json::from_str(r#"{"a": -0, "b": -0, "c": -0}"#).unwrap();
        assert_eq!((t.a, t.b, t.c), (0, Some(0), Some(0)));
        assert!(serde_json::from_str::<T>(r#"{"a": 1.5}"#).is_err());
        assert!(serde_json::from_str::<T>(r#"{"a": 1e2}"#).is_err());
        assert!(serde_json::from_str::<T>(r#"{"a": 2147483648}"#).is_err());
        assert!(serde_json::from_str::<T>(r#"{"a": 0, "b": 2147483648}"#).is_err());
        let t: T = serde_json::from_str(r#"{"a": 1, "b": null}"#).unwrap();
        assert_eq!((t.b, t.c), (None, None));
    }

    /// Reads `text` as `T` through `GoIntegers`.
    fn through_wrapper<T: serde::de::DeserializeOwned>(text: &str) -> serde_json::Result<T> {
        let mut deserializer = serde_json::Deserializer::from_str(text);
        T::deserialize(super::GoIntegers(&mut deserializer))
    }

    #[derive(Debug, PartialEq, serde::Deserialize)]
    struct Inner {
        n: i32,
        f: f64,
    }

    #[derive(Debug, PartialEq, serde::Deserialize)]
    struct Outer {
        list: Option<Vec<Inner>>,
        map: std::collections::BTreeMap<String, Option<u8>>,
        newtype: Option<Newtype>,
    }

    #[derive(Debug, PartialEq, serde::Deserialize)]
    struct Newtype(i64);

    #[test]
    fn the_wrapper_reads_minus_zero_integers_at_any_depth() {
        let outer: Outer =
            through_wrapper(r#"{"list":[{"n":-0,"f":-0}],"map":{"a":-0,"b":null},"newtype":-0}"#)
                .unwrap();
        assert_eq!(outer.list.as_ref().unwrap()[0].n, 0);
        // A float keeps its sign: only integers take Go's integer rule.
        assert!(outer.list.unwrap()[0].f.is_sign_negative());
        assert_eq!(outer.map["a"], Some(0));
        assert_eq!(outer.map["b"], None);
        assert_eq!(outer.newtype, Some(Newtype(0)));
    }

    #[test]
    fn the_wrapper_reads_object_meta_as_go_does() {
        use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
        let meta: ObjectMeta = through_wrapper(
            r#"{"name":"a","generation":-0,"deletionGracePeriodSeconds":-0,"labels":{"k":"v"}}"#,
        )
        .unwrap();
        assert_eq!(meta.generation, Some(0));
        assert_eq!(meta.deletion_grace_period_seconds, Some(0));
        assert_eq!(meta.labels.unwrap()["k"], "v");
        // Other errors are the ones serde_json gives.
        for text in [
            r#"{"generation":1.5}"#,
            r#"{"generation":"1"}"#,
            r#"{"name":1}"#,
        ] {
            let ours = through_wrapper::<ObjectMeta>(text).unwrap_err().to_string();
            let plain = serde_json::from_str::<ObjectMeta>(text)
                .unwrap_err()
                .to_string();
            assert_eq!(ours, plain);
        }
    }
}
