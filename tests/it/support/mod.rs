//! Helpers the test modules share, compiled once.
pub mod cli;
pub mod coq;
pub mod encode;
pub mod expected;
pub mod litmus;
pub mod random;
pub mod search_space;
pub mod tools;
