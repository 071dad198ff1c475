//! The empty kernel whose enqueue-to-finish time is the launch latency, and
//! the kernel launched once after the whole-program builds.

/// Part of the whole-program source.
pub const SOURCE: &str = r#"
kernel void latency_empty(void) {}
"#;

pub const EMPTY: &str = "latency_empty";
