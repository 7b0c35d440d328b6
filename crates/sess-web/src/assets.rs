//! The page and its scripts and style, built into the binary: nothing is
//! fetched from the network at run time.

use axum::body::Bytes;
use axum::http::header::CONTENT_TYPE;
use axum::response::IntoResponse;

const INDEX: &str = include_str!("../assets/index.html");
const SCRIPT: &str = include_str!("../assets/app.js");
/// The usage view, a module `app.js` imports.
const USAGE_SCRIPT: &str = include_str!("../assets/usage.js");
const STYLE: &str = include_str!("../assets/app.css");

/// Where the token goes in `index.html`.
const TOKEN_SLOT: &str = "{{TOKEN}}";

/// Where the agents go in `index.html`.
const SOURCES_SLOT: &str = "{{SOURCES}}";

/// `index.html` with `token` in its `sess-token` meta tag, and the agents of
/// the registry (`[{"name","agent"}]`, for the page's agent filter) in its
/// `sess-sources` one.
pub(crate) fn page(token: &str) -> Bytes {
    let sources: Vec<serde_json::Value> = sess_sources::registry()
        .map(|kind| serde_json::json!({"name": kind.as_str(), "agent": kind.agent_name()}))
        .collect();
    let sources = serde_json::Value::Array(sources).to_string();
    Bytes::from(INDEX.replace(TOKEN_SLOT, &attribute_escape(token)).replace(SOURCES_SLOT, &attribute_escape(&sources)))
}

/// `GET /assets/app.js`.
pub(crate) async fn script() -> impl IntoResponse {
    ([(CONTENT_TYPE, "text/javascript; charset=utf-8")], SCRIPT)
}

/// `GET /assets/usage.js`.
pub(crate) async fn usage_script() -> impl IntoResponse {
    ([(CONTENT_TYPE, "text/javascript; charset=utf-8")], USAGE_SCRIPT)
}

/// `GET /assets/session.css`: the session view's style, shared with the
/// exported HTML files.
pub(crate) async fn session_style() -> impl IntoResponse {
    ([(CONTENT_TYPE, "text/css; charset=utf-8")], sess_export::SESSION_CSS)
}

/// `GET /assets/app.css`.
pub(crate) async fn style() -> impl IntoResponse {
    ([(CONTENT_TYPE, "text/css; charset=utf-8")], STYLE)
}

/// `text` safe inside a double-quoted HTML attribute.
fn attribute_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_token_is_escaped_into_the_page() {
        let page = page("a\"<b>&");
        let page = std::str::from_utf8(&page).unwrap();
        assert!(page.contains(r#"<meta name="sess-token" content="a&quot;&lt;b&gt;&amp;">"#));
        assert!(!page.contains(TOKEN_SLOT));
    }
}
