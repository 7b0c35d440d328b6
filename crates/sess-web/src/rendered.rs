//! The session page as the API sends it: the Markdown of each message's text
//! rendered once, on the server, by [`sess_export::to_html`], which escapes
//! every piece of the text it does not turn into its own tags (raw HTML
//! included) and lets only `http:`, `https:` and `mailto:` links through.

use serde_json::Value;

use sess::SessionPage;

use crate::{Error, Result};

/// `page` as JSON, where each text block of a user or assistant message (a
/// subagent's too) also has `html`: its Markdown rendered as safe HTML. The
/// text of system messages stays text.
pub(crate) fn page_json(page: &SessionPage) -> Result<Value> {
    let mut value = serde_json::to_value(page).map_err(|e| Error::Failed(Box::new(e)))?;
    if let Some(messages) = value.pointer_mut("/transcript/messages").and_then(Value::as_array_mut) {
        render_messages(messages);
    }
    Ok(value)
}

/// Adds `html` to the text blocks of `messages` and of the subagent turns
/// under their tool calls. Subagents nest a level or two: the recursion is
/// as deep as the transcript's own.
fn render_messages(messages: &mut [Value]) {
    for message in messages {
        let markdown = matches!(message.get("role").and_then(Value::as_str), Some("user" | "assistant"));
        let Some(blocks) = message.get_mut("blocks").and_then(Value::as_array_mut) else { continue };
        for block in blocks {
            match block.get("type").and_then(Value::as_str) {
                Some("text") if markdown => {
                    let html = block.get("text").and_then(Value::as_str).map(sess_export::to_html);
                    if let (Some(html), Some(object)) = (html, block.as_object_mut()) {
                        object.insert("html".to_owned(), Value::String(html));
                    }
                }
                Some("tool_call") => {
                    if let Some(turns) = block.get_mut("subagent").and_then(Value::as_array_mut) {
                        render_messages(turns);
                    }
                }
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use sess_sources::{Block, Message, Role, ToolCall, Transcript};

    use super::*;
    use sess::SessionCard;

    #[test]
    fn user_assistant_and_subagent_texts_get_html_system_texts_do_not() {
        let mut task = ToolCall::running("t", "Task", json!({}));
        task.subagent = vec![Message::new(Role::User).with(Block::text("*sub*"))];
        let mut transcript = Transcript::new(sess_sources::claude::SOURCE, "c1");
        transcript.messages = vec![
            Message::new(Role::User).with(Block::text("<script>x</script>")),
            Message::new(Role::Assistant)
                .with(Block::Thinking { text: "*not rendered*".into() })
                .with(Block::ToolCall(task))
                .with(Block::text("**done**")),
            Message::new(Role::System).with(Block::text("*as is*")),
        ];
        let page = SessionPage {
            session: SessionCard {
                id: "1".into(),
                source: sess_sources::claude::SOURCE,
                session_id: "c1".into(),
                title: None,
                cwd: None,
                created: None,
                modified_ms: 0,
                message_count: 3,
                forkable: false,
                store: None,
                machine: None,
                original: None,
                restore_command: None,
                state: None,
            },
            transcript,
            tree: Vec::new(),
            leaf: None,
            usage: None,
            resume: None,
        };
        let value = page_json(&page).unwrap();
        let messages = &value["transcript"]["messages"];
        assert_eq!(messages[0]["blocks"][0]["html"], "<p class=\"md-html\">&lt;script&gt;x&lt;/script&gt;</p>\n");
        assert_eq!(messages[1]["blocks"][0].get("html"), None, "thinking stays text");
        assert_eq!(messages[1]["blocks"][1]["subagent"][0]["blocks"][0]["html"], "<p><em>sub</em></p>\n");
        assert_eq!(messages[1]["blocks"][2]["html"], "<p><strong>done</strong></p>\n");
        assert_eq!(messages[2]["blocks"][0], json!({"type": "text", "text": "*as is*"}));
        // Everything else is the page as it serializes.
        let mut plain = value.clone();
        for path in [
            "/transcript/messages/0/blocks/0",
            "/transcript/messages/1/blocks/2",
            "/transcript/messages/1/blocks/1/subagent/0/blocks/0",
        ] {
            plain.pointer_mut(path).unwrap().as_object_mut().unwrap().remove("html");
        }
        assert_eq!(plain, serde_json::to_value(&page).unwrap());
    }
}
