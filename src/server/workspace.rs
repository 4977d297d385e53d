//! What the server keeps of a workspace folder between keystrokes: which
//! system each file belongs to, the ytt package roots, and the links each
//! Tekton and KubeVirt file has to others. A change then re-checks only its
//! unit: a ytt package is linted from its root, and a Tekton or KubeVirt
//! group is found again from the links (the edited file's read anew) and
//! linted from its files alone, without walking the tree.
//!
//! Built by one discovery of the whole folder (as `confvet lint DIR`
//! finds units), and built again when files change on disk. The links of
//! a system's files are read when a file of it is first checked, the rest
//! after the first check is published, a few files at a time
//! (`complete_step`). The folder's CRD files are kept too, for the
//! Kubernetes check of each unit.

use crate::check::components::links_of;
use crate::check::kubernetes::tree::KnownCrd;
use crate::check::{kubevirt, tekton};
use crate::config::Config;
use crate::discover::{self, DiscoveredFile, System};
use crate::navigate::{WorkspaceMemo, YTT_PACKAGES, YttPackages};
use crate::source::{Files, Sources};
use crate::yaml::ParseOptions;
use rayon::prelude::*;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The units of one workspace folder.
#[derive(Default)]
pub struct WorkspaceUnits {
    /// Each discovered file's system.
    systems: HashMap<PathBuf, System>,
    /// ytt package roots.
    ytt_roots: Vec<PathBuf>,
    tekton: Linked<tekton::links::FileLinks>,
    /// The git repository of each Tekton file, by its index: the paths
    /// alone decide it, so a change of a file's links (a Pipeline renamed
    /// as it is typed) groups the files again without asking the disk.
    tekton_repos: Option<HashMap<usize, Option<PathBuf>>>,
    kubevirt: Linked<kubevirt::links::FileLinks>,
    /// The Tekton and KubeVirt files whose links are not read yet: each
    /// system's are read when a change of one of its files asks for them
    /// first, the rest once the first check is published (`complete_step`), so
    /// the opened file's unit comes before the folder's whole index.
    unread: Option<Unread>,
    /// The files holding CRDs: a unit's resources (what a ytt package
    /// renders, say) are checked against every CRD of the folder, as
    /// `confvet lint DIR` checks them, not only those of the unit.
    crds: Arc<[KnownCrd]>,
}

/// The files of each system whose links are still to be read, with the
/// sources of the discovery that found them.
struct Unread {
    sources: Sources,
    tekton: Vec<DiscoveredFile>,
    kubevirt: Vec<DiscoveredFile>,
}

/// One system's files with their links, and the groups they form (found
/// again only when some file's links change: most keystrokes change none).
struct Linked<L> {
    files: Vec<(PathBuf, L)>,
    groups: Option<Vec<Vec<usize>>>,
    /// The files discovery had not placed, added since.
    added: Vec<PathBuf>,
}

impl<L> Default for Linked<L> {
    fn default() -> Self {
        Linked {
            files: Vec::new(),
            groups: None,
            added: Vec::new(),
        }
    }
}

/// What to lint for a change of one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    /// The ytt package at this root.
    Package(PathBuf),
    /// These files, which are their whole unit.
    Files(Vec<PathBuf>),
    /// The file as `confvet lint FILE` finds its unit: walking the folder.
    Walk,
}

impl Scope {
    /// Whether a check of this scope covers the file at `path`: all of its
    /// findings are among the check's. Not known after a walk.
    pub fn covers(&self, path: &Path) -> bool {
        match self {
            Scope::Package(root) => path.starts_with(root),
            Scope::Files(files) => files.iter().any(|f| f == path),
            Scope::Walk => false,
        }
    }

    /// How a suppression comment starts in its files: `#!` in a ytt
    /// package, where a plain `#` comment is an error.
    pub fn comment(&self) -> &'static str {
        match self {
            Scope::Package(_) => "#!",
            Scope::Files(_) | Scope::Walk => "#",
        }
    }
}

impl WorkspaceUnits {
    /// Discover `root` whole and keep its units; the ytt packages found go
    /// into `memo` too, for the navigators.
    pub fn build(
        root: &Path,
        config: Option<&Config>,
        memo: &WorkspaceMemo,
        files: &Files,
    ) -> WorkspaceUnits {
        let sources = Sources::with_files(files.clone());
        let options = discover::DiscoverOptions {
            workspace: true,
            ..config.map(Config::discover_options).unwrap_or_default()
        };
        let mut discovery = discover::discover_with(
            &[root.to_path_buf()],
            &sources,
            root,
            &ParseOptions::default(),
            &options,
        );
        memo.insert(YTT_PACKAGES, YttPackages::of(&discovery));
        let mut units = WorkspaceUnits::default();
        let mut unread = Unread {
            sources,
            tekton: Vec::new(),
            kubevirt: Vec::new(),
        };
        let mut files: Vec<Option<DiscoveredFile>> = std::mem::take(&mut discovery.files)
            .into_iter()
            .map(Some)
            .collect();
        for unit in &discovery.units {
            if unit.system == System::Ytt {
                units.ytt_roots.push(unit.root.clone());
            }
            for &i in &unit.files {
                let Some(file) = files.get_mut(i).and_then(Option::take) else {
                    continue;
                };
                units.systems.insert(file.path.clone(), unit.system);
                match unit.system {
                    System::Tekton => unread.tekton.push(file),
                    System::Kubevirt => unread.kubevirt.push(file),
                    System::Ytt => {}
                }
            }
        }
        units.unread = Some(unread);
        units.ytt_roots.sort();
        units.crds = discovery
            .resources
            .iter()
            .filter(|file| file.resource.crd)
            .map(|file| KnownCrd {
                path: file.path.clone(),
                groups: Some(file.crd_groups.clone()),
            })
            .collect();
        units
    }

    /// Read the links of `system`'s files, when they are not yet.
    fn read_links_of(&mut self, system: System) {
        let Some(unread) = &mut self.unread else {
            return;
        };
        match system {
            System::Tekton if !unread.tekton.is_empty() => {
                let files = std::mem::take(&mut unread.tekton);
                let read = each_links(&files, &unread.sources, tekton::links::links);
                self.tekton.extend(read);
                self.tekton_repos = None;
            }
            System::Kubevirt if !unread.kubevirt.is_empty() => {
                let files = std::mem::take(&mut unread.kubevirt);
                let read = each_links(&files, &unread.sources, kubevirt::links::links);
                self.kubevirt.extend(read);
            }
            _ => {}
        }
        if unread.tekton.is_empty() && unread.kubevirt.is_empty() {
            self.unread = None;
        }
    }

    /// Read the links of a few more files (a check that comes meanwhile
    /// waits for these only); true once every link is read: the folder's
    /// index is complete.
    pub fn complete_step(&mut self) -> bool {
        /// The bytes read in one step, at least one file's: a check that
        /// comes meanwhile waits for these only.
        const STEP: u64 = 128 * 1024;
        let Some(unread) = &mut self.unread else {
            return true;
        };
        if !unread.tekton.is_empty() {
            let files: Vec<DiscoveredFile> = drain_last(&mut unread.tekton, STEP);
            let read = each_links(&files, &unread.sources, tekton::links::links);
            self.tekton.extend(read);
            self.tekton_repos = None;
        } else if !unread.kubevirt.is_empty() {
            let files: Vec<DiscoveredFile> = drain_last(&mut unread.kubevirt, STEP);
            let read = each_links(&files, &unread.sources, kubevirt::links::links);
            self.kubevirt.extend(read);
        }
        if unread.tekton.is_empty() && unread.kubevirt.is_empty() {
            self.unread = None;
        }
        self.unread.is_none()
    }

    /// The system of the file at `path`, when discovery placed it.
    pub fn system(&self, path: &Path) -> Option<System> {
        self.systems.get(path).copied()
    }

    /// What the folder holds: its files of a system, and its ytt packages.
    pub fn counts(&self) -> (usize, usize) {
        (self.systems.len(), self.ytt_roots.len())
    }

    /// The folder's CRD files, for a check through `files`: the groups of
    /// one an open document stands in for are read again from its text.
    pub fn known_crds(&self, files: &Files) -> Arc<[KnownCrd]> {
        if !self.crds.iter().any(|crd| files.is_overlaid(&crd.path)) {
            return Arc::clone(&self.crds);
        }
        self.crds
            .iter()
            .map(|crd| KnownCrd {
                path: crd.path.clone(),
                groups: crd.groups.clone().filter(|_| !files.is_overlaid(&crd.path)),
            })
            .collect()
    }

    /// What to lint when `path` changed; `sources` stands the new text in
    /// for it.
    pub fn scope(&mut self, path: &Path, root: &Path, sources: &Sources) -> Scope {
        let package = self
            .ytt_roots
            .iter()
            .filter(|r| path.starts_with(r))
            .max_by_key(|r| r.components().count());
        match self.systems.get(path) {
            Some(System::Ytt) => match package {
                Some(package) => Scope::Package(package.clone()),
                None => Scope::Walk,
            },
            Some(System::Tekton) => {
                self.read_links_of(System::Tekton);
                let links = read_links(path, root, sources, tekton::links::links);
                let repos = &mut self.tekton_repos;
                group(&mut self.tekton, path, links, |files| {
                    let repos = repos.get_or_insert_with(|| {
                        tekton::links::repositories_of(files.iter().map(|(p, _)| *p))
                    });
                    tekton::links::components_in(files, repos)
                })
            }
            Some(System::Kubevirt) => {
                self.read_links_of(System::Kubevirt);
                let links = read_links(path, root, sources, kubevirt::links::links);
                group(&mut self.kubevirt, path, links, kubevirt::links::components)
            }
            // A file discovery did not place: new, or of no system yet.
            None => {
                if let Some(package) = package {
                    return Scope::Package(package.clone());
                }
                match classify(path, root, sources) {
                    // Read by other units (a Carvel Package, a CRD),
                    // or perhaps a new ytt package: the walk decides.
                    Classified::Resource | Classified::System(System::Ytt) => Scope::Walk,
                    // Nothing reads it: checked alone, it gives what the
                    // walk would (nothing, or its syntax errors).
                    Classified::Nothing => Scope::Files(vec![path.to_path_buf()]),
                    Classified::System(system) => {
                        self.systems.insert(path.to_path_buf(), system);
                        match system {
                            System::Tekton => {
                                self.tekton.add(path);
                                self.tekton_repos = None;
                            }
                            System::Kubevirt => self.kubevirt.add(path),
                            System::Ytt => {}
                        }
                        self.scope(path, root, sources)
                    }
                }
            }
        }
    }
}

impl<L: Default> Linked<L> {
    /// A file discovery had not placed: its links are read when it is
    /// grouped.
    fn add(&mut self, path: &Path) {
        self.files.push((path.to_path_buf(), L::default()));
        self.added.push(path.to_path_buf());
        self.groups = None;
    }

    /// Files with their links read: the groups are found again. A file
    /// added meanwhile (new, grouped with its links then) keeps those.
    fn extend(&mut self, read: Vec<(PathBuf, L)>) {
        let added = &self.added;
        self.files
            .extend(read.into_iter().filter(|(p, _)| !added.contains(p)));
        self.groups = None;
    }
}

/// What a file discovery had not placed holds now.
enum Classified {
    System(System),
    Resource,
    Nothing,
}

fn classify(path: &Path, root: &Path, sources: &Sources) -> Classified {
    let discovery = discover_alone(path, root, sources);
    if let Some(system) = discovery
        .files
        .iter()
        .find(|f| f.path == path)
        .and_then(|f| f.system)
    {
        Classified::System(system)
    } else if discovery.resources.iter().any(|f| f.path == path) {
        Classified::Resource
    } else {
        Classified::Nothing
    }
}

/// Discovery of the one file at `path`, as `sources` holds it now.
fn discover_alone(path: &Path, root: &Path, sources: &Sources) -> discover::Discovery {
    let options = discover::DiscoverOptions {
        named_only: true,
        ..Default::default()
    };
    discover::discover_with(
        &[path.to_path_buf()],
        sources,
        root,
        &ParseOptions::default(),
        &options,
    )
}

/// The last files of `files` up to `bytes` (at least one), taken out.
fn drain_last(files: &mut Vec<DiscoveredFile>, bytes: u64) -> Vec<DiscoveredFile> {
    let mut from = files.len();
    let mut taken = 0;
    while from > 0 && taken < bytes {
        from -= 1;
        // A file without a disk stamp (an open document) counts as large.
        taken += files[from].stamp.map_or(bytes, |stamp| stamp.size.max(1));
    }
    files.split_off(from)
}

/// Each file's links, read from its YAML.
fn each_links<L: Send + Default>(
    files: &[DiscoveredFile],
    sources: &Sources,
    read: fn(&crate::yaml::DocumentSet) -> L,
) -> Vec<(PathBuf, L)> {
    files
        .par_iter()
        .map(|file| (file.path.clone(), links_of(file, sources, read)))
        .collect()
}

/// The links of the file at `path` as `sources` holds it now: None when it
/// is no longer a file of a system.
fn read_links<L: Send + Default>(
    path: &Path,
    root: &Path,
    sources: &Sources,
    read: fn(&crate::yaml::DocumentSet) -> L,
) -> Option<L> {
    let discovery = discover_alone(path, root, sources);
    let file = discovery.files.iter().find(|f| f.path == path)?;
    file.system?;
    Some(links_of(file, sources, read))
}

/// The group of files `path` now belongs to, its links replaced by `links`
/// (kept for the next change).
fn group<L: Default + PartialEq>(
    linked: &mut Linked<L>,
    path: &Path,
    links: Option<L>,
    components: impl FnOnce(&[(&Path, L)]) -> Vec<Vec<usize>>,
) -> Scope {
    let files = &mut linked.files;
    let (Some(links), Some(index)) = (links, files.iter().position(|(p, _)| p == path)) else {
        return Scope::Walk;
    };
    if files[index].1 != links {
        files[index].1 = links;
        linked.groups = None;
    }
    let groups = linked.groups.get_or_insert_with(|| {
        // The grouping takes the links by value: lent to it and put back.
        let taken: Vec<L> = files.iter_mut().map(|(_, l)| std::mem::take(l)).collect();
        let view: Vec<(&Path, L)> = files.iter().map(|(p, _)| p.as_path()).zip(taken).collect();
        let groups = components(&view);
        let back: Vec<L> = view.into_iter().map(|(_, l)| l).collect();
        for ((_, slot), links) in files.iter_mut().zip(back) {
            *slot = links;
        }
        groups
    });
    groups
        .iter()
        .find(|g| g.contains(&index))
        .map_or(Scope::Walk, |g| {
            Scope::Files(g.iter().map(|&i| files[i].0.clone()).collect())
        })
}
