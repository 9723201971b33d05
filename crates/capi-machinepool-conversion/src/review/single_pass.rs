//! A review read in one pass: the envelope by hand, each object by the decode that converts it
//! ([`ObjectConverter::convert_leading_into`]), with no first read of the whole body.
//!
//! Only a body laid out as the API server and most clients send it is read this way: an
//! object whose members are `apiVersion` and `kind` (either order, strings without escapes,
//! the values served) and then `request`, an object of `uid`, `desiredAPIVersion` and
//! `objects` (any order, `desiredAPIVersion` before `objects`, strings without escapes), with
//! JSON white space anywhere between. [`answer`] answers such a body when every object
//! converts within the response limit, and, when the uid comes before the objects, also when
//! one does not (the objects after the first failure are only read, as the general way reads
//! them, and counted). For anything else (another layout, a member more or less, a failure
//! before the uid is known, text that is not JSON) it gives `None`, and
//! [`super::handle_bytes_within`] reads the body the general way (`two_reads`), which answers
//! as it always has: such a body is read twice.
//!
//! Why a response given here is the one the general way gives for the same body: the
//! envelope's members are the ones the derived reader reads (none skipped, none twice, the
//! same values); `convert_leading_into` gives, by its contract, what reading the object as a
//! `RawValue` and [`ObjectConverter::convert_read_into`] give, which is what the general way
//! does with each object; and every byte between the objects is the envelope's, checked here,
//! so the body is JSON the general way reads whole, with the same objects. A unit test holds
//! the two ways to the same responses (`the_single_pass_answers_as_two_reads`, and a property
//! test over member orders, white space, uids, objects and limits).

use capi_machinepool_api::wire;
use serde_json::value::RawValue;

use super::{
    ENVELOPE_BYTES, RESPONSE_HEAD, REVIEW_API_VERSION, REVIEW_KIND, Response, conversion_failure,
    respond, success_prefix, too_large,
};
use crate::converter::read_leading;
use crate::json_cursor::Cursor;
use crate::{ConversionError, ObjectConverter};

/// The response to `text` read in one pass, or `None` when it must be read the general way
/// (see the module documentation).
pub(super) fn answer(
    converter: &dyn ObjectConverter,
    text: &str,
    max_response_bytes: usize,
) -> Option<Response> {
    let mut cursor = Cursor::new(text);
    if !cursor.take(b'{') {
        return None;
    }
    // `apiVersion` and `kind`, each once and with the value served, then `request`.
    let (mut api_version, mut kind) = (false, false);
    loop {
        let (seen, served) = match cursor.key()? {
            "apiVersion" => (&mut api_version, REVIEW_API_VERSION),
            "kind" => (&mut kind, REVIEW_KIND),
            "request" if api_version && kind => break,
            _ => return None,
        };
        if *seen || cursor.plain_string()? != served || !cursor.take(b',') {
            return None;
        }
        *seen = true;
    }
    if !cursor.take(b'{') {
        return None;
    }
    let (mut uid, mut desired, mut objects) = (None, None, None);
    loop {
        match cursor.key()? {
            "uid" if uid.is_none() => uid = Some(cursor.plain_string()?),
            "desiredAPIVersion" if desired.is_none() => desired = Some(cursor.plain_string()?),
            "objects" if objects.is_none() => {
                let within = Limits {
                    max_response_bytes,
                    request_bytes: text.len(),
                };
                objects = Some(convert_objects(
                    &mut cursor,
                    converter,
                    desired?,
                    uid,
                    within,
                )?);
            }
            _ => return None,
        }
        if cursor.take(b'}') {
            break;
        }
        if !cursor.take(b',') {
            return None;
        }
    }
    if !(cursor.take(b'}') && cursor.at_end()) {
        return None;
    }
    let (uid, desired, objects) = (uid?, desired?, objects?);
    if let Some(failure) = objects.failure {
        let result = match failure {
            Failure::TooLarge { index } => too_large(max_response_bytes, index, objects.count),
            Failure::Conversion { label, error } => conversion_failure(&label, desired, &error),
        };
        return Some(respond(200, uid.to_owned(), result, Vec::new()));
    }
    let mut body = objects.body;
    if objects.uid_pending {
        // The general way's check of each object, `printed < room` with the room left after
        // the envelope, the uid and the objects before it, is this one for the object that
        // ends last, now that the uid's length is known.
        let end = ENVELOPE_BYTES
            .saturating_add(uid.len())
            .saturating_add(objects.peak);
        if end >= max_response_bytes {
            return None;
        }
        let mut printed = Vec::new();
        wire::append_to_vec(&mut printed, uid).ok()?;
        let at = RESPONSE_HEAD.len();
        body.splice(at..at + EMPTY_UID.len(), printed);
    }
    body.extend_from_slice(b"]}}");
    Some(Response {
        status: 200,
        body,
        failure: None,
    })
}

/// The empty uid as printed in a response whose uid came after its objects, replaced by the
/// uid once known.
const EMPTY_UID: &[u8] = b"\"\"";

/// The response limit and the request's size (which sizes the response buffer).
#[derive(Clone, Copy)]
struct Limits {
    max_response_bytes: usize,
    request_bytes: usize,
}

/// Why a review's objects did not convert, as the general way names it.
enum Failure {
    /// The response would pass the limit at object `index`.
    TooLarge { index: usize },
    /// An object failed to convert (`label` names it).
    Conversion {
        label: String,
        error: ConversionError,
    },
}

/// A request's objects, converted or not.
struct Objects {
    /// The successful response up to the end of the last object (its uid `""` when the uid
    /// comes after the objects); dropped on a failure.
    body: Vec<u8>,
    /// Whether the uid comes after the objects.
    uid_pending: bool,
    /// The largest end of an object, counted from the first object's start.
    peak: usize,
    /// How many objects the request has.
    count: usize,
    failure: Option<Failure>,
}

/// Converts the `objects` array the cursor is at, each printed after the response's envelope.
/// After the first object that fails, the others are only read (a `RawValue` each, which
/// checks their syntax) and counted, as the general way reads them before converting any.
/// `None` for a failure while the uid is not known yet (the room each object had depends on
/// its length), and for text that is not a JSON array.
fn convert_objects(
    cursor: &mut Cursor<'_>,
    converter: &dyn ObjectConverter,
    desired: &str,
    uid: Option<&str>,
    within: Limits,
) -> Option<Objects> {
    if !cursor.take(b'[') {
        return None;
    }
    let body = success_prefix(
        uid.unwrap_or(""),
        within.request_bytes,
        within.max_response_bytes,
    )
    .ok()?;
    let mut objects = Objects {
        body,
        uid_pending: uid.is_none(),
        peak: 0,
        count: 0,
        failure: None,
    };
    if cursor.take(b']') {
        return Some(objects);
    }
    // As the general way counts: the envelope, the uid, and each object printed before this
    // one with its comma (`before`).
    let envelope = ENVELOPE_BYTES.saturating_add(uid.map_or(0, str::len));
    let mut before = 0usize;
    loop {
        let index = objects.count;
        let rest = cursor.rest();
        let used = if objects.failure.is_some() {
            read_leading::<&RawValue>(rest).ok()?.1
        } else {
            if index > 0 {
                objects.body.push(b',');
            }
            let start = objects.body.len();
            let room = within
                .max_response_bytes
                .saturating_sub(envelope.saturating_add(before));
            let outcome = wire::with_output_limit(room, || {
                converter.convert_leading_into(rest, desired, &mut objects.body)
            });
            let printed = objects.body.len() - start;
            match outcome {
                Ok(Ok(used)) if printed < room || uid.is_none() => {
                    objects.peak = objects.peak.max(before + printed);
                    before = before.saturating_add(printed + 1);
                    used
                }
                Ok(Ok(_)) | Err(_) => {
                    uid?;
                    objects.failure = Some(Failure::TooLarge { index });
                    read_leading::<&RawValue>(rest).ok()?.1
                }
                Ok(Err(error)) => {
                    uid?;
                    let (object, used) = read_leading::<&RawValue>(rest).ok()?;
                    let label = super::describe(index, object);
                    objects.failure = Some(Failure::Conversion { label, error });
                    used
                }
            }
        };
        cursor.advance(used);
        objects.count += 1;
        if cursor.take(b']') {
            break;
        }
        if !cursor.take(b',') {
            return None;
        }
    }
    if objects.failure.is_some() {
        objects.body = Vec::new();
    }
    Some(objects)
}
