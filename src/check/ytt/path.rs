//! Data paths in ytt's style: `databases[1].port`, `(document)`.

/// A path from the document root to a data value.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DataPath(Vec<Segment>);

#[derive(Debug, Clone, PartialEq, Eq)]
enum Segment {
    Key(String),
    Index(usize),
}

impl DataPath {
    pub fn root() -> DataPath {
        DataPath::default()
    }

    pub fn key(&self, key: &str) -> DataPath {
        let mut path = self.clone();
        path.0.push(Segment::Key(key.to_string()));
        path
    }

    pub fn index(&self, index: usize) -> DataPath {
        let mut path = self.clone();
        path.0.push(Segment::Index(index));
        path
    }

    /// The last map key of the path, if it ends in one.
    pub fn last_key(&self) -> Option<String> {
        match self.0.last() {
            Some(Segment::Key(key)) => Some(key.clone()),
            _ => None,
        }
    }

    pub fn is_root(&self) -> bool {
        self.0.is_empty()
    }
}

impl std::fmt::Display for DataPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.0.is_empty() {
            return f.write_str("(document)");
        }
        for (i, segment) in self.0.iter().enumerate() {
            match segment {
                Segment::Key(key) if i == 0 => f.write_str(key)?,
                Segment::Key(key) => write!(f, ".{key}")?,
                Segment::Index(index) => write!(f, "[{index}]")?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_print_as_ytt_prints_them() {
        let root = DataPath::root();
        assert_eq!(root.to_string(), "(document)");
        assert_eq!(
            root.key("databases").index(1).key("port").to_string(),
            "databases[1].port"
        );
        assert_eq!(root.index(1).key("replicas").to_string(), "[1].replicas");
    }
}
