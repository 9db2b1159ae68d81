//! Every store call a function made, in every suite before this one, against that function's
//! IAM policy in template.yaml. Each stack's functions reach the store through a recording proxy
//! (`fault_proxy.rs`), which names the function by the SDK's user agent (`app/coach-<lane>`) and
//! turns each request into the IAM actions it needs (a transaction's items each need their own).
//!
//! Deployed, a call the policy lacks is an `AccessDeniedException`: a 503 for the lifter, or a
//! job that dead-letters for ever. A run of every suite also checks least privilege the other
//! way: every action a policy grants was called by some suite.

use std::collections::{BTreeMap, BTreeSet};

use blackbox::fault_proxy::store_calls;
use blackbox::{case_name, check, workspace_root};
use libtest_mimic::{Arguments, Conclusion, Failed, Trial};

/// The four functions: the lane in the user agent, the resource in template.yaml.
const FUNCTIONS: [(&str, &str); 4] = [
    ("fast", "FastFunction"),
    ("functional", "FunctionalFunction"),
    ("slow", "SlowFunction"),
    ("worker", "WorkerFunction"),
];

pub fn suite(args: &Arguments) -> Conclusion {
    const SUITE: &str = "iam";
    // Only a run of every case of every suite has made every call the suites make.
    let whole_run = args.filter.is_none() && args.skip.is_empty();
    // Run alone (`suites iam::`), no suite has called the store: nothing to check.
    let nothing_called = store_calls().is_empty();
    let trials = vec![
        Trial::test(
            case_name(SUITE, "every_store_call_is_allowed_by_the_template"),
            every_store_call_is_allowed_by_the_template,
        )
        .with_ignored_flag(nothing_called),
        Trial::test(
            case_name(SUITE, "every_granted_store_action_is_called"),
            every_granted_store_action_is_called,
        )
        .with_ignored_flag(!whole_run),
    ];
    libtest_mimic::run(args, trials)
}

fn every_store_call_is_allowed_by_the_template() -> Result<(), Failed> {
    let granted = granted(&std::fs::read_to_string(
        workspace_root().join("template.yaml"),
    )?);
    let called = store_calls();
    let mut refused = Vec::new();
    for (lane, function) in FUNCTIONS {
        let allowed = granted.get(function).cloned().unwrap_or_default();
        let used = called.get(lane).cloned().unwrap_or_default();
        println!("{function}: called {used:?}");
        refused.extend(
            used.keys()
                .filter(|action| !allowed.contains(*action))
                .map(|action| {
                    format!("{function} calls dynamodb:{action} but its policy does not allow it")
                }),
        );
    }
    if let Some(unnamed) = called.get("other") {
        refused.push(format!(
            "store calls with no function in their user agent: {unnamed:?}"
        ));
    }
    check(refused.is_empty(), refused.join("; "))
}

fn every_granted_store_action_is_called() -> Result<(), Failed> {
    let granted = granted(&std::fs::read_to_string(
        workspace_root().join("template.yaml"),
    )?);
    let called = store_calls();
    let mut unused = Vec::new();
    for (lane, function) in FUNCTIONS {
        let used = called.get(lane).cloned().unwrap_or_default();
        unused.extend(
            granted
                .get(function)
                .into_iter()
                .flatten()
                .filter(|action| !used.contains_key(*action))
                .map(|action| {
                    format!("{function} is granted dynamodb:{action} but no suite called it")
                }),
        );
    }
    check(
        unused.is_empty(),
        format!(
            "least privilege: remove the action, or reach the code that needs it from a suite: {}",
            unused.join("; ")
        ),
    )
}

/// The DynamoDB actions each resource's policies grant: every `dynamodb:<Action>` under a
/// top-level resource of the template (flow lists or block lists alike).
fn granted(template: &str) -> BTreeMap<String, BTreeSet<String>> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut resource = String::new();
    for line in template.lines() {
        if let Some(name) = line.strip_prefix("  ").and_then(|l| l.strip_suffix(':'))
            && !name.starts_with(' ')
        {
            resource = name.to_string();
        }
        if line.trim_start().starts_with('#') {
            continue;
        }
        for part in line.split(['[', ']', ',', ' ', '"', '\'']) {
            if let Some(action) = part.trim().strip_prefix("dynamodb:") {
                out.entry(resource.clone())
                    .or_default()
                    .insert(action.to_string());
            }
        }
    }
    out
}
