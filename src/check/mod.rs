//! Checks: one module per system. A check reads discovered units (the YAML
//! tree) and returns findings; it never prints.

pub mod components;
pub mod edits;
pub mod kubernetes;
pub mod kubevirt;
pub mod tekton;
pub mod union_find;
pub mod ytt;
