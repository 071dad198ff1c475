//! A horizontal bar per benchmark: the speed-up of the reference platform
//! over each other one. Bars are drawn in log2 units so that 2x and 0.5x
//! are the same length.

use std::path::Path;

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::Run;
use crate::runner::{Outcome, Row};

pub fn write(run: &Run, path: &Path) -> Result<(), String> {
    // One bar per (benchmark, other platform); rows without both figures
    // keep their place, labelled with why.
    let mut bars: Vec<(String, Option<f64>)> = Vec::new();
    let others = run.others();
    for row in run.rows {
        for &o in &others {
            let mut label = row.name.clone();
            if others.len() > 1 {
                label += &format!(" ({})", run.ratio_label(o));
            }
            let ratio = run.ratio(row, o);
            if ratio.is_none() {
                label += &format!(" ({})", missing(run, row, o));
            }
            bars.push((label, ratio));
        }
    }
    if bars.is_empty() {
        return Ok(());
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    draw(run, &bars, path).map_err(|e| format!("{}: {e}", path.display()))
}

/// Why a row has no ratio: the first of the two platforms without a figure.
fn missing(run: &Run, row: &Row, other: usize) -> String {
    for i in [run.reference(), other] {
        let why = match &row.cells[i] {
            Outcome::Ok(_) => continue,
            Outcome::NotAvailable(_) => "n/a",
            Outcome::BuildFailed(_) => "build failed",
            Outcome::Failed(_) => "FAIL",
        };
        return format!("{}: {why}", run.targets[i].label);
    }
    String::new()
}

fn draw(
    run: &Run,
    bars: &[(String, Option<f64>)],
    path: &Path,
) -> Result<(), Box<dyn std::error::Error>> {
    let logs = bars.iter().filter_map(|b| b.1.map(f64::log2));
    let lo = logs.clone().fold(-1.0f64, f64::min).floor();
    let hi = logs.fold(1.0f64, f64::max).ceil();
    let n = bars.len() as i32;

    let root = SVGBackend::new(path, (960, 100 + 26 * n as u32)).into_drawing_area();
    root.fill(&WHITE)?;
    let reference = &run.targets[run.reference()].label;
    let title = match run.others().as_slice() {
        [o] => format!("speed-up {} (>1: {reference} faster)", run.ratio_label(*o)),
        _ => format!("speed-up of {reference} (>1: {reference} faster)"),
    };
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(260)
        .build_cartesian_2d(lo..hi, (0..n - 1).into_segmented())?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(bars.len())
        .y_label_formatter(&|v| match v {
            SegmentValue::CenterOf(i) => bars
                .get((n - 1 - *i) as usize)
                .map_or(String::new(), |b| b.0.clone()),
            _ => String::new(),
        })
        .x_labels((hi - lo) as usize + 1)
        .x_label_formatter(&|x| format!("{}x", (x.exp2() * 1000.0).round() / 1000.0))
        .draw()?;

    // First benchmark at the top.
    let placed = bars
        .iter()
        .enumerate()
        .filter_map(|(k, (_, r))| Some((n - 1 - k as i32, (*r)?)));
    chart.draw_series(placed.clone().map(|(y, r)| {
        let colour = if r >= 1.0 {
            RGBColor(46, 139, 87)
        } else {
            RGBColor(200, 70, 60)
        };
        let mut bar = Rectangle::new(
            [
                (0.0, SegmentValue::Exact(y)),
                (r.log2(), SegmentValue::Exact(y + 1)),
            ],
            colour.filled(),
        );
        bar.set_margin(4, 4, 0, 0);
        bar
    }))?;
    // The figure at the end of each bar, outside it.
    let font = TextStyle::from(("sans-serif", 13).into_font());
    chart.draw_series(placed.map(|(y, r)| {
        let (h, pad) = if r >= 1.0 {
            (HPos::Left, 0.03)
        } else {
            (HPos::Right, -0.03)
        };
        Text::new(
            format!("{r:.2}x"),
            (r.log2() + pad * (hi - lo), SegmentValue::CenterOf(y)),
            font.clone().pos(Pos::new(h, VPos::Center)),
        )
    }))?;
    chart.draw_series(std::iter::once(PathElement::new(
        vec![(0.0, SegmentValue::Exact(0)), (0.0, SegmentValue::Exact(n))],
        BLACK.stroke_width(1),
    )))?;
    root.present()?;
    Ok(())
}
