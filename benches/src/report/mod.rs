//! What a run produced, as a table, a JSON file and a bar chart of ratios.

pub mod chart;
pub mod json;
pub mod table;

use crate::kernels::Peak;
use crate::machine::Machine;
use crate::platforms::Target;
use crate::runner::{Outcome, Row};

/// Everything the reports need.
pub struct Run<'a> {
    pub targets: &'a [Target],
    pub machine: Option<&'a Machine>,
    pub rows: &'a [Row],
    pub reps: usize,
}

impl Run<'_> {
    /// The platform ratios are taken against: ferrocl when present.
    pub fn reference(&self) -> usize {
        self.targets
            .iter()
            .position(|t| t.label == "ferrocl")
            .unwrap_or(0)
    }

    /// The other platforms, each a ratio column.
    pub fn others(&self) -> Vec<usize> {
        let r = self.reference();
        (0..self.targets.len()).filter(|&i| i != r).collect()
    }

    /// Reference over `other` as a speed-up: above 1 the reference is faster.
    pub fn ratio(&self, row: &Row, other: usize) -> Option<f64> {
        let (Outcome::Ok(a), Outcome::Ok(b)) = (&row.cells[self.reference()], &row.cells[other])
        else {
            return None;
        };
        Some(if row.unit.higher_is_better() {
            a.value / b.value
        } else {
            b.value / a.value
        })
    }

    pub fn ratio_label(&self, other: usize) -> String {
        format!(
            "{}/{}",
            self.targets[self.reference()].label,
            self.targets[other].label
        )
    }

    /// The figure as a percentage of the machine's limit for its kind.
    pub fn percent(&self, row: &Row, cell: &Outcome) -> Option<f64> {
        let (Outcome::Ok(t), Some(m)) = (cell, self.machine) else {
            return None;
        };
        let limit = match row.peak {
            Peak::None => return None,
            Peak::Fma32 => m.fma_gflops_f32,
            Peak::Fma64 => m.fma_gflops_f64(),
            Peak::Stream => m.triad_gbs,
        };
        Some(100.0 * t.value / limit)
    }
}

pub fn peak_name(p: Peak) -> Option<&'static str> {
    match p {
        Peak::None => None,
        Peak::Fma32 => Some("FMA peak"),
        Peak::Fma64 => Some("FMA peak (double)"),
        Peak::Stream => Some("STREAM triad"),
    }
}

/// Three significant digits or so, without exponent notation.
pub fn number(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 10.0 {
        format!("{v:.1}")
    } else if v >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    }
}
