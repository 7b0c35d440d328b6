//! `sess append SESSION [--leaf ID]`: entries from stdin.

use std::io::{self, BufRead, Write};

use anyhow::{Context as _, bail};
use serde_json::Value;

use crate::Outcome;
use crate::cli::AppendArgs;
use crate::output::stdout;
use crate::session;

pub(crate) fn run(args: &AppendArgs, store: Option<&str>) -> anyhow::Result<Outcome> {
    let mut manager = session::open(&args.session, store)?;
    if let Some(leaf) = &args.leaf {
        manager.branch(leaf).with_context(|| format!("`{}` has no entry `{leaf}`", args.session))?;
    }
    let mut out = stdout();
    for (number, line) in io::stdin().lock().lines().enumerate() {
        let line = line.context("cannot read stdin")?;
        if line.trim().is_empty() {
            continue;
        }
        let value: Value =
            serde_json::from_str(&line).with_context(|| format!("stdin line {}: not JSON", number + 1))?;
        let Value::Object(mut object) = value else { bail!("stdin line {}: not a JSON object", number + 1) };
        let id = if object.contains_key("role") {
            // Agent messages carry their own time in milliseconds.
            if !object.contains_key("timestamp") {
                object.insert("timestamp".into(), now_ms().into());
            }
            manager.append_message(&object)
        } else if let Some(entry_type) = object.get("type").and_then(Value::as_str).map(str::to_owned) {
            manager.append_raw(&entry_type, object)
        } else {
            bail!("stdin line {}: an object needs a `role` (a message) or a `type` (an entry)", number + 1)
        };
        let id = id.with_context(|| format!("cannot append stdin line {} to `{}`", number + 1, args.session))?;
        session::report(&mut manager);
        writeln!(out, "{id}")?;
        out.flush()?;
    }
    manager.close().with_context(|| format!("cannot flush `{}`", args.session))?;
    Ok(Outcome::Clean)
}

fn now_ms() -> u64 {
    let since = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
}
