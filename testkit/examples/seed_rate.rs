//! Measures bulk seeding throughput: `cargo run --release -p kube-informers-testkit --example seed_rate [COUNT]`.

use std::time::Instant;

use kube_informers_testkit::TestApiServer;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let count: usize = std::env::args().nth(1).map(|n| n.parse()).transpose()?.unwrap_or(200_000);
    let server = TestApiServer::start().await?;
    let started = Instant::now();
    let report = server.seed().pods("default", count)?;
    let elapsed = started.elapsed();
    let size = serde_json::to_vec(&kube_informers_testkit::seed::pod("default", "pod-0", 0))?.len();
    println!(
        "seeded {} pods of ~{size} bytes in {:.3} s: {:.0} objects/s",
        report.count,
        elapsed.as_secs_f64(),
        report.count as f64 / elapsed.as_secs_f64()
    );
    server.shutdown().await;
    Ok(())
}
