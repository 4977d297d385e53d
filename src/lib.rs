//! confvet checks configuration against the schemas and validation rules its
//! authors wrote, and reports every problem at once with its exact position.
//!
//! Data flows one way, one module per concern:
//!
//! ```text
//! cli ─► discover ─► yaml (parse) ─► check::{ytt,kubevirt,tekton} ─► finding ─► report
//! ```
//!
//! * `source`: files, byte spans and line indexes; `yaml`: confvet's own
//!   YAML tree with spans, comments and ytt annotations, scalars resolved
//!   as go-yaml v2 resolves them; `edit`: byte-range edits; `uri`:
//!   `file://` URIs. They are the crate `confvet-syntax` (crates/syntax),
//!   which knows nothing above it, re-exported here under these names.
//! * `finding`, `rules`: what a check reports, and the table of rule ids;
//!   a finding's fixes are `edit`s: the crate `confvet-findings`
//!   (crates/findings); `rules` adds each rule's page from `docs/rules/`;
//!   `suggest`: did-you-mean hints.
//! * `discover`: the parallel walk, file classification, grouping into units.
//! * `check`: one module per system; speaks only the YAML tree and findings.
//! * `report`: one emitter per output format; never sees `check` or `yaml`.
//! * `config`: the `.confvet.yaml` file: what discovery walks, which rules
//!   and systems run, ytt packages checked once per scenario.
//! * `fix`: `lint --fix` and `--diff`, the passes that apply fixes;
//!   `server`: `confvet server`, the language server.
//! * `run`: wires the above for the binary and for tests; `error`: the
//!   typed ways a run fails other than by findings.
//! * `suppress`, `baseline`: hide findings that `# confvet: ignore[...]`
//!   comments or a baseline file accept; `progress`: the bar of long runs.
//! * `watchdog`: time and memory limits of one unit's work, on its own thread;
//!   `allocator`: small blocks from mimalloc, large ones from the system:
//!   the crate `confvet-watchdog` (crates/watchdog), at the very bottom.
//! * `replace`: a file replaced whole (the cache's, a fixed one).

pub mod baseline;
pub mod cache;
pub mod check;
pub mod cli;
pub mod config;
pub mod discover;
pub mod error;
pub mod fix;
pub mod navigate;
pub mod progress;
pub mod redact;
pub mod replace;
pub mod report;
pub mod rules;
pub mod run;
pub mod server;
pub mod suppress;

// The layers below, crates of their own (crates/syntax, crates/watchdog,
// crates/findings), under the names the modules above have always used.
pub use confvet_findings::finding;
pub use confvet_syntax::{edit, source, suggest, uri, yaml};
pub use confvet_watchdog as watchdog;
pub use confvet_watchdog::allocator;
