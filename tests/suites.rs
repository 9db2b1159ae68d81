//! The black-box suites, in one test binary (one link, not fifteen): each drives the binaries
//! over HTTP through its own local stack, started only when the command line selects one of its
//! cases (`cargo test -p blackbox --test suites fast_lane::` runs one suite). The suites run one
//! after another, each stopping what it started before the next begins.

mod bedrock_lane;
mod capacity;
mod coach_agent;
mod coach_eval;
mod docs_examples;
mod fast_lane;
mod faults;
mod functional_lane;
mod functional_model;
mod iam;
mod import;
mod jwt_mode;
mod leaks;
mod lifter_data;
mod set_logging;
mod slow_lane;
mod worker_lane;

use libtest_mimic::{Arguments, Conclusion};

type Suite = fn(&Arguments) -> Conclusion;

const SUITES: &[Suite] = &[
    fast_lane::suite,
    functional_lane::suite,
    lifter_data::suite,
    set_logging::suite,
    import::suite,
    jwt_mode::suite,
    worker_lane::suite,
    leaks::suite,
    faults::suite,
    functional_model::suite,
    slow_lane::suite,
    bedrock_lane::suite,
    coach_agent::suite,
    coach_eval::suite,
    docs_examples::suite,
    capacity::suite,
    // Last: every store call the suites above made, against template.yaml.
    iam::suite,
];

fn main() -> std::process::ExitCode {
    let args = Arguments::from_args();
    // Every suite runs, whatever the ones before it concluded.
    let conclusions: Vec<Conclusion> = SUITES.iter().map(|suite| suite(&args)).collect();
    if conclusions.iter().any(Conclusion::has_failed) {
        std::process::ExitCode::FAILURE
    } else {
        std::process::ExitCode::SUCCESS
    }
}
