//! `@ytt:version`: `version.require_at_least("0.38.0")` fails unless this
//! ytt's version is at least the one given. confvet answers as the
//! reference ytt does: its version is `develop`, which is not a version
//! hashicorp's go-version can read, so once the argument is a valid semver
//! every call fails with "Malformed version: develop". A released ytt's
//! version (say `0.48.0`) in [`YTT_VERSION`] would compare instead.

use super::context::Context;
use super::native::{Call, Outcome, as_str, native};
use starlark::eval::Evaluator;
use starlark::values::{Heap, Value};
use std::cmp::Ordering;

/// The ytt version confvet answers as.
pub const YTT_VERSION: &str = "develop";

/// ytt's `SemverRegex` (with ASCII digits, as Go's `\d`).
const SEMVER: &str = concat!(
    r"^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)",
    r"(?:-((?:0|[1-9][0-9]*|[0-9]*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9][0-9]*|[0-9]*[a-zA-Z-][0-9a-zA-Z-]*))*))",
    r"?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$"
);

pub fn module<'v>(heap: Heap<'v>, _: &Context) -> Value<'v> {
    super::native::module(
        heap,
        "version",
        &[(
            "require_at_least",
            "version.require_at_least",
            native!(require_at_least),
        )],
    )
}

fn require_at_least<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    let wanted = as_str(call.one()?)?;
    check(wanted, YTT_VERSION)?;
    Ok(Value::new_none())
}

/// Why a version requirement failed, in ytt's (and go-version's) words.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
enum VersionError {
    #[error("version string '{0}' must be a valid semver")]
    NotSemver(String),
    #[error("Malformed constraint: >={0}")]
    MalformedConstraint(String),
    #[error("Malformed version: {0}")]
    MalformedVersion(String),
    #[error("ytt version '{have}' does not meet the minimum required version '{wanted}'")]
    TooOld { have: String, wanted: String },
}

impl super::native::YttMessage for VersionError {}

/// Whether version `have` satisfies `>= wanted`, with ytt's errors.
fn check(wanted: &str, have: &str) -> Result<(), VersionError> {
    // A constant pattern, compiled by every test of this module.
    let semver = regex::Regex::new(SEMVER).expect("SEMVER is a valid pattern");
    if !semver.is_match(wanted) {
        return Err(VersionError::NotSemver(wanted.to_string()));
    }
    let constraint =
        parse(wanted).ok_or_else(|| VersionError::MalformedConstraint(wanted.to_string()))?;
    let version = parse(have).ok_or_else(|| VersionError::MalformedVersion(have.to_string()))?;
    // go-version: a pre-release only satisfies a constraint on a
    // pre-release of the same major.minor.patch.
    let pre_ok = match (&version.1, &constraint.1) {
        (Some(_), Some(_)) => version.0 == constraint.0,
        (Some(_), None) => false,
        _ => true,
    };
    if pre_ok && compare(&version, &constraint) != Ordering::Less {
        Ok(())
    } else {
        Err(VersionError::TooOld {
            have: have.to_string(),
            wanted: wanted.to_string(),
        })
    }
}

type Version = ([u64; 3], Option<String>);

/// `major.minor.patch[-pre][+build]` (a leading `v` allowed, as go-version).
fn parse(text: &str) -> Option<Version> {
    let text = text.strip_prefix('v').unwrap_or(text);
    let text = text.split_once('+').map_or(text, |(v, _)| v);
    let (core, pre) = match text.split_once('-') {
        Some((core, pre)) => (core, Some(pre.to_string())),
        None => (text, None),
    };
    let mut parts = [0u64; 3];
    let mut count = 0;
    for (i, part) in core.split('.').enumerate() {
        if i >= 3 || part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        parts[i] = part.parse().ok()?;
        count += 1;
    }
    (count > 0).then_some((parts, pre))
}

fn compare(a: &Version, b: &Version) -> Ordering {
    a.0.cmp(&b.0).then_with(|| match (&a.1, &b.1) {
        (None, None) => Ordering::Equal,
        (None, Some(_)) => Ordering::Greater,
        (Some(_), None) => Ordering::Less,
        (Some(x), Some(y)) => compare_pre(x, y),
    })
}

/// Pre-release identifiers compare numerically when both are numbers.
fn compare_pre(a: &str, b: &str) -> Ordering {
    let mut x = a.split('.');
    let mut y = b.split('.');
    loop {
        match (x.next(), y.next()) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(p), Some(q)) => {
                let order = match (p.parse::<u64>(), q.parse::<u64>()) {
                    (Ok(m), Ok(n)) => m.cmp(&n),
                    (Ok(_), Err(_)) => Ordering::Less,
                    (Err(_), Ok(_)) => Ordering::Greater,
                    (Err(_), Err(_)) => p.cmp(q),
                };
                if order != Ordering::Equal {
                    return order;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reference_version_satisfies_nothing() {
        // The texts are what a template sees: compared as they print.
        let check = |wanted, have| super::check(wanted, have).map_err(|e| e.to_string());
        // What the reference ytt (version `develop`) answers.
        assert_eq!(
            check("999.0.0", YTT_VERSION),
            Err("Malformed version: develop".into())
        );
        assert_eq!(
            check("not-a-version", YTT_VERSION),
            Err("version string 'not-a-version' must be a valid semver".into())
        );
        assert_eq!(
            check("v1", YTT_VERSION),
            Err("version string 'v1' must be a valid semver".into())
        );
    }

    #[test]
    fn a_released_version_compares() {
        assert_eq!(check("0.0.0", "0.48.0"), Ok(()));
        assert_eq!(check("0.48.0", "0.48.0"), Ok(()));
        assert_eq!(check("0.48.0-rc.1", "0.48.0"), Ok(()));
        assert!(check("1000000.0.0", "0.48.0").is_err());
        assert!(check("0.49.0", "0.48.0").is_err());
    }
}
