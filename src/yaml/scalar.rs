//! Scalar resolution as go-yaml v2 does it (stub, being written).

/// Go's `strconv.FormatFloat(f, 'g', -1, 64)`.
pub fn format_float(f: f64) -> String {
    f.to_string()
}
