//! Every figure of the run as JSON.

use std::path::Path;

use serde_json::{json, Map, Value};

use super::{peak_name, Run};
use crate::runner::Outcome;

pub fn write(run: &Run, path: &Path) -> Result<(), String> {
    let machine = run.machine.map(|m| {
        json!({
            "cpu": m.cpu,
            "cores": m.cores,
            "fma_isa": m.isa,
            "fma_peak_gflops_f32": m.fma_gflops_f32,
            "fma_peak_gflops_f64": m.fma_gflops_f64(),
            "stream_triad_gbs": m.triad_gbs,
        })
    });
    let platforms: Vec<Value> = run
        .targets
        .iter()
        .map(|t| {
            json!({
                "label": t.label,
                "platform": t.platform_name,
                "device": t.device_name,
                "version": t.version,
                "fp64": t.fp64,
            })
        })
        .collect();
    let rows: Vec<Value> = run
        .rows
        .iter()
        .map(|row| {
            let mut results = Map::new();
            for (t, c) in run.targets.iter().zip(&row.cells) {
                results.insert(t.label.clone(), outcome(c, run.percent(row, c)));
            }
            let mut ratios = Map::new();
            for o in run.others() {
                ratios.insert(run.ratio_label(o), json!(run.ratio(row, o)));
            }
            json!({
                "name": row.name,
                "unit": row.unit.label(),
                "higher_is_better": row.unit.higher_is_better(),
                "percent_of": peak_name(row.peak),
                "figure": row.note,
                "results": results,
                "ratios": ratios,
            })
        })
        .collect();
    let doc = json!({
        "machine": machine,
        "platforms": platforms,
        "reference": run.targets.get(run.reference()).map(|t| t.label.clone()),
        "repetitions": run.reps,
        "benchmarks": rows,
    });
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let text = serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())?;
    std::fs::write(path, text + "\n").map_err(|e| format!("{}: {e}", path.display()))
}

fn outcome(c: &Outcome, percent: Option<f64>) -> Value {
    match c {
        Outcome::Ok(t) => json!({
            "status": "ok",
            "value": t.value,
            "best_ms": t.best_ms,
            "median_ms": t.median_ms,
            "times_ms": t.times_ms,
            "build_ms": t.build_ms,
            "percent_of_peak": percent,
        }),
        Outcome::NotAvailable(r) => json!({ "status": "n/a", "reason": r }),
        Outcome::BuildFailed(r) => json!({ "status": "build failed", "reason": r }),
        Outcome::Failed(r) => json!({ "status": "failed", "reason": r }),
    }
}
