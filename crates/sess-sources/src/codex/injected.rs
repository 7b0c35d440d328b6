//! Context Codex injects as user messages: the environment, AGENTS.md and
//! skill instructions, notices after an interrupt. It is Codex's `isMeta`; a
//! transcript hides it.

/// The prefixes (ASCII case-insensitive, after leading whitespace) of a user
/// message's text that mark it as injected context. The one list; it follows
/// codex-rs's contextual-message checks.
const INJECTED_PREFIXES: &[&str] = &[
    "<environment_context",
    "<user_instructions>",
    "# AGENTS.md",
    "<permissions instructions>",
    "<skill>",
    "<skills_instructions>",
    "<user_shell_command>",
    "<turn_aborted>",
    "<subagent_notification>",
    "<context_update>",
    "<codex_internal_context",
    "<hook_prompt",
];

/// Whether a user message whose first text is `text` is injected context.
pub(crate) fn is_injected(text: &str) -> bool {
    let text = text.trim_start().as_bytes();
    INJECTED_PREFIXES
        .iter()
        .any(|prefix| text.get(..prefix.len()).is_some_and(|head| head.eq_ignore_ascii_case(prefix.as_bytes())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognizes_injected_context() {
        for text in [
            "<environment_context>\n  <cwd>/x</cwd>\n</environment_context>",
            "  <ENVIRONMENT_CONTEXT>",
            "<user_instructions>be brief</user_instructions>",
            "# AGENTS.md instructions for /home/alice/src\n\n<INSTRUCTIONS>…",
            "<permissions instructions>sandbox</permissions instructions>",
            "<turn_aborted>The user interrupted.</turn_aborted>",
        ] {
            assert!(is_injected(text), "{text}");
        }
        for text in ["Why is this failing?", "", "see <environment_context> below", "#AGENTS.md", "<skills are nice"] {
            assert!(!is_injected(text), "{text}");
        }
    }
}
