//! `GET /api/events`: the change feed ([`sess::live`]) as server-sent
//! events.
//!
//! Each event is `event: appeared | changed | gone`, its `data` the
//! [`Event`](sess::live::Event) as JSON, and its `id` `RUN-N`: the feed's run
//! and the event's number. A client that reconnects sends the last id it saw
//! (`Last-Event-ID`, as `EventSource` does) and goes on from the next event;
//! when those events are no longer kept, or the id is of another run (the
//! server restarted), it gets `event: reset` first, and should read what it
//! shows again. A comment every 15 s keeps the connection open.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::sse::{Event as Sse, KeepAlive};
use axum::response::{IntoResponse, Response};
use futures_util::stream::{self, Stream, StreamExt as _};
use sess::live::{Change, Feed, Subscription};

use crate::Error;
use crate::server::AppState;

/// How often an idle stream says it is still there.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

pub(crate) async fn events(State(state): State<AppState>, headers: HeaderMap) -> Response {
    let Some(feed) = state.feed.clone() else {
        return Error::Unsupported { operation: "following the changes of an archive".into() }.into_response();
    };
    let last = headers.get("last-event-id").and_then(|v| v.to_str().ok()).and_then(|id| parse(id, feed.run()));
    let reset = headers.contains_key("last-event-id") && last.is_none();
    let subscription = feed.subscribe(last);
    axum::response::sse::Sse::new(stream(feed, subscription, reset))
        .keep_alive(KeepAlive::new().interval(KEEP_ALIVE))
        .into_response()
}

/// The event number in `id` when it is of this run of the feed.
fn parse(id: &str, run: u64) -> Option<u64> {
    let (of, number) = id.split_once('-')?;
    (of.parse::<u64>().ok()? == run).then(|| number.parse().ok()).flatten()
}

/// The events of `subscription` as server-sent events, after a reset when
/// `start_over`; it ends when the feed stops.
fn stream(
    feed: Arc<Feed>,
    subscription: Subscription,
    start_over: bool,
) -> impl Stream<Item = Result<Sse, std::convert::Infallible>> {
    let run = feed.run();
    let first = stream::iter(start_over.then(|| Ok(reset_event(run, subscription.last_read()))));
    let rest = stream::unfold((feed, subscription), move |(feed, mut subscription)| async move {
        let batch: Vec<Result<Sse, std::convert::Infallible>> = match subscription.next().await {
            Ok(events) if events.is_empty() => return None,
            Ok(events) => events
                .iter()
                .map(|event| {
                    let kind = match event.change {
                        Change::Appeared { .. } => "appeared",
                        Change::Changed { .. } => "changed",
                        Change::Gone { .. } => "gone",
                    };
                    Ok(Sse::default().id(format!("{run}-{}", event.id)).event(kind).data(event.json()))
                })
                .collect(),
            Err(missed) => vec![Ok(reset_event(run, missed.last))],
        };
        Some((stream::iter(batch), (feed, subscription)))
    })
    .flatten();
    first.chain(rest)
}

/// Events were missed: the client reads what it shows again, and goes on
/// after event `last`.
fn reset_event(run: u64, last: u64) -> Sse {
    Sse::default().id(format!("{run}-{last}")).event("reset").data("{}")
}
