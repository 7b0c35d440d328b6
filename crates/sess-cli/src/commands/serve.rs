//! `sess serve`: the web history browser over the catalog, with the default
//! archive's sessions whose originals are gone; or over an archive
//! (`--store ARCHIVE`), every machine's sessions.

use std::io::Write as _;
use std::net::{Ipv4Addr, TcpListener};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use sess::Library;
use sess::live::Feed;
use sess::view::View;
use sess_web::ServeConfig;

use crate::Outcome;
use crate::catalog;
use crate::cli::ServeArgs;
use crate::output::{Printed, stdout, warn};

pub(crate) fn run(args: &ServeArgs, store: Option<&str>) -> anyhow::Result<Outcome> {
    let view = open(store, args.catalog.path.as_deref(), args.model.dir.as_deref(), catalog::Bar::Shown)?;
    // The page follows the agents as they write, through the catalog it reads.
    let feed = match &view.catalog {
        Some(path) => Some(Arc::new(Feed::start(crate::env::host(), path, Arc::new(Printed))?)),
        None => None,
    };
    // The page's lists and snippets show no secret; a transcript shows what was written.
    listen_and_serve(args, &view.said, Arc::new(sess::Masked::listings(view.library)), feed)
}

/// What the page (and `sess mcp`) reads: an archive (`--store ARCHIVE`), where
/// it is; else the catalog (at `catalog_path`, refreshed now) with `store`'s
/// sessions, or with the default archive's sessions whose originals are
/// gone; with the embedding model `model` (`--model`, else
/// `$SESS_EMBED_MODEL`), searched by meaning too. Also what it holds, in
/// words.
pub(crate) fn library(
    store: Option<&str>,
    catalog_path: Option<&Path>,
    model: Option<&Path>,
    bar: catalog::Bar,
) -> anyhow::Result<(Arc<dyn Library>, String)> {
    let view = open(store, catalog_path, model, bar)?;
    Ok((view.library, view.said))
}

/// The view [`library`] reads.
fn open(
    store: Option<&str>,
    catalog_path: Option<&Path>,
    model: Option<&Path>,
    bar: catalog::Bar,
) -> anyhow::Result<View> {
    let mut drawn = catalog::Drawn::new(bar);
    let host = sess::Host { model: catalog::model_dir(model), ..crate::env::host().clone() };
    Ok(sess::view::open(host, store, catalog_path, Arc::new(Printed), &mut |p| drawn.tell(p))?)
}

/// Binds the port, says `said` and where it serves, and serves `library`
/// (with the changes of `feed`).
fn listen_and_serve(
    args: &ServeArgs,
    said: &str,
    library: Arc<dyn Library>,
    feed: Option<Arc<Feed>>,
) -> anyhow::Result<Outcome> {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, args.port)).map_err(|err| {
        anyhow::Error::new(crate::output::Hint("`--port 0` picks a free port".to_owned()))
            .context(format!("cannot listen on 127.0.0.1:{}: {err}", args.port))
    })?;
    let port = listener.local_addr()?.port();
    let url = format!("http://127.0.0.1:{port}/");
    let mut out = stdout();
    writeln!(out, "{said}; serving {url} (Ctrl-C stops)")?;
    out.flush()?;
    drop(out);
    if args.open {
        open_browser(&url);
    }
    let config = ServeConfig {
        header_read_timeout: args.header_timeout,
        idle_timeout: args.idle_timeout,
        feed,
        ..ServeConfig::new(port)
    };
    sess_web::serve(listener, library, config)?;
    Ok(Outcome::Clean)
}

/// Opens `url` in the desktop's browser, or says why it cannot. The opener
/// is waited for on a thread of its own (it may run as long as the browser),
/// so it never stays behind as a zombie, and its failure is reported.
fn open_browser(url: &str) {
    use std::process::{Command, Stdio};
    let macos = cfg!(target_os = "macos");
    let desktop =
        ["DISPLAY", "WAYLAND_DISPLAY"].iter().any(|name| std::env::var_os(name).is_some_and(|v| !v.is_empty()));
    if !macos && !desktop {
        warn(format_args!("no desktop to open a browser on (DISPLAY and WAYLAND_DISPLAY are not set); open {url}"));
        return;
    }
    let opener = if macos { "open" } else { "xdg-open" };
    let mut child =
        match Command::new(opener).arg(url).stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped()).spawn() {
            Ok(child) => child,
            Err(err) => {
                warn(format_args!("cannot start `{opener}` ({err}); open {url} in a browser"));
                return;
            }
        };
    // What the opener says on failure; read apart from the wait, as a browser it
    // started may keep the pipe open.
    let (said, heard) = std::sync::mpsc::channel();
    if let Some(stderr) = child.stderr.take() {
        std::thread::spawn(move || {
            let mut first = String::new();
            let _ = std::io::BufRead::read_line(&mut std::io::BufReader::new(stderr), &mut first);
            let _ = said.send(first.trim().to_owned());
        });
    }
    let url = url.to_owned();
    std::thread::spawn(move || match child.wait() {
        Ok(status) if status.success() => {}
        Ok(status) => {
            let said = heard.recv_timeout(Duration::from_secs(1)).unwrap_or_default();
            let said = if said.is_empty() { String::new() } else { format!(": {said}") };
            warn(format_args!("`{opener}` could not open a browser ({status}{said}); open {url}"));
        }
        Err(err) => warn(format_args!("waiting for `{opener}`: {err}; open {url} in a browser")),
    });
}
