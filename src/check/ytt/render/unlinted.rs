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
    /// read, by file; None when one cannot be read as ytt reads it.
    pub(super) fn unlinted_documents(
        &self,
        sources: &Sources,
    ) -> Option<Vec<(FileId, Vec<Document>)>> {
        let mut found = Vec::new();
        for path in crate::source::files_below(&self.root) {
            if !is_output_yaml(&path, &self.root) || self.files.iter().any(|(p, _, _)| *p == path) {
                continue;
            }
            let file = crate::discover::read_ytt_file(&path, sources, &self.root)?;
            let set = file.parsed.ok()?;
            if super::plain::has_templating(&set) {
                return None;
            }
            let mut docs = set.docs;
            for doc in &mut docs {
                super::plain::override_map_keys(&mut doc.value);
            }
            self.engine
                .session()
                .borrow_mut()
                .sources
                .insert(file.id, sources.get(file.id));
            found.push((file.id, docs));
        }
        Some(found)
    }
}

/// A YAML file ytt outputs: not a library file, not in a private library.
fn is_output_yaml(path: &Path, root: &Path) -> bool {
    super::super::package::is_yaml_template(path) && !super::super::package::in_ytt_lib(path, root)
}
