//! What a lint run is asked to do: the paths, settings and configuration
//! (a leaf: the run and its cache keys read it).

use crate::check::kubernetes;
use crate::check::ytt::YttSettings;
use crate::config::Config;
use crate::progress::Progress;
use crate::rules::Selector;
use std::path::PathBuf;
use std::sync::Arc;

/// What to lint and how.
#[derive(Debug, Clone, Default)]
pub struct LintRequest {
    pub paths: Vec<PathBuf>,
    pub ytt: YttSettings,
    /// The configuration file, when there is one.
    pub config: Option<Config>,
    /// Told how many units there are and when each is checked.
    pub progress: Option<Arc<dyn Progress>>,
    /// `--select`: when not empty, only these rules report.
    pub select: Vec<Selector>,
    /// `--ignore`: these rules never report.
    pub ignore: Vec<Selector>,
    /// `--extend-exclude`: gitignore-style patterns relative to the current
    /// directory, excluded as the configuration's `exclude` is.
    pub extend_exclude: Vec<String>,
    /// Report every finding of each unit a named file selects, not only
    /// those in the named files (`--changed-since`: a changed Task's callers
    /// are reported too).
    pub whole_units: bool,
    /// `--shard K/N`: check only the units of this shard.
    pub shard: Option<Shard>,
    /// The cache directory: when set, the scan and links of unchanged
    /// files come from it and what this run learns is written back.
    pub cache: Option<crate::cache::CacheLocation>,
    /// Keep each ytt package's final data values and schema in the result
    /// (`values`, `schema`); a lint drops them with the package, so memory
    /// does not grow with the tree.
    pub keep_outputs: bool,
    /// Folders that are each one ytt package, as `ytt -f DIR` reads them,
    /// whatever discovery would group below them (`values DIR`, `schema DIR`).
    pub package_roots: Vec<PathBuf>,
    /// The time and memory each ytt package may take.
    pub limits: crate::watchdog::Limits,
    /// The Kubernetes schema check of rendered output and manifests.
    pub kubernetes: kubernetes::tree::Options,
    /// Files holding CRDs beyond the paths, read by the Kubernetes check
    /// as those the walk finds: the language server's workspace folder's,
    /// as `confvet lint DIR` reads them when it checks one unit of it.
    pub known_crds: Arc<[kubernetes::tree::KnownCrd]>,
    /// The named files are the whole of their units: the tree around them
    /// is not walked (see `DiscoverOptions::named_only`).
    pub named_only: bool,
    /// Set when the run is no longer wanted (the language server's check of
    /// a document that changed since): ytt packages stop at once.
    pub cancel: Option<Arc<std::sync::atomic::AtomicBool>>,
}

impl LintRequest {
    /// Whether findings of rule `id` are reported: selected by the command
    /// line and not turned off by the configuration.
    pub fn reports(&self, id: &str) -> bool {
        (self.select.is_empty() || self.select.iter().any(|s| s.matches(id)))
            && !self.ignore.iter().any(|s| s.matches(id))
            && !self.config.as_ref().is_some_and(|c| c.turns_off(id))
    }
}

/// `--shard K/N`: one of N disjoint parts of the units.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// 1-based.
    pub index: u32,
    pub count: u32,
}

impl Shard {
    /// `K/N`, as `--shard` takes it.
    pub fn parse(text: &str) -> Result<Shard, NotAShard> {
        let parsed = text.split_once('/').and_then(|(k, n)| {
            Some((k.trim().parse::<u32>().ok()?, n.trim().parse::<u32>().ok()?))
        });
        match parsed {
            Some((index, count)) if count >= 1 && (1..=count).contains(&index) => {
                Ok(Shard { index, count })
            }
            _ => Err(NotAShard(text.to_string())),
        }
    }
}

/// A `--shard` value that is not `K/N` with 1 <= K <= N.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("expected K/N with 1 <= K <= N, as in `--shard 2/4`, found \"{0}\"")]
pub struct NotAShard(pub String);
