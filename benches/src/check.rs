//! Comparisons of device results with host references; a failure is one
//! line saying how many elements are wrong and the first of them.

use std::fmt::Debug;

/// Every element equal.
pub fn exact<T: PartialEq + Debug>(got: &[T], want: &[T]) -> Result<(), String> {
    within(got, want, 0.0, |g, w| g == w)
}

/// Every element within `atol + rtol * |want|` of a (double-precision)
/// reference; NaN never passes.
pub fn close<G: Into<f64> + Copy + Debug>(
    got: &[G],
    want: &[f64],
    atol: f64,
    rtol: f64,
) -> Result<(), String> {
    within(got, want, 0.0, |g, w| {
        let g: f64 = (*g).into();
        (g - w).abs() <= atol + rtol * w.abs()
    })
}

/// Like `exact`, but up to `max_fraction` of the elements may differ: for
/// results that hinge on rounding (an escape count right at the boundary).
pub fn mostly_equal<T: PartialEq + Debug>(
    got: &[T],
    want: &[T],
    max_fraction: f64,
) -> Result<(), String> {
    within(got, want, max_fraction, |g, w| g == w)
}

fn within<G: Debug, W: Debug>(
    got: &[G],
    want: &[W],
    max_fraction: f64,
    ok: impl Fn(&G, &W) -> bool,
) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!("{} results, want {}", got.len(), want.len()));
    }
    let mut bad = 0usize;
    let mut first = None;
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        if !ok(g, w) {
            bad += 1;
            first.get_or_insert(i);
        }
    }
    match first {
        Some(i) if bad as f64 > max_fraction * got.len() as f64 => Err(format!(
            "{bad} of {} wrong, first [{i}]: got {:?}, want {:?}",
            got.len(),
            got[i],
            want[i]
        )),
        _ => Ok(()),
    }
}
