use pretty_assertions::assert_eq;
use serde_json::json;
use sess_sources::{Block, Image, Message, Role, ToolCall, Transcript};

use super::*;

const OPENAI: &str = "sk-proj-Zr4Qx9LmT2vB7nK1pW8sYd3Hf6Jc0AeGuVbNi5Ro";
const GITHUB: &str = "ghp_7Hq2LmXv9Rt4Bn8Kc1Wz5Yd3Pf6Js0AeGuVb";

fn redactor() -> Redactor {
    Redactor::bundled()
}

#[test]
fn the_bundled_rules_compile_and_end_with_the_catch_all() {
    let redactor = Redactor::from_toml(BUNDLED).unwrap();
    let names: Vec<&str> = redactor.rules().map(|r| r.name).collect();
    assert!(names.len() >= 25, "{names:?}");
    assert_eq!(names.last(), Some(&"assignment"));
    assert!(redactor.rules().all(|r| !r.description.is_empty()));
}

#[test]
fn a_mask_keeps_at_most_four_characters_and_a_quarter() {
    assert_eq!(Redactor::mask(OPENAI, "openai-key"), "sk-p…[redacted openai-key]");
    assert_eq!(Redactor::mask("hunter22", "assignment"), "hu…[redacted assignment]");
    assert_eq!(Redactor::mask("abc", "assignment"), "…[redacted assignment]");
    assert_eq!(Redactor::mask("éèêëéèêë", "x"), "éè…[redacted x]", "characters, not bytes");
}

#[test]
fn the_context_stays_and_the_secret_goes() {
    let text = "DB_PASSWORD=Tr0ub4dorX3 psql";
    assert_eq!(redactor().redact(text), "DB_PASSWORD=Tr…[redacted assignment] psql");
    assert_eq!(
        redactor().find(text),
        [Finding { rule: "assignment".into(), start: 12, end: 23 }],
        "the finding is the value, not the name"
    );
}

#[test]
fn a_text_without_secrets_is_borrowed() {
    assert!(matches!(redactor().redact("cargo test -p sess-export"), Cow::Borrowed(_)));
    assert!(matches!(redactor().redact(""), Cow::Borrowed(_)));
}

#[test]
fn overlapping_secrets_are_one_named_after_the_first_rule() {
    // The key is an `openai-key` and the value of an `assignment`.
    let text = format!("OPENAI_API_KEY={OPENAI}");
    let found = redactor().find(&text);
    assert_eq!(found, [Finding { rule: "openai-key".into(), start: 15, end: text.len() }]);
    // A token in a URL's password: the two spans overlap, one mask.
    let text = format!("https://x:{GITHUB}@github.com/a/b.git");
    let found = redactor().find(&text);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].rule, "github-token");
    assert_eq!(redactor().redact(&text), "https://x:ghp_…[redacted github-token]@github.com/a/b.git");
}

#[test]
fn spans_merge_when_they_overlap_only() {
    let span = |start, end, rule| Span { start, end, rule };
    assert_eq!(merge(vec![span(5, 9, 3), span(0, 6, 7), span(9, 12, 1)]), [span(0, 9, 3), span(9, 12, 1)]);
    assert_eq!(merge(vec![span(0, 10, 2), span(2, 4, 1)]), [span(0, 10, 1)]);
    assert_eq!(merge(Vec::new()), []);
}

#[test]
fn masking_twice_changes_nothing() {
    let text = format!("a {OPENAI} b password: \"s3cretvalue\" c {GITHUB}");
    let once = redactor().redact(&text).into_owned();
    assert!(!once.contains(OPENAI) && !once.contains(GITHUB) && !once.contains("s3cretvalue"), "{once}");
    assert_eq!(redactor().redact(&once), once);
    assert_eq!(redactor().find(&once), []);
}

#[test]
fn a_bad_rule_is_named() {
    let bad = |toml: &str| match Redactor::from_toml(toml) {
        Err(crate::Error::Rule { rule, message }) => (rule, message),
        Ok(_) => panic!("accepted: {toml}"),
    };
    let (rule, message) = bad("[[rule]]\nname = \"x\"\ndescription = \"d\"\nregex = '(unclosed'\n");
    assert_eq!(rule, "x");
    assert!(message.starts_with("regex: "), "{message}");
    let (rule, _) = bad("[[rule]]\nname = \"x\"\ndescription = \"d\"\nregex = 'a'\nignore = '['\n");
    assert_eq!(rule, "x");
    let (_, message) = bad("[[rule]]\nname = \"x\"\ndescription = \"d\"\nregex = 'a*'\n");
    assert!(message.contains("empty"), "{message}");
    let (_, message) = bad(
        "[[rule]]\nname = \"x\"\ndescription = \"d\"\nregex = 'a'\n[[rule]]\nname = \"x\"\ndescription = \"d\"\nregex = 'b'\n",
    );
    assert!(message.contains("two rules"), "{message}");
    let (_, message) = bad("[[rule]]\nname = \"Big Name\"\ndescription = \"d\"\nregex = 'a'\n");
    assert!(message.contains("lower-case"), "{message}");
    let (rule, _) = bad("[[rule]]\nname = \"x\"\ndescription = \"d\"\nregex = 'a'\nkeep = 3\n");
    assert_eq!(rule, "(file)", "an unknown field is refused");
    let (rule, _) = bad("");
    assert_eq!(rule, "(file)");
}

#[test]
fn a_rule_without_a_secret_group_masks_the_whole_match() {
    let redactor = Redactor::from_toml(
        "[[rule]]\nname = \"pin\"\ndescription = \"d\"\nregex = 'PIN-[0-9]{6}'\n\
         [[rule]]\nname = \"code\"\ndescription = \"d\"\nregex = 'code=(?P<secret>[0-9]{8})'\nignore = '^0+$'\n",
    )
    .unwrap();
    assert_eq!(redactor.redact("a PIN-123456 b"), "a PI…[redacted pin] b");
    assert_eq!(redactor.redact("code=12345678"), "code=12…[redacted code]");
    assert_eq!(redactor.redact("code=00000000"), "code=00000000", "ignored");
}

#[test]
fn an_excerpt_is_one_line_cut_around_the_mask() {
    let text = "line one\nthe quick brown fox jumps over XXXX the lazy dog and more";
    let at = text.find("XXXX").unwrap();
    assert_eq!(excerpt(text, at..at + 4, 10), "…umps over XXXX the lazy …");
    assert_eq!(excerpt(text, at..at + 4, 100), "line one the quick brown fox jumps over XXXX the lazy dog and more");
    assert_eq!(excerpt("XXXX", 0..4, 3), "XXXX");
    assert_eq!(excerpt("ab XXXX cd", 3..7, 0), "…XXXX…");
}

/// A transcript with a secret in every place a transcript has text.
fn transcript_with_secrets() -> Transcript {
    let mut call = ToolCall::running(
        "t1",
        "Bash",
        json!({
            "command": format!("curl -H 'Authorization: Bearer {OPENAI}' x"),
            "env": {"DB_PASSWORD": "Tr0ub4dorX3", "nested": [{"token": "pl41nValue0nly"}]},
            "count": 3,
        }),
    );
    call.complete(Some(format!("remote: {GITHUB}")), false, None);
    let mut sub_call = ToolCall::running("s1", "Read", json!({"path": "/srv/.env"}));
    sub_call.complete(Some("STRIPE_SECRET_KEY=sk_live_9fQ2mZr7Lx4Kp1Vb8Nw3Td6Y".into()), false, None);
    let mut task = ToolCall::running("t2", "Task", json!({"prompt": "look"}));
    task.subagent = vec![Message::new(Role::Assistant).with(Block::ToolCall(sub_call))];
    let mut transcript = Transcript::new(sess_sources::claude::SOURCE, "s");
    transcript.title = Some(format!("set {GITHUB}"));
    transcript.messages = vec![
        Message::new(Role::User)
            .with(Block::text(format!("my key is {OPENAI}")))
            .with(Block::Context { title: format!("t {GITHUB}"), text: format!("c {GITHUB}") }),
        Message::new(Role::Assistant)
            .with(Block::Thinking { text: format!("k {OPENAI}") })
            .with(Block::ToolCall(call))
            .with(Block::ToolCall(task))
            .with(Block::Error { text: format!("401 for {GITHUB}") })
            .with(Block::Summary { text: format!("used {OPENAI}") })
            .with(Block::Image(Image { media_type: None, data: None, url: Some(format!("https://x/?t={GITHUB}")) }))
            .with(Block::Unknown { what: "x".into(), raw: json!({"a": [GITHUB]}) }),
    ];
    transcript
}

#[test]
fn redact_transcript_masks_every_text() {
    let mut transcript = transcript_with_secrets();
    let masked = redactor().redact_transcript(&mut transcript);
    let text = serde_json::to_string(&transcript).unwrap();
    for secret in [OPENAI, GITHUB, "Tr0ub4dorX3", "pl41nValue0nly", "sk_live_9fQ2mZr7Lx4Kp1Vb8Nw3Td6Y"] {
        assert!(!text.contains(secret), "{secret} in {text}");
    }
    assert_eq!(masked, 14);
    assert_eq!(text.matches("…[redacted ").count(), 14, "{text}");
    assert!(text.contains(r#""DB_PASSWORD":"Tr…[redacted assignment]""#), "a key names the value: {text}");
    assert!(text.contains(r#""count":3"#));
    assert_eq!(redactor().redact_transcript(&mut transcript), 0, "nothing left");
}

#[test]
fn a_message_lists_its_secrets_with_places_and_excerpts() {
    let transcript = transcript_with_secrets();
    let found = redactor().find_in_message(&transcript.messages[1]);
    let places: Vec<(&str, &str)> = found.iter().map(|f| (f.place.as_str(), f.rule.as_str())).collect();
    assert_eq!(
        places,
        [
            ("thinking", "openai-key"),
            ("tool Bash input.command", "openai-key"),
            ("tool Bash input.env.DB_PASSWORD", "assignment"),
            ("tool Bash input.env.nested[0].token", "assignment"),
            ("tool Bash result", "github-token"),
            ("tool Task › subagent 1 tool Read result", "stripe-key"),
            ("error", "github-token"),
            ("summary", "openai-key"),
            ("image url", "github-token"),
            ("unknown x.a[0]", "github-token"),
        ]
    );
    assert_eq!(found[1].excerpt, "curl -H 'Authorization: Bearer sk-p…[redacted openai-key]' x");
    assert_eq!(found[4].excerpt, "remote: ghp_…[redacted github-token]");
    assert!(found.iter().all(|f| !f.excerpt.contains(OPENAI) && !f.excerpt.contains(GITHUB)));
}

#[test]
fn an_excerpt_masks_the_other_secrets_near_it() {
    let message = Message::new(Role::User).with(Block::text(format!("{OPENAI} {GITHUB}")));
    let found = redactor().find_in_message(&message);
    assert_eq!(found.len(), 2);
    for finding in &found {
        assert_eq!(finding.excerpt, "sk-p…[redacted openai-key] ghp_…[redacted github-token]");
    }
}

#[test]
fn a_diff_made_before_the_redaction_is_masked_too() {
    let mut call =
        ToolCall::running("e1", "Edit", json!({"file_path": "/srv/.env", "old_string": "A=1", "new_string": "A=1"}));
    call.diffs = vec![sess_sources::FileDiff {
        path: "/srv/.env".into(),
        new_file: false,
        added: 1,
        removed: 0,
        hunks: vec![sess_sources::Hunk {
            old_start: 1,
            old_lines: 0,
            new_start: 1,
            new_lines: 1,
            lines: vec![sess_sources::DiffLine { kind: sess_sources::LineKind::Add, text: format!("KEY={OPENAI}") }],
        }],
    }];
    let mut transcript = Transcript::new(sess_sources::claude::SOURCE, "s");
    transcript.messages = vec![Message::new(Role::Assistant).with(Block::ToolCall(call))];
    assert_eq!(redactor().redact_transcript(&mut transcript), 1);
    let text = serde_json::to_string(&transcript).unwrap();
    assert!(!text.contains(OPENAI), "{text}");
}

/// Issue 26, item 8: a search snippet's pieces are masked as one text, so a
/// secret that a matched word cuts in two is still found.
#[test]
fn pieces_are_masked_as_one_text() {
    let (head, tail) = OPENAI.split_at(8);
    let mut pieces = [format!("key {head}"), tail.to_owned(), " and more".to_owned()];
    let mut refs: Vec<&mut String> = pieces.iter_mut().collect();
    assert_eq!(redactor().redact_pieces(&mut refs), 1);
    assert_eq!(pieces, ["key sk-p…[redacted openai-key]".to_owned(), String::new(), " and more".to_owned()]);
    let mut clean = [String::from("nothing here")];
    assert_eq!(redactor().redact_pieces(&mut clean.iter_mut().collect::<Vec<_>>()), 0);
    assert_eq!(clean[0], "nothing here");
    let found = redactor().find_in_text("title", &format!("deploy with {GITHUB}"));
    assert_eq!(found.len(), 1);
    assert_eq!((found[0].place.as_str(), found[0].rule.as_str()), ("title", "github-token"));
    assert!(!found[0].excerpt.contains(GITHUB));
}
