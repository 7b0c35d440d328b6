//! `sess mcp [--all-projects] [--redact] [--catalog PATH]`: the MCP server on
//! stdio, over what `sess serve` reads, and the model context of `sess
//! context`. Listings and snippets are masked; with `--redact`, everything.

use std::sync::Arc;

use crate::Outcome;
use crate::catalog;
use crate::cli::McpArgs;
use crate::env::host;
use crate::output::Printed;

pub(crate) fn run(args: &McpArgs, store: Option<&str>) -> anyhow::Result<Outcome> {
    let (library, _) = crate::commands::serve::library(
        store,
        args.catalog.path.as_deref(),
        args.model.dir.as_deref(),
        catalog::Bar::Hidden,
    )?;
    let library: Arc<dyn sess::Library> =
        Arc::new(if args.redact { sess::Masked::everything(library) } else { sess::Masked::listings(library) });
    // As `sess search`: the current project, unless every one is asked for
    // (or a store's sessions are read).
    let project =
        if args.all_projects || store.is_some() { None } else { Some(std::env::current_dir()?.display().to_string()) };
    let store = store.map(str::to_owned);
    let redact = args.redact;
    let context: sess_mcp::ContextFn = Arc::new(move |id, entry| {
        let mut context = model_context(id, entry, store.as_deref())?;
        if redact {
            crate::redact::json(&sess_export::Redactor::bundled(), &mut context);
        }
        Ok(context)
    });
    sess_mcp::run_stdio(sess_mcp::Sess::new(library, context, project))?;
    Ok(Outcome::Clean)
}

/// The model context of the pi-family session `id` at `entry` (or its last),
/// as `sess context` prints it.
fn model_context(id: &str, entry: Option<&str>, store: Option<&str>) -> Result<serde_json::Value, String> {
    let file = sess::pi::read("context", id, store, host(), &Printed).map_err(|e| sess::chain(&e))?;
    let Some(context) = sess::pi::context_at(&file, entry) else {
        return Err(format!("session {id} has no entry `{}`", entry.unwrap_or_default()));
    };
    serde_json::to_value(context).map_err(|e| e.to_string())
}
