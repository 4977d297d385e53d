//! The six data-value flags as one table (their names, which read YAML,
//! ytt's order), how their sources merge, and what each source is.

use crate::check::ytt::overlay::merge_mode::MergeMode;
use crate::source::{FileId, Span};
use crate::yaml::Node;

/// The six data-value flags, in the order ytt applies them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlagKind {
    ValuesFile,
    ValuesEnv,
    ValuesEnvYaml,
    Value,
    ValueYaml,
    ValueFile,
}

impl FlagKind {
    pub const IN_ORDER: [FlagKind; 6] = [
        FlagKind::ValuesFile,
        FlagKind::ValuesEnv,
        FlagKind::ValuesEnvYaml,
        FlagKind::Value,
        FlagKind::ValueYaml,
        FlagKind::ValueFile,
    ];

    /// The flag's name, without its dashes.
    pub fn name(self) -> &'static str {
        match self {
            FlagKind::ValuesFile => "data-values-file",
            FlagKind::ValuesEnv => "data-values-env",
            FlagKind::ValuesEnvYaml => "data-values-env-yaml",
            FlagKind::Value => "data-value",
            FlagKind::ValueYaml => "data-value-yaml",
            FlagKind::ValueFile => "data-value-file",
        }
    }

    /// Whether its values are read as YAML (the `-yaml` flags).
    pub fn as_yaml(self) -> bool {
        matches!(self, FlagKind::ValuesEnvYaml | FlagKind::ValueYaml)
    }

    /// ytt's pseudo file name for the flag's argument: `(data-value arg)`.
    pub fn pseudo_file(self) -> String {
        format!("({} arg)", self.name())
    }
}

/// How every command-line source merges: as a plain `--data-values-file`
/// (each map key may be added, arrays replace).
pub const FLAG_MODE: MergeMode = MergeMode {
    implicit_missing_ok: true,
    arrays_replace: true,
};

/// One command-line source: the library it is addressed to, its document,
/// and where ytt says it is (as text, and where the source starts).
pub struct FlagSource {
    pub target: Option<LibraryTarget>,
    pub node: Node,
    pub at: String,
    pub starts_at: Span,
}

/// The library a flag addresses (`@lib:...`), with the flag's pseudo file
/// and its text, for the errors of an address ytt refuses.
pub struct LibraryTarget {
    pub library: String,
    pub id: FileId,
    pub arg: String,
}
