//! Events named independently of slot numbers: an initial write by its location, a thread's
//! event by its place in program order. Both tests of a solution, the runner's executions of them
//! and the reports name events this way.
//!
//! Owns: `LOCATIONS`, `EventKey`, `KeyRel`, `execution_keys`, `keyed`. Uses: `exec`, `rel`.
use std::collections::BTreeSet;

use crate::exec::Execution;
use crate::rel::Rel;

/// Location names, in label order.
pub const LOCATIONS: [&str; 8] = ["x", "y", "z", "w", "u", "v", "s", "t"];

/// An event named by its place in the test: an initial write by location, or the `k`-th event
/// of a thread in program order (an RMW is two events).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum EventKey {
    /// The initial write to the named location.
    Init(String),
    /// `Event(t, k)`: the event of thread `t` (from 0) with `k` events before it in program order.
    Event(usize, usize),
}

/// A relation (e.g. `rf`, `co`) as the set of its pairs of event keys.
pub type KeyRel = BTreeSet<(EventKey, EventKey)>;

/// The keys of a runner execution's events.
pub fn execution_keys(x: &Execution) -> Vec<EventKey> {
    (0..x.n())
        .map(|i| match x.events[i].thread {
            None => EventKey::Init(
                x.locations[x.events[i].loc.expect("initial writes have a location")].clone(),
            ),
            Some(t) => {
                let k = (0..x.n()).filter(|&j| x.po.contains(j, i)).count();
                EventKey::Event(t, k)
            }
        })
        .collect()
}

/// A relation over an execution's events, in the keys `keys` gives them.
pub fn keyed(r: &Rel, keys: &[EventKey]) -> KeyRel {
    r.pairs()
        .map(|(a, b)| (keys[a].clone(), keys[b].clone()))
        .collect()
}
