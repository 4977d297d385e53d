//! What a parse may do: limits on nesting, aliases and size, and ytt's
//! modes (`--strict`, keys repeated across template branches).

/// Limits and modes of [`parse_file`].
#[derive(Debug, Clone)]
pub struct ParseOptions {
    /// Deepest nesting of maps and arrays accepted (also after alias
    /// expansion). Keep it modest: dropping a tree recurses once per level.
    pub max_depth: usize,
    /// Most nodes that aliases may expand to in one file ("billion laughs").
    pub max_alias_nodes: usize,
    /// Most nodes (maps, arrays, keys and scalars) in one file: a tree is
    /// many times its text, so a file of tiny keys within the size limit
    /// could otherwise fill memory; real configuration stays far below.
    pub max_nodes: usize,
    /// Most scalar bytes that aliases may expand to in one file: a few
    /// aliases of one huge anchored scalar cost memory, not nodes.
    pub max_alias_bytes: usize,
    /// ytt's `--strict`: reject plain scalars that YAML 1.1 reads as booleans
    /// but are not spelled `true` / `false` (`yes`, `On`, `n`, ...).
    pub strict: bool,
    /// Keep a repeated key as a second item instead of failing: ytt
    /// templates repeat keys in `#@ if` / `#@ else` branches, and only
    /// duplicates that survive templating are errors.
    pub keeps_duplicate_keys: bool,
}

impl Default for ParseOptions {
    fn default() -> Self {
        ParseOptions {
            max_depth: 200,
            max_alias_nodes: 100_000,
            max_nodes: 1_000_000,
            max_alias_bytes: 64 * 1024 * 1024,
            strict: false,
            keeps_duplicate_keys: false,
        }
    }
}
