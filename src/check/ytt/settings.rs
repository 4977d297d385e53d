//! What a ytt package check is given and gives: its settings, its outcome,
//! and the shape of the check itself, which a private library's evaluation
//! is handed (a library is a package checked on its own) rather than
//! reaching back up to it.

use super::schema::SchemaType;
use crate::discover::DiscoveredFile;
use crate::finding::{Finding, Severity};
use crate::rules;
use crate::source::Sources;
use crate::yaml::{Document, Node};
use std::path::Path;

/// What checking one package gives.
#[derive(Debug, Default)]
pub struct PackageOutcome {
    pub findings: Vec<Finding>,
    /// The final data values, when the checks got that far.
    pub values: Option<Node>,
    /// Each template file's output documents, when rendering got that far.
    pub rendered: Option<Vec<(crate::source::FileId, Vec<Document>)>>,
    /// Each text template's (`.txt`) output, when rendering got that far.
    pub rendered_texts: Option<Vec<(crate::source::FileId, String)>>,
    /// The package's schema once the schema phase is through: `Some(None)`
    /// for a package without one; `None` when the phase was not reached or
    /// failed.
    pub schema: Option<Option<SchemaType>>,
    /// What the Kubernetes check of the rendered documents looked up.
    pub kind_lookups: crate::check::kubernetes::Lookups,
}

impl PackageOutcome {
    /// The findings that stop `ytt -f` on this package: errors, and
    /// templates that did not render, which lint may give as warnings
    /// (a consumer's value may be awaited) but ytt stops on.
    pub fn stops(&self) -> impl Iterator<Item = &Finding> {
        self.findings
            .iter()
            .filter(|f| f.severity == Severity::Error || is_render_failure(f))
    }
}

/// Whether `finding` says a template did not render.
pub(crate) fn is_render_failure(finding: &Finding) -> bool {
    finding.is(&rules::ytt::TEMPLATE_FAIL) || finding.is(&rules::ytt::TEMPLATE_ERROR)
}

/// A library's library files, evaluated (by path in the library), and the
/// session their functions run in.
pub(crate) type LibraryExports = (
    Vec<(String, ::starlark::environment::FrozenModule)>,
    crate::check::ytt::template::runtime::SharedSession,
);

/// Settings of a ytt check.
#[derive(Debug, Clone, Default)]
pub struct YttSettings {
    pub flags: super::flags::DataValueFlags,
    pub disable_validation: bool,
    pub strict: bool,
    /// ytt's `--ignore-unknown-comments`: plain `#` comments are allowed.
    pub ignore_unknown_comments: bool,
    /// Skip rendering templates, as `ytt --data-values-inspect` does.
    pub skip_templates: bool,
    /// Stop once the data values are known, as `ytt --data-values-inspect`
    /// does: the templates are not checked either.
    pub values_only: bool,
    /// ytt's `--implicit-map-key-overrides`.
    pub implicit_map_key_overrides: bool,
    /// `render` given files one by one (no directory): ytt knows them by
    /// their base names only.
    pub flat_files: Option<Vec<std::path::PathBuf>>,
    /// The text templates (`.txt`) of the package, already read into the
    /// sources; None to find them below the package root.
    pub text_templates: Option<Vec<(crate::source::FileId, std::path::PathBuf)>>,
    /// `render`'s files by the names ytt gives them (for `data.list` and
    /// `data.read`); None: every file below the package root.
    pub library_files: Option<Vec<(String, std::path::PathBuf)>>,
    /// ytt's `--file-mark`s.
    pub marks: Vec<super::marks::FileMark>,
    /// ytt's symlink flags.
    pub symlinks: super::marks::SymlinkPolicy,
    /// The package's input files after the marks (what each is to ytt);
    /// None when no mark applies.
    pub inputs: Option<std::sync::Arc<super::marks::Inputs>>,
    /// What a private library is evaluated with when this package is one
    /// (`library.get(...)`): data values and schemas merged after its own,
    /// and those it passes on to its own libraries.
    pub library: super::workspace::execution::LibraryInputs,
    /// The schemas the rendered output is checked against; None: not
    /// checked (`render`, a library's evaluation, `kubernetes: false`).
    pub kubernetes: Option<std::sync::Arc<crate::check::kubernetes::Catalog>>,
    /// Plain manifests are checked (`--kubernetes`): what a plain file of
    /// the package gives its output is judged as one.
    pub plain_manifests: bool,
    /// lint took the package's root from where its files sit, the
    /// configuration not naming it: whether the folder is rendered whole
    /// (`ytt -f ROOT`) is then a guess.
    pub root_guessed: bool,
}

impl confvet_key::Key for YttSettings {
    fn key(&self, out: &mut confvet_key::KeyHasher) {
        let YttSettings {
            flags,
            disable_validation,
            strict,
            ignore_unknown_comments,
            skip_templates,
            values_only,
            implicit_map_key_overrides,
            flat_files,
            text_templates,
            library_files,
            marks,
            symlinks,
            // Worked out per package from the files (a unit's own key
            // covers them); a request never carries them.
            inputs: _,
            // A private library's evaluation, inside a package's check.
            library: _,
            // The catalog is keyed by its version and files (the run's
            // catalog digest), not by the index built from them.
            kubernetes: _,
            plain_manifests,
            // Set per package from the configuration, which every key
            // hashes.
            root_guessed: _,
        } = self;
        out.key(flags).key(disable_validation).key(strict);
        out.key(ignore_unknown_comments)
            .key(skip_templates)
            .key(values_only);
        out.key(implicit_map_key_overrides).key(flat_files);
        // A file id is this process's: the paths are what was read.
        let text_template_paths = text_templates
            .as_ref()
            .map(|files| files.iter().map(|(_, path)| path).collect::<Vec<_>>());
        out.key(&text_template_paths).key(library_files).key(marks);
        out.key(symlinks).key(plain_manifests);
    }
}

/// The package check (`check_package_exporting`), as a library evaluation
/// gets it.
pub(crate) type CheckPackage = fn(
    &Path,
    &[&DiscoveredFile],
    &Sources,
    &YttSettings,
    &mut Option<LibraryExports>,
) -> PackageOutcome;

/// Whether any of `findings` is an error: ytt stops at the phase that
/// gave it.
pub(crate) fn has_errors(findings: &[Finding]) -> bool {
    findings
        .iter()
        .any(|f| f.severity == crate::finding::Severity::Error)
}
