//! Plain YAML in a package: a file with no `#@` is not a template; ytt
//! passes it through, the last of repeated keys winning.

use crate::yaml::{Comment, CommentKind, DocumentSet, Node, Value};

/// ytt's `HasTemplating`: some node carries `#@` code or an annotation
/// (`#@comment` and `#!` comments do not count).
pub(crate) fn has_templating(set: &DocumentSet) -> bool {
    fn templating(comments: &[Comment]) -> bool {
        comments.iter().any(|c| match &c.kind {
            CommentKind::Code(_) => true,
            CommentKind::Annotation { name, .. } => name != "comment",
            CommentKind::Ytt | CommentKind::Plain => false,
        })
    }
    templating(&set.trailing_comments)
        || set
            .docs
            .iter()
            .any(|d| templating(&d.comments) || d.value.any_item_comments(&templating))
}

/// ytt's `OverrideMapKeys`: of items with the same key the last one's
/// value stays, where the first one stood.
pub(super) fn override_map_keys(node: &mut Node) {
    match &mut node.value {
        Value::Map(items) => {
            let mut kept: Vec<crate::yaml::MapItem> = Vec::with_capacity(items.len());
            for mut item in std::mem::take(items) {
                override_map_keys(&mut item.value);
                match kept
                    .iter_mut()
                    .find(|k| k.key.resolved == item.key.resolved)
                {
                    Some(earlier) => *earlier = item,
                    None => kept.push(item),
                }
            }
            *items = kept;
        }
        Value::Array(items) => items
            .iter_mut()
            .for_each(|i| override_map_keys(&mut i.value)),
        Value::Scalar(_) => {}
    }
}
