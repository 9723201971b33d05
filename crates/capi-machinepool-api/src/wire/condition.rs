//! `metav1.Condition` as Go reads and writes it: `type, status, observedGeneration,
//! lastTransitionTime, reason, message`, a zero `observedGeneration` left out, and absent or
//! `null` fields read as their zero value (k8s-openapi's own `Deserialize` requires
//! `lastTransitionTime`), `observedGeneration: -0` read as 0 (see [`super::int`]).

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use serde::de::{MapAccess, SeqAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::int::GoInt;
use super::meta::Each;
use super::time::{GoTime, OptionTime, zero};

/// Serializes a k8s-openapi [`Condition`] as Go's `metav1.Condition` marshals.
///
/// ```
/// use capi_machinepool_api::k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};
/// use capi_machinepool_api::wire::GoCondition;
/// let c = Condition { type_: "Ready".into(), status: "True".into(), observed_generation: Some(0),
///     last_transition_time: Time("2026-01-01T00:00:00Z".parse().unwrap()),
///     reason: "Ready".into(), message: String::new() };
/// assert_eq!(serde_json::to_string(&GoCondition(&c)).unwrap(),
///   r#"{"type":"Ready","status":"True","lastTransitionTime":"2026-01-01T00:00:00Z","reason":"Ready","message":""}"#);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct GoCondition<'a>(pub &'a Condition);

impl Serialize for GoCondition<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let c = self.0;
        let mut map = serializer.serialize_map(Some(6))?;
        map.serialize_entry("type", &c.type_)?;
        map.serialize_entry("status", &c.status)?;
        if let Some(g) = c.observed_generation.filter(|g| *g != 0) {
            map.serialize_entry("observedGeneration", &g)?;
        }
        map.serialize_entry("lastTransitionTime", &GoTime(&c.last_transition_time))?;
        map.serialize_entry("reason", &c.reason)?;
        map.serialize_entry("message", &c.message)?;
        map.end()
    }
}

/// `serialize_with` for a `[]metav1.Condition` field (`skip_serializing_if` handles empty).
pub(crate) fn serialize_list<S: Serializer>(
    list: &Option<Vec<Condition>>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    Each(list.as_deref().unwrap_or_default(), GoCondition).serialize(serializer)
}

/// One condition, read leniently (see the module docs).
struct Lenient(Condition);

impl<'de> Deserialize<'de> for Lenient {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(field_identifier, rename_all = "camelCase")]
        enum Field {
            Type,
            Status,
            ObservedGeneration,
            LastTransitionTime,
            Reason,
            Message,
            #[serde(other)]
            Other,
        }

        struct ConditionVisitor;

        impl<'de> Visitor<'de> for ConditionVisitor {
            type Value = Lenient;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a metav1.Condition object")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Lenient, A::Error> {
                let mut c = Condition {
                    last_transition_time: zero(),
                    message: String::new(),
                    observed_generation: None,
                    reason: String::new(),
                    status: String::new(),
                    type_: String::new(),
                };
                while let Some(key) = map.next_key::<Field>()? {
                    match key {
                        Field::Type => {
                            c.type_ = map.next_value::<Option<String>>()?.unwrap_or_default()
                        }
                        Field::Status => {
                            c.status = map.next_value::<Option<String>>()?.unwrap_or_default();
                        }
                        Field::ObservedGeneration => {
                            c.observed_generation =
                                map.next_value::<Option<GoInt<i64>>>()?.map(|GoInt(g)| g);
                        }
                        Field::LastTransitionTime => {
                            c.last_transition_time =
                                map.next_value::<OptionTime>()?.0.unwrap_or_else(zero);
                        }
                        Field::Reason => {
                            c.reason = map.next_value::<Option<String>>()?.unwrap_or_default();
                        }
                        Field::Message => {
                            c.message = map.next_value::<Option<String>>()?.unwrap_or_default();
                        }
                        Field::Other => {
                            map.next_value::<serde::de::IgnoredAny>()?;
                        }
                    }
                }
                Ok(Lenient(c))
            }
        }

        deserializer.deserialize_map(ConditionVisitor)
    }
}

/// `deserialize_with` for a `[]metav1.Condition` field (`null` is an absent list).
pub(crate) fn deserialize_list<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Vec<Condition>>, D::Error> {
    struct ListVisitor;

    impl<'de> Visitor<'de> for ListVisitor {
        type Value = Option<Vec<Condition>>;

        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a list of metav1.Condition objects")
        }

        fn visit_unit<E>(self) -> Result<Self::Value, E> {
            Ok(None)
        }

        fn visit_none<E>(self) -> Result<Self::Value, E> {
            Ok(None)
        }

        fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            d.deserialize_seq(self)
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
            while let Some(Lenient(c)) = seq.next_element()? {
                out.push(c);
            }
            Ok(Some(out))
        }
    }

    deserializer.deserialize_option(ListVisitor)
}
