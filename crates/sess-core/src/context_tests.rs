use super::*;
use crate::entry::Entry;
use pretty_assertions::assert_eq;
use serde_json::json;

/// Builds entries from `(id, parent, body)` where body holds the type-specific keys.
fn session(specs: &[(&str, Option<&str>, Value)]) -> Vec<Entry> {
    specs
        .iter()
        .map(|(id, parent, body)| {
            let mut object = serde_json::Map::new();
            object.insert("type".into(), body["type"].clone());
            object.insert("id".into(), (*id).into());
            object.insert("parentId".into(), parent.map_or(Value::Null, Into::into));
            object.insert("timestamp".into(), "2026-01-01T00:00:01.000Z".into());
            for (k, v) in body.as_object().unwrap() {
                if k != "type" {
                    object.insert(k.clone(), v.clone());
                }
            }
            Entry::parse(&Value::Object(object).to_string()).unwrap()
        })
        .collect()
}

fn user(text: &str) -> Value {
    json!({"type":"message","message":{"role":"user","content":text}})
}

fn assistant(text: &str, provider: &str, model: &str) -> Value {
    json!({"type":"message","message":{"role":"assistant","content":text,"provider":provider,"model":model}})
}

fn ctx(entries: &[Entry], leaf: Leaf<'_>) -> Value {
    let index = EntryIndex::new(entries);
    serde_json::to_value(build(entries, &index, leaf)).unwrap()
}

fn contents(context: &Value) -> Vec<String> {
    context["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| match m["role"].as_str().unwrap() {
            "compactionSummary" | "branchSummary" => {
                format!("{}:{}", m["role"].as_str().unwrap(), m["summary"].as_str().unwrap())
            }
            "custom" => format!("custom:{}", m["content"].as_str().unwrap()),
            _ => m["content"].as_str().unwrap().to_owned(),
        })
        .collect()
}

#[test]
fn null_leaf_gives_the_empty_context() {
    let entries = session(&[("a", None, user("hi"))]);
    assert_eq!(
        ctx(&entries, Leaf::None),
        json!({"messages":[],"thinkingLevel":"off","models":{},"injectedTtsrRules":[],"selectedMCPToolNames":[],"hasPersistedMCPToolSelection":false,"mode":"none"})
    );
    assert_eq!(ctx(&[], Leaf::Last)["messages"], json!([]));
}

#[test]
fn unknown_or_empty_leaf_falls_back_to_the_last_entry() {
    let entries = session(&[("a", None, user("one")), ("b", Some("a"), user("two")), ("c", Some("a"), user("three"))]);
    assert_eq!(contents(&ctx(&entries, Leaf::Id("nope"))), ["one", "three"]);
    assert_eq!(contents(&ctx(&entries, Leaf::Id(""))), ["one", "three"]);
    assert_eq!(contents(&ctx(&entries, Leaf::Id("b"))), ["one", "two"]);
}

#[test]
fn thinking_level_takes_the_last_change_and_null_means_off() {
    let entries = session(&[
        ("a", None, json!({"type":"thinking_level_change","thinkingLevel":"high"})),
        ("b", Some("a"), json!({"type":"thinking_level_change","thinkingLevel":"low"})),
        ("c", Some("b"), json!({"type":"thinking_level_change","thinkingLevel":null})),
    ]);
    assert_eq!(ctx(&entries, Leaf::Id("b"))["thinkingLevel"], "low");
    assert_eq!(ctx(&entries, Leaf::Id("c"))["thinkingLevel"], "off");
}

#[test]
fn an_explicit_model_change_wins_over_assistant_messages() {
    let entries = session(&[
        ("a", None, json!({"type":"model_change","model":"openai/gpt-4o"})),
        ("b", Some("a"), assistant("x", "anthropic", "claude")),
        ("c", Some("b"), json!({"type":"model_change","model":"a/small","role":"smol"})),
    ]);
    assert_eq!(ctx(&entries, Leaf::Last)["models"], json!({"default":"openai/gpt-4o","smol":"a/small"}));
}

#[test]
fn an_assistant_message_fills_a_missing_default() {
    let entries = session(&[
        ("a", None, assistant("x", "anthropic", "claude-1")),
        ("b", Some("a"), json!({"type":"model_change","model":"a/small","role":"smol"})),
        ("c", Some("b"), assistant("y", "anthropic", "claude-2")),
    ]);
    assert_eq!(ctx(&entries, Leaf::Last)["models"], json!({"smol":"a/small","default":"anthropic/claude-2"}));
}

#[test]
fn pi_mono_model_changes_set_the_default_role() {
    let entries = session(&[("a", None, json!({"type":"model_change","provider":"openai","modelId":"gpt-4o"}))]);
    assert_eq!(ctx(&entries, Leaf::Last)["models"], json!({"default":"openai/gpt-4o"}));
}

#[test]
fn compaction_emits_summary_then_kept_then_later_entries() {
    let entries = session(&[
        ("u1", None, user("one")),
        ("u2", Some("u1"), user("two")),
        ("u3", Some("u2"), user("three")),
        ("k", Some("u3"), json!({"type":"compaction","summary":"S","firstKeptEntryId":"u2","tokensBefore":10})),
        ("u4", Some("k"), user("four")),
    ]);
    let context = ctx(&entries, Leaf::Last);
    assert_eq!(contents(&context), ["compactionSummary:S", "two", "three", "four"]);
    assert_eq!(
        context["messages"][0],
        json!({"role":"compactionSummary","summary":"S","tokensBefore":10,"timestamp":1_767_225_601_000_i64})
    );
}

#[test]
fn only_the_newest_compaction_counts() {
    let entries = session(&[
        ("u1", None, user("one")),
        ("k1", Some("u1"), json!({"type":"compaction","summary":"old","firstKeptEntryId":"u1"})),
        ("u2", Some("k1"), user("two")),
        ("k2", Some("u2"), json!({"type":"compaction","summary":"new","firstKeptEntryId":"u2","shortSummary":"n"})),
        ("u3", Some("k2"), user("three")),
    ]);
    let context = ctx(&entries, Leaf::Last);
    assert_eq!(contents(&context), ["compactionSummary:new", "two", "three"]);
    assert_eq!(context["messages"][0]["shortSummary"], "n");
}

#[test]
fn a_first_kept_id_off_the_path_keeps_nothing_before_the_compaction() {
    let entries = session(&[
        ("u1", None, user("one")),
        ("k", Some("u1"), json!({"type":"compaction","summary":"S","firstKeptEntryId":"elsewhere"})),
        ("u2", Some("k"), user("two")),
    ]);
    assert_eq!(contents(&ctx(&entries, Leaf::Last)), ["compactionSummary:S", "two"]);
}

#[test]
fn a_remote_compaction_replaces_the_kept_messages() {
    let entries = session(&[
        ("u1", None, user("one")),
        (
            "k",
            Some("u1"),
            json!({"type":"compaction","summary":"S","firstKeptEntryId":"u1","preserveData":{"openaiRemoteCompaction":{"provider":"openai","replacementHistory":[{"x":1}]}}}),
        ),
        ("u2", Some("k"), user("two")),
    ]);
    let context = ctx(&entries, Leaf::Last);
    assert_eq!(contents(&context), ["compactionSummary:S", "two"]);
    assert_eq!(
        context["messages"][0]["providerPayload"],
        json!({"type":"openaiResponsesHistory","provider":"openai","items":[{"x":1}]})
    );
}

#[test]
fn branch_summaries_join_when_they_have_a_summary() {
    let entries = session(&[
        ("u1", None, user("one")),
        ("b1", Some("u1"), json!({"type":"branch_summary","fromId":"u1","summary":"left"})),
        ("b2", Some("b1"), json!({"type":"branch_summary","fromId":"root","summary":""})),
    ]);
    let context = ctx(&entries, Leaf::Last);
    assert_eq!(contents(&context), ["one", "branchSummary:left"]);
    assert_eq!(
        context["messages"][1],
        json!({"role":"branchSummary","summary":"left","fromId":"u1","timestamp":1_767_225_601_000_i64})
    );
}

#[test]
fn custom_messages_carry_only_the_fields_they_have() {
    let entries = session(&[
        ("c1", None, json!({"type":"custom_message","customType":"ext","content":"hello","display":true})),
        (
            "c2",
            Some("c1"),
            json!({"type":"custom_message","customType":"ext","content":"again","display":false,"details":{"d":1},"attribution":"agent"}),
        ),
    ]);
    let context = ctx(&entries, Leaf::Last);
    assert_eq!(
        context["messages"],
        json!([
            {"role":"custom","customType":"ext","content":"hello","display":true,"timestamp":1_767_225_601_000_i64},
            {"role":"custom","customType":"ext","content":"again","display":false,"details":{"d":1},"attribution":"agent","timestamp":1_767_225_601_000_i64},
        ])
    );
}

#[test]
fn bookkeeping_entries_add_no_messages() {
    let entries = session(&[
        ("a", None, user("one")),
        ("b", Some("a"), json!({"type":"custom","customType":"ext","data":{}})),
        ("c", Some("b"), json!({"type":"label","targetId":"a","label":"x"})),
        ("d", Some("c"), json!({"type":"session_init","systemPrompt":"p","task":"t","tools":[]})),
        ("e", Some("d"), json!({"type":"session_info","name":"n"})),
        ("f", Some("e"), json!({"type":"future_kind","whatever":1})),
    ]);
    assert_eq!(contents(&ctx(&entries, Leaf::Last)), ["one"]);
}

#[test]
fn xcsh_state_is_derived_from_the_path() {
    let entries = session(&[
        ("a", None, json!({"type":"ttsr_injection","injectedRules":["r1","r2"]})),
        ("b", Some("a"), json!({"type":"ttsr_injection","injectedRules":["r2","r3"]})),
        ("c", Some("b"), json!({"type":"mode_change","mode":"plan","data":{"planFile":"p.md"}})),
        ("d", Some("c"), json!({"type":"mcp_tool_selection","selectedToolNames":["t"]})),
        ("e", Some("d"), json!({"type":"context_change","contextName":"ctx","tenant":"ten","namespace":"ns"})),
        ("f", Some("e"), json!({"type":"service_tier_change","serviceTier":"flex"})),
    ]);
    assert_eq!(
        ctx(&entries, Leaf::Last),
        json!({
            "messages": [],
            "thinkingLevel": "off",
            "serviceTier": "flex",
            "models": {},
            "activeContextName": "ctx",
            "activeContextTenant": "ten",
            "injectedTtsrRules": ["r1", "r2", "r3"],
            "selectedMCPToolNames": ["t"],
            "hasPersistedMCPToolSelection": true,
            "mode": "plan",
            "modeData": {"planFile": "p.md"},
        })
    );
}

#[test]
fn orphans_start_their_own_path() {
    let entries =
        session(&[("a", None, user("one")), ("b", Some("gone"), user("two")), ("c", Some("b"), user("three"))]);
    assert_eq!(contents(&ctx(&entries, Leaf::Last)), ["two", "three"]);
}

#[test]
fn a_parent_loop_is_cut_and_reported() {
    let entries =
        session(&[("a", Some("c"), user("one")), ("b", Some("a"), user("two")), ("c", Some("b"), user("three"))]);
    let index = EntryIndex::new(&entries);
    let context = build(&entries, &index, Leaf::Last);
    assert_eq!(context.cycle_at.as_ref().map(EntryId::as_str), Some("a"));
    assert_eq!(context.messages.len(), 3);
}

#[test]
fn stored_messages_pass_through_byte_for_byte() {
    let line = r#"{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"user","content":"\u00e9 1.0","n":1.0}}"#;
    let entries = vec![Entry::parse(line).unwrap()];
    let index = EntryIndex::new(&entries);
    let text = serde_json::to_string(&build(&entries, &index, Leaf::Last).messages).unwrap();
    assert_eq!(text, r#"[{"role":"user","content":"\u00e9 1.0","n":1.0}]"#);
}

fn assistant_blocks(text: &str) -> Value {
    json!({"type":"message","message":{"role":"assistant","content":[{"type":"text","text":text}]}})
}

fn tool_result(text: &str) -> Value {
    json!({"type":"message","message":{"role":"toolResult","toolCallId":"c1","content":[{"type":"text","text":text}]}})
}

fn edit(target: &str, replacement: Value) -> Value {
    let mut entry = json!({"type":"context_edit","targetId":target});
    entry["replacement"] = replacement;
    entry
}

#[test]
fn a_context_edit_replaces_the_content_of_its_target_the_newest_winning() {
    let entries = session(&[
        ("u", None, user("read it")),
        ("r", Some("u"), tool_result("a very long output")),
        ("e1", Some("r"), edit("r", json!({"content":"first"}))),
        ("e2", Some("e1"), edit("r", json!({"content":"[trimmed]"}))),
        ("e3", Some("e2"), edit("u", json!({"content":"read it, briefly"}))),
    ]);
    let context = ctx(&entries, Leaf::Last);
    // A string replacing a tool result's content becomes one text block; a
    // user message's stays a string.
    assert_eq!(
        context["messages"],
        json!([
            {"role":"user","content":"read it, briefly"},
            {"role":"toolResult","toolCallId":"c1","content":[{"type":"text","text":"[trimmed]"}]},
        ])
    );
    // Before the edits, and at the first one.
    assert_eq!(context_text(&ctx(&entries, Leaf::Id("r")), 1), "a very long output");
    assert_eq!(context_text(&ctx(&entries, Leaf::Id("e1")), 1), "first");
}

fn context_text(context: &Value, at: usize) -> String {
    context["messages"][at]["content"][0]["text"].as_str().unwrap().to_owned()
}

#[test]
fn a_null_edit_drops_its_target_and_an_edit_on_another_branch_does_not_count() {
    let entries = session(&[
        ("u", None, user("one")),
        ("a", Some("u"), assistant_blocks("two")),
        ("c", Some("a"), json!({"type":"custom_message","customType":"ext","content":"note","display":true})),
        ("e1", Some("c"), edit("a", Value::Null)),
        ("e2", Some("e1"), edit("c", json!({"content":[{"type":"text","text":"short"}]}))),
        // A sibling branch under `c` edits `u`; the main path does not see it.
        ("x", Some("c"), edit("u", Value::Null)),
    ]);
    let context = ctx(&entries, Leaf::Id("e2"));
    assert_eq!(
        context["messages"],
        json!([
            {"role":"user","content":"one"},
            {"role":"custom","customType":"ext","content":[{"type":"text","text":"short"}],"display":true,"timestamp":1_767_225_601_000_i64},
        ])
    );
    assert_eq!(context["messages"].as_array().unwrap().len(), 2);
    let other = ctx(&entries, Leaf::Id("x"));
    assert_eq!(other["messages"].as_array().unwrap().len(), 2, "{other}");
    assert_eq!(other["messages"][0]["role"], "assistant");
}

#[test]
fn an_edit_counts_only_among_the_entries_the_context_is_made_of() {
    // An edit that a compaction summarized away no longer applies to a kept entry.
    let entries = session(&[
        ("u1", None, user("one")),
        ("e", Some("u1"), edit("u2", json!({"content":"never seen"}))),
        ("u2", Some("e"), user("two")),
        ("k", Some("u2"), json!({"type":"compaction","summary":"S","firstKeptEntryId":"u2","tokensBefore":1})),
        ("e2", Some("k"), edit("u2", json!({"content":"edited after"}))),
    ]);
    assert_eq!(contents(&ctx(&entries, Leaf::Id("k"))), ["compactionSummary:S", "two"]);
    assert_eq!(contents(&ctx(&entries, Leaf::Id("e2"))), ["compactionSummary:S", "edited after"]);
}

#[test]
fn a_compaction_brings_back_its_system_message_before_the_summary() {
    let system = json!({"role":"system","content":"You are terse.","timestamp":5});
    let entries = session(&[
        ("s", None, json!({"type":"message","message":system})),
        ("u1", Some("s"), user("one")),
        (
            "k",
            Some("u1"),
            json!({"type":"compaction","summary":"S","firstKeptEntryId":"s","tokensBefore":1,"systemMessage":system}),
        ),
        ("u2", Some("k"), user("two")),
    ]);
    let context = ctx(&entries, Leaf::Last);
    // The kept range starts at the system message, which is left out there:
    // the compaction's copy stands first.
    assert_eq!(context["messages"][0], system);
    assert_eq!(contents(&context)[1..], ["compactionSummary:S", "one", "two"]);
    // A null system message adds nothing.
    let entries = session(&[
        ("u1", None, user("one")),
        ("k", Some("u1"), json!({"type":"compaction","summary":"S","firstKeptEntryId":"u1","systemMessage":null})),
    ]);
    assert_eq!(contents(&ctx(&entries, Leaf::Last)), ["compactionSummary:S", "one"]);
}

#[test]
fn messages_without_content_get_the_content_pi_gives_them() {
    let entries = session(&[
        ("u", None, json!({"type":"message","message":{"role":"user","content":null}})),
        ("a", Some("u"), json!({"type":"message","message":{"role":"assistant","timestamp":1}})),
        ("s", Some("a"), json!({"type":"message","message":{"role":"system","content":null}})),
        ("c", Some("s"), json!({"type":"custom_message","customType":"ext","display":false})),
    ]);
    assert_eq!(
        ctx(&entries, Leaf::Last)["messages"],
        json!([
            {"role":"user","content":[]},
            {"role":"assistant","timestamp":1,"content":[]},
            {"role":"system","content":""},
            {"role":"custom","customType":"ext","content":[],"display":false,"timestamp":1_767_225_601_000_i64},
        ])
    );
}

#[test]
fn a_reset_boundary_starts_the_context_after_it_unless_a_compaction_follows() {
    let entries = session(&[
        ("u1", None, user("one")),
        ("r", Some("u1"), json!({"type":"reset_boundary"})),
        ("u2", Some("r"), user("two")),
        ("k", Some("u2"), json!({"type":"compaction","summary":"S","firstKeptEntryId":"u1"})),
        ("u3", Some("k"), user("three")),
        ("r2", Some("u3"), json!({"type":"reset_boundary"})),
        ("u4", Some("r2"), user("four")),
    ]);
    assert!(contents(&ctx(&entries, Leaf::Id("r"))).is_empty());
    assert_eq!(contents(&ctx(&entries, Leaf::Id("u2"))), ["two"]);
    // The compaction after the first boundary wins over it: its kept range
    // reaches back before the boundary.
    assert_eq!(contents(&ctx(&entries, Leaf::Id("u3"))), ["compactionSummary:S", "one", "two", "three"]);
    // A boundary after the compaction hides the summary too.
    assert_eq!(contents(&ctx(&entries, Leaf::Last)), ["four"]);
}

#[test]
fn the_summary_carries_oh_my_pis_fields_in_its_order() {
    let entries = session(&[(
        "k",
        None,
        json!({"type":"compaction","summary":"S","shortSummary":"s","firstKeptEntryId":"k","tokensBefore":9,"tokensAfter":3,"method":"snapcompact","warning":"w"}),
    )]);
    let summary = &ctx(&entries, Leaf::Last)["messages"][0];
    let keys: Vec<&String> = summary.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        ["role", "summary", "shortSummary", "tokensBefore", "tokensAfter", "method", "warning", "timestamp"]
    );
}

#[test]
fn an_anthropic_compaction_with_an_empty_first_kept_id_keeps_what_follows_its_replay() {
    let preserve = json!({"anthropicCompaction":{"provider":"anthropic","content":"native summary","model":"m"}});
    let entries = session(&[
        ("u1", None, user("one")),
        ("u2", Some("u1"), user("two")),
        ("u3", Some("u2"), user("three")),
        (
            "k",
            Some("u3"),
            json!({"type":"compaction","summary":"S","firstKeptEntryId":"","tokensBefore":1,"preserveData":preserve,"providerReplayThroughEntryId":"u1"}),
        ),
        ("u4", Some("k"), user("four")),
    ]);
    let context = ctx(&entries, Leaf::Last);
    assert_eq!(contents(&context), ["compactionSummary:S", "two", "three", "four"]);
    assert_eq!(
        context["messages"][0]["providerPayload"],
        json!({"type":"anthropicCompaction","provider":"anthropic","content":"native summary"})
    );
    // The history before the first kept entry was rewritten just before it.
    assert_eq!(context["messages"][0]["historyRewriteAt"], 1_767_225_600_999_i64);
}

#[test]
fn a_remote_compaction_keeps_the_entries_after_its_replay() {
    let preserve = json!({"openaiRemoteCompaction":{"provider":"openai","replacementHistory":[{"x":1}]}});
    let entries = session(&[
        ("u1", None, user("one")),
        ("u2", Some("u1"), user("two")),
        (
            "k",
            Some("u2"),
            json!({"type":"compaction","summary":"S","firstKeptEntryId":"u1","preserveData":preserve,"providerReplayThroughEntryId":"u1"}),
        ),
    ]);
    assert_eq!(contents(&ctx(&entries, Leaf::Last)), ["compactionSummary:S", "two"]);
}

#[test]
fn a_session_init_keeps_its_compaction_threshold_and_adds_no_message() {
    let threshold = json!({"thresholdPercent": 80, "thresholdTokens": 150_000});
    let entries = session(&[
        (
            "i",
            None,
            json!({"type":"session_init","systemPrompt":"p","task":"t","tools":[],"compactionThreshold":threshold}),
        ),
        ("u", Some("i"), user("go")),
    ]);
    let EntryKind::SessionInit(init) = entries[0].kind() else { panic!("{:?}", entries[0].kind()) };
    assert_eq!(init.compaction_threshold.as_ref().map(|t| t.decode::<Value>().unwrap()), Some(threshold));
    assert_eq!(contents(&ctx(&entries, Leaf::Last)), ["go"]);
}
