//! The part of a query fixed outside the solver: how many events each thread has (thread shapes,
//! sorted to break thread symmetry) and the event slots of the universe both models are
//! translated over (initial writes, then per event its added fences and its main slot).
//!
//! Owns: `Role`, `Slot`, `Layout`, `thread_shapes`. Uses: `event_key` (naming a slot's event).
use super::event_key::{EventKey, LOCATIONS};

/// What a slot of the universe holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    /// The initial write of location `l`.
    Init(usize),
    /// The `i`-th fence position before an event's main target event.
    Pre(usize),
    /// The source event itself, and the target event standing for it.
    Main,
    /// The `i`-th fence position after it.
    Post(usize),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Slot {
    /// `None` for initial writes.
    pub(crate) thread: Option<usize>,
    /// Index of the source event the slot belongs to (into `Layout::events`).
    pub(crate) event: Option<usize>,
    pub(crate) role: Role,
}

/// The universe of one query.
#[derive(Clone, Debug)]
pub(crate) struct Layout {
    /// Events per thread.
    pub(crate) sizes: Vec<usize>,
    pub(crate) locations: usize,
    /// Fence slots before each event's main slot (added fences sit right-aligned in them).
    pub(crate) pre: usize,
    /// Source events as (thread, position in thread), threads in order.
    pub(crate) events: Vec<(usize, usize)>,
    /// The main slot of each source event.
    pub(crate) main: Vec<usize>,
    pub(crate) slots: Vec<Slot>,
}

impl Layout {
    /// Initial writes first, then per thread and event: `pre` fence slots, the main slot,
    /// `post` fence slots — so slot order within a thread is program order.
    pub(crate) fn new(sizes: &[usize], locations: usize, pre: usize, post: usize) -> Layout {
        let mut slots: Vec<Slot> = (0..locations)
            .map(|l| Slot {
                thread: None,
                event: None,
                role: Role::Init(l),
            })
            .collect();
        let (mut events, mut main) = (vec![], vec![]);
        for (t, &k) in sizes.iter().enumerate() {
            for pos in 0..k {
                let e = events.len();
                events.push((t, pos));
                let slot = |role| Slot {
                    thread: Some(t),
                    event: Some(e),
                    role,
                };
                slots.extend((0..pre).map(|i| slot(Role::Pre(i))));
                main.push(slots.len());
                slots.push(slot(Role::Main));
                slots.extend((0..post).map(|i| slot(Role::Post(i))));
            }
        }
        Layout {
            sizes: sizes.to_vec(),
            locations,
            pre,
            events,
            main,
            slots,
        }
    }

    pub(crate) fn n(&self) -> usize {
        self.slots.len()
    }

    pub(crate) fn threads(&self) -> usize {
        self.sizes.len()
    }

    /// The slot of an event named by its key (an initial write by location name; the `k`-th
    /// event of a thread, which is its `k`-th position since guards only cut a thread short).
    pub(crate) fn slot_of(&self, key: &EventKey) -> usize {
        match key {
            EventKey::Init(name) => LOCATIONS
                .iter()
                .position(|l| l == name)
                .expect("a location of the layout"),
            EventKey::Event(..) => self.main[self.event_of(key)],
        }
    }

    /// The event (index into `events`) a thread event's key names.
    pub(super) fn event_of(&self, key: &EventKey) -> usize {
        self.events
            .iter()
            .position(|&(t, k)| key == &EventKey::Event(t, k))
            .expect("a thread event of the layout")
    }

    /// Every event, the threads run whole one after another in `threads`' order.
    pub(super) fn events_of_threads(&self, threads: &[usize]) -> Vec<usize> {
        threads
            .iter()
            .flat_map(|&t| (0..self.events.len()).filter(move |&e| self.events[e].0 == t))
            .collect()
    }
}

/// Every way to give `threads_max` or fewer threads `total` events in all, each thread at least
/// one, listed with threads in non-increasing size (threads are interchangeable: the scope tree
/// placement is chosen by the solver).
pub(crate) fn thread_shapes(total: usize, threads_max: usize) -> Vec<Vec<usize>> {
    fn go(
        left: usize,
        cap: usize,
        threads: usize,
        cur: &mut Vec<usize>,
        out: &mut Vec<Vec<usize>>,
    ) {
        if left == 0 {
            out.push(cur.clone());
            return;
        }
        if threads == 0 {
            return;
        }
        for k in (1..=cap.min(left)).rev() {
            cur.push(k);
            go(left - k, k, threads - 1, cur, out);
            cur.pop();
        }
    }
    let mut out = vec![];
    go(total, total, threads_max, &mut vec![], &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_are_partitions() {
        assert_eq!(
            thread_shapes(3, 3),
            vec![vec![3], vec![2, 1], vec![1, 1, 1]]
        );
        assert_eq!(thread_shapes(4, 2), vec![vec![4], vec![3, 1], vec![2, 2]]);
        // The number of partitions of 7 is 15.
        assert_eq!(thread_shapes(7, 7).len(), 15);
    }

    #[test]
    fn layout_is_in_program_order() {
        let l = Layout::new(&[2, 1], 2, 1, 0);
        assert_eq!(l.n(), 2 + 3 * 2);
        assert_eq!(l.main, vec![3, 5, 7]);
        assert_eq!(l.slots[2].role, Role::Pre(0));
        assert_eq!(l.events, vec![(0, 0), (0, 1), (1, 0)]);
    }
}
