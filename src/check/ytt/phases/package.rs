//! One package as its phases read it, shared by every phase (its own file:
//! the phases use it, and `mod.rs`, which calls them, builds it).

use super::super::package::in_ytt_lib;
use super::super::settings::YttSettings;
use crate::discover::DiscoveredFile;
use crate::source::{Sources, Span};
use crate::yaml::DocumentSet;
use std::path::Path;

/// One package as its phases read it: its files in ytt's merge order with
/// their YAML, and the settings it is checked with.
pub(super) struct Package<'a> {
    pub root: &'a Path,
    pub files: &'a [&'a DiscoveredFile],
    pub parsed: Vec<&'a DocumentSet>,
    pub sources: &'a Sources,
    pub settings: &'a YttSettings,
    /// Where a finding about the package as a whole points: its first file.
    pub start: Span,
}

impl<'a> Package<'a> {
    /// The input file as `--file-mark` left it, when the inputs are known.
    pub(super) fn marked(
        &self,
        file: &DiscoveredFile,
    ) -> Option<&'a super::super::marks::InputFile> {
        self.settings
            .inputs
            .as_ref()
            .and_then(|i| i.get(&file.path))
    }

    /// A file marked `type=yaml-plain`: read as plain YAML, it holds no
    /// schema, no data values and no code.
    pub(super) fn is_plain(&self, file: &DiscoveredFile) -> bool {
        is_marked_plain(self.settings, file)
    }

    /// In a private library, by the name ytt gives the file when the input
    /// files are known: it keeps its own data values.
    pub(super) fn in_private(&self, file: &DiscoveredFile) -> bool {
        match self.marked(file) {
            Some(input) => input.in_private_library(),
            None => in_ytt_lib(&file.path, self.root),
        }
    }

    /// The files and their YAML, together.
    pub(super) fn members(
        &self,
    ) -> impl Iterator<Item = (&'a DiscoveredFile, &'a DocumentSet)> + '_ {
        self.files.iter().copied().zip(self.parsed.iter().copied())
    }

    /// The files whose schema and data values are the package's own.
    pub(super) fn own_members(
        &self,
    ) -> impl Iterator<Item = (&'a DiscoveredFile, &'a DocumentSet)> + '_ {
        self.members()
            .filter(|(file, _)| !self.in_private(file) && !self.is_plain(file))
    }
}

/// A file marked `type=yaml-plain` (or `text-plain`): read as plain YAML,
/// it holds no schema, no data values and no code.
pub(super) fn is_marked_plain(settings: &YttSettings, file: &DiscoveredFile) -> bool {
    let marked = settings.inputs.as_ref().and_then(|i| i.get(&file.path));
    marked.is_some_and(|f| !f.is_template())
}
