//! Issue 18's "measure, then choose": what one realistic Pod costs in a compact store under
//! each candidate encoding, against the decoded k8s-openapi `Pod` the typed store holds.
//!
//! The Pods are testkit's seed, listed once over HTTP; each list item's bytes are the JSON
//! "as received". For every candidate the bench reports the heap it holds per object (counted
//! by the global allocator, so exact: bytes requested and live allocations, before malloc's
//! own per-chunk overhead), what encoding one object costs (an insert), decoding one object
//! back into an `Arc<Pod>` in random key order (a cold `lister.get`), and decoding all of them
//! (a `list()` with no decoded cache). Every decode is checked against the object it came from.
//!
//! The seeded Pods all come from one template, so they differ only in name, uid,
//! resourceVersion and a few labels: a dictionary learns almost all of an object. The rows
//! marked "unique values" rerun the compressors on the same Pods with every string value given
//! a per-object suffix (keys, numbers and timestamps kept), so that no value is shared between
//! objects: real clusters fall between the two.
//!
//! `cargo bench -p kube-informers-runtime --features k8s-openapi/latest --bench
//! store_encodings` (`BENCH_PODS=N` to change the number of Pods, 10,000 by default).

use std::alloc::System;
use std::collections::HashMap;
use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use k8s_openapi::api::core::v1::Pod;
use kube_informers_testkit::TestApiServer;
use rand::{SeedableRng, seq::SliceRandom};
use serde::Deserialize;
use serde_json::{Value, value::RawValue};
use stats_alloc::{INSTRUMENTED_SYSTEM, StatsAlloc};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// How many objects a dictionary is trained on, and its size.
const DICT_SAMPLES: usize = 1_000;
const DICT_BYTES: usize = 64 * 1024;
/// Largest decompressed object the scratch buffer takes without growing.
const SCRATCH_BYTES: usize = 1 << 20;

/// Heap held per object: bytes requested and allocations, both still live.
#[derive(Clone, Copy)]
struct Heap {
    bytes: i128,
    allocations: i128,
}

/// Live bytes and live allocations of the whole process.
fn heap_now() -> (i128, i128) {
    let stats = GLOBAL.stats();
    let bytes = stats.bytes_allocated as i128 - stats.bytes_deallocated as i128;
    (bytes, stats.allocations as i128 - stats.deallocations as i128)
}

/// Builds `count` values into a pre-sized `Vec` and returns them with the heap they hold
/// per value (the `Vec`'s own buffer left out: a store's map costs the same for every
/// candidate). Temporaries freed during the build do not count.
fn held<T>(count: usize, build: impl FnMut(usize) -> T) -> (Vec<T>, Heap) {
    let mut values = Vec::with_capacity(count);
    let (bytes, allocations) = heap_now();
    values.extend((0..count).map(build));
    let (bytes_after, allocations_after) = heap_now();
    let per = |total: i128| total / count.max(1) as i128;
    (
        values,
        Heap { bytes: per(bytes_after - bytes), allocations: per(allocations_after - allocations) },
    )
}

/// The Pods as the informer receives them: each list item's JSON, byte for byte.
fn wire_pods(count: usize) -> Vec<Box<[u8]>> {
    #[derive(Deserialize)]
    struct ListBody<'a> {
        #[serde(borrow)]
        items: Vec<&'a RawValue>,
    }
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build();
    rt.unwrap().block_on(async {
        let server = TestApiServer::start().await.unwrap();
        server.seed().pods("bench", count).unwrap();
        let request = http::Request::get("/api/v1/namespaces/bench/pods").body(Vec::new());
        let body = server.client().unwrap().request_text(request.unwrap()).await.unwrap();
        server.shutdown().await;
        let list: ListBody<'_> = serde_json::from_str(&body).unwrap();
        list.items.iter().map(|item| item.get().as_bytes().into()).collect()
    })
}

/// The serialization a candidate keeps before any compression.
#[derive(Clone, Copy)]
enum Format {
    /// The list item's bytes, kept as they arrived (needs the reflector to pass them on).
    WireJson,
    /// `serde_json::to_vec` of the decoded object.
    Json,
    /// MessagePack with field names (`rmp_serde::to_vec_named`): self-describing.
    MessagePack,
}

fn serialize(format: Format, pod: &Pod, wire: &[u8]) -> Vec<u8> {
    match format {
        Format::WireJson => wire.to_vec(),
        Format::Json => serde_json::to_vec(pod).unwrap(),
        Format::MessagePack => rmp_serde::to_vec_named(pod).unwrap(),
    }
}

/// Per-object compression of the serialized bytes; `Dict` variants share one dictionary
/// trained on the first [`DICT_SAMPLES`] objects.
#[derive(Clone, Copy)]
enum Squeeze {
    Plain,
    Zstd(i32),
    ZstdDict(i32),
    Lz4,
    Lz4Dict,
}

enum Compression {
    None,
    Zstd(zstd::bulk::Compressor<'static>, zstd::bulk::Decompressor<'static>),
    /// With its dictionary (empty for none).
    Lz4(Vec<u8>),
}

/// One candidate encoding: a format, a compression, and a scratch buffer for decoding.
struct Codec {
    format: Format,
    compression: Compression,
    /// Bytes shared by all objects (the dictionary), not counted per object.
    shared_bytes: usize,
    scratch: Vec<u8>,
}

impl Codec {
    fn new(format: Format, squeeze: Squeeze, objects: &Objects<'_>) -> Codec {
        let dictionary = match squeeze {
            Squeeze::ZstdDict(_) | Squeeze::Lz4Dict => train_dictionary(format, objects),
            _ => Vec::new(),
        };
        let compression = match squeeze {
            Squeeze::Plain => Compression::None,
            Squeeze::Zstd(level) | Squeeze::ZstdDict(level) => Compression::Zstd(
                zstd::bulk::Compressor::with_dictionary(level, &dictionary).unwrap(),
                zstd::bulk::Decompressor::with_dictionary(&dictionary).unwrap(),
            ),
            Squeeze::Lz4 | Squeeze::Lz4Dict => Compression::Lz4(dictionary.clone()),
        };
        let scratch = Vec::with_capacity(SCRATCH_BYTES);
        Codec { format, compression, shared_bytes: dictionary.len(), scratch }
    }

    /// What an insert costs: `pod` (or its bytes as received) to the bytes kept.
    fn encode(&mut self, pod: &Pod, wire: &[u8]) -> Box<[u8]> {
        let plain = serialize(self.format, pod, wire);
        let kept = match &mut self.compression {
            Compression::None => plain,
            Compression::Zstd(compressor, _) => compressor.compress(&plain).unwrap(),
            Compression::Lz4(dictionary) => {
                lz4_flex::block::compress_prepend_size_with_dict(&plain, dictionary)
            }
        };
        kept.into_boxed_slice()
    }

    /// What a cold `lister.get` costs: the kept bytes back to a `Pod`.
    fn decode(&mut self, kept: &[u8]) -> Pod {
        let plain: &[u8] = match &mut self.compression {
            Compression::None => kept,
            Compression::Zstd(_, decompressor) => {
                self.scratch.clear();
                decompressor.decompress_to_buffer(kept, &mut self.scratch).unwrap();
                &self.scratch
            }
            Compression::Lz4(dictionary) => {
                let (size, block) = lz4_flex::block::uncompressed_size(kept).unwrap();
                self.scratch.resize(size, 0);
                let into = &mut self.scratch;
                lz4_flex::block::decompress_into_with_dict(block, into, dictionary).unwrap();
                &self.scratch
            }
        };
        match self.format {
            Format::WireJson | Format::Json => serde_json::from_slice(plain).unwrap(),
            Format::MessagePack => rmp_serde::from_slice(plain).unwrap(),
        }
    }
}

/// The objects a candidate encodes and must decode back to, with their JSON as received
/// (only meaningful for the full Pods).
struct Objects<'a> {
    pods: &'a [Arc<Pod>],
    wire: &'a [Box<[u8]>],
}

fn train_dictionary(format: Format, objects: &Objects<'_>) -> Vec<u8> {
    let samples: Vec<Vec<u8>> = (0..DICT_SAMPLES.min(objects.pods.len()))
        .map(|i| serialize(format, &objects.pods[i], &objects.wire[i]))
        .collect();
    zstd::dict::from_samples(&samples, DICT_BYTES).unwrap()
}

/// p50 and p99 of a set of timings, and their mean.
struct Spread {
    p50: Duration,
    p99: Duration,
    mean: Duration,
}

fn spread(mut times: Vec<Duration>) -> Spread {
    times.sort_unstable();
    let at = |q: usize| times[(times.len() * q / 100).min(times.len() - 1)];
    let mean = times.iter().sum::<Duration>() / times.len() as u32;
    Spread { p50: at(50), p99: at(99), mean }
}

/// One line of the results table.
struct Row {
    heap: Heap,
    shared_bytes: usize,
    encode: Option<Spread>,
    get: Spread,
    list: Duration,
}

/// Times `get(i)` once per index in `order`, each on its own; the result is dropped untimed.
fn time_each<T>(order: &[usize], mut get: impl FnMut(usize) -> T) -> Spread {
    let times = order.iter().map(|&i| {
        let start = Instant::now();
        let _value = black_box(get(i)); // dropped after the closure's result is taken
        start.elapsed()
    });
    spread(times.collect())
}

/// A typed store: a get is a map lookup and an `Arc` clone, a list clones every `Arc`.
fn typed_row(pods: &[Arc<Pod>], heap: Heap, order: &[usize]) -> Row {
    let key = |pod: &Pod| format!("bench/{}", pod.metadata.name.as_deref().unwrap_or_default());
    let map: HashMap<String, Arc<Pod>> = pods.iter().map(|p| (key(p), p.clone())).collect();
    let keys: Vec<String> = pods.iter().map(|p| key(p)).collect();
    let get = time_each(order, |i| map.get(&keys[i]).cloned());
    let start = Instant::now();
    let list: Vec<Arc<Pod>> = black_box(map.values().cloned().collect());
    let list_time = start.elapsed();
    drop(list);
    Row { heap, shared_bytes: 0, encode: None, get, list: list_time }
}

fn codec_row(mut codec: Codec, objects: &Objects<'_>, order: &[usize]) -> Row {
    let mut encode_times = Vec::with_capacity(objects.pods.len());
    let (kept, heap) = held(objects.pods.len(), |i| {
        let start = Instant::now();
        let bytes = codec.encode(&objects.pods[i], &objects.wire[i]);
        encode_times.push(start.elapsed());
        bytes
    });
    let get = time_each(order, |i| Arc::new(codec.decode(&kept[i])));
    let start = Instant::now();
    let list: Vec<Arc<Pod>> = kept.iter().map(|bytes| Arc::new(codec.decode(bytes))).collect();
    let list_time = start.elapsed();
    assert!(list.iter().zip(objects.pods).all(|(got, want)| got == want), "round trip");
    let (shared_bytes, encode) = (codec.shared_bytes, Some(spread(encode_times)));
    Row { heap, shared_bytes, encode, get, list: list_time }
}

/// Whether the Pod survives a non-self-describing format (postcard): k8s-openapi's
/// `Deserialize` impls only take maps, so the answer is expected to be an error.
fn postcard_probe(pod: &Pod) -> String {
    match postcard::to_allocvec(pod) {
        Err(error) => format!("encode fails: {error}"),
        Ok(bytes) => match postcard::from_bytes::<Pod>(&bytes) {
            Ok(back) if &back == pod => format!("round-trips in {} bytes", bytes.len()),
            Ok(_) => format!("decodes to a different Pod ({} bytes)", bytes.len()),
            Err(error) => format!("{} bytes, decode fails: {error}", bytes.len()),
        },
    }
}

/// Gives every string value its own suffix, unique to the object and to the value's place in
/// it (keys, numbers and timestamps, which must still parse, untouched).
fn make_values_unique(value: &mut Value, object: u64, seen: &mut u64) {
    match value {
        Value::String(text) if !(text.len() == 20 && text.ends_with('Z')) => {
            *seen += 1;
            let hash = (object << 16 | *seen).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 40;
            text.push_str(&format!("-{hash:06x}"));
        }
        Value::Array(items) => items.iter_mut().for_each(|v| make_values_unique(v, object, seen)),
        Value::Object(map) => map.values_mut().for_each(|v| make_values_unique(v, object, seen)),
        _ => {}
    }
}

/// The Pods with [`make_values_unique`] applied to all but `apiVersion` and `kind`.
fn unique_values(pods: &[Arc<Pod>]) -> Vec<Arc<Pod>> {
    let unique = |(i, pod): (usize, &Arc<Pod>)| {
        let mut value = serde_json::to_value(pod.as_ref()).unwrap();
        let mut seen = 0;
        for part in ["metadata", "spec", "status"] {
            make_values_unique(&mut value[part], i as u64, &mut seen);
        }
        Arc::new(serde_json::from_value(value).unwrap())
    };
    pods.iter().enumerate().map(unique).collect()
}

/// Which of the three sets of objects a candidate holds.
#[derive(Clone, Copy)]
enum Set {
    Full,
    Stripped,
    UniqueValues,
}

#[rustfmt::skip]
const CANDIDATES: [(&str, Set, Format, Squeeze); 15] = [
    ("(c) JSON as received", Set::Full, Format::WireJson, Squeeze::Plain),
    ("(d) JSON without managedFields", Set::Stripped, Format::Json, Squeeze::Plain),
    ("(e1) (d) + zstd 3", Set::Stripped, Format::Json, Squeeze::Zstd(3)),
    ("(e2) (d) + zstd 3, dictionary", Set::Stripped, Format::Json, Squeeze::ZstdDict(3)),
    ("(e3) (d) + zstd 1, dictionary", Set::Stripped, Format::Json, Squeeze::ZstdDict(1)),
    ("(e4) (c) + zstd 3, dictionary", Set::Full, Format::WireJson, Squeeze::ZstdDict(3)),
    ("(f1) (d) + lz4", Set::Stripped, Format::Json, Squeeze::Lz4),
    ("(f2) (d) + lz4, dictionary", Set::Stripped, Format::Json, Squeeze::Lz4Dict),
    ("(g1) MessagePack without managedFields", Set::Stripped, Format::MessagePack, Squeeze::Plain),
    ("(g2) (g1) + zstd 3, dictionary", Set::Stripped, Format::MessagePack, Squeeze::ZstdDict(3)),
    ("(d') (d), unique values", Set::UniqueValues, Format::Json, Squeeze::Plain),
    ("(e1') (e1), unique values", Set::UniqueValues, Format::Json, Squeeze::Zstd(3)),
    ("(e2') (e2), unique values", Set::UniqueValues, Format::Json, Squeeze::ZstdDict(3)),
    ("(f2') (f2), unique values", Set::UniqueValues, Format::Json, Squeeze::Lz4Dict),
    ("(g2') (g2), unique values", Set::UniqueValues, Format::MessagePack, Squeeze::ZstdDict(3)),
];

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

fn print_row(label: &str, row: &Row, typed: &Row) {
    let encode = row
        .encode
        .as_ref()
        .map_or("-".into(), |e| format!("{:.1} / {:.1}", micros(e.p50), micros(e.mean)));
    let shared = match row.shared_bytes {
        0 => "-".to_string(),
        bytes => format!("{} KB", bytes / 1024),
    };
    let (get, list) = (&row.get, row.list.as_secs_f64());
    println!(
        "| {label} | {} | {} | {shared} | {encode} | {:.2} / {:.2} | {:.2} | {:.0}× |",
        row.heap.bytes,
        row.heap.allocations,
        micros(get.p50),
        micros(get.p99),
        list * 1e3,
        list / typed.list.as_secs_f64().max(1e-9),
    );
}

fn main() {
    let count = std::env::var("BENCH_PODS").ok().and_then(|n| n.parse().ok()).unwrap_or(10_000);
    let wire = wire_pods(count);
    let (full, full_heap) = held(count, |i| Arc::new(serde_json::from_slice(&wire[i]).unwrap()));
    let (stripped, stripped_heap) = held(count, |i| {
        let mut pod = Pod::clone(&full[i]);
        pod.metadata.managed_fields = None;
        Arc::new(pod)
    });
    let unique = unique_values(&stripped);
    let mut order: Vec<usize> = (0..count).collect();
    order.shuffle(&mut rand::rngs::StdRng::seed_from_u64(18));

    let wire_kb = wire.iter().map(|w| w.len()).sum::<usize>() as f64 / count as f64 / 1024.0;
    println!("{count} Pods, {wire_kb:.1} KB of JSON each as received");
    println!("postcard over k8s-openapi's serde: {}", postcard_probe(&stripped[0]));
    let timer = time_each(&order, black_box);
    println!("timer overhead per timed call: p50 {:.2} µs", micros(timer.p50));
    let typed = typed_row(&stripped, stripped_heap, &order);
    println!(
        "\n| candidate | heap B/object | allocations/object | shared | encode µs p50 / mean | get µs p50 / p99 | list() all ms | list vs (b) |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    print_row("(a) `Pod`, decoded", &typed_row(&full, full_heap, &order), &typed);
    print_row("(b) `Pod` without managedFields", &typed, &typed);
    for (label, set, format, squeeze) in CANDIDATES {
        let pods = match set {
            Set::Full => &full,
            Set::Stripped => &stripped,
            Set::UniqueValues => &unique,
        };
        let objects = Objects { pods, wire: &wire };
        let row = codec_row(Codec::new(format, squeeze, &objects), &objects, &order);
        print_row(label, &row, &typed);
    }
}
