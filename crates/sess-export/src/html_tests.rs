use pretty_assertions::assert_eq;
use serde_json::json;
use sess_sources::{Block, Image, Message, Role, ToolCall, ToolStatus, Transcript};

use super::{CONTENT_SECURITY_POLICY, to_html_document};

const HOSTILE: &str = "<img src=x onerror=alert(1)>\"'&<script>alert(2)</script>";

/// The document's `<body>`.
fn body(html: &str) -> &str {
    let start = html.find("<body>").unwrap();
    &html[start..]
}

/// Every tag name opened in `html`, with each of its attribute names; each
/// value is checked to be double-quoted.
fn tags(html: &str) -> Vec<(String, Vec<String>)> {
    let mut found = Vec::new();
    for part in html.split('<').skip(1).filter(|p| !p.starts_with('/') && !p.starts_with('!')) {
        let name_end = part.find(|c: char| !c.is_ascii_alphanumeric()).unwrap_or(part.len());
        let (name, mut rest) = part.split_at(name_end);
        let mut attributes = Vec::new();
        loop {
            rest = rest.trim_start();
            if rest.starts_with('>') || rest.is_empty() {
                break;
            }
            let end = rest.find(|c: char| c == '=' || c == '>' || c.is_whitespace()).unwrap_or(rest.len());
            attributes.push(rest[..end].to_owned());
            rest = &rest[end..];
            if let Some(value) = rest.strip_prefix('=') {
                let value = value.strip_prefix('"').unwrap_or_else(|| panic!("unquoted value after <{name}: {part}"));
                rest = &value[value.find('"').unwrap() + 1..];
            }
        }
        found.push((name.to_owned(), attributes));
    }
    found
}

fn hostile_transcript() -> Transcript {
    let mut call = ToolCall::running(HOSTILE, HOSTILE, json!({"command": HOSTILE, HOSTILE: [HOSTILE]}));
    call.complete(Some(HOSTILE.into()), true, Some(HOSTILE.into()));
    call.started_at = Some(HOSTILE.into());
    call.subagent = vec![Message::new(Role::User).at(Some(HOSTILE.into()), None).with(Block::text(HOSTILE))];
    let mut t = Transcript::new(sess_sources::codex::SOURCE, HOSTILE);
    t.title = Some(HOSTILE.into());
    t.cwd = Some(HOSTILE.into());
    t.messages = vec![
        Message::new(Role::User).at(Some(HOSTILE.into()), Some(HOSTILE.into())).with(Block::text(HOSTILE)),
        Message::new(Role::Assistant)
            .with(Block::Thinking { text: HOSTILE.into() })
            .with(Block::text(format!("[x](javascript:alert(1)) ![y](https://evil.test/y.png) {HOSTILE}")))
            .with(Block::ToolCall(call))
            .with(Block::Error { text: HOSTILE.into() })
            .with(Block::Context { title: HOSTILE.into(), text: HOSTILE.into() })
            .with(Block::Summary { text: HOSTILE.into() })
            .with(Block::Image(Image { media_type: Some(HOSTILE.into()), data: Some("AAAA".into()), url: None }))
            .with(Block::Image(Image { media_type: Some("image/png".into()), data: Some(HOSTILE.into()), url: None }))
            .with(Block::Image(Image { media_type: None, data: None, url: Some(HOSTILE.into()) }))
            .with(Block::Unknown { what: HOSTILE.into(), raw: json!({HOSTILE: HOSTILE}) }),
        Message::new(Role::System).with(Block::text(HOSTILE)),
    ];
    t
}

#[test]
fn hostile_text_is_escaped_everywhere() {
    let html = to_html_document(&hostile_transcript());
    assert!(!html.contains("<img src=x"), "{html}");
    assert!(!html.to_lowercase().contains("<script"), "{html}");
    let allowed = [
        "html",
        "head",
        "meta",
        "title",
        "style",
        "body",
        "main",
        "h1",
        "p",
        "span",
        "article",
        "header",
        "time",
        "div",
        "details",
        "summary",
        "code",
        "pre",
        "strong",
        "a",
        "em",
        "br",
        "ul",
        "ol",
        "li",
        "blockquote",
    ];
    for (tag, attributes) in tags(&html) {
        assert!(allowed.contains(&tag.as_str()), "<{tag}> in {html}");
        for name in attributes {
            assert!(
                [
                    "charset",
                    "http-equiv",
                    "content",
                    "name",
                    "lang",
                    "class",
                    "data-testid",
                    "data-role",
                    "data-entry-id",
                    "data-status",
                    "datetime",
                    "title",
                    "role",
                    "href",
                    "rel",
                    "target"
                ]
                .contains(&name.as_str()),
                "{name} on <{tag}>"
            );
        }
    }
    // No image is loaded: the hostile media type and data are named, not shown.
    assert!(!html.contains("<img"), "{html}");
    // Every text is there, escaped.
    let escaped = "&lt;img src=x onerror=alert(1)&gt;&quot;&#39;&amp;&lt;script&gt;alert(2)&lt;/script&gt;";
    assert!(body(&html).matches(escaped).count() >= 15, "{}", body(&html).matches(escaped).count());
}

#[test]
fn the_head_forbids_loading_anything() {
    let html = to_html_document(&hostile_transcript());
    let head = &html[..html.find("</head>").unwrap()];
    assert!(head.starts_with(&format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"{CONTENT_SECURITY_POLICY}\">\n\
         <meta name=\"referrer\" content=\"no-referrer\">\n"
    )));
    assert_eq!(CONTENT_SECURITY_POLICY, "default-src 'none'; style-src 'unsafe-inline'; img-src data:");
    // No script, no external reference: the only links are the messages' own, and they open apart.
    assert!(!html.contains(" src=\"http") && !html.contains("<link") && !html.contains("url("), "{html}");
    let hrefs: Vec<&str> = html.split("href=\"").skip(1).map(|rest| &rest[..rest.find('"').unwrap()]).collect();
    assert_eq!(hrefs, ["https://evil.test/y.png"]);
    assert!(html.contains(
        "<a class=\"md-image\" href=\"https://evil.test/y.png\" rel=\"noopener noreferrer\" target=\"_blank\">[image: y]</a>"
    ));
}

#[test]
fn messages_blocks_and_calls() {
    let mut call = ToolCall::running("c1", "Bash", json!({"command": "cargo test"}));
    call.started_at = Some("2026-08-21T14:00:01.000Z".into());
    call.complete(Some("ok".into()), false, Some("2026-08-21T14:00:04.250Z".into()));
    let mut pending = ToolCall::running("c2", "Read", json!({}));
    pending.status = ToolStatus::Pending;
    let mut t = Transcript::new(sess_sources::claude::SOURCE, "abc");
    t.cwd = Some("/home/dev/app".into());
    t.truncated = 1;
    t.messages = vec![
        Message::new(Role::User)
            .at(Some("u1".into()), Some("2026-08-21T14:00:00.000Z".into()))
            .with(Block::text("Run **the** tests\nplease")),
        Message::new(Role::Assistant)
            .with(Block::ToolCall(call))
            .with(Block::ToolCall(pending))
            .with(Block::Image(Image {
                media_type: Some("image/png".into()),
                data: Some("iVBO\nRw0K".into()),
                url: None,
            }))
            .with(Block::Image(Image { media_type: Some("image/png".into()), data: None, url: Some("blob:x".into()) })),
    ];
    let html = to_html_document(&t);
    let body = body(&html);
    assert!(html.contains("<title>Run **the** tests please · sess</title>"));
    assert!(body.contains("<h1 data-testid=\"session-title\">Run **the** tests please</h1>"));
    assert!(body.contains(
        "<p class=\"muted session-meta\" data-testid=\"session-meta\"><span class=\"badge source-claude\" \
         title=\"Claude Code\">claude</span> <span class=\"path\">/home/dev/app</span><span> · abc</span></p>"
    ));
    assert!(body.contains("<p class=\"banner note\" data-testid=\"truncated-note\">1 older message not included</p>"));
    assert!(body.contains(
        "<article class=\"message message-user\" data-testid=\"message\" data-role=\"user\" data-entry-id=\"u1\">\n\
         <header class=\"message-head\"><span class=\"role role-user\" data-testid=\"message-role\">user</span>\
         <time class=\"muted\" data-testid=\"message-time\" datetime=\"2026-08-21T14:00:00.000Z\" \
         title=\"2026-08-21T14:00:00.000Z\">2026-08-21 14:00</time></header>\n\
         <div class=\"text markdown\" data-testid=\"text-block\"><p>Run <strong>the</strong> tests<br>\nplease</p>\n</div>"
    ));
    assert!(body.contains(
        "<details class=\"tool-call tool-succeeded\" data-testid=\"tool-call\" data-status=\"succeeded\"><summary>\
         <span class=\"status status-succeeded\" data-testid=\"tool-status\" title=\"succeeded\">✓ succeeded</span>\
         <span class=\"tool-name\" data-testid=\"tool-name\">Bash</span>\
         <span class=\"muted tool-duration\" data-testid=\"tool-duration\">3.2 s</span>\
         <code class=\"tool-preview\" data-testid=\"tool-input-preview\">cargo test</code></summary>\n\
         <div class=\"tool-body\"><div class=\"label muted\">Input</div><pre data-testid=\"tool-input\">{\n  \
         &quot;command&quot;: &quot;cargo test&quot;\n}</pre><div class=\"label muted\">Result</div>\
         <pre data-testid=\"tool-result\">ok</pre></div></details>"
    ));
    assert!(body.contains("<p class=\"muted\">No result: the session ended before it came.</p>"));
    assert!(body.contains(
        "<img class=\"image\" data-testid=\"image\" alt=\"image/png image\" src=\"data:image/png;base64,iVBORw0K\">"
    ));
    assert!(body.contains("<div class=\"image-link muted\" data-testid=\"image-link\">[image: blob:x]</div>"));
    assert!(body.ends_with("<p class=\"export-note muted\">Exported with sess from the Claude Code session abc.</p>\n</main>\n</body>\n</html>\n"));
}

#[test]
fn the_file_has_the_session_views_style_inline() {
    let body = to_html_document(&Transcript::new(sess_sources::claude::SOURCE, "abc"));
    let style = &body[body.find("<style>").unwrap()..body.find("</style>").unwrap()];
    assert!(style.contains(crate::SESSION_CSS), "the page's session rules");
    assert!(style.contains(".tok-keyword") && style.contains("--bg:"), "the highlight classes and the colours");
}

#[test]
fn an_edit_shows_its_diff_coloured_and_escaped() {
    use sess_sources::{DiffLine, FileDiff, Hunk, LineKind};
    let mut edit = ToolCall::running("e", "Edit", json!({"file_path": HOSTILE}));
    edit.complete(Some("ok".into()), false, None);
    let line = |kind, text: &str| DiffLine { kind, text: text.into() };
    edit.diffs = vec![
        FileDiff {
            path: HOSTILE.into(),
            new_file: false,
            added: 1,
            removed: 1,
            hunks: vec![Hunk {
                old_start: 1,
                old_lines: 2,
                new_start: 1,
                new_lines: 2,
                lines: vec![
                    line(LineKind::Context, "keep"),
                    line(LineKind::Remove, HOSTILE),
                    line(LineKind::Add, "<b>new</b>"),
                ],
            }],
        },
        FileDiff { path: "new.txt".into(), new_file: true, added: 0, removed: 0, hunks: Vec::new() },
    ];
    let mut t = Transcript::new(sess_sources::claude::SOURCE, "d");
    t.messages = vec![Message::new(Role::Assistant).with(Block::ToolCall(edit))];
    let html = to_html_document(&t);
    let escaped = "&lt;img src=x onerror=alert(1)&gt;&quot;&#39;&amp;&lt;script&gt;alert(2)&lt;/script&gt;";
    assert!(
        html.contains(&format!(
            "<div class=\"label muted\">Diff</div><div class=\"diff\" data-testid=\"diff\">\
         <div class=\"diff-file\">--- a/{escaped}</div><div class=\"diff-file\">+++ b/{escaped}</div><pre>\
         <span class=\"diff-line diff-hunk\" data-testid=\"diff-line\">@@ -1,2 +1,2 @@</span>\
         <span class=\"diff-line\" data-testid=\"diff-line\"> keep</span>\
         <span class=\"diff-line diff-remove\" data-testid=\"diff-line\">-{escaped}</span>\
         <span class=\"diff-line diff-add\" data-testid=\"diff-line\">+&lt;b&gt;new&lt;/b&gt;</span></pre></div>\n\
         <div class=\"diff\" data-testid=\"diff\"><div class=\"diff-file\">--- a/new.txt</div>\
         <div class=\"diff-file\">+++ b/new.txt</div><div class=\"diff-file\">whole file written</div></div>\n\
         <div class=\"label muted\">Result</div>"
        )),
        "{html}"
    );
    assert!(!html.contains("<b>new"), "{html}");
}
