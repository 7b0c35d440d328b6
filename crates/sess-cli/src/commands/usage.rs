//! `sess usage [daily|monthly|session|project|model]`: tokens and cost of
//! every agent's model calls, summed.

use std::io::{IsTerminal as _, Write};

use anyhow::Context as _;
use console::{Style, measure_text_width};
use sess_usage::{By, Options, Prices, Report, Sum};

use crate::Outcome;
use crate::catalog;
use crate::cli::UsageArgs;
use crate::output::{print_json, stdout, warn};
use crate::summary::{one_line, short};
use crate::usage::{Scope, archived, rows};

pub(crate) fn run(args: &UsageArgs, store: Option<&str>) -> anyhow::Result<Outcome> {
    let prices = prices(args)?;
    if args.show_prices {
        print_json(&prices, false)?;
        return Ok(Outcome::Clean);
    }
    let zone = sess_usage::zone(args.timezone.as_deref())?;
    if let (Some(since), Some(until)) = (args.since, args.until)
        && since > until
    {
        anyhow::bail!("--since {since} is after --until {until}: no day is counted");
    }
    let scope = Scope {
        sources: args.source.single().into_iter().collect(),
        cwd: args.cwd.as_ref().map(std::path::absolute).transpose()?.map(|d| d.display().to_string()),
        machine: None,
    };
    let rows = if let Some(mut vault) = store.map(sess::archive::existing).transpose()?.flatten() {
        // An archive: every session it keeps, of every machine.
        archived(vault.as_mut(), &scope, &|_| true)?
    } else {
        let catalog = catalog::open_fresh(args.catalog.path.as_deref(), store, !args.no_refresh)?;
        rows(&catalog, store, &scope)?
    };
    let options = Options { by: args.by.by(), zone, since: args.since, until: args.until, prices: &prices };
    let report = Report::build(rows, &options);
    for warning in &report.warnings {
        warn(warning);
    }
    if args.json {
        print_json(&report.to_json(), false)?;
    } else {
        print(&report, args)?;
    }
    Ok(Outcome::Clean)
}

/// `--prices FILE`, else the bundled table.
fn prices(args: &UsageArgs) -> anyhow::Result<Prices> {
    let Some(path) = &args.prices else { return Ok(Prices::bundled()) };
    // A FIFO or a device is refused before it is opened.
    let bytes = sess_sources::jsonl::read_file(path).map_err(|err| match err {
        sess_sources::Error::NotASessionFile { kind, .. } => {
            anyhow::anyhow!(
                "cannot read the price table `{}`: it is {kind}; a price table is a JSON file",
                path.display()
            )
        }
        other => anyhow::Error::new(other).context(format!("cannot read the price table `{}`", path.display())),
    })?;
    Prices::from_json(&bytes).with_context(|| format!("cannot use the price table `{}`", path.display()))
}

/// The report as a table, with its totals and what it could not price.
fn print(report: &Report, args: &UsageArgs) -> anyhow::Result<()> {
    let mut out = stdout();
    if report.groups.is_empty() {
        writeln!(out, "no model calls{}", period(args))?;
        out.flush()?;
        return Ok(());
    }
    let colour = std::io::stdout().is_terminal();
    let bold = Style::new().bold().force_styling(colour);
    let dim = Style::new().dim().force_styling(colour);
    let key = match report.by {
        By::Daily => "Date",
        By::Monthly => "Month",
        By::Session => "Session",
        By::Project => "Project",
        By::Model => "Model",
    };
    let header = [key, "Input", "Output", "Cache write", "Cache read", "Total tokens", "Cost", "Models"];
    let mut lines: Vec<[String; 8]> = report
        .groups
        .iter()
        .map(|group| {
            let label = match &group.session {
                Some(session) => format!(
                    "{} {}",
                    session.source,
                    session.title.as_deref().map_or_else(|| short(&session.session_id), |t| one_line(t, 40))
                ),
                None if report.by == By::Project && group.label.is_empty() => "(unknown)".to_owned(),
                None => group.label.clone(),
            };
            cells(label, &group.sum, report.by != By::Model)
        })
        .collect();
    lines.push(cells("Total".to_owned(), &report.totals, false));
    let widths: Vec<usize> = (0..8)
        .map(|i| lines.iter().map(|l| measure_text_width(&l[i])).chain([header[i].len()]).max().unwrap_or(0))
        .collect();
    let row = |cells: &[&str]| -> String {
        let mut text = String::new();
        for (i, cell) in cells.iter().enumerate() {
            let pad = widths[i].saturating_sub(measure_text_width(cell));
            // Text on the left, numbers on the right.
            if i == 0 || i == 7 {
                text.push_str(cell);
                if i == 0 {
                    text.push_str(&" ".repeat(pad));
                }
            } else {
                text.push_str(&" ".repeat(pad));
                text.push_str(cell);
            }
            if i < 7 {
                text.push_str("  ");
            }
        }
        text.trim_end().to_owned()
    };
    writeln!(out, "{}", bold.apply_to(row(&header)))?;
    let last = lines.len() - 1;
    for (i, line) in lines.iter().enumerate() {
        let text = row(&line.iter().map(String::as_str).collect::<Vec<_>>());
        if i == last {
            writeln!(out, "{}", bold.apply_to(text))?;
        } else {
            writeln!(out, "{text}")?;
        }
    }
    if !report.unpriced_models.is_empty() {
        writeln!(
            out,
            "{}",
            dim.apply_to(format!(
                "no price for {}: tokens counted, cost unknown (--prices FILE adds prices)",
                report.unpriced_models.join(", ")
            ))
        )?;
    }
    let table = args.prices.as_ref().map_or_else(
        || format!("the bundled price table of {}", report.prices_date),
        |p| format!("the price table `{}` of {}", p.display(), report.prices_date),
    );
    writeln!(out, "{}", dim.apply_to(format!("costs: the agents' own where they recorded one, else {table}")))?;
    out.flush()?;
    Ok(())
}

/// A line's cells: its label, tokens, cost and (unless `models` is false)
/// its models.
fn cells(label: String, sum: &Sum, models: bool) -> [String; 8] {
    let t = &sum.tokens;
    [
        label,
        thousands(t.input),
        thousands(t.output),
        thousands(t.cache_creation),
        thousands(t.cache_read),
        thousands(t.total()),
        cost(sum),
        if models { sum.models_used.join(", ") } else { String::new() },
    ]
}

/// `$1.23`; `≥ $1.23` when some calls have no price; `unknown` when none has.
fn cost(sum: &Sum) -> String {
    match (sum.cost_complete, sum.total_cost) {
        (true, cost) => format!("${cost:.2}"),
        (false, cost) if cost > 0.0 => format!("≥ ${cost:.2}"),
        (false, _) => "unknown".to_owned(),
    }
}

/// `1234567` as `1,234,567`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// ` between DATE and DATE`, as the options say.
fn period(args: &UsageArgs) -> String {
    match (args.since, args.until) {
        (Some(since), Some(until)) => format!(" from {since} to {until}"),
        (Some(since), None) => format!(" since {since}"),
        (None, Some(until)) => format!(" until {until}"),
        (None, None) => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::thousands;

    #[test]
    fn thousands_are_separated() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000), "1,000");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }
}
