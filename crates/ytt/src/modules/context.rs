//! What an `@ytt:` module needs from the package being evaluated: in a
//! file of its own, so the modules read it without reaching back to the
//! module table that builds them.

/// What a module needs from the package being evaluated.
#[derive(Default, Clone, Copy)]
pub struct Context<'a> {
    /// The final data values for templates' `data.values`; `None` where ytt
    /// gives an empty struct (schema and data-values files).
    pub data_values: Option<&'a crate::yaml::Node>,
}
