//! Duplicate keys in a conversion-data text, decoded as Go decodes them.
//!
//! Go's `encoding/json` (and `sigs.k8s.io/json`, which upstream's `UnmarshalData` uses) decodes
//! a repeated key into the same destination again: a struct or map is filled further (the
//! members of both values are kept, a member in both takes the later value, recursively), any
//! other value is replaced. serde keeps only the later value, so a text with repeated keys is
//! first rewritten with the members merged. A text without repeated keys is left alone (its
//! bytes decode as they are).

use std::fmt;

use serde::Deserializer;
use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

/// The text with repeated keys merged, or `None` when it has none (or is not JSON: the normal
/// decode then reports the error).
pub(super) fn merged(text: &str) -> Option<String> {
    let mut found = false;
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let value = Merging { found: &mut found }
        .deserialize(&mut deserializer)
        .ok()?;
    deserializer.end().ok()?;
    found.then(|| value.to_string())
}

/// Deserializes one JSON value, merging repeated object members; sets `found` when it does.
struct Merging<'f> {
    found: &'f mut bool,
}

impl<'de> DeserializeSeed<'de> for Merging<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Merging<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(Merging {
            found: &mut *self.found,
        })? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut members = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let value = map.next_value_seed(Merging {
                found: &mut *self.found,
            })?;
            match members.get_mut(&key) {
                Some(earlier) => {
                    *self.found = true;
                    merge(earlier, value);
                }
                None => {
                    members.insert(key, value);
                }
            }
        }
        Ok(Value::Object(members))
    }
}

/// `later` decoded into `earlier`: objects member by member, anything else replaced.
fn merge(earlier: &mut Value, later: Value) {
    match (earlier, later) {
        (Value::Object(into), Value::Object(from)) => {
            for (key, value) in from {
                match into.get_mut(&key) {
                    Some(existing) => merge(existing, value),
                    None => {
                        into.insert(key, value);
                    }
                }
            }
        }
        (slot, value) => *slot = value,
    }
}

#[cfg(test)]
mod tests {
    use super::merged;

    #[test]
    fn a_text_without_repeated_keys_is_left_alone() {
        assert_eq!(merged(r#"{"status":{"replicas":3}}"#), None);
        assert_eq!(merged("not json"), None);
    }

    /// encoding/json: a repeated object fills the same struct further; a repeated scalar or
    /// list replaces (decode.go `object` reuses the field's value; `array` resets a slice).
    #[test]
    fn objects_merge_and_everything_else_is_replaced() {
        assert_eq!(
            merged(r#"{"a":{"x":1,"l":[1]},"b":1,"a":{"y":2,"l":[2]},"b":2}"#).as_deref(),
            Some(r#"{"a":{"l":[2],"x":1,"y":2},"b":2}"#)
        );
    }
}
