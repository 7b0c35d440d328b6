use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;

fn row(session: &str, key: Option<&str>, at: &str, model: &str, input: u64, output: u64) -> Row {
    Row {
        session: std::sync::Arc::new(SessionOf {
            source: "claude".into(),
            session_id: session.into(),
            path: format!("/p/{session}.jsonl"),
            project: Some("/work/app".into()),
            title: None,
        }),
        key: key.map(key_hash),
        at_ms: at.parse::<jiff::Timestamp>().unwrap().as_millisecond(),
        model: Some(model.into()),
        tokens: Tokens { input, output, ..Tokens::default() },
        cost: None,
        not_counts: None,
    }
}

fn options(prices: &Prices, by: By) -> Options<'_> {
    Options { by, zone: zone(Some("UTC")).unwrap(), since: None, until: None, prices }
}

#[test]
fn a_response_in_two_sessions_counts_once_in_the_first() {
    let prices = Prices::bundled();
    let rows = [
        row("a", Some("msg_1:req_1"), "2026-05-01T10:00:00Z", "claude-sonnet-4-5", 100, 10),
        row("b", Some("msg_1:req_1"), "2026-05-01T10:00:00Z", "claude-sonnet-4-5", 100, 10),
        row("b", None, "2026-05-01T11:00:00Z", "claude-sonnet-4-5", 1, 1),
        row("b", None, "2026-05-01T11:00:00Z", "claude-sonnet-4-5", 1, 1),
    ];
    let report = Report::build(rows, &options(&prices, By::Session));
    let by_session: Vec<(String, u64)> =
        report.groups.iter().map(|g| (g.session.as_ref().unwrap().session_id.clone(), g.sum.calls)).collect();
    assert_eq!(by_session, [("a".to_owned(), 1), ("b".to_owned(), 2)]);
    assert_eq!(report.totals.tokens.input, 102);
}

#[test]
fn days_are_counted_in_the_zone_given_and_bounded() {
    let prices = Prices::bundled();
    let rows = || {
        [
            row("a", None, "2026-05-01T22:30:00Z", "claude-sonnet-4-5", 1, 0),
            row("a", None, "2026-05-02T08:00:00Z", "claude-sonnet-4-5", 2, 0),
            row("a", None, "2026-05-03T08:00:00Z", "claude-sonnet-4-5", 4, 0),
        ]
    };
    let utc = Report::build(rows(), &options(&prices, By::Daily));
    let days: Vec<(&str, u64)> = utc.groups.iter().map(|g| (g.label.as_str(), g.sum.tokens.input)).collect();
    assert_eq!(days, [("2026-05-01", 1), ("2026-05-02", 2), ("2026-05-03", 4)]);
    let mut paris = options(&prices, By::Daily);
    paris.zone = zone(Some("Europe/Paris")).unwrap();
    paris.until = Some(parse_date("20260502").unwrap());
    let report = Report::build(rows(), &paris);
    let days: Vec<(&str, u64)> = report.groups.iter().map(|g| (g.label.as_str(), g.sum.tokens.input)).collect();
    assert_eq!(days, [("2026-05-02", 3)]);
    paris.since = Some(parse_date("2026-05-03").unwrap());
    paris.until = None;
    assert_eq!(Report::build(rows(), &paris).totals.tokens.input, 4);
    let monthly = Report::build(rows(), &options(&prices, By::Monthly));
    assert_eq!(monthly.groups.iter().map(|g| g.label.as_str()).collect::<Vec<_>>(), ["2026-05"]);
}

#[test]
fn a_recorded_cost_wins_and_an_unknown_model_has_no_cost() {
    let prices = Prices::bundled();
    let mut recorded = row("a", None, "2026-05-01T10:00:00Z", "gpt-made-up", 1_000, 1_000);
    recorded.cost = Some(0.25);
    let mut zero = row("a", None, "2026-05-01T10:00:00Z", "mystery-model", 5, 5);
    zero.cost = Some(0.0);
    let rows = [
        row("a", None, "2026-05-01T10:00:00Z", "claude-sonnet-4-5", 100_000, 0),
        recorded,
        // A recorded 0 for tokens is no price: not a free call.
        zero,
    ];
    let report = Report::build(rows, &options(&prices, By::Daily));
    let day = &report.groups[0].sum;
    assert!((day.total_cost - 0.55).abs() < 1e-9, "{}", day.total_cost);
    assert!(!day.cost_complete);
    let costs: Vec<(Option<&str>, Option<f64>)> =
        day.model_breakdowns.iter().map(|b| (b.model_name.as_deref(), b.cost)).collect();
    assert_eq!(
        costs,
        [(Some("claude-sonnet-4-5"), Some(0.3)), (Some("gpt-made-up"), Some(0.25)), (Some("mystery-model"), None)]
    );
    assert_eq!(report.unpriced_models, ["mystery-model"]);
    // The agent's part has no cost, but the part of it that is priced is known.
    let agent = &day.source_breakdowns[0];
    assert_eq!(agent.cost, None);
    assert!((agent.known_cost - 0.55).abs() < 1e-9, "{}", agent.known_cost);
    let json = report.to_json();
    assert_eq!(json["daily"][0]["sourceBreakdowns"][0]["cost"], serde_json::Value::Null);
    assert_eq!(json["daily"][0]["sourceBreakdowns"][0]["knownCost"], json["daily"][0]["totalCost"]);
}

#[test]
fn the_json_names_what_scripts_read() {
    let prices = Prices::bundled();
    let rows = [row("a", None, "2026-05-01T10:00:00Z", "claude-sonnet-4-5", 10, 20)];
    let json = Report::build(rows.clone(), &options(&prices, By::Daily)).to_json();
    let day = &json["daily"][0];
    assert_eq!(day["date"], "2026-05-01");
    for (field, value) in [
        ("inputTokens", 10),
        ("outputTokens", 20),
        ("cacheCreationTokens", 0),
        ("cacheReadTokens", 0),
        ("totalTokens", 30),
    ] {
        assert_eq!(day[field], json!(value), "{field}");
    }
    assert_eq!(day["modelsUsed"], json!(["claude-sonnet-4-5"]));
    assert_eq!(day["modelBreakdowns"][0]["modelName"], "claude-sonnet-4-5");
    assert_eq!(day["sourceBreakdowns"][0]["source"], "claude");
    assert_eq!(json["totals"]["totalTokens"], 30);
    assert_eq!(json["pricesDate"], prices.date);
    let json = Report::build(rows, &options(&prices, By::Session)).to_json();
    assert_eq!(json["sessions"][0]["sessionId"], "a");
    assert_eq!(json["sessions"][0]["path"], "/p/a.jsonl");
    assert_eq!(json["sessions"][0]["project"], "/work/app");
}

#[test]
fn dates_and_zones_are_checked() {
    assert_eq!(parse_date("2026-02-28").unwrap().to_string(), "2026-02-28");
    for bad in ["2026-02-30", "2026-2-3", "yesterday", "202602281"] {
        assert!(parse_date(bad).is_err(), "{bad}");
    }
    assert!(zone(Some("Mars/Olympus")).unwrap_err().to_string().contains("Mars/Olympus"));
}

/// Issue 26, item 7: sums wrapped (two calls of `i64::MAX` input tokens
/// totalled 0) and costs of 1e308 printed `$inf` with `costComplete: true`.
/// Token sums saturate; a cost out of range is left out, the sum says it is
/// incomplete and the report warns.
#[test]
fn sums_saturate_and_a_cost_out_of_range_is_left_out_with_a_warning() {
    let prices = Prices::bundled();
    let huge = i64::MAX.unsigned_abs();
    let mut rows = Vec::new();
    for _ in 0..2 {
        let mut call = row("a", None, "2026-05-01T10:00:00Z", "mystery-model", huge, huge);
        call.cost = Some(1e308);
        rows.push(call);
    }
    let report = Report::build(rows, &options(&prices, By::Daily));
    let totals = &report.totals;
    assert_eq!(totals.tokens.input, huge * 2);
    assert_eq!(totals.tokens.total(), u64::MAX, "saturated, not wrapped");
    assert!(totals.total_cost.is_finite(), "{}", totals.total_cost);
    assert!(!totals.cost_complete, "a cost left out makes the sum incomplete");
    assert!(report.groups[0].sum.total_cost.is_finite() && !report.groups[0].sum.cost_complete);
    assert!(report.warnings.iter().any(|w| w.contains("out of range")), "{:?}", report.warnings);
    let json = report.to_json();
    assert_eq!(json["totals"]["costComplete"], false);
    assert_eq!(json["totals"]["totalTokens"], json!(u64::MAX));
    // A cost that is not a number of 0 or more is not a cost: the table prices the call.
    for bad in [f64::NAN, f64::INFINITY, -1.0] {
        let mut call = row("a", None, "2026-05-01T10:00:00Z", "claude-sonnet-4-5", 100_000, 0);
        call.cost = Some(bad);
        let report = Report::build([call], &options(&prices, By::Daily));
        assert!((report.totals.total_cost - 0.3).abs() < 1e-9, "{bad}: {}", report.totals.total_cost);
        assert!(report.warnings.iter().any(|w| w.contains("recorded cost")), "{bad}: {:?}", report.warnings);
    }
}

/// Issue 26, item 7: a `--prices` model without an output price was priced
/// $0 silently. A table must give each model's input and output prices; a
/// call whose tokens of a kind have no price has no cost.
#[test]
fn a_price_table_gives_input_and_output_and_a_missing_cache_price_is_no_price() {
    let err = Prices::from_json(br#"{"date": "2026-01-01", "models": {"m": {"input": 3}}}"#).unwrap_err();
    assert!(err.to_string().contains("output"), "{err}");
    let err = Prices::from_json(br#"{"date": "2026-01-01", "models": {"m": {"output": 3}}}"#).unwrap_err();
    assert!(err.to_string().contains("input"), "{err}");
    let err =
        Prices::from_json(br#"{"date": "2026-01-01", "models": {"m": {"input": 1, "output": 1e308}}}"#).unwrap_err();
    assert!(err.to_string().contains("`m`"), "{err}");
    let prices = Prices::from_json(br#"{"date": "2026-01-01", "models": {"m": {"input": 1, "output": 2}}}"#).unwrap();
    let plain = Tokens { input: 1_000_000, output: 1_000_000, ..Tokens::default() };
    assert_eq!(prices.cost("m", &plain), Some(3.0));
    let cached = Tokens { cache_read: 1, ..plain };
    assert_eq!(prices.cost("m", &cached), None, "no cache-read price: the cost is unknown, not $0 for them");
}

/// Issue 26, item 7: a token count that is not one was read as 0 and no
/// warning said so. Each session whose calls recorded one is named once,
/// with its values; the calls still count.
#[test]
fn a_token_count_that_is_not_a_count_names_its_session() {
    let mut odd = row("s1", Some("a"), "2026-05-01T10:00:00Z", "claude-sonnet-4-5", 0, 5);
    odd.not_counts = Some("input_tokens -5 (read as 0)".into());
    let mut odder = row("s1", Some("b"), "2026-05-01T11:00:00Z", "claude-sonnet-4-5", 1, 5);
    odder.not_counts = Some("input_tokens \"12\" (read as 0); output_tokens -1 (read as 0)".into());
    let fine = row("s2", Some("c"), "2026-05-01T12:00:00Z", "claude-sonnet-4-5", 1, 5);
    let prices = Prices::bundled();
    let report = Report::build([odd, odder, fine], &options(&prices, By::Daily));
    assert_eq!(report.totals.calls, 3);
    assert_eq!(
        report.warnings,
        ["the claude session `s1` (`/p/s1.jsonl`): 2 calls recorded a token count that is not a count \
             (input_tokens -5 (read as 0), input_tokens \"12\" (read as 0), output_tokens -1 (read as 0)): \
             the rest of the call is counted"]
    );
}
