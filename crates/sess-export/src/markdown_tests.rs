use pretty_assertions::assert_eq;

use super::to_html;

/// Every tag name `html` opens, in order.
fn tags(html: &str) -> Vec<String> {
    html.split('<')
        .skip(1)
        .filter(|part| !part.starts_with('/'))
        .map(|part| part.split(|c: char| c == '>' || c.is_whitespace()).next().unwrap_or_default().to_owned())
        .collect()
}

/// The names of the attributes written anywhere in `html`, each checked to
/// have a double-quoted value (or none).
fn attributes(html: &str) -> Vec<String> {
    let mut names = Vec::new();
    for part in html.split('<').skip(1).filter(|part| !part.starts_with('/')) {
        let mut rest = part.trim_start_matches(|c: char| c.is_ascii_alphanumeric());
        loop {
            rest = rest.trim_start();
            if rest.starts_with('>') || rest.is_empty() {
                break;
            }
            let end = rest.find(|c: char| c == '=' || c == '>' || c.is_whitespace()).unwrap_or(rest.len());
            names.push(rest[..end].to_owned());
            rest = &rest[end..];
            if let Some(value) = rest.strip_prefix('=') {
                let value = value.strip_prefix('"').unwrap_or_else(|| panic!("an unquoted value in {html}"));
                let close = value.find('"').unwrap_or_else(|| panic!("an unclosed value in {html}"));
                rest = &value[close + 1..];
            }
        }
    }
    names.sort();
    names.dedup();
    names
}

const LINK: &str = "rel=\"noopener noreferrer\" target=\"_blank\"";

#[test]
fn every_construct() {
    let markdown = "# One\n## Two\n### Three\n\n*em* **strong** ~~gone~~ `code`\n\n- a\n- b\n\n3. c\n4. d\n\n\
                    | L | C | R | N |\n|:--|:-:|--:|---|\n| 1 | 2 | 3 | 4 |\n\n> quoted\n\n---\n\n- [x] done\n- [ ] to do\n";
    assert_eq!(
        to_html(markdown),
        "<h1>One</h1>\n<h2>Two</h2>\n<h3>Three</h3>\n\
         <p><em>em</em> <strong>strong</strong> <del>gone</del> <code>code</code></p>\n\
         <ul>\n<li>a</li>\n<li>b</li>\n</ul>\n<ol start=\"3\">\n<li>c</li>\n<li>d</li>\n</ol>\n\
         <div class=\"md-table\"><table>\n<thead><tr><th class=\"md-left\">L</th><th class=\"md-center\">C</th>\
         <th class=\"md-right\">R</th><th>N</th></tr></thead>\n<tbody>\n<tr><td class=\"md-left\">1</td>\
         <td class=\"md-center\">2</td><td class=\"md-right\">3</td><td>4</td></tr>\n</tbody></table></div>\n\
         <blockquote>\n<p>quoted</p>\n</blockquote>\n<hr>\n\
         <ul>\n<li><span class=\"md-task md-done\">☑</span> done</li>\n<li><span class=\"md-task\">☐</span> to do</li>\n</ul>\n"
    );
}

#[test]
fn fenced_code_is_highlighted_and_escaped() {
    assert_eq!(
        to_html("```rust\nfn main() { \"<b>\" }\n```\n"),
        "<pre class=\"md-code\"><code class=\"language-rust\"><span class=\"tok-keyword\">fn</span> main() { \
         <span class=\"tok-string\">&quot;&lt;b&gt;&quot;</span> }\n</code></pre>\n"
    );
    // An unknown language is plain; an indented block has none; the info string is only a word.
    assert_eq!(
        to_html("```made-up x=1\n<i>\n```"),
        "<pre class=\"md-code\"><code class=\"language-made-up\">&lt;i&gt;\n</code></pre>\n"
    );
    assert_eq!(to_html("    <i>x</i>\n"), "<pre class=\"md-code\"><code>&lt;i&gt;x&lt;/i&gt;\n</code></pre>\n");
    // A language name cannot break out of its class attribute.
    assert_eq!(
        to_html("```\"><script>alert(1)</script>\nx\n```"),
        "<pre class=\"md-code\"><code class=\"language-scriptalert1script\">x\n</code></pre>\n"
    );
    assert_eq!(
        to_html("```diff\n-a\n+b\n```"),
        "<pre class=\"md-code\"><code class=\"language-diff\"><span class=\"tok-del\">-a</span>\n<span class=\"tok-add\">+b</span>\n</code></pre>\n"
    );
}

#[test]
fn line_breaks_in_a_paragraph_are_kept() {
    assert_eq!(to_html("one\ntwo  \nthree"), "<p>one<br>\ntwo<br>\nthree</p>\n");
}

#[test]
fn raw_html_is_text() {
    assert_eq!(
        to_html("<script>alert(1)</script>"),
        "<p class=\"md-html\">&lt;script&gt;alert(1)&lt;/script&gt;</p>\n"
    );
    assert_eq!(
        to_html("<img src=x onerror=alert(1)>"),
        "<p class=\"md-html\">&lt;img src=x onerror=alert(1)&gt;</p>\n"
    );
    assert_eq!(
        to_html("a <img src=x onerror=alert(1)> b <b onclick=\"x()\">c</b>"),
        "<p>a &lt;img src=x onerror=alert(1)&gt; b &lt;b onclick=&quot;x()&quot;&gt;c&lt;/b&gt;</p>\n"
    );
    assert_eq!(
        to_html("<div>\n<iframe src=\"javascript:alert(1)\"></iframe>\n</div>\n\nafter"),
        "<p class=\"md-html\">&lt;div&gt;\n&lt;iframe src=&quot;javascript:alert(1)&quot;&gt;&lt;/iframe&gt;\n&lt;/div&gt;\n</p>\n<p>after</p>\n"
    );
    assert_eq!(to_html("<!-- hidden -->"), "<p class=\"md-html\">&lt;!-- hidden --&gt;</p>\n");
    assert_eq!(
        to_html("<style>body{display:none}</style>"),
        "<p class=\"md-html\">&lt;style&gt;body{display:none}&lt;/style&gt;</p>\n"
    );
    assert_eq!(to_html("x <svg/onload=alert(1)>"), "<p>x &lt;svg/onload=alert(1)&gt;</p>\n");
}

#[test]
fn entities_are_decoded_then_escaped_again() {
    assert_eq!(to_html("&lt;script&gt; &amp; &#60;b&#62; &quot;"), "<p>&lt;script&gt; &amp; &lt;b&gt; &quot;</p>\n");
    // An entity-encoded scheme is still a scheme.
    assert_eq!(
        to_html("[x](&#106;avascript:alert(1))"),
        "<p><span class=\"md-link md-off\" title=\"javascript:alert(1)\">x</span></p>\n"
    );
}

#[test]
fn only_http_https_and_mailto_links_are_links() {
    assert_eq!(
        to_html("[a](https://example.com/?q=1&r=\"2\") [b](http://x.test 'T') [c](mailto:a@b.test)"),
        format!(
            "<p><a class=\"md-link\" href=\"https://example.com/?q=1&amp;r=&quot;2&quot;\" {LINK}>a</a> \
             <a class=\"md-link\" href=\"http://x.test\" title=\"T\" {LINK}>b</a> \
             <a class=\"md-link\" href=\"mailto:a@b.test\" {LINK}>c</a></p>\n"
        )
    );
    for hostile in [
        "javascript:alert(1)",
        "JaVaScRiPt:alert(1)",
        "javascript&#58;alert(1)",
        "vbscript:msgbox",
        "data:text/html,<script>alert(1)</script>",
        "file:///etc/passwd",
        "//evil.test/x",
        "/api/sessions",
        "relative/path.md",
        "#anchor",
        "https:",
        "http:/\\evil.test",
        "<https://ok.test/ with space>",
    ] {
        let html = to_html(&format!("[click]({hostile})"));
        assert!(!html.contains("<a"), "{hostile}: {html}");
        assert!(html.contains(">click</span>"), "{hostile}: {html}");
    }
    // A control character or whitespace smuggled in by an entity is refused too.
    let html = to_html("[x](<java&#9;script:alert(1)>) [y](<https://a.test/&#10;b>)");
    assert!(!html.contains("<a"), "{html}");
}

#[test]
fn autolinks() {
    assert_eq!(
        to_html("<https://example.com/a?b=c&d=\"e\"> <someone@example.com> <javascript:alert(1)>"),
        format!(
            "<p><a class=\"md-link\" href=\"https://example.com/a?b=c&amp;d=&quot;e&quot;\" {LINK}>\
             https://example.com/a?b=c&amp;d=&quot;e&quot;</a> \
             <a class=\"md-link\" href=\"mailto:someone@example.com\" {LINK}>someone@example.com</a> \
             <span class=\"md-link md-off\" title=\"javascript:alert(1)\">javascript:alert(1)</span></p>\n"
        )
    );
    // A bare URL stays text (no autolink extension), as written.
    assert_eq!(to_html("see https://example.com"), "<p>see https://example.com</p>\n");
}

#[test]
fn images_are_never_loaded() {
    assert_eq!(
        to_html("![a cat](https://example.com/cat.png \"Cat\") ![x](data:image/png;base64,AAAA) ![y](cat.png)"),
        format!(
            "<p><a class=\"md-image\" href=\"https://example.com/cat.png\" title=\"Cat\" {LINK}>[image: a cat]</a> \
             <span class=\"md-image md-off\" title=\"data:image/png;base64,AAAA\">[image: x]</span> \
             <span class=\"md-image md-off\" title=\"cat.png\">[image: y]</span></p>\n"
        )
    );
    // A badge (an image in a link): one anchor, no image, no nested anchor.
    let html = to_html("[![build](https://ci.test/badge.svg)](https://ci.test)");
    assert_eq!(
        html,
        format!(
            "<p><a class=\"md-link\" href=\"https://ci.test\" {LINK}><span class=\"md-image md-off\" \
             title=\"https://ci.test/badge.svg\">[image: build]</span></a></p>\n"
        )
    );
    assert!(!tags(&to_html("![<img src=x onerror=alert(1)>](x)")).contains(&"img".to_owned()));
}

#[test]
fn nested_constructs() {
    assert_eq!(
        to_html("> - **a `b` [c](https://c.test)**\n>   > ```js\n>   > let x = '<';\n>   > ```\n"),
        format!(
            "<blockquote>\n<ul>\n<li><strong>a <code>b</code> <a class=\"md-link\" href=\"https://c.test\" {LINK}>c</a></strong><blockquote>\n\
             <pre class=\"md-code\"><code class=\"language-js\"><span class=\"tok-keyword\">let</span> x = \
             <span class=\"tok-string\">&#39;&lt;&#39;</span>;\n</code></pre>\n</blockquote>\n</li>\n</ul>\n</blockquote>\n"
        )
    );
    // Deep nesting is written without recursion and stays balanced.
    let deep = format!("{}x", "> ".repeat(5000));
    let html = to_html(&deep);
    assert_eq!(html.matches("<blockquote>").count(), html.matches("</blockquote>").count());
    let mut lists: String = (0..500).map(|i| "  ".repeat(i) + "- ").collect();
    lists.push('x');
    let html = to_html(&lists);
    assert_eq!(html.matches("<ul>").count(), html.matches("</ul>").count());
    // A table cell holding hostile text and a link.
    assert_eq!(
        to_html("| a |\n|---|\n| <script>x</script> [l](javascript:y) |"),
        "<div class=\"md-table\"><table>\n<thead><tr><th>a</th></tr></thead>\n<tbody>\n<tr><td>&lt;script&gt;x&lt;/script&gt; \
         <span class=\"md-link md-off\" title=\"javascript:y\">l</span></td></tr>\n</tbody></table></div>\n"
    );
}

#[test]
fn hostile_inputs_open_only_known_tags_and_attributes() {
    let hostile = [
        "<script>alert(1)</script>",
        "<img src=x onerror=alert(1)>",
        "[x](javascript:alert(1))",
        "![x](javascript:alert(1))",
        "<a href=\"javascript:alert(1)\">x</a>",
        "<details open ontoggle=alert(1)>",
        "```\n</code></pre><script>alert(1)</script>\n```",
        "`</code><script>`",
        "[x](https://a.test \"\\\" onmouseover=\\\"alert(1)\")",
        "<https://a.test/\" onmouseover=\"alert(1)>",
        "| <img src=x> |\n|---|\n| [a](data:text/html,x) |",
        "*<b>*x*</b>*",
        "<?php echo 1 ?>",
        "<![CDATA[<script>]]>",
        "&#x3C;script&#x3E;",
        "[a]: javascript:alert(1)\n\n[a]",
        "![a](x \"<script>\")",
        "<math><mi xlink:href=\"javascript:alert(1)\">x</mi></math>",
        "\u{0}<\u{0}script>",
    ];
    let allowed_tags = [
        "p",
        "br",
        "a",
        "span",
        "code",
        "pre",
        "em",
        "strong",
        "del",
        "ul",
        "ol",
        "li",
        "blockquote",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "hr",
        "div",
        "table",
        "thead",
        "tbody",
        "tr",
        "th",
        "td",
        "sup",
        "sub",
        "dl",
        "dt",
        "dd",
    ];
    for markdown in hostile {
        let html = to_html(markdown);
        for tag in tags(&html) {
            assert!(allowed_tags.contains(&tag.as_str()), "{markdown:?} opened <{tag}>: {html}");
        }
        for name in attributes(&html) {
            assert!(
                ["class", "href", "title", "rel", "target", "start"].contains(&name.as_str()),
                "{markdown:?}: {name} in {html}"
            );
        }
        for href in html.split("href=\"").skip(1) {
            assert!(
                href.starts_with("http://") || href.starts_with("https://") || href.starts_with("mailto:"),
                "{html}"
            );
        }
        assert!(!html.to_lowercase().contains("<script"), "{markdown:?}: {html}");
    }
}

#[test]
fn the_empty_text_is_empty() {
    assert_eq!(to_html(""), "");
    assert_eq!(to_html("   \n\n"), "");
}
