//! A panic anywhere in a command is an internal error (`diag::catching_panics`), which `main`
//! turns into exit status 70. The test sets the process's panic hook, so it runs in a process
//! of its own (rusty-fork): in this one, another test's panic could be taken for its own.
use mapcheck::diag::{self, Fault};
use rusty_fork::rusty_fork_test;

rusty_fork_test! {
    /// A panic on a rayon worker ends as an internal error with the panic's message and place.
    #[test]
    fn a_panic_is_an_internal_error() {
        let result = diag::catching_panics(|| {
            rayon::scope(|s| s.spawn(|_| panic!("two parts disagree")));
        });
        let Err(e) = result else {
            panic!("the panic was not caught");
        };
        assert_eq!(e.fault(), Fault::Internal);
        assert!(
            e.message
                .starts_with("internal error: two parts disagree (tests/it/diag_panics.rs:"),
            "{}",
            e.message
        );
        assert_eq!(e.fault().exit_status(), 70);
    }
}
