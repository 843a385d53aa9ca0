//! The benchmark's table: one per kind, every client's numbers and its ratios against each
//! baseline client that ran (client-go with protobuf, kube-runtime).

use serde_json::{Value, json};

/// Baseline modes, in column order; a table shows those present in its rows.
const BASELINES: [(&str, &str); 2] = [("client-go-protobuf", "client-go"), ("kube-rt", "kube-rt")];

/// The ratios of each baseline group: (JSON key, header, row field).
const RATIOS: [(&str, &str, &str); 4] = [
    ("sync_wall", "wall×", "sync_wall_s"),
    ("cpu", "CPU×", "cpu_s"),
    ("peak_rss", "peak×", "peak_rss_bytes"),
    ("steady_rss", "stdy×", "steady_rss_bytes"),
];

fn num(v: &Value) -> f64 {
    v.as_f64().unwrap_or(f64::NAN)
}

fn mb(bytes: f64) -> String {
    format!("{:.0} MB", bytes / 1e6)
}

/// The row of `mode` in a round's table.
pub(crate) fn client<'a>(round: &'a Value, mode: &str) -> Option<&'a Value> {
    round["clients"].as_array()?.iter().find(|c| c["mode"] == mode)
}

/// `row` with its CPU (µs) and peak RSS (bytes) per object of the `count` its round synced.
pub(crate) fn per_object(row: &Value, count: f64) -> Value {
    let mut row = row.clone();
    row["cpu_us_per_object"] = json!(num(&row["cpu_s"]) / count * 1e6);
    row["peak_rss_per_object"] = json!(num(&row["peak_rss_bytes"]) / count);
    row
}

/// The machine's row of a round (`pages`, with several Pod counts only).
fn machine(round: &Value) -> Option<&Value> {
    round.get("machine")
}

/// The event round of `row` with `handlers` handlers.
fn event_round(row: &Value, handlers: u64) -> Option<&Value> {
    row["events"].as_array()?.iter().find(|e| e["handlers"].as_u64() == Some(handlers))
}

/// Prints one round's table and returns it as JSON.
pub(crate) fn print_table(kind: &str, floor: &Value, rows: &[Value]) -> Value {
    let baselines: Vec<(&str, &str, &Value)> = BASELINES
        .iter()
        .filter_map(|&(mode, label)| {
            rows.iter().find(|r| r["mode"] == mode).map(|row| (mode, label, row))
        })
        .collect();
    let floor_cpu = num(&floor["decode_cpu_s"]);
    let has_events = rows.iter().any(|r| event_round(r, 1).is_some());
    println!();
    println!(
        "== {kind}: {} objects, list body {} (floor: serde_json decode {:.3} s wall, {:.2} s CPU, decoded heap ≈ {:.1} KB/object)",
        floor["count"],
        mb(num(&floor["body_bytes"])),
        num(&floor["decode_wall_s"]),
        num(&floor["decode_cpu_s"]),
        num(&floor["decoded_heap_per_object"]) / 1e3,
    );
    // Per object, so that runs of different sizes compare (issue 18: the cost stays linear).
    let count = num(&floor["count"]);
    let mut header = format!(
        "{:<18} {:>9} {:>8} {:>9} {:>10} {:>9} {:>9} {:>9} {:>9}",
        "client",
        "sync wall",
        "CPU",
        "peak RSS",
        "steady RSS",
        "µs/obj",
        "peak KB/o",
        "KB/obj",
        "CPU/floor"
    );
    for (_, label, _) in &baselines {
        header.push_str(&format!(" | {:^27}", format!("vs {label}")));
    }
    if has_events {
        header.push_str(&format!(
            " | {:>9} {:>9} {:>9} {:>8} {:>8}",
            "ev 1h", "ev 10h", "apply", "ev/s 1h", "µs/ev 1h"
        ));
    }
    println!("{header}");
    let mut sub = format!(
        "{:<18} {:>9} {:>8} {:>9} {:>10} {:>9} {:>9} {:>9} {:>9}",
        "", "", "", "", "", "", "", "", ""
    );
    for _ in &baselines {
        sub.push_str(" |");
        for (_, label, _) in RATIOS {
            sub.push_str(&format!(" {label:>6}"));
        }
    }
    if !baselines.is_empty() {
        println!("{sub}");
    }
    let mut table = Vec::new();
    for row in rows {
        let cpu = num(&row["cpu_s"]);
        let mut entry = per_object(row, count);
        let cpu_per_object = num(&entry["cpu_us_per_object"]);
        let peak_per_object = num(&entry["peak_rss_per_object"]);
        let mut line = format!(
            "{:<18} {:>7.3} s {:>6.2} s {:>9} {:>10} {:>9.1} {:>9.1} {:>9.1} {:>9.2}",
            row["mode"].as_str().unwrap_or("?"),
            num(&row["sync_wall_s"]),
            cpu,
            mb(num(&row["peak_rss_bytes"])),
            mb(num(&row["steady_rss_bytes"])),
            cpu_per_object,
            peak_per_object / 1e3,
            num(&row["steady_rss_per_object"]) / 1e3,
            cpu / floor_cpu,
        );
        entry["cpu_over_floor"] = json!(cpu / floor_cpu);
        for (mode, _, base) in &baselines {
            line.push_str(" |");
            let mut ratios = serde_json::Map::new();
            for (key, _, field) in RATIOS {
                let ratio = num(&row[field]) / num(&base[field]);
                line.push_str(&format!(" {ratio:>6.2}"));
                ratios.insert(key.into(), json!(ratio));
            }
            let key =
                if *mode == "kube-rt" { "vs_kube_runtime".into() } else { format!("vs_{mode}") };
            entry[key] = Value::Object(ratios);
        }
        if has_events {
            let wall = |h| event_round(row, h).map(|e| num(&e["wall_s"]));
            let secs = |v: Option<f64>| v.map(|s| format!("{s:.3} s")).unwrap_or("-".into());
            let first = event_round(row, 1);
            let field = |name: &str| first.map(|e| num(&e[name]));
            let plain = |v: Option<f64>| v.map(|x| format!("{x:.0}")).unwrap_or("-".into());
            line.push_str(&format!(
                " | {:>9} {:>9} {:>9} {:>8} {:>8}",
                secs(wall(1)),
                secs(wall(10)),
                secs(field("apply_wall_s")),
                plain(field("events_per_s")),
                plain(field("cpu_us_per_event")),
            ));
        }
        println!("{line}");
        table.push(entry);
    }
    let labels: Vec<&str> = baselines.iter().map(|(_, label, _)| *label).collect();
    println!(
        "(×: this client / {} from this run; ev: time from `go` until 1 / 10 handlers (kube-rt: its store) saw all updates; apply: time the updates took to apply; ev/s: updates / ev 1h; µs/ev: client CPU per event with one handler)",
        labels.join(", resp. ")
    );
    json!({"kind": kind, "floor": floor, "clients": table})
}

/// With Pod rounds of more than one size, prints each mode's CPU (with its user and system
/// parts) and peak RSS per object at every size, and their ratio to the first size (issue
/// 18: the cost stays linear).
pub(crate) fn print_scale(rounds: &[Value]) {
    let pods: Vec<&Value> = rounds.iter().filter(|r| r["kind"] == "pods").collect();
    let [first, ..] = pods.as_slice() else { return };
    if pods.len() < 2 {
        return;
    }
    let count = |round: &Value| num(&round["floor"]["count"]);
    // Per object: the system part of the CPU, and the rest (user time).
    let sys_us = |at: &Value, round: &Value| num(&at["sys_s"]) / count(round) * 1e6;
    let user_us = |at: &Value, round: &Value| num(&at["cpu_us_per_object"]) - sys_us(at, round);
    println!();
    let sizes: Vec<String> = pods.iter().map(|r| format!("{:.0}", count(r))).collect();
    println!(
        "== scale: Pods per round {} (per object: CPU, its user and system parts, minor page faults and the system time per fault, peak RSS; ×: against the first round)",
        sizes.join(", ")
    );
    // The machine's row (`pages`) first, then every client's.
    let rows = machine(first).into_iter().chain(first["clients"].as_array().into_iter().flatten());
    for row in rows {
        let mode = row["mode"].as_str().unwrap_or("?");
        let mut line = format!("{mode:<22}");
        for round in &pods {
            let at = if mode == "pages" { machine(round) } else { client(round, mode) };
            let Some(at) = at else { continue };
            let cpu = num(&at["cpu_us_per_object"]);
            let (sys, user) = (sys_us(at, round), user_us(at, round));
            let peak = num(&at["peak_rss_per_object"]) / 1e3;
            // Faults per object stay put as the count grows; what one costs is the machine's.
            let faults = num(&at["minor_faults"]) / count(round);
            let faults = if faults.is_finite() && faults > 0.0 {
                format!("; {faults:.1} faults, {:.1} µs each", sys / faults)
            } else {
                String::new()
            };
            let cpu_x = cpu / num(&row["cpu_us_per_object"]);
            // User time is the client's own work; system time is mostly faulting in the
            // memory it keeps, whose cost per byte depends on the machine (BENCH.md).
            let user_x = user / user_us(row, first);
            let peak_x = peak * 1e3 / num(&row["peak_rss_per_object"]);
            line.push_str(&format!(
                " | {cpu:>6.1} µs (user {user:>5.1}, sys {sys:>5.1}{faults}) {peak:>6.1} KB \
                 (CPU {cpu_x:.2}×, user {user_x:.2}×, peak {peak_x:.2}×)"
            ));
        }
        println!("{line}");
    }
    if machine(first).is_some() {
        println!(
            "(pages: no informer; while the server sends the same list, one thread writes as many fresh pages per object received as the typed informers fault in, and the row is that thread's cost: what faulting memory in cost the machine at each count, in the same minutes as the clients)"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_object_divides_cpu_and_peak_by_the_count_and_keeps_the_rest() {
        let row = json!({"mode": "pages", "cpu_s": 0.35, "peak_rss_bytes": 9.0e8, "sys_s": 0.32});
        let row = per_object(&row, 10_000.0);
        assert!((num(&row["cpu_us_per_object"]) - 35.0).abs() < 1e-9);
        assert!((num(&row["peak_rss_per_object"]) - 90_000.0).abs() < 1e-9);
        assert_eq!(row["mode"], "pages");
        assert_eq!(row["sys_s"], json!(0.32));
    }
}
