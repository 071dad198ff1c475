//! The table on stdout: one row per benchmark, a column per platform, a
//! ratio column per other platform, percentages of the machine's limits.

use super::{number, peak_name, Run};
use crate::runner::Outcome;

/// How much of a failure reason fits in a cell; the full text follows the
/// table.
const REASON_CHARS: usize = 40;

pub fn print(run: &Run) {
    let mut header = vec!["benchmark".to_string(), "unit".to_string()];
    header.extend(run.targets.iter().map(|t| t.label.clone()));
    header.extend(run.others().iter().map(|&o| run.ratio_label(o)));
    let with_percent =
        run.machine.is_some() && run.rows.iter().any(|r| peak_name(r.peak).is_some());
    if with_percent {
        header.extend(run.targets.iter().map(|t| format!("{} %", t.label)));
        header.push("% of".into());
    }

    let mut lines = vec![header];
    for row in run.rows {
        let mut line = vec![row.name.clone(), row.unit.label().to_string()];
        line.extend(row.cells.iter().map(cell));
        line.extend(
            run.others()
                .iter()
                .map(|&o| run.ratio(row, o).map_or("-".into(), |r| format!("{r:.2}x"))),
        );
        if with_percent {
            line.extend(row.cells.iter().map(|c| {
                run.percent(row, c)
                    .map_or(String::new(), |p| format!("{p:.0}%"))
            }));
            line.push(peak_name(row.peak).unwrap_or("").into());
        }
        lines.push(line);
    }

    let columns = lines[0].len();
    let widths: Vec<usize> = (0..columns)
        .map(|c| {
            lines
                .iter()
                .map(|l| l[c].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    for (n, line) in lines.iter().enumerate() {
        let text: Vec<String> = line
            .iter()
            .enumerate()
            .map(|(c, s)| {
                // Names left-aligned, figures right-aligned.
                if c < 2 || c + 1 == columns && with_percent {
                    format!("{s:<w$}", w = widths[c])
                } else {
                    format!("{s:>w$}", w = widths[c])
                }
            })
            .collect();
        println!("{}", text.join("  ").trim_end());
        if n == 0 {
            println!(
                "{}",
                "-".repeat(widths.iter().sum::<usize>() + 2 * (columns - 1))
            );
        }
    }

    let mut failures = Vec::new();
    for row in run.rows {
        for (t, c) in run.targets.iter().zip(&row.cells) {
            match c {
                Outcome::BuildFailed(r) => {
                    failures.push(format!("{} on {}: build failed: {r}", row.name, t.label))
                }
                Outcome::Failed(r) => failures.push(format!("{} on {}: {r}", row.name, t.label)),
                _ => {}
            }
        }
    }
    if !failures.is_empty() {
        println!("\nfailures:");
        for f in failures {
            println!("  {f}");
        }
    }
}

fn cell(c: &Outcome) -> String {
    match c {
        Outcome::Ok(t) => number(t.value),
        Outcome::NotAvailable(_) => "n/a".into(),
        Outcome::BuildFailed(_) => "build failed".into(),
        Outcome::Failed(r) => {
            let short: String = r.chars().take(REASON_CHARS).collect();
            let more = if r.chars().count() > REASON_CHARS {
                "..."
            } else {
                ""
            };
            format!("FAIL ({short}{more})")
        }
    }
}
