//! Preparing an entry's JSON for persistence, and resolving blob references
//! back on load (xcsh `truncateForPersistence` and `resolveBlobRefsInEntries`,
//! pi-facts §6.4).
//!
//! Entries in memory keep their full data; only the persisted copy is
//! prepared: huge strings are truncated, transient keys dropped, and images
//! moved to a blob store ([`Blobs`]). Both functions take and return the JSON text of
//! one entry (or the header): one line, no newline.

use std::borrow::Cow;
use std::sync::LazyLock;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;

use memchr::memmem::Finder;
use serde_json::{Map, Value};

use crate::blob::{BLOB_REF_PREFIX, Blobs};
use crate::error::{Error, Result};

/// The longest string that is persisted whole, in UTF-16 code units (the unit
/// of JavaScript's `String.length`).
pub const MAX_PERSIST_CHARS: usize = 500_000;

/// What replaces the end of a truncated string. ASCII, so its byte length is
/// its UTF-16 length.
pub const TRUNCATION_NOTICE: &str = "\n\n[Session persistence truncated large content]";

/// The shortest image `data` (in characters of base64) that is moved to the
/// blob store.
pub const BLOB_EXTERNALIZE_THRESHOLD: usize = 1024;

/// The key whose arrays hold content blocks (and whose string value goes with
/// `lineCount`).
const CONTENT_KEY: &str = "content";

/// The key whose image data URLs are moved to the blob store.
const IMAGE_URL_KEY: &str = "image_url";

/// Keys that are never persisted, at any depth.
const TRANSIENT_KEYS: [&str; 2] = ["partialJson", "jsonlEvents"];

/// Keys whose oversized values are cleared rather than truncated: a truncated
/// signature is rejected by the provider API, an absent one is not.
const SIGNATURE_KEYS: [&str; 3] = ["thinkingSignature", "thoughtSignature", "textSignature"];

/// Returns the text to persist for the entry (or header) `json`.
///
/// The rules, at any depth and on the header too:
/// - a string longer than [`MAX_PERSIST_CHARS`] UTF-16 units keeps its first
///   `MAX_PERSIST_CHARS - TRUNCATION_NOTICE.len()` units (one fewer rather
///   than split a surrogate pair) followed by [`TRUNCATION_NOTICE`]; under
///   `thinkingSignature`, `thoughtSignature` or `textSignature` it becomes `""`;
/// - the keys `partialJson` and `jsonlEvents` are removed;
/// - an object that changed and has a string `content` and a numeric
///   `lineCount` gets `lineCount` = the number of lines of the new `content`;
/// - with `blobs`, an `{"type":"image","data":…}` element of an array under a
///   `content` key whose `data` is canonical base64 of at least
///   [`BLOB_EXTERNALIZE_THRESHOLD`] characters, not already `blob:…`, has
///   `data` replaced by the reference of the decoded bytes (other keys and the
///   key order kept); and a string under `image_url` that is an image data URL
///   (`data:image/…;base64,…`) is replaced by the reference of its UTF-8
///   bytes. `blobs: None` (in-memory sessions) externalizes nothing.
///
/// Returns `Cow::Borrowed(json)` when nothing changes; a byte-level pre-check
/// skips parsing for the lines no rule can apply to. A changed entry is
/// re-serialized compactly, as `JSON.stringify` does. Blobs are durable before
/// this returns, so the line that refers to them may be written next.
///
/// `json` that is not valid JSON is [`Error::InvalidEntry`] (only when the
/// pre-check parses it); a blob that cannot be stored is [`Error::Io`].
pub fn prepare_for_persistence<'a>(json: &'a str, blobs: Option<&dyn Blobs>) -> Result<Cow<'a, str>> {
    if !may_need_preparation(json, blobs.is_some()) {
        return Ok(Cow::Borrowed(json));
    }
    let Some(mut value) = parse(json)? else { return Ok(Cow::Borrowed(json)) };
    let preparer = Preparer { blobs };
    if !preparer.value(&mut value, None)? {
        return Ok(Cow::Borrowed(json));
    }
    serialize(&value).map(Cow::Owned)
}

/// What [`resolve_entries`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Resolution {
    /// Whether any entry changed.
    pub changed: bool,
    /// References left in place, and why.
    pub warnings: Vec<String>,
}

/// Resolves the blob references of every entry in place (see [`resolve_blob_refs`]).
pub fn resolve_entries(entries: &mut [sess_core::Entry], blobs: &dyn Blobs) -> Result<Resolution> {
    let mut resolution = Resolution::default();
    for entry in entries.iter_mut() {
        let Some(resolved) = resolve_blob_refs(entry.json(), blobs)? else { continue };
        let id = entry.id().clone();
        resolution.warnings.extend(resolved.warnings.into_iter().map(|w| format!("entry {id}: {w}")));
        if resolved.json != entry.json() {
            *entry =
                sess_core::Entry::parse(&resolved.json).map_err(|e| Error::InvalidEntry { reason: e.to_string() })?;
            resolution.changed = true;
        }
    }
    Ok(resolution)
}

/// An entry with its blob references replaced by their data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resolved {
    /// The entry's JSON text. Byte-identical to the input when no reference
    /// could be resolved.
    pub json: String,
    /// One message per reference left in place (missing or corrupt blob,
    /// invalid reference, an `image_url` blob that is not UTF-8), naming where
    /// it is in the entry.
    pub warnings: Vec<String>,
}

/// Replaces the blob references of a loaded entry with the data they stand for.
///
/// Resolved, as xcsh does: the `data` of `{"type":"image","data":"blob:sha256:…"}`
/// blocks directly in the `message.content` array of a `message` entry and in
/// the `content` array of a `custom_message` entry (the blob's bytes, encoded as
/// standard base64), and any string starting with `blob:sha256:` under an
/// `image_url` key at any depth (the blob holds the UTF-8 bytes of the whole
/// data URL). Images that [`prepare_for_persistence`] externalized elsewhere
/// (a `content` array nested deeper) stay references, as they do in xcsh.
///
/// A reference that cannot be resolved (missing or corrupt blob, invalid
/// reference) is left unchanged and reported in [`Resolved::warnings`]; other
/// storage failures are errors. Returns `None`, cheaply, when the entry has no
/// reference: without a `blob:sha256:` substring (or a `\u00XX` escape that
/// could spell one) the text is not even parsed. Text that is parsed and is
/// not valid JSON is [`Error::InvalidEntry`].
pub fn resolve_blob_refs(json: &str, blobs: &dyn Blobs) -> Result<Option<Resolved>> {
    if !json.contains(BLOB_REF_PREFIX) && !has_escaped_printable_ascii(json.as_bytes()) {
        return Ok(None);
    }
    let Some(mut value) = parse(json)? else {
        let warning = "blob references left in place: the entry holds a lone UTF-16 surrogate".to_owned();
        return Ok(Some(Resolved { json: json.to_owned(), warnings: vec![warning] }));
    };
    let mut resolver = Resolver { blobs, found: false, changed: false, warnings: Vec::new() };
    if let Value::Object(entry) = &mut value {
        let content = match entry.get("type").and_then(Value::as_str) {
            Some("message") => {
                entry.get_mut("message").and_then(|m| m.get_mut(CONTENT_KEY)).map(|c| (c, "message.content"))
            }
            Some("custom_message") => entry.get_mut(CONTENT_KEY).map(|c| (c, "content")),
            _ => None,
        };
        if let Some((Value::Array(blocks), path)) = content {
            resolver.image_blocks(blocks, path)?;
        }
    }
    resolver.image_urls(&mut value, None, "")?;
    if !resolver.found {
        return Ok(None);
    }
    let json = if resolver.changed { serialize(&value)? } else { json.to_owned() };
    Ok(Some(Resolved { json, warnings: resolver.warnings }))
}

/// Whether any rule could apply to `json`; `false` is certain, `true` is a maybe.
///
/// - A string over [`MAX_PERSIST_CHARS`] UTF-16 units takes more than that many
///   bytes of JSON text: every unit comes from at least one byte (escapes from
///   two or more), so a shorter line holds none.
/// - Transient keys and images are found by their names; a name written with
///   `\u` escapes is caught by [`has_escaped_printable_ascii`].
fn may_need_preparation(json: &str, with_blobs: bool) -> bool {
    json.len() > MAX_PERSIST_CHARS || names_may_need_preparation(json.as_bytes(), with_blobs)
}

/// Whether any of the JSON lines in `lines` (the longest `longest` bytes) may
/// need preparation: one search over them all.
pub(crate) fn any_may_need_preparation(lines: &str, longest: usize, with_blobs: bool) -> bool {
    longest > MAX_PERSIST_CHARS || names_may_need_preparation(lines.as_bytes(), with_blobs)
}

/// The name searches of [`may_need_preparation`].
fn names_may_need_preparation(bytes: &[u8], with_blobs: bool) -> bool {
    /// Searchers built once: every appended line goes through here.
    static FINDERS: LazyLock<[Finder<'static>; 4]> = LazyLock::new(|| {
        let [partial, events] = TRANSIENT_KEYS;
        [Finder::new(partial), Finder::new(events), Finder::new("\"image\""), Finder::new("\"image_url\"")]
    });
    let [partial, events, image, image_url] = &*FINDERS;
    partial.find(bytes).is_some()
        || events.find(bytes).is_some()
        || (with_blobs && (image.find(bytes).is_some() || image_url.find(bytes).is_some()))
        || has_escaped_printable_ascii(bytes)
}

/// Whether `json` may spell a printable ASCII character (U+0020 to U+007F) as
/// a `\u00XX` escape, which would hide a key name or reference from a substring
/// search. `JSON.stringify` never writes such escapes (it escapes only control
/// characters, like `\u001b`, and lone surrogates), so this is rarely true.
fn has_escaped_printable_ascii(json: &[u8]) -> bool {
    memchr::memmem::find_iter(json, b"\\u00").any(|at| matches!(json.get(at + 4), Some(b'2'..=b'7')))
}

/// The entry as a value; `None` for valid JSON that a Rust string cannot hold
/// (a lone UTF-16 surrogate escape, which `JSON.stringify` writes): such a line
/// is kept exactly as it is.
fn parse(json: &str) -> Result<Option<Value>> {
    match serde_json::from_str(json) {
        Ok(value) => Ok(Some(value)),
        Err(_) if serde_json::from_str::<&serde_json::value::RawValue>(json).is_ok() => Ok(None),
        Err(e) => Err(Error::InvalidEntry { reason: format!("not valid JSON: {e}") }),
    }
}

fn serialize(value: &Value) -> Result<String> {
    serde_json::to_string(value).map_err(|e| Error::InvalidEntry { reason: format!("cannot serialize: {e}") })
}

/// The walk of [`prepare_for_persistence`]. Each method returns whether it
/// changed the value it was given.
struct Preparer<'b> {
    blobs: Option<&'b dyn Blobs>,
}

impl Preparer<'_> {
    /// `key` is the object key `value` is under; array elements inherit the
    /// key of their array, as in xcsh.
    fn value(&self, value: &mut Value, key: Option<&str>) -> Result<bool> {
        match value {
            Value::String(text) => self.string(text, key),
            Value::Array(items) => {
                let mut changed = false;
                for item in items {
                    // An externalized block keeps its other keys as they are
                    // (xcsh returns `{...item, data: ref}` without descending).
                    if key == Some(CONTENT_KEY) && self.externalize_image_block(item)? {
                        changed = true;
                    } else {
                        changed |= self.value(item, key)?;
                    }
                }
                Ok(changed)
            }
            Value::Object(map) => self.object(map),
            Value::Null | Value::Bool(_) | Value::Number(_) => Ok(false),
        }
    }

    fn object(&self, map: &mut Map<String, Value>) -> Result<bool> {
        let mut changed = false;
        for key in TRANSIENT_KEYS {
            changed |= map.shift_remove(key).is_some();
        }
        for (key, child) in map.iter_mut() {
            changed |= self.value(child, Some(key))?;
        }
        if changed {
            update_line_count(map);
        }
        Ok(changed)
    }

    fn string(&self, text: &mut String, key: Option<&str>) -> Result<bool> {
        if let Some(blobs) = self.blobs
            && key == Some(IMAGE_URL_KEY)
            && is_image_data_url(text)
        {
            *text = blobs.put(text.as_bytes())?;
            return Ok(true);
        }
        let Some(keep) = truncation_point(text) else {
            return Ok(false);
        };
        if key.is_some_and(|key| SIGNATURE_KEYS.contains(&key)) {
            text.clear();
        } else {
            text.truncate(keep);
            text.push_str(TRUNCATION_NOTICE);
        }
        Ok(true)
    }

    /// Moves the data of an image block to the blob store if the rules say so.
    fn externalize_image_block(&self, item: &mut Value) -> Result<bool> {
        let Some(blobs) = self.blobs else {
            return Ok(false);
        };
        let Value::Object(block) = item else {
            return Ok(false);
        };
        if block.get("type").and_then(Value::as_str) != Some("image") {
            return Ok(false);
        }
        let Some(Value::String(data)) = block.get_mut("data") else {
            return Ok(false);
        };
        // Canonical base64 is ASCII, so its byte length is its length in characters.
        if data.starts_with("blob:") || data.len() < BLOB_EXTERNALIZE_THRESHOLD {
            return Ok(false);
        }
        let Some(bytes) = decode_canonical_base64(data) else {
            return Ok(false);
        };
        *data = blobs.put(&bytes)?;
        Ok(true)
    }
}

/// The decoded bytes if `data` is exactly what standard base64 encoding
/// produces for them. Anything else stays inline: the agents' lenient decoder
/// would silently drop what does not round-trip.
fn decode_canonical_base64(data: &str) -> Option<Vec<u8>> {
    let bytes = STANDARD.decode(data).ok()?;
    (STANDARD.encode(&bytes) == data).then_some(bytes)
}

fn is_image_data_url(text: &str) -> bool {
    text.starts_with("data:image/") && text.contains(";base64,")
}

/// The byte length to keep when `text` is longer than [`MAX_PERSIST_CHARS`]
/// UTF-16 units, or `None` when it is not.
///
/// The kept prefix is the longest one of at most
/// `MAX_PERSIST_CHARS - TRUNCATION_NOTICE.len()` units that ends on a character
/// boundary: a surrogate pair straddling the cut is dropped whole, which is
/// xcsh's "minus one more unit if the last kept unit is a high surrogate".
fn truncation_point(text: &str) -> Option<usize> {
    // Every UTF-16 unit takes at least one byte of UTF-8.
    if text.len() <= MAX_PERSIST_CHARS {
        return None;
    }
    let limit = MAX_PERSIST_CHARS - TRUNCATION_NOTICE.len();
    let mut units = 0;
    let mut keep = None;
    for (at, c) in text.char_indices() {
        if keep.is_none() && units + c.len_utf16() > limit {
            keep = Some(at);
        }
        units += c.len_utf16();
        if units > MAX_PERSIST_CHARS {
            return keep;
        }
    }
    None
}

/// Sets `lineCount` to the line count of `content` if both are there with the
/// right types (`content.split("\n").length` in JavaScript).
fn update_line_count(map: &mut Map<String, Value>) {
    let Some(lines) = map.get(CONTENT_KEY).and_then(Value::as_str).map(|c| c.split('\n').count()) else {
        return;
    };
    if let Some(line_count @ Value::Number(_)) = map.get_mut("lineCount") {
        *line_count = Value::from(lines);
    }
}

/// The walk of [`resolve_blob_refs`].
struct Resolver<'b> {
    blobs: &'b dyn Blobs,
    /// Whether a reference was seen.
    found: bool,
    /// Whether a reference was replaced.
    changed: bool,
    warnings: Vec<String>,
}

impl Resolver<'_> {
    /// Resolves the `data` of the image blocks directly in `blocks`.
    fn image_blocks(&mut self, blocks: &mut [Value], path: &str) -> Result<()> {
        for (index, block) in blocks.iter_mut().enumerate() {
            let Value::Object(block) = block else { continue };
            if block.get("type").and_then(Value::as_str) != Some("image") {
                continue;
            }
            let Some(Value::String(data)) = block.get_mut("data") else { continue };
            if !data.starts_with(BLOB_REF_PREFIX) {
                continue;
            }
            if let Some(bytes) = self.fetch(data, &format!("{path}[{index}].data"))? {
                *data = STANDARD.encode(bytes);
                self.changed = true;
            }
        }
        Ok(())
    }

    /// Resolves the strings under `image_url` keys in `value`, at any depth
    /// (array elements inherit the key of their array).
    fn image_urls(&mut self, value: &mut Value, key: Option<&str>, path: &str) -> Result<()> {
        match value {
            Value::String(text) if key == Some(IMAGE_URL_KEY) && text.starts_with(BLOB_REF_PREFIX) => {
                let Some(bytes) = self.fetch(text, path)? else {
                    return Ok(());
                };
                match String::from_utf8(bytes) {
                    Ok(url) => {
                        *text = url;
                        self.changed = true;
                    }
                    Err(_) => {
                        self.warnings.push(format!("{path}: blob `{text}` is not UTF-8 text; the reference is kept"));
                    }
                }
            }
            Value::Array(items) => {
                for (index, item) in items.iter_mut().enumerate() {
                    self.image_urls(item, key, &format!("{path}[{index}]"))?;
                }
            }
            Value::Object(map) => {
                for (child_key, child) in map.iter_mut() {
                    let child_path = if path.is_empty() { child_key.clone() } else { format!("{path}.{child_key}") };
                    self.image_urls(child, Some(child_key), &child_path)?;
                }
            }
            Value::String(_) | Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
        Ok(())
    }

    /// The bytes of `reference`, or `None` with a warning when it cannot be
    /// resolved. Storage failures other than a missing file are errors.
    fn fetch(&mut self, reference: &str, path: &str) -> Result<Option<Vec<u8>>> {
        self.found = true;
        match self.blobs.get(reference) {
            Ok(Some(bytes)) => return Ok(Some(bytes)),
            Ok(None) => {
                let location = self.blobs.location();
                self.warnings
                    .push(format!("{path}: blob `{reference}` is missing from {location}; the reference is kept"));
            }
            Err(error @ (Error::InvalidBlobRef { .. } | Error::CorruptBlob { .. })) => {
                self.warnings.push(format!("{path}: {error}; the reference is kept"));
            }
            Err(error) => return Err(error),
        }
        Ok(None)
    }
}

#[cfg(test)]
#[path = "prepare_tests.rs"]
mod tests;
