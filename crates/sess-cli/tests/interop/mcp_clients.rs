//! The official MCP clients drive `sess mcp` over stdio: the TypeScript SDK
//! (npm `@modelcontextprotocol/sdk`, `interop/mcp/client.mjs`) and the Python
//! SDK (`mcp` from the Python Package Index, `interop/mcp/client.py`), both
//! installed by `interop/mcp/setup`.
//!
//! Each client spawns `sess mcp --all-projects` in a scratch home holding
//! copies of the sessions the real agents wrote (Claude Code, Codex, pi-mono),
//! initializes, lists the tools, calls each with good and bad arguments and
//! reads every session to its end through the `next` cursor, then reports its
//! checks. Here every check must pass, and the sessions the client read must be
//! the ones `sess list` finds in that home.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use crate::common::claude_codex_pi_home as home;
use crate::harness::{parse, peer_in, repo, sess_json, skipped};

/// The pinned TypeScript SDK (`interop/mcp/package.json`).
const TS_VERSION: &str = "1.32.2";
/// The pinned Python SDK (`interop/mcp/setup`).
const PYTHON_VERSION: &str = "2.3.0";

fn dir() -> PathBuf {
    repo().join("interop/mcp")
}

/// The client's summary, failing unless it ran and every check passed.
fn summary(name: &str, output: &Output, version: &str, home: &Path) -> Value {
    let (stdout, stderr) = (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert!(output.status.success(), "{name} failed ({}):\n{stderr}\n{stdout}", output.status);
    let summary = parse(&output.stdout);
    assert_eq!(summary["sdk"], version, "{summary}");
    assert_eq!(summary["server"].as_str().unwrap().split(' ').next(), Some("sess"), "{summary}");
    assert_eq!(summary["failed"].as_array().map(Vec::len), Some(0), "{summary}");
    let listed = sess_json(home, &["list", "--all-projects", "--json"]);
    assert_eq!(summary["sessions"].as_u64(), Some(listed.as_array().unwrap().len() as u64), "{summary}");
    let (sessions, windows, messages) = (
        summary["sessions"].as_u64().unwrap(),
        summary["windows"].as_u64().unwrap(),
        summary["messages"].as_u64().unwrap(),
    );
    // Two messages a window: a session of n messages takes ceil(n / 2) windows.
    assert!(windows >= messages.div_ceil(2) && windows >= sessions && messages > sessions, "{summary}");
    eprintln!(
        "interop {name}: SDK {version} against {}: {sessions} sessions read in {windows} windows ({messages} \
         messages), {} checks",
        summary["server"], summary["checks"]
    );
    summary
}

#[test]
fn the_typescript_sdk_drives_sess_mcp() {
    let home = home();
    // Node and the SDK are found as the agents' drivers are.
    if peer_in(&dir(), "mcp-ts", "node", "client.mjs", "@modelcontextprotocol/sdk").is_none() {
        return;
    }
    let package = dir().join("node_modules/@modelcontextprotocol/sdk/package.json");
    let installed = parse(&std::fs::read(package).unwrap())["version"].clone();
    if installed != TS_VERSION {
        skipped::<()>("mcp-ts", &format!("the MCP TypeScript SDK {installed} is installed, not {TS_VERSION}"));
        return;
    }
    summary("mcp-ts", &run(Command::new("node"), "client.mjs", home.path()), TS_VERSION, home.path());
}

#[test]
fn the_python_sdk_drives_sess_mcp() {
    let home = home();
    let python = dir().join("venv/bin/python");
    let version = Command::new(&python)
        .args(["-c", "import importlib.metadata as m, mcp; print(m.version('mcp'))"])
        .output()
        .ok()
        .filter(|out| out.status.success())
        .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_owned());
    match version.as_deref() {
        Some(PYTHON_VERSION) => {}
        Some(other) => {
            skipped::<()>("mcp-python", &format!("the MCP Python SDK {other} is installed, not {PYTHON_VERSION}"));
            return;
        }
        None => {
            skipped::<()>("mcp-python", &format!("the MCP Python SDK is not installed in `{}`", python.display()));
            return;
        }
    }
    summary("mcp-python", &run(Command::new(python), "client.py", home.path()), PYTHON_VERSION, home.path());
}

/// Runs `script` of `interop/mcp` with `program`, against this build of sess in `home`.
fn run(mut program: Command, script: &str, home: &Path) -> Output {
    program.arg(dir().join(script)).arg(env!("CARGO_BIN_EXE_sess")).arg(home).output().unwrap()
}
