//! Runs the demo binary against its built-in test API server for a few seconds and checks
//! what it prints: both informers synced with the seeded objects, live counts, lister and
//! index answers, and a clean exit.

use std::process::Command;

fn number_after(line: &str, prefix: &str) -> Option<usize> {
    line.strip_prefix(prefix)?.split_whitespace().next()?.parse().ok()
}

#[test]
fn demo_syncs_shows_live_counts_and_exits_cleanly() {
    let output = Command::new(env!("CARGO_BIN_EXE_kube-informers-demo"))
        .args(["--duration", "3s", "--pods", "200", "--deployments", "20"])
        .env_remove("KUBECONFIG")
        .output()
        .expect("the demo runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "exit {:?}\nstdout:\n{stdout}\nstderr:\n{stderr}",
        output.status
    );

    let lines: Vec<&str> = stdout.lines().collect();
    let synced_pods =
        lines.iter().find_map(|l| number_after(l, "synced pods: ")).expect("pods synced");
    let synced_deploys = lines
        .iter()
        .find_map(|l| number_after(l, "synced deployments: "))
        .expect("deployments synced");
    // The churn generator may have created Pods before the list; it never deletes seeded ones.
    assert!(synced_pods >= 200, "{stdout}");
    assert_eq!(synced_deploys, 20, "{stdout}");

    // Not a terminal: plain frames, at least one per second after sync.
    let frames = lines.iter().filter(|l| **l == "---").count();
    assert!(frames >= 1, "{stdout}");
    let pod_rows: Vec<Vec<&str>> = lines
        .iter()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .filter(|w| w.first() == Some(&"pods") && w.len() == 4)
        .collect();
    assert!(!pod_rows.is_empty(), "{stdout}");
    for row in &pod_rows {
        let objects: usize = row[1].parse().unwrap();
        assert!(objects >= 200, "{stdout}");
    }
    // 200 pods over 5 namespaces: the lister and the namespace index agree on 40.
    assert!(
        lines
            .iter()
            .any(|l| l.trim_start().starts_with("pods in ns-1 (lister)") && l.ends_with(" 40")),
        "{stdout}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.trim_start().starts_with("by_index(namespace, ns-1)") && l.ends_with(" 40")),
        "{stdout}"
    );
    // The workqueue worker reconciled every seeded Deployment.
    assert!(lines.iter().any(|l| l.contains("processed 20")), "{stdout}");
    assert!(stdout.contains("stopped cleanly"), "{stdout}");
}
