//! Masking secrets: before a session leaves the machine (`sess export
//! --redact`, the page's Export, `sess mcp --redact`), and in what lists
//! sessions (`sess list`, `sess search`, unless `--reveal-secrets`).

use sess_export::Redactor;

/// `text` with its secrets masked, when it has some.
pub(crate) fn text(redactor: &Redactor, text: &mut Option<String>) {
    if let Some(value) = text
        && let std::borrow::Cow::Owned(masked) = redactor.redact(value)
    {
        *value = masked;
    }
}

/// The search hits' titles and snippets, their secrets masked.
pub(crate) fn hits(hits: &mut [sess_catalog::Hit]) {
    let redactor = Redactor::bundled();
    for hit in hits {
        text(&redactor, &mut hit.session.title);
        let mut pieces: Vec<&mut String> = hit.snippet.iter_mut().map(|p| &mut p.text).collect();
        redactor.redact_pieces(&mut pieces);
    }
}

/// Every string of `value` (a model context, as JSON) with its secrets masked.
pub(crate) fn json(redactor: &Redactor, value: &mut serde_json::Value) {
    match value {
        serde_json::Value::String(s) => {
            if let std::borrow::Cow::Owned(masked) = redactor.redact(s) {
                *s = masked;
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(|v| json(redactor, v)),
        serde_json::Value::Object(map) => map.values_mut().for_each(|v| json(redactor, v)),
        serde_json::Value::Null | serde_json::Value::Bool(_) | serde_json::Value::Number(_) => {}
    }
}
