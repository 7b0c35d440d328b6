//! `sess resume SESSION [--print] [--json]`: a session gone on with in its
//! own agent; and starting an agent on a session, which `sess handoff` does
//! too.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context as _, bail};
use serde_json::json;
use sess::handoff::Resume;

use crate::Outcome;
use crate::cli::ResumeArgs;
use crate::env::host;
use crate::output::{Printed, print_json, stdout, warn};

pub(crate) fn run(args: &ResumeArgs, store: Option<&str>) -> anyhow::Result<Outcome> {
    if store.is_some() {
        bail!("sess resume goes on with the sessions the agents keep on this machine, not those of a store (--store)");
    }
    let found = sess::resolve::locate_agent(&args.session, host(), &Printed)?;
    let transcript = sess::load::transcript(&found, None, host(), &Printed)?;
    let id = found.row.clone().unwrap_or_else(|| transcript.id.clone());
    let cwd = transcript.cwd.as_deref();
    let Some(resume) = sess::handoff::resume(found.kind, &id, &found.path, cwd, host()) else {
        bail!(
            "{} resumes no session by a command (`{}`); `sess handoff {} --to AGENT` continues it in another agent",
            found.kind.agent_name(),
            found.path.display(),
            args.session
        );
    };
    if args.json {
        let value = json!({
            "source": found.kind, "id": id, "cwd": resume.cwd, "argv": resume.argv, "command": resume.shell(),
            "installed": on_path(resume.program()).is_some(),
        });
        print_json(&value, false)?;
        return Ok(Outcome::Clean);
    }
    if args.print {
        print_line(&resume.shell())?;
        return Ok(Outcome::Clean);
    }
    start(&resume)
}

/// Runs `resume` in its directory and ends with the agent's exit code; when
/// the agent is not installed, or the directory is gone, says so, prints the
/// command and ends with 1.
pub(crate) fn start(resume: &Resume) -> anyhow::Result<Outcome> {
    let Some(program) = on_path(resume.program()) else {
        warn(format!("`{}` is not installed (not found on PATH); to go on, run:", resume.program()));
        print_line(&resume.shell())?;
        return Ok(Outcome::Findings);
    };
    let mut command = Command::new(&program);
    command.args(resume.argv.iter().skip(1));
    if let Some(dir) = &resume.cwd {
        if !dir.is_dir() {
            warn(format!("the session's directory `{}` is not there; to go on, make it and run:", dir.display()));
            print_line(&resume.shell())?;
            return Ok(Outcome::Findings);
        }
        command.current_dir(dir);
    }
    let status = command.status().with_context(|| format!("cannot run `{}`", program.display()))?;
    Ok(Outcome::Exited(status.code().and_then(|code| u8::try_from(code).ok()).unwrap_or(1)))
}

/// Writes `text` and a line end to stdout, flushed (before an agent takes
/// the terminal).
pub(crate) fn print_line(text: &str) -> anyhow::Result<()> {
    let mut out = stdout();
    writeln!(out, "{text}")?;
    out.flush()?;
    Ok(())
}

/// Where `program` is on `PATH`: the first executable file of that name.
fn on_path(program: &str) -> Option<PathBuf> {
    if program.contains('/') {
        return executable(Path::new(program)).then(|| PathBuf::from(program));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|dir| dir.join(program)).find(|candidate| executable(candidate))
}

fn executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    path.metadata().is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
}
