//! The model calls a session file records: each response's token usage
//! node (type 10).

use serde_json::Value;

use crate::usage::{Call, Calls, Counter};

/// The usage node's type among response nodes.
const TOKEN_USAGE: i64 = 10;

/// The calls of the session document `session`, one per response with a
/// token usage node.
pub(super) fn calls(session: &Value) -> Vec<Call> {
    let default_model = session.pointer("/agentState/modelId").and_then(Value::as_str);
    let mut calls = Calls::default();
    for item in session.get("chatHistory").and_then(Value::as_array).into_iter().flatten() {
        let Some(exchange) = item.get("exchange") else { continue };
        let model = exchange.get("model_id").and_then(Value::as_str).or(default_model);
        let nodes = exchange.get("response_nodes").and_then(Value::as_array).into_iter().flatten();
        for usage in nodes
            .filter(|n| n.get("type").and_then(Value::as_i64) == Some(TOKEN_USAGE))
            .filter_map(|n| n.get("token_usage"))
        {
            let counter = Counter::default();
            calls.push(Call {
                key: exchange.get("request_id").and_then(Value::as_str).map(ToOwned::to_owned),
                timestamp: item.get("finishedAt").and_then(Value::as_str).map(ToOwned::to_owned),
                model: model.map(ToOwned::to_owned),
                input: counter.count("input_tokens", usage.get("input_tokens")),
                output: counter.count("output_tokens", usage.get("output_tokens")),
                cache_read: counter.count("cache_read_input_tokens", usage.get("cache_read_input_tokens")),
                cache_creation: counter.count("cache_creation_input_tokens", usage.get("cache_creation_input_tokens")),
                reasoning: 0,
                cost: None,
                not_counts: counter.take(),
            });
        }
    }
    calls.finish()
}
