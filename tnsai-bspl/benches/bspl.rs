//! Benchmarks: enabled-set computation for a role with many concurrent
//! enactments, and verification of every fixture protocol.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use tnsai_bspl::{Adapter, MessageInstance, Protocol, Specification, verify};

const ENACTMENTS: usize = 10_000;

fn purchase() -> Arc<Protocol> {
    let text = include_str!("../protocols/purchase.bspl");
    let protocol = Specification::parse(text)
        .ok()
        .and_then(|s| s.into_protocol("Purchase"));
    Arc::new(protocol.unwrap_or_else(|| panic!("purchase.bspl does not load")))
}

/// A buyer with `ENACTMENTS` enactments, each quoted, every third accepted.
fn busy_buyer() -> Adapter {
    let mut buyer = Adapter::new("buyer");
    buyer
        .play(purchase(), &["Buyer"])
        .unwrap_or_else(|e| panic!("{e}"));
    for n in 0..ENACTMENTS {
        let id = n.to_string();
        let item = format!("item{}", n % 50);
        let rfq = MessageInstance::new("Purchase", "rfq", "Buyer", [("ID", &id), ("item", &item)]);
        buyer.emit(rfq).unwrap_or_else(|e| panic!("{e}"));
        let quote = MessageInstance::new(
            "Purchase",
            "quote",
            "Seller",
            [
                ("ID", id.as_str()),
                ("item", item.as_str()),
                ("price", "10"),
            ],
        );
        buyer.receive(quote).unwrap_or_else(|e| panic!("{e}"));
        if n % 3 == 0 {
            let accept = MessageInstance::new(
                "Purchase",
                "accept",
                "Buyer",
                [
                    ("ID", id.as_str()),
                    ("item", item.as_str()),
                    ("price", "10"),
                    ("address", "Main St"),
                    ("resp", "yes"),
                ],
            );
            buyer.emit(accept).unwrap_or_else(|e| panic!("{e}"));
        }
    }
    buyer
}

fn enabled_sets(c: &mut Criterion) {
    let buyer = busy_buyer();
    let forms = buyer.enabled_for("Purchase", "Buyer").len();
    // rfq once, completed for every enactment, accept/reject for the
    // two thirds not accepted yet.
    let unaccepted = ENACTMENTS - ENACTMENTS.div_ceil(3);
    assert_eq!(forms, 1 + ENACTMENTS + 2 * unaccepted);
    c.bench_function("enabled/purchase-buyer-10000-enactments", |b| {
        b.iter(|| black_box(buyer.enabled_for("Purchase", "Buyer")))
    });
}

/// As in the tests: `TNSAI_BSPL_FIXTURES`, else `../shared/bspl`, else the snapshot.
fn fixture_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("TNSAI_BSPL_FIXTURES") {
        return PathBuf::from(dir);
    }
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let shared = manifest.join("../../shared/bspl");
    if shared.join("oracle").is_dir() {
        shared
    } else {
        manifest.join("tests/fixtures/bspl")
    }
}

fn verification(c: &mut Criterion) {
    let mut sources: Vec<PathBuf> = std::fs::read_dir(fixture_dir().join("protocols"))
        .map(|entries| entries.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    sources.sort();
    let crate_protocols = Path::new(env!("CARGO_MANIFEST_DIR")).join("protocols");
    sources.push(crate_protocols.join("logistics.bspl"));

    let mut group = c.benchmark_group("verify");
    for path in sources {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let Ok(spec) = Specification::parse(&text) else {
            continue;
        };
        let stem = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        for protocol in spec.protocols() {
            let id = BenchmarkId::from_parameter(format!("{stem}.{}", protocol.name()));
            group.bench_with_input(id, protocol, |b, protocol| {
                b.iter(|| black_box(verify::verify(protocol)))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, enabled_sets, verification);
criterion_main!(benches);
