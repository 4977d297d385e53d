//! Reading: a file the walk found read (or its scan taken from the cache),
//! classified, and its YAML parsed now or when its unit is checked.

use super::classify::{Scan, classify, scan};
use super::model::{DiscoveredFile, MAX_FILE_BYTES, Resource, System};
use super::pac_text as pac;
use crate::cache::{Cache, Digest, ScanRecord, Stamp};
use crate::error::{Doing, During, Error};
use crate::finding::Finding;
use crate::rules;
use crate::source::{FileId, SourceFile, Sources, Span, display_name};
use crate::yaml::{self, DocumentSet, ParseOptions};
use std::path::Path;

/// Read and parse a file given to `confvet render` as part of a ytt package:
/// every YAML file is a ytt file there, annotated or not (as `ytt -f`).
pub fn read_ytt_file(path: &Path, sources: &Sources, cwd: &Path) -> Option<DiscoveredFile> {
    read_file(
        path,
        sources,
        cwd,
        &ParseOptions::default(),
        true,
        When::Now,
    )
    .ok()
    .flatten()
}

/// Read and classify a file the walk found; its YAML is parsed when its
/// unit is checked ([`DiscoveredFile::parse_now`]).
pub(super) fn read_and_parse(
    path: &Path,
    sources: &Sources,
    cwd: &Path,
    parse: &ParseOptions,
    cache: Option<&Cache>,
) -> Result<Option<DiscoveredFile>, Error> {
    read_file(path, sources, cwd, parse, false, When::Later(cache))
}

/// When a file is parsed: now, or when its unit is checked (then an
/// unchanged file's scan may come from the cache).
enum When<'c> {
    Now,
    Later(Option<&'c Cache>),
}

fn read_file(
    path: &Path,
    sources: &Sources,
    cwd: &Path,
    parse: &ParseOptions,
    force_ytt: bool,
    when: When,
) -> Result<Option<DiscoveredFile>, Error> {
    let name = display_name(path, cwd);
    let (defer, cache) = match when {
        When::Now => (false, None),
        When::Later(cache) => (true, cache),
    };
    // A file another text stands in for has no disk stamp: the cache must
    // not take its scan for the disk's.
    let meta = (!sources.stands_in(path))
        .then(|| std::fs::metadata(path).ok())
        .flatten();
    let stamp = meta.as_ref().and_then(Stamp::of);
    if let (Some(cache), Some(stamp)) = (cache, stamp)
        && let Some(record) = cache.scan(path, stamp)
    {
        // Unchanged since the last run: its role is known without reading it.
        let id = sources.add_unread(name, path.to_path_buf());
        return Ok(Some(from_scan_record(id, path, record, stamp, parse)));
    }
    if meta.is_some_and(|m| m.len() > MAX_FILE_BYTES) {
        return Ok(too_large(path, name, sources));
    }
    // Scanned before under another time (a fresh checkout, a restored
    // cache): hashed without keeping its bytes, and when the content is the
    // same, what the scan found is known without decoding and scanning it.
    if let (Some(cache), Some(stamp)) = (cache, stamp)
        && !force_ytt
        && cache.has_earlier_scan(path)
    {
        let hash = sources
            .read_with(path, Digest::of)
            .map_err(|err| Error::io(Doing::ReadingFound, name.clone(), err))?;
        if let Some(record) = cache.scan_of_same_content(path, stamp, hash) {
            let id = sources.add_unread(name, path.to_path_buf());
            return Ok(Some(from_scan_record(id, path, record, stamp, parse)));
        }
    }
    // A file the walk found but cannot read (permissions, a vanished file)
    // is a run error: the run is incomplete, and says which file.
    let bytes = sources
        .read(path)
        .map_err(|err| Error::io(Doing::ReadingFound, name.clone(), err))?;
    let hash = cache.is_some().then(|| Digest::of(&bytes));
    let (text, bad_offset) = crate::source::decode_text(bytes);
    let has_suppression = text.contains(crate::suppress::MARKER);
    let is_binary = text.contains('\0');
    let Scan {
        system,
        has_schema,
        has_values,
        has_overlay,
        resource,
        crd_groups,
    } = scan(&text);
    if let (Some(cache), Some(stamp), Some(hash)) = (cache, stamp, hash)
        && !is_binary
        && bad_offset.is_none()
    {
        let record = ScanRecord {
            system: system.map(|s| s.name().to_string()),
            has_schema,
            has_values,
            has_overlay,
            is_carvel_package: resource.carvel_package,
            is_crd: resource.crd,
            is_manifest: resource.manifest,
            crd_groups: crd_groups.clone(),
            has_suppression,
        };
        cache.record_scan(path, stamp, hash, record);
    }
    let system = if force_ytt { Some(System::Ytt) } else { system };
    // A file of no system is kept too: a Carvel Package resource is read
    // for the ytt package it ships, a CRD for its kinds, a manifest for
    // `--kubernetes`, and any plain YAML below a ytt package is one of the
    // package's files (`ytt -f` reads it). Grouping drops the rest, as a
    // file named on the command line that no system reads (a Helm
    // template) is skipped, not reported.
    // The walk keeps no text of a file parsed later: its unit reads it again
    // when it is checked, so memory does not grow with the tree (standard
    // input, which cannot be read twice, is kept).
    let unread = defer && !is_binary && bad_offset.is_none() && sources.stdin_path() != Some(path);
    let id = if unread {
        sources.add_unread(name, path.to_path_buf())
    } else {
        sources.add(SourceFile::new(name, Some(path.to_path_buf()), text))
    };
    let parsed = if is_binary {
        let text = sources.get(id);
        let offset = text.text.find('\0').unwrap_or(0);
        Err(Box::new(Finding::new(
            &rules::yaml::SYNTAX,
            Span::new(id, offset, offset),
            "file holds NUL bytes: binary data, not YAML",
        )))
    } else if let Some(offset) = bad_offset {
        Err(Box::new(Finding::new(
            &rules::yaml::SYNTAX,
            Span::new(id, offset, offset),
            "file is not UTF-8 text",
        )))
    } else if defer {
        Ok(DocumentSet::default())
    } else {
        parse_source(id, system, sources, parse)
    };
    let is_deferred = defer && parsed.is_ok();
    Ok(Some(DiscoveredFile {
        id,
        path: path.to_path_buf(),
        system,
        parsed,
        has_schema,
        has_values,
        has_overlay,
        parse_later: is_deferred.then(|| parse.clone()),
        stamp,
        resource,
        crd_groups,
        has_suppression,
    }))
}

/// A file unchanged since the run that scanned it: what the scan found,
/// its text read (and parsed) when its unit is checked.
fn from_scan_record(
    id: FileId,
    path: &Path,
    record: ScanRecord,
    stamp: Stamp,
    parse: &ParseOptions,
) -> DiscoveredFile {
    DiscoveredFile {
        id,
        path: path.to_path_buf(),
        system: record.system.as_deref().and_then(System::from_name),
        parsed: Ok(DocumentSet::default()),
        has_schema: record.has_schema,
        has_values: record.has_values,
        has_overlay: record.has_overlay,
        parse_later: Some(parse.clone()),
        stamp: Some(stamp),
        resource: Resource {
            carvel_package: record.is_carvel_package,
            crd: record.is_crd,
            manifest: record.is_manifest,
        },
        crd_groups: record.crd_groups,
        has_suppression: record.has_suppression,
    }
}

/// A file past the size limit: classified by its first MiB, and, when a
/// system reads it, a `yaml/syntax` finding that it was not parsed.
fn too_large(path: &Path, name: String, sources: &Sources) -> Option<DiscoveredFile> {
    use std::io::Read;
    let mut head = Vec::new();
    let _ = std::fs::File::open(path).and_then(|f| f.take(1 << 20).read_to_end(&mut head));
    let system = classify(&String::from_utf8_lossy(&head));
    system?;
    let id = sources.add(SourceFile::new(
        name,
        Some(path.to_path_buf()),
        String::new(),
    ));
    let finding = Finding::new(
        &rules::yaml::SYNTAX,
        Span::file_start(id),
        format!(
            "file is larger than {} MiB; not parsed",
            MAX_FILE_BYTES / 1024 / 1024
        ),
    );
    Some(DiscoveredFile {
        id,
        path: path.to_path_buf(),
        system,
        parsed: Err(Box::new(finding)),
        has_schema: false,
        has_values: false,
        has_overlay: false,
        parse_later: None,
        stamp: None,
        resource: Resource::default(),
        crd_groups: Vec::new(),
        has_suppression: true,
    })
}

/// Parse a registered file's text as YAML for `system`.
fn parse_source(
    id: FileId,
    system: Option<System>,
    sources: &Sources,
    parse: &ParseOptions,
) -> Result<DocumentSet, Box<Finding>> {
    let source = sources.get(id);
    // ytt templates repeat keys under `#@ if`/`#@ else`; the ytt check
    // reports duplicates where no template code can choose.
    let options = ParseOptions {
        keeps_duplicate_keys: system == Some(System::Ytt) || system.is_none(),
        ..parse.clone()
    };
    // A bug in the parser must not end the run: the file gets a finding
    // that asks for a report, the other files are still linted.
    // Pipelines-as-Code fills its `{{ }}` placeholders in as text before
    // the YAML is parsed: parse with them blanked out, then put them back.
    let pac = match (&source.path, system) {
        (Some(path), Some(System::Tekton))
            if source.text.contains("{{") && pac::reads(path, &source.text) =>
        {
            Some(pac::placeholders(&source.text)).filter(|r| !r.is_empty())
        }
        _ => None,
    };
    let parsed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match &pac {
        Some(ranges) => {
            let blanked = pac::blank(&source.text, ranges);
            yaml::parse_file(id, &blanked, &options).map(|mut set| {
                pac::restore(&mut set, &source.text, ranges);
                set
            })
        }
        None => yaml::parse_file(id, &source.text, &options),
    }));
    match parsed {
        Ok(result) => result.map_err(|e| Box::new(Finding::from(e))),
        Err(panic) => {
            let failed = Error::Internal {
                during: During::Parsing,
                // As in `Error::of_unit`: the payload, not the box.
                message: crate::watchdog::panic_message(panic.as_ref()),
            };
            Err(Box::new(Finding::new(
                &rules::confvet::INTERNAL,
                Span::file_start(id),
                failed.to_string(),
            )))
        }
    }
}

impl DiscoveredFile {
    /// This file with its YAML parsed (a copy of it when it already is).
    pub fn parse_now(&self, sources: &Sources) -> DiscoveredFile {
        let parsed = match &self.parse_later {
            Some(options) => parse_source(self.id, self.system, sources, options),
            None => self.parsed.clone(),
        };
        DiscoveredFile {
            id: self.id,
            path: self.path.clone(),
            system: self.system,
            parsed,
            has_schema: self.has_schema,
            has_values: self.has_values,
            has_overlay: self.has_overlay,
            parse_later: None,
            stamp: self.stamp,
            resource: self.resource,
            crd_groups: self.crd_groups.clone(),
            has_suppression: self.has_suppression,
        }
    }
}
