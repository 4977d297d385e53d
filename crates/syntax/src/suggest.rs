//! Did-you-mean hints for names that are not declared: keys, rule ids,
//! params. Shared by every check and by the configuration file. Edits are
//! counted in characters (`strsim`'s Levenshtein, already built for clap).

use strsim::levenshtein;

/// The closest key within a small edit distance, for did-you-mean hints.
pub fn did_you_mean(key: &str, candidates: &[String]) -> Option<String> {
    let normalized = |s: &str| s.to_lowercase().replace(['-', '_'], "");
    candidates
        .iter()
        .map(|c| {
            let distance = if normalized(c) == normalized(key) {
                0
            } else {
                levenshtein(key, c)
            };
            (distance, c)
        })
        .filter(|(d, c)| *d <= (c.len().max(key.len()) / 3).max(1))
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c.clone())
}

/// The closest of `candidates` within `max` edits of `key` (or equal to it
/// but for case, `-` and `_`), never a name it shares too little with: the
/// distance must stay below the length of both.
pub fn within(key: &str, candidates: &[String], max: usize) -> Option<String> {
    let normalized = |s: &str| s.to_lowercase().replace(['-', '_'], "");
    candidates
        .iter()
        .filter(|c| c.as_str() != key)
        .map(|c| {
            let distance = if normalized(c) == normalized(key) {
                0
            } else {
                levenshtein(key, c)
            };
            (distance, c)
        })
        .filter(|(d, c)| *d <= max && *d < key.chars().count().min(c.chars().count()))
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c.clone())
}

/// The only one of `candidates` within `max` edits of `key` (a rename a fix
/// may make), edits counted exactly, case included (Kubernetes field names,
/// where `Port` and `port` differ): None when none is, or when two are and
/// either could be meant. [`sole_within`] is the Tekton one, which reads
/// names as [`within`] does.
pub fn only_within<'a>(key: &str, candidates: &'a [String], max: usize) -> Option<&'a String> {
    let mut near = candidates
        .iter()
        .filter(|c| c.as_str() != key && levenshtein(key, c) <= max);
    let only = near.next()?;
    near.next().is_none().then_some(only)
}

/// The one name of `candidates` within `max` edits of `key` (measured as
/// [`within`] does), or None when none is or several are: a rename may only
/// be offered when the nearness picks a single name.
pub fn sole_within(key: &str, candidates: &[String], max: usize) -> Option<String> {
    let normalized = |s: &str| s.to_lowercase().replace(['-', '_'], "");
    let length = key.chars().count();
    let mut found: Option<&String> = None;
    for c in candidates {
        if c == key || found == Some(c) {
            continue;
        }
        let other = c.chars().count();
        // More than `max` apart in length is more than `max` edits.
        if length.abs_diff(other) > max {
            continue;
        }
        let distance = if normalized(c) == normalized(key) {
            0
        } else {
            levenshtein(key, c)
        };
        if distance <= max && distance < length.min(other) {
            if found.is_some() {
                return None;
            }
            found = Some(c);
        }
    }
    found.cloned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hints_find_near_names_only() {
        let keys = vec!["namespace".to_string(), "service_account".to_string()];
        assert_eq!(
            did_you_mean("serviceaccount", &keys).as_deref(),
            Some("service_account")
        );
        assert_eq!(
            did_you_mean("namespce", &keys).as_deref(),
            Some("namespace")
        );
        assert_eq!(did_you_mean("replicas", &keys), None);
    }

    #[test]
    fn near_names_are_within_a_few_edits_and_never_whole_rewrites() {
        let params = vec!["EXTRA_ARGS".to_string(), "url".to_string()];
        assert_eq!(
            within("EXTRA_ARG", &params, 2).as_deref(),
            Some("EXTRA_ARGS")
        );
        assert_eq!(
            within("extra-args", &params, 2).as_deref(),
            Some("EXTRA_ARGS")
        );
        assert_eq!(within("uri", &params, 2).as_deref(), Some("url"));
        assert_eq!(within("ab", &params, 2), None);
        assert_eq!(within("EXTRA_ARGS", &params, 2), None);
        assert_eq!(within("revision", &params, 2), None);
    }

    #[test]
    fn a_rename_needs_the_only_name_within_reach() {
        let fields = vec!["imagePullPolicy".to_string(), "image".to_string()];
        let only = only_within("imagePullPolcy", &fields, 2);
        assert_eq!(only.map(String::as_str), Some("imagePullPolicy"));
        assert_eq!(only_within("imagePullPolicy", &fields, 2), None);
        let ports = vec!["port".to_string(), "ports".to_string()];
        assert_eq!(only_within("prts", &ports, 2), None, "two within reach");
    }

    #[test]
    fn a_sole_near_name_is_one_and_only_one() {
        let names = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let declared = names(&["revision", "url"]);
        assert_eq!(
            sole_within("revison", &declared, 2).as_deref(),
            Some("revision")
        );
        assert_eq!(sole_within("branch", &declared, 2), None);
        let two = names(&["image-url", "image-uri"]);
        assert_eq!(sole_within("image-ur", &two, 2), None);
        let repeated = names(&["source", "source"]);
        assert_eq!(
            sole_within("sourc", &repeated, 2).as_deref(),
            Some("source")
        );
        assert_eq!(sole_within("source", &repeated, 2), None);
    }

    #[test]
    fn edits_are_counted_in_characters_not_bytes() {
        let names = vec!["größe".to_string()];
        assert_eq!(only_within("grösse", &names, 2), Some(&names[0]));
        assert_eq!(
            only_within("grosse", &names, 1),
            None,
            "two edits, not four"
        );
    }
}
