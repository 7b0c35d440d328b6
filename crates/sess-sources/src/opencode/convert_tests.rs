use serde_json::json;

use super::*;

fn message(id: &str, created: i64, data: Value, parts: Vec<Value>) -> RawMessage {
    let parts = parts.into_iter().enumerate().map(|(i, data)| RawPart { id: format!("prt_{id}_{i}"), data }).collect();
    RawMessage { id: id.to_owned(), created, data, parts }
}

fn user(id: &str, parts: Vec<Value>) -> RawMessage {
    message(id, 1, json!({"role": "user"}), parts)
}

fn assistant(id: &str, parts: Vec<Value>) -> RawMessage {
    message(id, 2, json!({"role": "assistant", "parentID": "msg_u"}), parts)
}

fn text(text: &str) -> Value {
    json!({"type": "text", "text": text})
}

fn no_children(_: &str) -> Option<Vec<RawMessage>> {
    None
}

fn convert(session: &SessionRecord, messages: &[RawMessage]) -> Vec<Message> {
    Reader { agent: "OpenCode", child: &no_children }.messages(session, messages)
}

/// `role: kind[:text]` of every block, one string per message.
fn shape(messages: &[Message]) -> Vec<String> {
    messages
        .iter()
        .map(|m| {
            let blocks: Vec<String> = m
                .blocks
                .iter()
                .map(|b| match b {
                    Block::Text { text }
                    | Block::Thinking { text }
                    | Block::Summary { text }
                    | Block::Error { text } => {
                        format!("{}:{text}", b.kind())
                    }
                    Block::Context { title, text } => format!("context:{title}:{text}"),
                    Block::ToolCall(call) => format!("tool:{}:{}", call.name, call.status.as_str()),
                    Block::Image(image) => format!("image:{}", image.media_type.as_deref().unwrap_or("?")),
                    Block::Unknown { what, .. } => format!("unknown:{what}"),
                })
                .collect();
            format!("{}: {}", m.role.as_str(), blocks.join(" | "))
        })
        .collect()
}

#[test]
fn the_steps_of_a_turn_are_one_bubble() {
    let messages = [
        user("msg_1", vec![text("do it")]),
        assistant(
            "msg_2",
            vec![
                json!({"type": "step-start"}),
                json!({"type": "reasoning", "text": "plan"}),
                json!({"type": "tool", "tool": "bash", "callID": "c1", "state": {
                "status": "completed", "input": {"command": "ls"}, "output": "a\n",
                "time": {"start": 1000, "end": 2000}}}),
                json!({"type": "step-finish", "reason": "tool-calls"}),
            ],
        ),
        assistant(
            "msg_3",
            vec![
                json!({"type": "tool", "tool": "read", "callID": "c2", "state": {
                "status": "error", "input": {"filePath": "/x"}, "error": "File not found: /x",
                "time": {"start": 3000, "end": 4000}}}),
                json!({"type": "patch", "hash": "h", "files": ["/x"]}),
            ],
        ),
        assistant("msg_4", vec![text(""), text("done")]),
        user("msg_5", vec![text("again")]),
        assistant("msg_6", vec![text("ok")]),
    ];
    let out = convert(&SessionRecord::default(), &messages);
    assert_eq!(
        shape(&out),
        [
            "user: text:do it",
            "assistant: thinking:plan | tool:bash:succeeded | tool:read:failed | text:done",
            "user: text:again",
            "assistant: text:ok",
        ]
    );
    assert_eq!(out[1].id.as_deref(), Some("msg_2"), "the bubble opens at the first step");
    let Block::ToolCall(call) = &out[1].blocks[1] else { panic!() };
    assert_eq!((call.id.as_str(), call.input.clone()), ("c1", json!({"command": "ls"})));
    assert_eq!(call.result.as_deref(), Some("a\n"));
    assert_eq!(call.started_at.as_deref(), Some("1970-01-01T00:00:01.000Z"));
    assert_eq!(call.ended_at.as_deref(), Some("1970-01-01T00:00:02.000Z"));
    let Block::ToolCall(failed) = &out[1].blocks[2] else { panic!() };
    assert_eq!(failed.result.as_deref(), Some("File not found: /x"));
}

#[test]
fn calls_left_running_are_pending_at_the_end() {
    let messages = [assistant(
        "msg_1",
        vec![
            json!({"type": "tool", "tool": "bash", "callID": "c", "state": {"status": "running", "input": {}, "time": {"start": 5}}}),
            json!({"type": "tool", "tool": "bash", "callID": "d", "state": {"status": "pending", "input": {}, "raw": ""}}),
        ],
    )];
    assert_eq!(
        shape(&convert(&SessionRecord::default(), &messages)),
        ["assistant: tool:bash:pending | tool:bash:pending"]
    );
}

#[test]
fn text_opencode_added_is_context_and_images_keep_their_data() {
    let messages = [user(
        "msg_1",
        vec![
            json!({"type": "text", "synthetic": true, "text": "Called the Read tool with the following input: {}"}),
            json!({"type": "file", "mime": "image/png", "filename": "dot.png", "url": "data:image/png;base64,AAAA"}),
            json!({"type": "file", "mime": "text/plain", "filename": "a.txt", "url": "file:///p/a.txt",
               "source": {"type": "file", "path": "a.txt", "text": {"value": "hello", "start": 0, "end": 5}}}),
            json!({"type": "file", "mime": "image/jpeg", "url": "https://example.com/x.jpg"}),
            json!({"type": "agent", "name": "general"}),
            json!({"type": "text", "ignored": true, "text": "left out"}),
            text("the prompt"),
            json!({"type": "wormhole"}),
        ],
    )];
    let out = convert(&SessionRecord::default(), &messages);
    assert_eq!(
        shape(&out),
        ["user: context:Added by OpenCode:Called the Read tool with the following input: {} | image:image/png | \
          context:a.txt:hello | image:image/jpeg | context:Agent:@general | context:Added by OpenCode:left out | \
          text:the prompt | unknown:part wormhole"]
    );
    let Block::Image(image) = &out[0].blocks[1] else { panic!() };
    assert_eq!((image.data.as_deref(), image.url.as_deref()), (Some("AAAA"), None));
    let Block::Image(linked) = &out[0].blocks[3] else { panic!() };
    assert_eq!((linked.data.as_deref(), linked.url.as_deref()), (None, Some("https://example.com/x.jpg")));
    assert_eq!(crate::transcript::first_prompt(&out), Some("the prompt"));
}

#[test]
fn a_compaction_is_a_summary_notice_and_its_marker_shows_nothing() {
    let messages = [
        user("msg_1", vec![text("hi")]),
        assistant("msg_2", vec![text("hello")]),
        user("msg_3", vec![json!({"type": "compaction", "auto": true})]),
        message(
            "msg_4",
            4,
            json!({"role": "assistant", "summary": true, "mode": "compaction"}),
            vec![json!({"type": "step-start"}), text("## Goal\nsay hi")],
        ),
        user(
            "msg_5",
            vec![json!({"type": "text", "synthetic": true, "text": "Continue if you have next steps",
                                  "metadata": {"compaction_continue": true}})],
        ),
        assistant("msg_6", vec![text("nothing left")]),
    ];
    assert_eq!(
        shape(&convert(&SessionRecord::default(), &messages)),
        [
            "user: text:hi",
            "assistant: text:hello",
            "system: summary:## Goal\nsay hi",
            "user: context:Added by OpenCode:Continue if you have next steps",
            "assistant: text:nothing left",
        ]
    );
}

#[test]
fn errors_end_the_bubble_and_an_interrupt_is_a_notice() {
    let failed = message(
        "msg_2",
        2,
        json!({"role": "assistant", "error": {"name": "APIError",
        "data": {"message": "The fake model is down.", "statusCode": 400}}}),
        vec![],
    );
    let aborted = message(
        "msg_4",
        4,
        json!({"role": "assistant", "error": {"name": "MessageAbortedError",
        "data": {"message": "The operation was aborted."}}}),
        vec![text("partial")],
    );
    let retried = message(
        "msg_6",
        6,
        json!({"role": "assistant", "error": {"name": "UnknownError", "data": {}}}),
        vec![json!({"type": "retry", "attempt": 2, "error": {"name": "APIError", "data": {"message": "overloaded"}}})],
    );
    let messages = [
        user("msg_1", vec![text("a")]),
        failed,
        user("msg_3", vec![text("b")]),
        aborted,
        user("msg_5", vec![text("c")]),
        retried,
    ];
    assert_eq!(
        shape(&convert(&SessionRecord::default(), &messages)),
        [
            "user: text:a",
            "assistant: error:The fake model is down.",
            "user: text:b",
            "assistant: text:partial",
            "system: text:Turn aborted",
            "user: text:c",
            "assistant: error:Retry 2: overloaded | error:UnknownError",
        ]
    );
}

#[test]
fn undone_messages_stay_after_a_notice() {
    let messages = [
        user("msg_1", vec![text("first")]),
        assistant("msg_2", vec![text("one")]),
        user("msg_3", vec![text("second")]),
        assistant("msg_4", vec![text("two")]),
    ];
    let session = SessionRecord { revert_message: Some("msg_3".into()), ..Default::default() };
    assert_eq!(
        shape(&convert(&session, &messages)),
        [
            "user: text:first",
            "assistant: text:one",
            &format!("system: text:{UNDONE}"),
            "user: text:second",
            "assistant: text:two",
        ]
    );
}

#[test]
fn a_task_call_carries_its_subagents_messages() {
    let task = json!({"type": "tool", "tool": "task", "callID": "t", "state": {
        "status": "completed", "input": {"prompt": "count"}, "output": "<task_result>3</task_result>",
        "metadata": {"sessionId": "ses_child"}, "time": {"start": 1, "end": 2}}});
    let messages = [user("msg_1", vec![text("delegate")]), assistant("msg_2", vec![task])];
    let child = |id: &str| {
        (id == "ses_child").then(|| {
            vec![
                user("msg_c1", vec![text("count")]),
                assistant(
                    "msg_c2",
                    vec![
                        json!({"type": "tool", "tool": "bash", "callID": "x",
                    "state": {"status": "running", "input": {}}}),
                        text("3"),
                    ],
                ),
            ]
        })
    };
    let out = Reader { agent: "OpenCode", child: &child }.messages(&SessionRecord::default(), &messages);
    let Block::ToolCall(call) = &out[1].blocks[0] else { panic!() };
    assert_eq!(shape(&call.subagent), ["user: text:count", "assistant: tool:bash:pending | text:3"]);
}

#[test]
fn a_message_of_an_unknown_role_is_kept_as_unknown() {
    let messages = [message("msg_1", 1, json!({"role": "narrator"}), vec![])];
    assert_eq!(shape(&convert(&SessionRecord::default(), &messages)), ["system: unknown:message narrator"]);
}

#[test]
fn a_call_on_a_file_is_summed_up_by_its_file_path() {
    // OpenCode's read, write and edit name their file `filePath`.
    let input = json!({"filePath": "/p/notes.txt", "content": "first note"});
    assert_eq!(crate::transcript::input_gist(&input).as_deref(), Some("/p/notes.txt"));
}
