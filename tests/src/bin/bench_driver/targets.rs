//! Issue 18's acceptance ratios, decided from one run's Pod tables: printed after them and
//! kept in the results JSON (`targets`), so that a `make bench-real` run states which hold.
//! The compact store's `lister.get` and `list()` targets are microbenchmarks
//! (`cargo bench -p kube-informers-runtime --bench compact_store`), not decided here.

use serde_json::{Value, json};

use crate::table::client;

/// One ratio of issue 18: `mode`'s `field` over `baseline`'s, at most `at_most`.
struct Target {
    what: &'static str,
    mode: &'static str,
    baseline: &'static str,
    field: &'static str,
    at_most: f64,
}

const TARGETS: [Target; 6] = [
    Target {
        what: "default CPU vs client-go JSON",
        mode: "ours",
        baseline: "client-go-json",
        field: "cpu_s",
        at_most: 0.9,
    },
    Target {
        what: "default CPU vs kube-runtime",
        mode: "ours",
        baseline: "kube-rt",
        field: "cpu_s",
        at_most: 0.6,
    },
    Target {
        what: "default peak RSS vs kube-runtime",
        mode: "ours",
        baseline: "kube-rt",
        field: "peak_rss_bytes",
        at_most: 1.0,
    },
    Target {
        what: "protobuf CPU vs client-go protobuf",
        mode: "ours-protobuf",
        baseline: "client-go-protobuf",
        field: "cpu_s",
        at_most: 1.0,
    },
    Target {
        what: "compact peak RSS vs client-go (protobuf, its default)",
        mode: "ours-compact",
        baseline: "client-go-protobuf",
        field: "peak_rss_bytes",
        at_most: 0.5,
    },
    Target {
        what: "compact + protobuf peak RSS vs client-go",
        mode: "ours-compact-protobuf",
        baseline: "client-go-protobuf",
        field: "peak_rss_bytes",
        at_most: 0.5,
    },
];

/// Issue 18's bound on a mode's growth per object from the first Pod count to a larger one.
const SCALE_AT_MOST: f64 = 1.1;

/// The modes whose per-object growth is checked against [`SCALE_AT_MOST`].
const SCALE_MODES: [&str; 3] = ["ours", "ours-protobuf", "ours-compact"];

/// The ratios of `row`'s run `i` to `base`'s run `i` for `field` (the driver runs run `i`
/// of every mode in one turn, so a slow minute of the shared machine hits both): their
/// median, min and max. `None` unless both have the same number (two or more) of runs.
fn paired(row: &Value, base: &Value, field: &str) -> Option<Value> {
    let runs = |v: &Value| -> Option<Vec<f64>> {
        v["runs"][field].as_array()?.iter().map(Value::as_f64).collect()
    };
    let (runs, base_runs) = (runs(row)?, runs(base)?);
    if runs.len() < 2 || runs.len() != base_runs.len() {
        return None;
    }
    let mut ratios: Vec<f64> = runs.iter().zip(&base_runs).map(|(a, b)| a / b).collect();
    ratios.sort_by(f64::total_cmp);
    Some(json!({
        "median": ratios[ratios.len() / 2],
        "min": ratios[0],
        "max": ratios[ratios.len() - 1],
    }))
}

fn verdict(ratio: f64, at_most: f64) -> &'static str {
    if ratio <= at_most { "met" } else { "missed" }
}

/// Decides every target whose two modes ran in the Pod rounds of `rounds`: the ratios at
/// each Pod count, then (with several counts) each [`SCALE_MODES`] mode's CPU and peak RSS
/// per object at a larger count against the first. Prints them; returns them as JSON.
pub(crate) fn decide(rounds: &[Value]) -> Value {
    let pods: Vec<&Value> = rounds.iter().filter(|r| r["kind"] == "pods").collect();
    let mut decided = Vec::new();
    for round in &pods {
        let count = round["floor"]["count"].as_f64().unwrap_or(f64::NAN);
        for target in &TARGETS {
            let (Some(row), Some(base)) =
                (client(round, target.mode), client(round, target.baseline))
            else {
                continue;
            };
            let ratio = row[target.field].as_f64().unwrap_or(f64::NAN)
                / base[target.field].as_f64().unwrap_or(f64::NAN);
            decided.push(json!({
                "pods": count, "target": target.what, "mode": target.mode,
                "baseline": target.baseline, "field": target.field,
                "ratio": ratio, "at_most": target.at_most,
                "verdict": verdict(ratio, target.at_most),
                "paired": paired(row, base, target.field),
            }));
        }
    }
    if let [first, rest @ ..] = pods.as_slice() {
        for round in rest {
            for mode in SCALE_MODES {
                let (Some(small), Some(large)) = (client(first, mode), client(round, mode)) else {
                    continue;
                };
                for field in ["cpu_us_per_object", "peak_rss_per_object"] {
                    let ratio = large[field].as_f64().unwrap_or(f64::NAN)
                        / small[field].as_f64().unwrap_or(f64::NAN);
                    decided.push(json!({
                        "pods": round["floor"]["count"], "target": "per object vs the first count",
                        "mode": mode, "baseline": first["floor"]["count"], "field": field,
                        "ratio": ratio, "at_most": SCALE_AT_MOST,
                        "verdict": verdict(ratio, SCALE_AT_MOST),
                    }));
                }
            }
        }
    }
    if !decided.is_empty() {
        println!(
            "\n== issue 18 targets (ratios of this run's medians; `paired`: the median, min and \
             max of run i's ratio to the baseline's run i, for reading the noise, not deciding)"
        );
        for entry in &decided {
            let paired = match &entry["paired"] {
                Value::Null => String::new(),
                p => format!(
                    "  paired {:.2} ({:.2}–{:.2})",
                    p["median"].as_f64().unwrap_or(f64::NAN),
                    p["min"].as_f64().unwrap_or(f64::NAN),
                    p["max"].as_f64().unwrap_or(f64::NAN),
                ),
            };
            println!(
                "{:>7} Pods  {:<56} {:<22} {:<20} {:>5.2}  (≤ {:.2}) {}{paired}",
                entry["pods"].as_f64().unwrap_or(f64::NAN),
                entry["target"].as_str().unwrap_or("?"),
                entry["mode"].as_str().unwrap_or("?"),
                entry["field"].as_str().unwrap_or("?"),
                entry["ratio"].as_f64().unwrap_or(f64::NAN),
                entry["at_most"].as_f64().unwrap_or(f64::NAN),
                entry["verdict"].as_str().unwrap_or("?"),
            );
        }
    }
    Value::Array(decided)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round(count: u64, clients: &[(&str, f64, f64)]) -> Value {
        let clients: Vec<Value> = clients
            .iter()
            .map(|(mode, cpu, peak)| {
                json!({"mode": mode, "cpu_s": cpu, "peak_rss_bytes": peak,
                       "cpu_us_per_object": cpu / count as f64 * 1e6,
                       "peak_rss_per_object": peak / count as f64})
            })
            .collect();
        json!({"kind": "pods", "floor": {"count": count}, "clients": clients})
    }

    fn find<'a>(decided: &'a Value, target: &str, pods: f64) -> &'a Value {
        decided
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["target"] == target && e["pods"].as_f64() == Some(pods))
            .unwrap_or_else(|| panic!("{target} at {pods} not decided in {decided}"))
    }

    #[test]
    fn each_target_is_the_ratio_of_its_two_modes_and_absent_modes_decide_nothing() {
        let first = round(
            10_000,
            &[("ours", 1.2, 900e6), ("kube-rt", 1.8, 910e6), ("client-go-json", 6.0, 280e6)],
        );
        let decided = decide(&[first]);
        let kube_rt = find(&decided, "default CPU vs kube-runtime", 10_000.0);
        assert!((kube_rt["ratio"].as_f64().unwrap() - 1.2 / 1.8).abs() < 1e-9);
        assert_eq!(kube_rt["verdict"], "missed");
        assert_eq!(find(&decided, "default CPU vs client-go JSON", 10_000.0)["verdict"], "met");
        assert_eq!(find(&decided, "default peak RSS vs kube-runtime", 10_000.0)["verdict"], "met");
        // No protobuf or compact client ran: those targets are not decided.
        assert_eq!(decided.as_array().unwrap().len(), 3);
    }

    #[test]
    fn paired_ratios_pair_run_i_with_run_i_and_the_verdict_stays_on_the_medians() {
        let mut first = round(10_000, &[("ours", 1.3, 900e6), ("kube-rt", 2.0, 910e6)]);
        // Run 3 was slow for both clients: the medians' ratio (1.3 / 2.0) hides that each
        // run's own ratio was lower.
        first["clients"][0]["runs"] = json!({"cpu_s": [1.0, 1.3, 1.9]});
        first["clients"][1]["runs"] = json!({"cpu_s": [1.8, 2.0, 3.3]});
        let decided = decide(&[first]);
        let kube_rt = find(&decided, "default CPU vs kube-runtime", 10_000.0);
        assert!((kube_rt["ratio"].as_f64().unwrap() - 0.65).abs() < 1e-9);
        assert_eq!(kube_rt["verdict"], "missed");
        let mut sorted = [1.0 / 1.8, 1.3 / 2.0, 1.9 / 3.3];
        sorted.sort_by(f64::total_cmp);
        assert!((kube_rt["paired"]["median"].as_f64().unwrap() - sorted[1]).abs() < 1e-9);
        assert!((kube_rt["paired"]["min"].as_f64().unwrap() - sorted[0]).abs() < 1e-9);
        assert!((kube_rt["paired"]["max"].as_f64().unwrap() - sorted[2]).abs() < 1e-9);
        // Peak RSS has no runs here: nothing to pair.
        let peak = find(&decided, "default peak RSS vs kube-runtime", 10_000.0);
        assert!(peak["paired"].is_null());
    }

    #[test]
    fn runs_of_different_counts_are_not_paired() {
        let mut first = round(10_000, &[("ours", 1.3, 900e6), ("kube-rt", 2.0, 910e6)]);
        first["clients"][0]["runs"] = json!({"cpu_s": [1.0, 1.3]});
        first["clients"][1]["runs"] = json!({"cpu_s": [1.8, 2.0, 3.3]});
        let decided = decide(&[first]);
        assert!(find(&decided, "default CPU vs kube-runtime", 10_000.0)["paired"].is_null());
    }

    #[test]
    fn a_larger_count_is_held_to_the_first_per_object() {
        let small = round(10_000, &[("ours", 1.0, 900e6), ("ours-compact", 1.0, 80e6)]);
        let large = round(100_000, &[("ours", 12.0, 8_800e6), ("ours-compact", 10.5, 120e6)]);
        let decided = decide(&[small, large]);
        let scale: Vec<&Value> = decided
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["target"] == "per object vs the first count")
            .collect();
        let verdict = |mode: &str, field: &str| {
            scale.iter().find(|e| e["mode"] == mode && e["field"] == field).unwrap()["verdict"]
                .clone()
        };
        assert_eq!(verdict("ours", "cpu_us_per_object"), "missed");
        assert_eq!(verdict("ours", "peak_rss_per_object"), "met");
        assert_eq!(verdict("ours-compact", "cpu_us_per_object"), "met");
        assert_eq!(verdict("ours-compact", "peak_rss_per_object"), "met");
        assert_eq!(scale.len(), 4);
    }
}
