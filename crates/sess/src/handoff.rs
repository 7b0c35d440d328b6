//! Going on with a session: the command that resumes it in its own agent
//! ([`resume`]), and a handoff ([`hand_off`]): the conversation written as a
//! new session of another agent, which that agent resumes.
//!
//! A handoff reads the session (at a leaf, for a pi-family one), never writes
//! it, and writes one new file where the target agent keeps the sessions of
//! the session's directory; a second handoff is a second session.

use std::path::{Path, PathBuf};

use sess_sources::handoff::{Handoff, Origin, Written};
use sess_sources::{Resumable, SourceKind, Transcript};

use crate::resolve::Located;
use crate::{Error, Host, Result, Tell, shell_word};

/// The command that goes on with a session in its agent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resume {
    /// The program and its arguments.
    pub argv: Vec<String>,
    /// Where to run it: the session's directory, when it names one.
    pub cwd: Option<PathBuf>,
}

impl Resume {
    /// The command as one line of a POSIX shell: `cd DIR && PROGRAM ARGS`.
    pub fn shell(&self) -> String {
        let command: Vec<String> = self.argv.iter().map(|word| shell_word(word)).collect();
        let command = command.join(" ");
        match &self.cwd {
            Some(dir) => format!("cd {} && {command}", shell_word(&dir.display().to_string())),
            None => command,
        }
    }

    /// The program it runs.
    pub fn program(&self) -> &str {
        self.argv.first().map_or("", String::as_str)
    }
}

/// The command that resumes the session `id` of agent `kind`, kept at `path`
/// (a file, or the database holding it), which worked in `cwd`; `None` when
/// the agent resumes no session by a command.
pub fn resume(kind: SourceKind, id: &str, path: &Path, cwd: Option<&str>, host: &Host) -> Option<Resume> {
    let argv = kind.source().resume(&host.env, &Resumable { id, path, cwd })?;
    let cwd = cwd.filter(|dir| !dir.is_empty()).map(PathBuf::from);
    Some(Resume { argv, cwd })
}

/// The agents a session can be handed to: `pi`, `codex`, `qwen`, `gemini`,
/// `claude`.
pub fn targets() -> Vec<SourceKind> {
    sess_sources::registry().filter(|kind| kind.source().hand_off().is_some()).collect()
}

/// A session handed to another agent.
#[derive(Clone, Debug)]
pub struct HandedOff {
    /// The new session.
    pub written: Written,
    /// The command that resumes it.
    pub resume: Resume,
    /// About how many tokens the conversation takes.
    pub tokens: usize,
    /// How many turns went over (the summary, user turns, model turns, the
    /// results of their calls), from the last compaction summary on.
    pub turns: usize,
    /// How many blocks stayed behind (errors, the harness's notices, parts
    /// no reader understands).
    pub left_out: usize,
}

impl HandedOff {
    /// Whether the conversation is larger than the target's usual window.
    pub fn too_large(&self) -> bool {
        self.tokens > self.written.window_tokens
    }
}

/// Writes the session `found` (at `leaf`, for a pi-family one), whose
/// transcript is `transcript`, as a new session of `to`, for the directory
/// `cwd` (by default the session's own).
///
/// # Errors
///
/// [`Error::Unsupported`] when `to` takes no handoff; [`Error::Invalid`]
/// when the session names no directory or has no message; [`Error::Store`] when the new file
/// cannot be written.
pub fn hand_off(
    found: &Located,
    transcript: &Transcript,
    to: SourceKind,
    cwd: Option<&Path>,
    host: &Host,
    tell: &dyn Tell,
) -> Result<HandedOff> {
    let own = transcript.cwd.as_deref().filter(|dir| !dir.is_empty()).map(Path::new);
    let cwd = cwd.or(own).ok_or_else(|| Error::Invalid {
        reason: format!(
            "`{}` names no working directory, and {} keeps sessions by directory: give one with --cwd",
            found.path.display(),
            to.agent_name()
        ),
    })?;
    let path = match &found.row {
        Some(id) => format!("{}#{id}", found.path.display()),
        None => found.path.display().to_string(),
    };
    let origin = Origin { source: found.kind, id: transcript.id.clone(), path };
    let handoff = Handoff::new(transcript, origin, cwd.to_owned());
    // The note alone: nothing was said.
    if handoff.items.len() <= 1 {
        return Err(Error::Invalid { reason: format!("`{}` has no messages to hand over", found.path.display()) });
    }
    let write = to
        .source()
        .hand_off()
        .ok_or_else(|| Error::Unsupported { operation: format!("handing a session to {}", to.agent_name()) })?;
    let written = write(&host.env, &handoff)
        .map_err(|err| Error::store_because(format!("cannot write the {} session", to.agent_name()), err))?;
    let resume = Resume { argv: written.resume.clone(), cwd: Some(cwd.to_owned()) };
    let handed = HandedOff {
        tokens: handoff.estimated_tokens(),
        turns: handoff.items.len(),
        left_out: handoff.left_out,
        resume,
        written,
    };
    if handed.too_large() {
        tell.warning(&format!(
            "the conversation is about {} tokens, more than the {} tokens {} models usually take: it was handed over whole; `--leaf` hands over an earlier point",
            handed.tokens,
            handed.written.window_tokens,
            to.agent_name()
        ));
    }
    Ok(handed)
}
