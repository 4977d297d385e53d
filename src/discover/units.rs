//! Grouping: the files of a walked root gathered into units (ytt packages
//! by their schema, values and template folders; KubeVirt and Tekton files).

use super::model::{DiscoveredFile, Discovery, System, Unit};
use crate::cache::{Cache, Digest, KeyHasher, StoredUnit};
// What ytt's file names say: the ytt engine's, the one test of each.
pub use confvet_ytt::marks::{is_library_name, name_in_ytt_lib};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};

/// True for paths inside a ytt private library (`_ytt_lib`) below `root`,
/// which ytt does not include in the package's own data values. The one
/// test of it, with [`name_in_ytt_lib`] for names.
pub fn in_ytt_lib(path: &Path, root: &Path) -> bool {
    library_owner(path, root).is_some()
}

/// [`is_library_name`] of a path's file name.
fn is_library_path(path: &Path) -> bool {
    path.file_name()
        .is_some_and(|name| is_library_name(&name.to_string_lossy()))
}

/// The folder of a ytt package's private libraries.
const LIBRARY_FOLDER: &str = "_ytt_lib";

/// The folder holding the outermost `_ytt_lib` on `path` below `root`: the
/// package a private library's file belongs to.
fn library_owner(path: &Path, root: &Path) -> Option<PathBuf> {
    // Most paths hold no library folder: known from the bytes at once.
    let bytes = path.as_os_str().as_encoded_bytes();
    if !bytes
        .windows(LIBRARY_FOLDER.len())
        .any(|w| w == LIBRARY_FOLDER.as_bytes())
    {
        return None;
    }
    let relative = confvet_key::strip_prefix(path, root)?;
    let mut owner = root.to_path_buf();
    for component in relative.components() {
        if component.as_os_str() == LIBRARY_FOLDER {
            return Some(owner);
        }
        owner.push(component);
    }
    None
}

/// Each folder in `dirs` counted in every folder above it up to `root`:
/// how many of them each subtree holds, so a climb is linear in the depth.
fn count_below<'a>(dirs: &'a BTreeSet<PathBuf>, root: &Path) -> HashMap<&'a Path, usize> {
    let mut below: HashMap<&Path, usize> = HashMap::new();
    for dir in dirs {
        for ancestor in dir.ancestors() {
            *below.entry(ancestor).or_default() += 1;
            if ancestor == root {
                break;
            }
        }
    }
    below
}

/// For each anchor directory, the highest directory up to `root` (or below
/// it, unless `may_claim_root`) whose subtree holds no blocker outside the
/// anchor's own subtree. A root that already renders on its own does not
/// climb into a folder where something else renders on its own, or that
/// adds only plain YAML ([`Outputs::stays_out`]): sibling folders that each
/// render (`examples/a/`, `examples/b/`) are separate packages, as each is
/// `ytt -f`'s input; a folder of data values alone still climbs to the
/// templates it feeds.
fn climb(
    anchors: &BTreeSet<PathBuf>,
    (blockers, outputs): (&BTreeSet<PathBuf>, &Outputs<'_>),
    root: &Path,
    may_claim_root: bool,
) -> BTreeSet<PathBuf> {
    let blockers_below = count_below(blockers, root);
    let count = |dir: &Path| blockers_below.get(dir).copied().unwrap_or(0);
    let mut tops = BTreeSet::new();
    for dir in anchors {
        let own = count(dir);
        let mut top = dir.clone();
        while top != root {
            let Some(parent) = top.parent() else { break };
            let holds_other = count(parent) > own;
            let meets_other_output = outputs.renders_below(&top) && outputs.stays_out(parent, &top);
            if holds_other
                || meets_other_output
                || !parent.starts_with(root)
                || (parent == root && !may_claim_root)
            {
                break;
            }
            top = parent.to_path_buf();
        }
        tops.insert(top);
    }
    tops
}

/// What each folder below `root` holds that ytt reads, to tell a folder
/// that renders on its own (a package, or one example among others) from
/// a part of a package (data values alone, overlays alone, plain upstream
/// YAML alone). A folder renders when it holds a ytt template (a YAML file
/// that is no data values, schema, overlay or library), or an overlay with
/// plain YAML it can edit. Keyed by the walk's own paths: built for every
/// YAML file of the walk, it allocates no path of its own.
#[derive(Default)]
struct Outputs<'a> {
    /// Per folder: (templates, overlays, plain YAML files, data values and
    /// schema files) in its subtree.
    below: HashMap<Dir<'a>, [usize; 4]>,
    /// The same, of the files directly in the folder.
    direct: HashMap<Dir<'a>, [usize; 4]>,
    children: HashMap<Dir<'a>, HashSet<Dir<'a>>>,
}

/// A folder as [`Outputs`] keys it: by its bytes. Every folder is a parent
/// of a walked file's path (`Path::parent`, as `ancestors` takes them), so
/// one folder is always the same bytes; hashing and comparing bytes spares
/// the component parsing of `Path`'s own, a quarter of a pre-commit run.
#[derive(Clone, Copy)]
struct Dir<'a>(&'a Path);

impl PartialEq for Dir<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.0.as_os_str() == other.0.as_os_str()
    }
}

impl Eq for Dir<'_> {}

impl std::hash::Hash for Dir<'_> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.as_os_str().hash(state);
    }
}

impl<'a> Outputs<'a> {
    fn new(files: &'a [DiscoveredFile], root: &Path, yaml_paths: &'a [PathBuf]) -> Outputs<'a> {
        // Library files (`x.lib.yml`) are only loaded, and a private
        // library's files are its package's business: neither is output.
        let counted = |path: &Path| !is_library_path(path) && library_owner(path, root).is_none();
        let ytt: Vec<&DiscoveredFile> = files
            .iter()
            .filter(|f| f.system == Some(System::Ytt))
            .collect();
        let ytt_paths: HashSet<&Path> = ytt.iter().map(|f| f.path.as_path()).collect();
        let mut outputs = Outputs::default();
        for file in ytt.into_iter().filter(|f| counted(&f.path)) {
            let what = if file.has_values || file.has_schema {
                3
            } else {
                usize::from(file.has_overlay)
            };
            outputs.add(&file.path, what, root);
        }
        for path in yaml_paths {
            if !ytt_paths.contains(path.as_path()) && counted(path) {
                outputs.add(path, 2, root);
            }
        }
        outputs
    }

    fn add(&mut self, path: &'a Path, what: usize, root: &Path) {
        let Some(folder) = path.parent() else { return };
        self.direct.entry(Dir(folder)).or_default()[what] += 1;
        let mut child: Option<&'a Path> = None;
        for dir in folder.ancestors() {
            self.below.entry(Dir(dir)).or_default()[what] += 1;
            if let Some(child) = child {
                self.children
                    .entry(Dir(dir))
                    .or_default()
                    .insert(Dir(child));
            }
            if dir == root {
                break;
            }
            child = Some(dir);
        }
    }

    fn renders([templates, overlays, plain, _]: [usize; 4]) -> bool {
        templates > 0 || (overlays > 0 && plain > 0)
    }

    /// Whether the subtree of `dir` renders on its own.
    fn renders_below(&self, dir: &Path) -> bool {
        self.below.get(&Dir(dir)).is_some_and(|c| Self::renders(*c))
    }

    /// Whether a root at `top`, which renders on its own, stays out of
    /// `parent`: the parent holds, beside `top`, files or a folder that
    /// render on their own (another package or example), or plain YAML
    /// and nothing of ytt (other resources, which the package's overlays
    /// were not written for). Climbing goes on to gather the parts of a
    /// package that do not render alone (an overlay folder, data values).
    fn stays_out(&self, parent: &Path, top: &Path) -> bool {
        let counts = |dir: &Path| self.below.get(&Dir(dir)).copied().unwrap_or_default();
        let (all, own) = (counts(parent), counts(top));
        let [templates, overlays, plain, parts] = [0, 1, 2, 3].map(|i| all[i] - own[i]);
        let renders_beside = self
            .direct
            .get(&Dir(parent))
            .is_some_and(|c| Self::renders(*c))
            || self.children.get(&Dir(parent)).is_some_and(|children| {
                children
                    .iter()
                    .any(|child| child.0 != top && self.renders_below(child.0))
            });
        renders_beside || (plain > 0 && templates + overlays + parts == 0)
    }
}

/// Each of `roots` but `given` lowered to the deepest folder that holds
/// every one of `paths` whose deepest root it is (a root holding none
/// stays). `given`, the folder lint was given, stays: `ytt -f DIR` roots
/// the package at DIR, however deep its files sit.
fn settle_roots<'a>(
    roots: &BTreeSet<PathBuf>,
    given: Option<&Path>,
    paths: impl Iterator<Item = &'a PathBuf>,
) -> BTreeSet<PathBuf> {
    let index = by_hash(roots);
    let mut lowest: HashMap<&Path, PathBuf> = HashMap::new();
    for path in paths {
        let (Some(root), Some(dir)) = (deepest_in(path, &index), path.parent()) else {
            continue;
        };
        match lowest.get_mut(root) {
            None => {
                lowest.insert(root, dir.to_path_buf());
            }
            Some(common) => while !dir.starts_with(&*common) && common.pop() {},
        }
    }
    roots
        .iter()
        .map(|r| match lowest.get(r.as_path()) {
            Some(common) if common.starts_with(r) && Some(r.as_path()) != given => common.clone(),
            _ => r.clone(),
        })
        .collect()
}

/// `roots` for [`deepest_in`], found by hash: comparing paths in a tree of
/// thousands of roots costs more than walking a path's ancestors.
fn by_hash(roots: &BTreeSet<PathBuf>) -> HashSet<&Path> {
    roots.iter().map(PathBuf::as_path).collect()
}

/// [`deepest_root`] in roots indexed [`by_hash`].
fn deepest_in<'a>(path: &Path, roots: &HashSet<&'a Path>) -> Option<&'a Path> {
    path.ancestors().find_map(|a| roots.get(a).copied())
}

/// The deepest of `roots` that holds `path`, found by walking its ancestors.
pub(super) fn deepest_root<'a>(path: &Path, roots: &'a BTreeSet<PathBuf>) -> Option<&'a PathBuf> {
    path.ancestors().find_map(|a| roots.get(a))
}

/// What grouping a walked root's files reads, besides the files.
#[derive(Clone, Copy)]
pub(super) struct Grouping<'a> {
    /// The root's first file in `Discovery::files`.
    pub start: usize,
    pub root: &'a Path,
    /// The root was named as a directory: a package may be rooted at it.
    pub may_claim_root: bool,
    /// The root is an editor's workspace ([`super::DiscoverOptions::workspace`]).
    pub is_workspace: bool,
    /// The YAML files and the other files the walk found.
    pub paths: (&'a [PathBuf], &'a [PathBuf]),
    pub declared_roots: &'a [PathBuf],
}

/// [`group_units`], or the units the cache holds for the same inputs: the
/// same files (by path, in order, with what their scan found) and the same
/// other paths, root and declared roots.
pub(super) fn group_units_cached(
    discovery: &mut Discovery,
    grouping: &Grouping<'_>,
    cache: Option<&Cache>,
) {
    let Some(cache) = cache else {
        return group_units(discovery, grouping);
    };
    let key = grouping_key(&discovery.files[grouping.start..], grouping);
    let start = grouping.start;
    let count = discovery.files.len() - start;
    if let Some(stored) = cache.units(&key) {
        let units: Option<Vec<Unit>> = stored
            .into_iter()
            .map(|u| {
                // A store that names a file the walk did not give is not used.
                if u.files.iter().any(|&i| i as usize >= count) {
                    return None;
                }
                let files = u.files.iter().map(|&i| start + i as usize).collect();
                Some(Unit {
                    system: System::from_name(&u.system)?,
                    root: u.root,
                    key: u.key,
                    files,
                    other_files: u.other_files,
                })
            })
            .collect();
        if let Some(units) = units {
            discovery.units.extend(units);
            return;
        }
    }
    let before = discovery.units.len();
    group_units(discovery, grouping);
    let stored = discovery.units[before..]
        .iter()
        .map(|u| StoredUnit {
            system: u.system.name().to_string(),
            root: u.root.clone(),
            key: u.key.clone(),
            files: u.files.iter().map(|&i| (i - start) as u32).collect(),
            other_files: u.other_files.clone(),
        })
        .collect();
    cache.record_units(key, stored);
}

/// The digest of everything [`group_units`] reads.
fn grouping_key(files: &[DiscoveredFile], grouping: &Grouping<'_>) -> Digest {
    let mut hasher = KeyHasher::new();
    let bytes = |p: &Path| p.as_os_str().as_encoded_bytes().to_vec();
    hasher.part(&bytes(grouping.root));
    hasher.part(&[
        u8::from(grouping.may_claim_root),
        u8::from(grouping.is_workspace),
    ]);
    for file in files {
        hasher.part(&bytes(&file.path));
        let system = file.system.map_or("", System::name);
        hasher.text(system);
        hasher.part(&[
            u8::from(file.has_schema),
            u8::from(file.has_values),
            u8::from(file.has_overlay),
        ]);
    }
    for list in [grouping.paths.0, grouping.paths.1, grouping.declared_roots] {
        hasher.text("--");
        for path in list {
            hasher.part(&bytes(path));
        }
    }
    hasher.finish()
}

/// Group the files discovered under `root` (from index `start`) into units.
///
/// ytt: a package is rooted at the highest directory (up to `root` when it was
/// named on the command line, else below it) above a
/// directory holding a schema file whose subtree holds no other package's
/// schema; it takes every ytt file below it except nested packages. ytt files
/// with no package above them are rooted the same way at their folders,
/// climbing past folders of plain YAML only.
/// KubeVirt and Tekton files form one unit per system: references between
/// their files are resolved across the whole linted root.
/// The roots of the ytt packages among `files` (the walk of one root):
/// anchored at schema folders, then data-values folders, then template
/// folders, each climbing as far as [`climb`] lets it, settled back down
/// ([`settle_roots`]), with the packages `.confvet.yaml` declares.
fn package_roots(files: &[DiscoveredFile], grouping: &Grouping<'_>) -> BTreeSet<PathBuf> {
    let Grouping {
        root,
        may_claim_root,
        is_workspace,
        paths: (yaml_paths, other_paths),
        declared_roots,
        ..
    } = *grouping;
    let schema_files: Vec<&DiscoveredFile> = files
        .iter()
        .filter(|f| f.system == Some(System::Ytt) && f.has_schema && !in_ytt_lib(&f.path, root))
        .collect();
    let folder = |f: &&DiscoveredFile| f.path.parent().map(Path::to_path_buf);
    let schema_dirs: BTreeSet<PathBuf> = schema_files.iter().filter_map(folder).collect();
    // Folders with a schema file that carries no overlay annotation.
    let base_schema_dirs: HashSet<PathBuf> = schema_files
        .iter()
        .filter(|f| !f.has_overlay)
        .filter_map(folder)
        .collect();
    // A folder whose schema files all carry overlay annotations, below
    // another schema's folder, extends that schema (`prod/` of a package
    // overlaying its defaults, as `ytt -f DIR` merges them): it anchors no
    // package of its own.
    let extends_above = |dir: &PathBuf| {
        !base_schema_dirs.contains(dir)
            && dir
                .ancestors()
                .skip(1)
                .take_while(|a| a.starts_with(root))
                .any(|a| schema_dirs.contains(a))
    };
    let schema_dirs: BTreeSet<PathBuf> = schema_dirs
        .iter()
        .filter(|d| !extends_above(d))
        .cloned()
        .collect();
    let outputs = Outputs::new(files, root, yaml_paths);
    let mut package_roots = climb(&schema_dirs, (&schema_dirs, &outputs), root, may_claim_root);
    // Packages without a schema are anchored at their data-values files;
    // their roots climb past other folders, never past a schema or another
    // data-values folder.
    let values_dirs: BTreeSet<PathBuf> = files
        .iter()
        .filter(|f| f.system == Some(System::Ytt) && f.has_values && !in_ytt_lib(&f.path, root))
        .filter_map(|f| f.path.parent().map(Path::to_path_buf))
        .filter(|d| deepest_root(d, &package_roots).is_none())
        .collect();
    let mut blockers: BTreeSet<PathBuf> = values_dirs.union(&schema_dirs).cloned().collect();
    package_roots.extend(climb(
        &values_dirs,
        (&blockers, &outputs),
        root,
        may_claim_root,
    ));
    // Templates with no package above them are anchored at their folders,
    // whose roots climb past folders of plain YAML only: an overlay in
    // `config/overlays/` is written for the plain documents of
    // `config/upstream/`, which `ytt -f config` gives it. A folder never
    // climbs past another folder of ytt files.
    let template_dirs: BTreeSet<PathBuf> = files
        .iter()
        .filter(|f| f.system == Some(System::Ytt))
        .filter(|f| library_owner(&f.path, root).is_none())
        .filter(|f| deepest_root(&f.path, &package_roots).is_none())
        .filter_map(|f| f.path.parent().map(Path::to_path_buf))
        .collect();
    blockers.extend(template_dirs.iter().cloned());
    let template_roots = climb(&template_dirs, (&blockers, &outputs), root, may_claim_root);
    // A folder of templates inside another's root is part of it, as `ytt
    // -f` of the outer folder reads it.
    package_roots.extend(
        template_roots
            .iter()
            .filter(|r| !r.ancestors().skip(1).any(|a| template_roots.contains(a)))
            .cloned()
            .collect::<Vec<_>>(),
    );
    // A root climbed through folders that hold nothing but the folder
    // below goes back down to the deepest folder holding all its files:
    // `ytt -f` is pointed at the folder with the files, and absolute loads
    // (`/values.star`) name files from there. Not below the folder lint
    // was given, which is where `ytt -f DIR` roots it.
    let given = (may_claim_root && !is_workspace).then_some(root);
    let mut package_roots =
        settle_roots(&package_roots, given, yaml_paths.iter().chain(other_paths));
    // A declared package is one package, as `ytt -f DIR` sees it: packages
    // found inside it become part of it.
    let declared: Vec<&PathBuf> = declared_roots
        .iter()
        .filter(|d| d.starts_with(root))
        .collect();
    package_roots.retain(|r| !declared.iter().any(|d| r.starts_with(d) && r != *d));
    package_roots.extend(declared.into_iter().cloned());

    package_roots
}

fn group_units(discovery: &mut Discovery, grouping: &Grouping<'_>) {
    let Grouping {
        start,
        root,
        paths: (_, other_paths),
        ..
    } = *grouping;
    let files = &discovery.files[start..];
    let package_roots = package_roots(files, grouping);
    let package_index = by_hash(&package_roots);
    let mut ytt_units: BTreeMap<PathBuf, Vec<usize>> = BTreeMap::new();
    let mut kubevirt = Vec::new();
    let mut tekton = Vec::new();
    for (offset, file) in files.iter().enumerate() {
        let index = start + offset;
        match file.system {
            Some(System::Ytt) => {
                let package = deepest_in(&file.path, &package_index);
                let unit_root = match package {
                    Some(r) => r.to_path_buf(),
                    // A private library belongs to the folder that holds its
                    // `_ytt_lib`: it is evaluated only as that package's
                    // library, with the values the package gives it, never
                    // as a package of its own.
                    None => library_owner(&file.path, root).unwrap_or_else(|| {
                        file.path
                            .parent()
                            .map_or_else(|| root.to_path_buf(), Path::to_path_buf)
                    }),
                };
                ytt_units.entry(unit_root).or_default().push(index);
            }
            Some(System::Kubevirt) => kubevirt.push(index),
            Some(System::Tekton) => tekton.push(index),
            None => {}
        }
    }
    let unit_roots: HashSet<&Path> = ytt_units.keys().map(PathBuf::as_path).collect();
    let mut others_by_unit: HashMap<PathBuf, Vec<PathBuf>> = HashMap::new();
    for path in other_paths {
        if let Some(unit_root) = deepest_in(path, &unit_roots) {
            others_by_unit
                .entry(unit_root.to_path_buf())
                .or_default()
                .push(path.clone());
        }
    }
    drop(unit_roots);
    for (unit_root, mut members) in ytt_units {
        sort_members(&mut members, &discovery.files, &unit_root);
        let other_files = others_by_unit.remove(&unit_root).unwrap_or_default();
        discovery.units.push(Unit {
            system: System::Ytt,
            key: unit_root.clone(),
            root: unit_root,
            files: members,
            other_files,
        });
    }
    for (system, members) in [(System::Kubevirt, kubevirt), (System::Tekton, tekton)] {
        if !members.is_empty() {
            discovery.units.push(Unit {
                system,
                root: root.to_path_buf(),
                files: members,
                other_files: Vec::new(),
                key: root.to_path_buf(),
            });
        }
    }
}

/// A ytt package's members in ytt's order: by path relative to its root,
/// in byte order.
fn sort_members(members: &mut [usize], files: &[DiscoveredFile], root: &Path) {
    let relative = |i: usize| {
        let path = &files[i].path;
        confvet_key::strip_prefix(path, root)
            .unwrap_or(path)
            .as_os_str()
    };
    members.sort_by(|&a, &b| {
        relative(a)
            .as_encoded_bytes()
            .cmp(relative(b).as_encoded_bytes())
    });
}

/// The plain YAML files (of no system) below the ytt packages among
/// `discovery.units[first_unit..]` join the deepest of them: `ytt -f ROOT`
/// reads and outputs every YAML file below ROOT, `#@` or not, and its
/// overlays apply to them. Not a private library's (read only when the
/// library is used) nor a `.lib.yml` (only loaded, evaluated with the
/// package's library files). The others are dropped.
pub(super) fn adopt_plain_files(
    discovery: &mut Discovery,
    first_unit: usize,
    plain: Vec<DiscoveredFile>,
) {
    // By the roots' bytes, as normalized: each plain file looks up every
    // folder above it, and `Path`'s hash parses components.
    let packages: HashMap<std::ffi::OsString, usize> = discovery.units[first_unit..]
        .iter()
        .enumerate()
        .filter(|(_, unit)| unit.system == System::Ytt)
        .map(|(offset, unit)| {
            let root = crate::source::normalize_path(&unit.root).into_os_string();
            (root, first_unit + offset)
        })
        .collect();
    if packages.is_empty() {
        return;
    }
    let mut adopted: BTreeSet<usize> = BTreeSet::new();
    for file in plain {
        let path = crate::source::normalized(&file.path);
        let Some(unit) = path
            .ancestors()
            .skip(1)
            .find_map(|dir| packages.get(dir.as_os_str()).copied())
        else {
            continue;
        };
        let root = &discovery.units[unit].root;
        if is_library_path(&file.path) || library_owner(&file.path, root).is_some() {
            continue;
        }
        discovery.units[unit].files.push(discovery.files.len());
        discovery.files.push(file);
        adopted.insert(unit);
    }
    for unit in adopted {
        let unit = &mut discovery.units[unit];
        sort_members(&mut unit.files, &discovery.files, &unit.root);
    }
}
