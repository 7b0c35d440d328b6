//! The parts of a Qwen Code message (the Gemini API's `Part`s) as blocks:
//! text, thoughts, inline images, the files a prompt references and the
//! context a hook added.

use serde_json::Value;

use crate::transcript::{Block, Image};

/// The part that opens the files a prompt references (`@file`).
const REFERENCED_START: &str = "\n--- Content from referenced files ---";
/// The part that closes them.
const REFERENCED_END: &str = "\n--- End of content ---";
/// The tags around context a `UserPromptSubmit` hook added to a prompt.
const HOOK_OPEN: &str = "<qwen:user-prompt-submit-context>";
const HOOK_CLOSE: &str = "</qwen:user-prompt-submit-context>";

/// The blocks of a prompt's parts. The prompt's text comes first; the files
/// it references (`@file`) are one `context` block titled "Referenced files",
/// their images `image` blocks after it; a hook's context (the last part) is a
/// `context` block titled "Hook context". `display_text`, the text the user
/// typed when the CLI recorded it apart from the parts, replaces the parts'
/// text when a hook added context.
pub(super) fn prompt_blocks(parts: &[Value], display_text: Option<&str>) -> Vec<Block> {
    let hook = parts.last().filter(|_| parts.len() > 1).and_then(|p| p.get("text")?.as_str()).and_then(hook_context);
    let parts = if hook.is_some() { &parts[..parts.len() - 1] } else { parts };
    let mut blocks = Vec::new();
    let mut referenced: Option<Vec<&str>> = None;
    let mut images = Vec::new();
    let replace_text = hook.is_some() && display_text.is_some();
    if let Some(text) = display_text.filter(|_| replace_text) {
        blocks.push(Block::text(text));
    }
    for part in parts {
        let text = part.get("text").and_then(Value::as_str);
        if referenced.is_none() && text == Some(REFERENCED_START) {
            referenced = Some(Vec::new());
            continue;
        }
        if referenced.is_some() && text == Some(REFERENCED_END) {
            close_referenced(&mut referenced, &mut images, &mut blocks);
            continue;
        }
        if let (Some(text), Some(texts)) = (text, referenced.as_mut()) {
            texts.push(text);
            continue;
        }
        if text.is_some() && replace_text {
            continue;
        }
        match part_block(part) {
            Some(Block::Image(image)) if referenced.is_some() => images.push(Block::Image(image)),
            Some(block) => blocks.push(block),
            None => {}
        }
    }
    close_referenced(&mut referenced, &mut images, &mut blocks);
    if let Some(text) = hook {
        blocks.push(Block::Context { title: "Hook context".to_owned(), text: text.to_owned() });
    }
    blocks
}

/// Ends the files a prompt references: their text as one block, then their
/// images.
fn close_referenced(referenced: &mut Option<Vec<&str>>, images: &mut Vec<Block>, blocks: &mut Vec<Block>) {
    if let Some(texts) = referenced.take() {
        let text = texts.concat().trim().to_owned();
        if !text.is_empty() {
            blocks.push(Block::Context { title: "Referenced files".to_owned(), text });
        }
    }
    blocks.append(images);
}

/// The text inside the hook-context tags, when `text` is only that.
fn hook_context(text: &str) -> Option<&str> {
    let body = text.trim().strip_prefix(HOOK_OPEN)?.strip_suffix(HOOK_CLOSE)?;
    (!body.contains(HOOK_OPEN) && !body.contains(HOOK_CLOSE)).then(|| body.trim_matches('\n'))
}

/// The block of one part that is neither a function call nor a response:
/// `text` (a `thought` is thinking; blank text is nothing), `inlineData` and
/// image `fileData` (images); any other part is kept as `unknown`, an empty
/// one is nothing.
pub(super) fn part_block(part: &Value) -> Option<Block> {
    let map = part.as_object()?;
    if let Some(text) = map.get("text").and_then(Value::as_str) {
        if text.trim().is_empty() {
            return None;
        }
        let thought = map.get("thought").is_some_and(crate::jsonl::is_truthy);
        return Some(if thought { Block::Thinking { text: text.to_owned() } } else { Block::text(text) });
    }
    let str_of = |value: &Value, key: &str| value.get(key).and_then(Value::as_str).map(str::to_owned);
    if let Some(data) = map.get("inlineData").filter(|d| d.is_object()) {
        let media_type = str_of(data, "mimeType");
        if media_type.as_deref().is_none_or(|m| m.starts_with("image/")) {
            return Some(Block::Image(Image { media_type, data: str_of(data, "data"), url: None }));
        }
    }
    if let Some(file) = map.get("fileData").filter(|d| d.is_object()) {
        let media_type = str_of(file, "mimeType");
        if media_type.as_deref().is_none_or(|m| m.starts_with("image/")) {
            return Some(Block::Image(Image { media_type, data: None, url: str_of(file, "fileUri") }));
        }
    }
    let what = map.keys().find(|k| k.as_str() != "thoughtSignature")?;
    Some(Block::Unknown { what: what.clone(), raw: part.clone() })
}

/// The text a function response carries: its `output`, else its `error`
/// (strings as written, other values as JSON), else the whole response as
/// JSON.
pub(super) fn response_text(response: Option<&Value>) -> Option<String> {
    let response = response?;
    let text = |value: &Value| match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    };
    match response.get("output").or_else(|| response.get("error")) {
        Some(value) => Some(text(value)),
        None if response.is_null() => None,
        None => Some(text(response)),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn texts(blocks: &[Block]) -> Vec<String> {
        blocks
            .iter()
            .map(|b| match b {
                Block::Text { text } => format!("text:{text}"),
                Block::Context { title, text } => format!("context:{title}:{text}"),
                Block::Image(image) => format!("image:{}", image.media_type.as_deref().unwrap_or("?")),
                other => other.kind().to_owned(),
            })
            .collect()
    }

    #[test]
    fn referenced_files_are_context_and_their_images_follow() {
        let parts = json!([
            {"text": "What is in @dot.png ?"},
            {"text": REFERENCED_START},
            {"text": "\nContent from dot.png:\n"},
            {"text": "Image overview: 1x1."},
            {"inlineData": {"data": "AAAA", "mimeType": "image/jpeg", "displayName": "dot.png"}},
            {"text": REFERENCED_END},
        ]);
        let blocks = prompt_blocks(parts.as_array().unwrap(), None);
        assert_eq!(
            texts(&blocks),
            [
                "text:What is in @dot.png ?",
                "context:Referenced files:Content from dot.png:\nImage overview: 1x1.",
                "image:image/jpeg"
            ]
        );
    }

    #[test]
    fn a_hook_context_part_is_context_and_the_display_text_is_the_prompt() {
        let parts = json!([
            {"text": "fix it\n\nexpanded by the CLI"},
            {"text": format!("{HOOK_OPEN}\nbranch: main\n{HOOK_CLOSE}")},
        ]);
        let blocks = prompt_blocks(parts.as_array().unwrap(), Some("fix it"));
        assert_eq!(texts(&blocks), ["text:fix it", "context:Hook context:branch: main"]);
        // Without a hook, the parts are the prompt.
        let blocks = prompt_blocks(&parts.as_array().unwrap()[..1], Some("fix it"));
        assert_eq!(texts(&blocks), ["text:fix it\n\nexpanded by the CLI"]);
    }

    #[test]
    fn parts_as_blocks() {
        assert_eq!(part_block(&json!({"text": "  "})), None);
        assert_eq!(part_block(&json!({"text": "hm", "thought": true})), Some(Block::Thinking { text: "hm".into() }));
        assert_eq!(part_block(&json!({})), None);
        assert_eq!(part_block(&json!({"thoughtSignature": "x"})), None);
        let code = json!({"executableCode": {"code": "1+1"}});
        assert_eq!(part_block(&code), Some(Block::Unknown { what: "executableCode".into(), raw: code.clone() }));
        let file = json!({"fileData": {"mimeType": "image/png", "fileUri": "gs://b/x.png"}});
        assert!(matches!(part_block(&file), Some(Block::Image(Image { url: Some(u), .. })) if u == "gs://b/x.png"));
    }

    #[test]
    fn response_texts() {
        assert_eq!(response_text(Some(&json!({"output": "hi"}))).as_deref(), Some("hi"));
        assert_eq!(response_text(Some(&json!({"error": "no such file"}))).as_deref(), Some("no such file"));
        assert_eq!(response_text(Some(&json!({"content": [1]}))).as_deref(), Some("{\"content\":[1]}"));
        assert_eq!(response_text(None), None);
    }
}
