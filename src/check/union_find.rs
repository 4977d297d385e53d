//! A union-find over the files of a unit: which files a check must see
//! together. Its own file so that each system's links (which join files)
//! and the grouping that calls them (`components.rs`) both use it without
//! using each other.

/// A union-find over `0..n`.
pub struct Components {
    parent: Vec<usize>,
}

impl Components {
    pub fn new(n: usize) -> Components {
        Components {
            parent: (0..n).collect(),
        }
    }

    fn find(&mut self, mut x: usize) -> usize {
        while self.parent[x] != x {
            self.parent[x] = self.parent[self.parent[x]];
            x = self.parent[x];
        }
        x
    }

    /// `a` and `b` are checked together.
    pub fn join(&mut self, a: usize, b: usize) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            // The smaller index names the set, so groups come out in order.
            let (low, high) = if ra < rb { (ra, rb) } else { (rb, ra) };
            self.parent[high] = low;
        }
    }

    /// The sets, each in increasing order, ordered by their first member.
    pub fn groups(mut self) -> Vec<Vec<usize>> {
        let n = self.parent.len();
        let mut by_root: Vec<Vec<usize>> = vec![Vec::new(); n];
        for x in 0..n {
            let root = self.find(x);
            by_root[root].push(x);
        }
        by_root.into_iter().filter(|g| !g.is_empty()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joined_members_form_one_group_and_the_rest_stay_alone() {
        let mut c = Components::new(5);
        c.join(3, 1);
        c.join(4, 3);
        assert_eq!(c.groups(), vec![vec![0], vec![1, 3, 4], vec![2]]);
    }
}
