//! Overlay operations on documents (ytt's `document.go`): the left side is
//! documents grouped by file, so post-processing keeps each document with
//! its file; indexes are (file, document).

use super::annotations::{self, APPEND, ASSERT, INSERT, MERGE, REMOVE, REPLACE};
use super::items::skip_when;
use super::match_kwargs::ChildDefaults;
use super::{Outcome, Overlay, Right, position};
use crate::yaml::Document;

impl<'v> Overlay<'_, 'v, '_, '_> {
    /// Each right document onto `sets` (ytt's `applyDocSet`).
    pub(super) fn apply_docset(
        &mut self,
        sets: &mut [Vec<Document>],
        docs: &[Document],
        defaults: &ChildDefaults<'v>,
    ) -> Outcome<bool> {
        for doc in docs {
            self.document(sets, doc, defaults)
                .map_err(|e| e.within(format!("Document on {}", position(doc.span, true))))?;
        }
        Ok(false)
    }

    fn document(
        &mut self,
        sets: &mut [Vec<Document>],
        doc: &Document,
        defaults: &ChildDefaults<'v>,
    ) -> Outcome<()> {
        let op = annotations::which_op(&doc.comments)?;
        match op {
            MERGE => {
                let child_defaults = self.child_defaults(&doc.comments, defaults)?;
                let Some(indexes) = skip_when(self.document_indexes(sets, doc, defaults))? else {
                    return Ok(());
                };
                for (i, j) in indexes {
                    let target = &mut sets[i][j].value;
                    if self.merge_value(target, &doc.value, &child_defaults)? {
                        *target = doc.value.clone();
                    }
                }
                Ok(())
            }
            REMOVE => {
                let Some(indexes) = skip_when(self.document_indexes(sets, doc, defaults))? else {
                    return Ok(());
                };
                for (i, set) in sets.iter_mut().enumerate() {
                    let mut j = 0;
                    set.retain(|_| {
                        j += 1;
                        !indexes.contains(&(i, j - 1))
                    });
                }
                Ok(())
            }
            REPLACE => {
                let via = self.read_replace(&doc.comments)?;
                let Some(indexes) = skip_when(self.document_indexes(sets, doc, defaults))? else {
                    return Ok(());
                };
                for &(i, j) in &indexes {
                    let existing = sets[i][j].value.clone();
                    let value = self.via_value(&via, Some(&existing), &doc.value)?;
                    sets[i][j] = Document {
                        value,
                        ..doc.clone()
                    };
                }
                if indexes.is_empty() && via.or_add {
                    let value = self.via_value(&via, None, &doc.value)?;
                    let added = Document {
                        value,
                        ..doc.clone()
                    };
                    match sets.first_mut() {
                        Some(first) => first.push(added),
                        None => return Err("Expected at least one document set".into()),
                    }
                }
                Ok(())
            }
            INSERT => {
                let Some(indexes) = skip_when(self.document_indexes(sets, doc, defaults))? else {
                    return Ok(());
                };
                let insert = self.read_insert(&doc.comments)?;
                for (i, set) in sets.iter_mut().enumerate() {
                    let old = std::mem::take(set);
                    for (j, left) in old.into_iter().enumerate() {
                        if !indexes.contains(&(i, j)) {
                            set.push(left);
                            continue;
                        }
                        let value = self.via_value(&insert, Some(&left.value), &doc.value)?;
                        let inserted = Document {
                            value,
                            ..doc.clone()
                        };
                        if insert.before {
                            set.push(inserted.clone());
                        }
                        set.push(left);
                        if insert.after {
                            set.push(inserted);
                        }
                    }
                }
                Ok(())
            }
            APPEND => {
                match sets.last_mut() {
                    Some(last) => last.push(doc.clone()),
                    None => return Err("Expected at least one document set".into()),
                }
                Ok(())
            }
            ASSERT => {
                let child_defaults = self.child_defaults(&doc.comments, defaults)?;
                let Some(indexes) = skip_when(self.document_indexes(sets, doc, defaults))? else {
                    return Ok(());
                };
                for (i, j) in indexes {
                    let existing = sets[i][j].value.clone();
                    self.check_assert(&doc.comments, &existing, &doc.value)?;
                    let target = &mut sets[i][j].value;
                    self.apply_to_node(target, Right::Node(&doc.value), &child_defaults)?;
                }
                Ok(())
            }
            other => Err(format!("Overlay op {other} is not supported on document").into()),
        }
    }
}
