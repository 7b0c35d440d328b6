//! stdin and stdout as `rmcp` reads and writes them, with the JSON-RPC 2.0
//! answers it leaves out given: a line that is not JSON gets `-32700` (Parse
//! error, `id` null) and a request whose `params` is not an object gets
//! `-32602` (Invalid params; MCP's params are objects), where `rmcp` says
//! nothing to the first and "method not found" to the second. Everything
//! else passes through unchanged, a line at a time.

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, AsyncRead, AsyncWrite, AsyncWriteExt as _, BufReader, DuplexStream};
use tokio::sync::mpsc;

/// How many bytes the pipes to and from `rmcp` hold.
const PIPE: usize = 1 << 16;

/// What the server does with a line from the client.
#[derive(Debug, PartialEq)]
pub(crate) enum Line {
    /// `rmcp` reads it.
    Pass,
    /// This is the answer; `rmcp` never sees the line.
    Answer(Value),
}

/// What becomes of `line`.
pub(crate) fn classify(line: &str) -> Line {
    if line.trim().is_empty() {
        return Line::Pass;
    }
    let message: Value = match serde_json::from_str(line.trim_start_matches('\u{feff}')) {
        Ok(message) => message,
        Err(error) => return Line::Answer(error_answer(&Value::Null, -32_700, &format!("Parse error: {error}"))),
    };
    let Some(request) = message.as_object() else { return Line::Pass };
    let (Some(id), Some(_method)) = (request.get("id"), request.get("method").and_then(Value::as_str)) else {
        return Line::Pass;
    };
    match request.get("params") {
        Some(params) if !params.is_object() => {
            Line::Answer(error_answer(id, -32_602, "Invalid params: `params` must be an object"))
        }
        _ => Line::Pass,
    }
}

fn error_answer(id: &Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// The two ends `rmcp` is given (what it reads, where it writes), over
/// `input` and `output`. When `input` ends, what `rmcp` reads ends.
pub(crate) fn filtered(
    input: impl AsyncRead + Unpin + Send + 'static,
    mut output: impl AsyncWrite + Unpin + Send + 'static,
) -> (DuplexStream, DuplexStream) {
    let (mut to_rmcp, rmcp_reads) = tokio::io::duplex(PIPE);
    let (rmcp_writes, from_rmcp) = tokio::io::duplex(PIPE);
    let (answers, mut answered) = mpsc::unbounded_channel::<Value>();
    tokio::spawn(async move {
        let mut lines = BufReader::new(input).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let passed = match classify(&line) {
                Line::Pass => to_rmcp.write_all(format!("{line}\n").as_bytes()).await.is_ok(),
                Line::Answer(answer) => answers.send(answer).is_ok(),
            };
            if !passed {
                break;
            }
        }
        // Dropping `to_rmcp` is the end of stdin for rmcp.
    });
    tokio::spawn(async move {
        let mut written = BufReader::new(from_rmcp).lines();
        let mut answers_open = true;
        loop {
            let line = tokio::select! {
                line = written.next_line() => match line {
                    Ok(Some(line)) => line,
                    _ => break,
                },
                answer = answered.recv(), if answers_open => {
                    let Some(answer) = answer else {
                        answers_open = false;
                        continue;
                    };
                    answer.to_string()
                }
            };
            if output.write_all(format!("{line}\n").as_bytes()).await.is_err() || output.flush().await.is_err() {
                break;
            }
        }
    });
    (rmcp_reads, rmcp_writes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_pass_or_are_answered() {
        assert_eq!(classify(""), Line::Pass);
        assert_eq!(classify(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#), Line::Pass);
        assert_eq!(classify(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}"#), Line::Pass);
        assert_eq!(classify(r#"{"jsonrpc":"2.0","method":"notifications/x","params":[1]}"#), Line::Pass);
        assert_eq!(classify(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#), Line::Pass);
        let Line::Answer(parse) = classify(r#"{"jsonrpc": "2.0", "id": 7, "#) else { panic!("passed") };
        assert_eq!((parse["id"].clone(), parse["error"]["code"].clone()), (Value::Null, json!(-32_700)));
        let Line::Answer(params) = classify(r#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":[1]}"#) else {
            panic!("passed")
        };
        assert_eq!((params["id"].clone(), params["error"]["code"].clone()), (json!("a"), json!(-32_602)));
    }
}
