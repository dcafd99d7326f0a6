//! Random relations and sets for the property tests of the cat language: a small deterministic
//! generator (xorshift), so failures reproduce.
use mapcheck::rel::{Rel, Set};

/// Events in every random execution.
pub const N: usize = 5;

/// A xorshift generator over its seed.
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A set of the `N` events.
    pub fn set(&mut self) -> Set {
        Set((self.next() as u128) & ((1 << N) - 1))
    }

    /// A set; one draw in four is empty, so that emptiness tests see both answers.
    pub fn set_or_empty(&mut self) -> Set {
        if self.next().is_multiple_of(4) {
            return Set(0);
        }
        self.set()
    }

    /// A relation over the `N` events, each pair in it with probability about 1/3.
    pub fn rel(&mut self) -> Rel {
        let pairs: Vec<(usize, usize)> = (0..N * N)
            .filter(|_| self.next().is_multiple_of(3))
            .map(|i| (i / N, i % N))
            .collect();
        Rel::from_pairs(N, pairs)
    }
}
