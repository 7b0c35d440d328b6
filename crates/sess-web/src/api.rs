//! The JSON API under `/api`: thin handlers that check their input, call the
//! [`Library`] off the async threads and turn its answer or error into JSON.

use axum::Json;
use axum::extract::rejection::{JsonRejection, PathRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::header::{CONTENT_DISPOSITION, CONTENT_TYPE};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use sess::meaning::SearchMode;
use sess_sources::SourceKind;
use sess_usage::{By, Date, TimeZone};

use crate::error::error_response;
use crate::guard::token_matches;
use crate::server::AppState;
use crate::{Error, Result};
use sess::{
    ExportFormat, ExportParams, Forked, Library, MachineCard, ProjectCard, SearchHit, SearchParams, SessionPage,
    SessionsParams, UsageParams,
};

/// A library call on the blocking pool, its error as the server answers it.
async fn blocking<T: Send + 'static>(
    library: &std::sync::Arc<dyn Library>,
    call: impl FnOnce(&dyn Library) -> sess::Result<T> + Send + 'static,
) -> Result<T> {
    sess::blocking(library, call).await.map_err(Error::from)
}

/// The most a `limit` parameter can ask for.
const MAX_LIMIT: usize = 5000;

/// The name of a source of the registry; empty or absent means every source.
fn source(name: Option<&str>) -> Result<Option<SourceKind>> {
    match name.filter(|n| !n.is_empty()) {
        None => Ok(None),
        Some(name) => SourceKind::from_name(name).map(Some).ok_or_else(|| {
            let names: Vec<&str> = sess_sources::registry().map(SourceKind::as_str).collect();
            Error::invalid(format!("unknown source `{name}`: expected one of {}", names.join(", ")))
        }),
    }
}

/// `None` for an absent or empty parameter.
fn non_empty(value: Option<String>) -> Option<String> {
    value.filter(|v| !v.is_empty())
}

/// A page's size: `limit=0` asks for none (a listing's total alone).
fn limit(value: Option<usize>, default: usize) -> usize {
    value.unwrap_or(default).min(MAX_LIMIT)
}

fn query<T>(raw: Result<Query<T>, QueryRejection>) -> Result<T> {
    raw.map(|Query(q)| q).map_err(|e| Error::invalid(e.body_text()))
}

fn path(raw: Result<Path<String>, PathRejection>) -> Result<String> {
    raw.map(|Path(p)| p).map_err(|e| Error::invalid(e.body_text()))
}

/// `GET /api/projects`.
pub(crate) async fn projects(State(state): State<AppState>) -> Result<Json<Vec<ProjectCard>>> {
    blocking(&state.library, Library::projects).await.map(Json)
}

/// `GET /api/machines`.
pub(crate) async fn machines(State(state): State<AppState>) -> Result<Json<Vec<MachineCard>>> {
    blocking(&state.library, Library::machines).await.map(Json)
}

/// `GET /api/search/modes`: how the server can rank a search, its default
/// first (`["hybrid","semantic","lexical"]` with an embedding model, else
/// `["lexical"]`).
pub(crate) async fn search_modes(State(state): State<AppState>) -> Json<Vec<SearchMode>> {
    Json(state.library.search_modes())
}

/// The query of `GET /api/sessions`.
#[derive(Debug, Deserialize)]
pub(crate) struct SessionsQuery {
    source: Option<String>,
    project: Option<String>,
    q: Option<String>,
    machine: Option<String>,
    limit: Option<usize>,
    offset: Option<usize>,
}

/// The header that says how many sessions a listing's filters select in all.
pub(crate) const TOTAL_HEADER: &str = "x-sess-total";

/// `GET /api/sessions?source=&project=&q=&machine=&limit=&offset=`: a page of
/// sessions, and their total in [`TOTAL_HEADER`].
pub(crate) async fn sessions(
    State(state): State<AppState>,
    raw: Result<Query<SessionsQuery>, QueryRejection>,
) -> Result<Response> {
    let raw = query(raw)?;
    let params = SessionsParams {
        source: source(raw.source.as_deref())?,
        project: non_empty(raw.project),
        text: non_empty(raw.q),
        machine: non_empty(raw.machine),
        limit: limit(raw.limit, SessionsParams::default().limit),
        offset: raw.offset.unwrap_or(0),
    };
    let list = blocking(&state.library, move |l| l.sessions(&params)).await?;
    let mut response = Json(list.sessions).into_response();
    response.headers_mut().insert(TOTAL_HEADER, HeaderValue::from(list.total));
    Ok(response)
}

/// The query of `GET /api/sessions/{id}`.
#[derive(Debug, Deserialize)]
pub(crate) struct SessionQuery {
    leaf: Option<String>,
}

/// `GET /api/sessions/{id}?leaf=`: the [`SessionPage`], each text block of
/// its user and assistant messages with its Markdown rendered as `html`.
pub(crate) async fn session(
    State(state): State<AppState>,
    id: Result<Path<String>, PathRejection>,
    raw: Result<Query<SessionQuery>, QueryRejection>,
) -> Result<Json<serde_json::Value>> {
    let id = path(id)?;
    let leaf = non_empty(query(raw)?.leaf);
    let page: SessionPage = blocking(&state.library, move |l| l.session(&id, leaf.as_deref())).await?;
    crate::rendered::page_json(&page).map(Json)
}

/// The query of `GET /api/sessions/{id}/export`.
#[derive(Debug, Deserialize)]
pub(crate) struct ExportQuery {
    format: Option<String>,
    redact: Option<String>,
    leaf: Option<String>,
}

/// The header that says how many secrets an export masked.
pub(crate) const MASKED_HEADER: &str = "x-sess-masked";

/// `GET /api/sessions/{id}/export?format=html|md&redact=1|0&leaf=`: the file,
/// as a download. Secrets are masked unless `redact` is `0` or `false`.
pub(crate) async fn export(
    State(state): State<AppState>,
    id: Result<Path<String>, PathRejection>,
    raw: Result<Query<ExportQuery>, QueryRejection>,
) -> Result<Response> {
    let id = path(id)?;
    let raw = query(raw)?;
    let format = match raw.format.as_deref().filter(|f| !f.is_empty()) {
        None | Some("html") => ExportFormat::Html,
        Some("md" | "markdown") => ExportFormat::Markdown,
        Some(other) => return Err(Error::invalid(format!("unknown export `format={other}`: expected html or md"))),
    };
    let redact = match raw.redact.as_deref() {
        None | Some("1" | "true" | "") => true,
        Some("0" | "false") => false,
        Some(other) => return Err(Error::invalid(format!("`redact={other}`: expected 1 or 0"))),
    };
    let params = ExportParams { format, redact, leaf: non_empty(raw.leaf) };
    let exported = blocking(&state.library, move |l| l.export(&id, &params)).await?;
    let disposition = format!("attachment; filename=\"sess-{}.{}\"", file_name(&exported.name), format.extension());
    let mut response =
        ([(CONTENT_TYPE, format.media_type().to_owned()), (CONTENT_DISPOSITION, disposition)], exported.bytes)
            .into_response();
    if let Some(masked) = exported.masked {
        response.headers_mut().insert(MASKED_HEADER, HeaderValue::from(masked));
    }
    Ok(response)
}

/// `name` with only the characters a file name can safely have (letters,
/// digits, `.`, `_`, `-`; others become `-`), at most 100 of them, and never
/// empty or hidden.
fn file_name(name: &str) -> String {
    let safe: String = name
        .chars()
        .take(100)
        .map(|c| if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') { c } else { '-' })
        .collect();
    let safe = safe.trim_start_matches('.');
    if safe.is_empty() { "session".to_owned() } else { safe.to_owned() }
}

/// The query of `GET /api/search`.
#[derive(Debug, Deserialize)]
pub(crate) struct SearchQuery {
    q: Option<String>,
    source: Option<String>,
    project: Option<String>,
    machine: Option<String>,
    limit: Option<usize>,
    offset: Option<usize>,
    mode: Option<String>,
}

/// `GET /api/search?q=&source=&project=&machine=&limit=&offset=&mode=`.
pub(crate) async fn search(
    State(state): State<AppState>,
    raw: Result<Query<SearchQuery>, QueryRejection>,
) -> Result<Json<Vec<SearchHit>>> {
    let raw = query(raw)?;
    let text = raw.q.unwrap_or_default();
    if text.trim().is_empty() {
        return Err(Error::invalid("the search query `q` is empty"));
    }
    let params = SearchParams {
        query: text,
        source: source(raw.source.as_deref())?,
        project: non_empty(raw.project),
        machine: non_empty(raw.machine),
        limit: limit(raw.limit, SearchParams::default().limit),
        offset: raw.offset.unwrap_or(0),
        mode: non_empty(raw.mode).map(|mode| mode.parse()).transpose()?,
    };
    if params.limit == 0 {
        return Ok(Json(Vec::new()));
    }
    sess::search_within(&state.library, params, state.search_budget).await.map_err(Error::from).map(Json)
}

/// The query of `GET /api/usage`.
#[derive(Debug, Deserialize)]
pub(crate) struct UsageQuery {
    by: Option<String>,
    source: Option<String>,
    project: Option<String>,
    machine: Option<String>,
    since: Option<String>,
    until: Option<String>,
    tz: Option<String>,
}

/// What a report sums by, by name; empty or absent means by day.
fn by(name: Option<&str>) -> Result<By> {
    const ALL: [By; 5] = [By::Daily, By::Monthly, By::Session, By::Project, By::Model];
    match name.filter(|n| !n.is_empty()) {
        None => Ok(By::Daily),
        Some(name) => ALL.into_iter().find(|b| b.as_str() == name).ok_or_else(|| {
            let names: Vec<&str> = ALL.iter().map(|b| b.as_str()).collect();
            Error::invalid(format!("unknown report `by={name}`: expected one of {}", names.join(", ")))
        }),
    }
}

/// The day in parameter `name`, if given.
fn day(name: &str, value: Option<String>) -> Result<Option<Date>> {
    non_empty(value)
        .map(|text| sess_usage::parse_date(&text).map_err(|e| Error::invalid(format!("`{name}`: {e}"))))
        .transpose()
}

/// `GET /api/usage?by=&source=&project=&machine=&since=&until=&tz=`.
pub(crate) async fn usage(
    State(state): State<AppState>,
    raw: Result<Query<UsageQuery>, QueryRejection>,
) -> Result<Json<serde_json::Value>> {
    let raw = query(raw)?;
    let zone = match non_empty(raw.tz) {
        None => TimeZone::system(),
        Some(name) => sess_usage::zone(Some(&name)).map_err(|e| Error::invalid(format!("`tz`: {e}")))?,
    };
    let params = UsageParams {
        by: by(raw.by.as_deref())?,
        source: source(raw.source.as_deref())?,
        project: non_empty(raw.project),
        machine: non_empty(raw.machine),
        since: day("since", raw.since)?,
        until: day("until", raw.until)?,
        zone,
    };
    if let (Some(since), Some(until)) = (params.since, params.until)
        && since > until
    {
        return Err(Error::invalid(format!("`since` {since} is after `until` {until}: no day is counted")));
    }
    let report = blocking(&state.library, move |l| l.usage(&params)).await?;
    Ok(Json(report.to_json()))
}

/// The body of `POST /api/sessions/{id}/fork`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ForkBody {
    entry_id: String,
}

/// `POST /api/sessions/{id}/fork` with `{"entryId": …}` and the page's token
/// in `X-Sess-Token`.
pub(crate) async fn fork(
    State(state): State<AppState>,
    headers: HeaderMap,
    id: Result<Path<String>, PathRejection>,
    body: Result<Json<ForkBody>, JsonRejection>,
) -> Response {
    if !token_matches(&headers, &state.token) {
        return error_response(StatusCode::FORBIDDEN, "missing or wrong X-Sess-Token: reload the page");
    }
    let forked: Result<Forked> = async {
        let id = path(id)?;
        let Json(body) = body.map_err(|e| match e.status() {
            StatusCode::PAYLOAD_TOO_LARGE => Error::TooLarge { limit: crate::body::MAX_BODY_BYTES },
            _ => Error::invalid(e.body_text()),
        })?;
        if body.entry_id.is_empty() {
            return Err(Error::invalid("`entryId` is empty"));
        }
        blocking(&state.library, move |l| l.fork(&id, &body.entry_id)).await
    }
    .await;
    forked.map(Json).into_response()
}

/// Any other path.
pub(crate) async fn not_found() -> Response {
    error_response(StatusCode::NOT_FOUND, "no such page")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_by_name() {
        assert_eq!(source(None).unwrap(), None);
        assert_eq!(source(Some("")).unwrap(), None);
        assert_eq!(source(Some("claude")).unwrap(), Some(sess_sources::claude::SOURCE));
        assert!(matches!(source(Some("Claude")), Err(Error::Invalid { .. })));
    }

    #[test]
    fn reports_by_name() {
        assert_eq!(by(None).unwrap(), By::Daily);
        assert_eq!(by(Some("")).unwrap(), By::Daily);
        assert_eq!(by(Some("monthly")).unwrap(), By::Monthly);
        assert_eq!(by(Some("model")).unwrap(), By::Model);
        let err = by(Some("weekly")).unwrap_err().to_string();
        assert!(err.contains("daily, monthly, session, project, model"), "{err}");
    }

    #[test]
    fn file_names_keep_only_safe_characters() {
        assert_eq!(file_name("3f2a9c4e-7b1d.x_y"), "3f2a9c4e-7b1d.x_y");
        assert_eq!(file_name("../../etc/passwd"), "-..-etc-passwd");
        assert_eq!(file_name("a\"b\r\nc;d é"), "a-b--c-d--");
        assert_eq!(file_name("..."), "session");
        assert_eq!(file_name(""), "session");
        assert_eq!(file_name(&"x".repeat(300)).len(), 100);
    }

    #[test]
    fn limits_are_clamped() {
        assert_eq!(limit(None, 200), 200);
        assert_eq!(limit(Some(0), 200), 0);
        assert_eq!(limit(Some(usize::MAX), 200), MAX_LIMIT);
    }
}
