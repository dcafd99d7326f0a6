//! SIGINT and SIGTERM for `mapcheck check`: a `Stop` they request, a second signal that ends the
//! program at once, and what stopped a check in the summary's words.
use std::time::{Duration, Instant};

use mapcheck::output::eprint;
use mapcheck::solver::Stop;
use signal_hook::consts::{SIGINT, SIGTERM};

/// The exit status of a program ended by a second signal (128 + SIGINT, as a shell reports it).
const FORCED: i32 = 130;

/// A `Stop` that SIGINT and SIGTERM request (its cause is the signal's number). A signal that
/// comes `FORCE_AFTER` or more after the first ends the program at once with status 130 (a user
/// who presses Ctrl-C again); one sooner is the same request again (`timeout -s INT` signals
/// the child and then its whole process group, so the child gets two at once).
pub fn stop_on_signals() -> Stop {
    const FORCE_AFTER: Duration = Duration::from_secs(2);
    let stop = Stop::new();
    let mut signals = match signal_hook::iterator::Signals::new([SIGINT, SIGTERM]) {
        Ok(s) => s,
        Err(e) => {
            eprint(&format!("warning: cannot handle SIGINT and SIGTERM: {e}\n"));
            return stop;
        }
    };
    let cause = stop.cause_cell().clone();
    std::thread::spawn(move || {
        let mut first: Option<Instant> = None;
        for signal in signals.forever() {
            match first {
                Some(t) if t.elapsed() >= FORCE_AFTER => std::process::exit(FORCED),
                Some(_) => {}
                None => {
                    first = Some(Instant::now());
                    cause.store(signal as usize, std::sync::atomic::Ordering::SeqCst);
                }
            }
        }
    });
    stop
}

/// What stopped a check, in words.
pub fn stop_cause(stop: &Stop, timeout: Option<u64>) -> String {
    match stop.cause() {
        c if c == SIGINT as usize => "SIGINT".into(),
        c if c == SIGTERM as usize => "SIGTERM".into(),
        0 if stop.deadline_passed() => format!("--timeout {} s", timeout.unwrap_or_default()),
        _ => "asked to stop".into(),
    }
}
