//! The YAML files of a package that `lint` does not hold: `lint` takes the
//! files that read as ytt's, but `ytt -f DIR` also outputs every plain
//! YAML file below the package, and overlays apply to those documents too.
//! They are read here so overlays see what ytt sees; when one cannot be
//! read as ytt would (a template of another package, YAML confvet does not
//! parse), the overlays cannot be checked.

use super::Renderer;
use crate::source::{FileId, Sources};
use crate::yaml::Document;
use std::path::Path;

impl Renderer {
    /// The documents of the package's plain YAML files `lint` did not
    /// read, by file; else the name of one it cannot read as ytt does, and
    /// why.
    /// The folder the package's files are named from (where lint runs),
    /// read off one of them; the package root when none tells.
    fn names_base(&self) -> std::path::PathBuf {
        self.files
            .iter()
            .find_map(|(path, _, source)| {
                let name = std::path::Path::new(&source.name);
                if name.is_absolute() {
                    // Shown whole: no folder is a prefix of it.
                    return Some(std::path::PathBuf::new());
                }
                let mut base = path.as_path();
                for _ in name.components() {
                    base = base.parent()?;
                }
                (base.join(name) == *path).then(|| base.to_path_buf())
            })
            .unwrap_or_else(|| self.root.clone())
    }

    pub(super) fn unlinted_documents(
        &self,
        sources: &Sources,
    ) -> Result<Vec<(FileId, Vec<Document>)>, Unlinted> {
        let mut found = Vec::new();
        for path in crate::source::files_below(&self.root) {
            if !is_output_yaml(&path, &self.root) || self.files.iter().any(|(p, _, _)| *p == path) {
                continue;
            }
            // Excluded by a mark, of another type, behind a link not allowed.
            let session = self.engine.session().borrow();
            if session.inputs.as_ref().is_some_and(|i| !i.is_yaml(&path)) {
                continue;
            }
            drop(session);
            let name = crate::source::display_name(&path, &self.root);
            // Named as the package's own files are, for related locations.
            let Some(file) = crate::discover::read_ytt_file(&path, sources, &self.names_base())
            else {
                return Err(Unlinted::Unreadable(name));
            };
            // The render keeps what it needs of the text; the run keeps
            // none, so memory does not grow with the packages linted.
            let text = sources.get(file.id);
            sources.evict([file.id]);
            let set = file.parsed.map_err(|e| Unlinted::Unparsed {
                name: name.clone(),
                message: e.message,
            })?;
            if super::plain::has_templating(&set) {
                return Err(Unlinted::ForeignTemplate(name));
            }
            let mut docs = set.docs;
            for doc in &mut docs {
                super::plain::override_map_keys(&mut doc.value);
            }
            self.engine
                .session()
                .borrow_mut()
                .sources
                .insert(file.id, text);
            found.push((file.id, docs));
        }
        Ok(found)
    }
}

/// A YAML file ytt outputs: not a library file, not in a private library.
fn is_output_yaml(path: &Path, root: &Path) -> bool {
    super::super::package::is_yaml_template(path) && !super::super::package::in_ytt_lib(path, root)
}

/// Why a YAML file ytt would read with the package, and lint takes as
/// another unit's, cannot be added to the documents overlays apply to.
#[derive(Debug, thiserror::Error)]
pub(super) enum Unlinted {
    #[error("`{0}` cannot be read")]
    Unreadable(String),
    #[error("`{name}` does not parse: {message}")]
    Unparsed { name: String, message: String },
    #[error("`{0}` is a template of another package")]
    ForeignTemplate(String),
}
