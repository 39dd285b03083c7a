//! Server-sent events parsing throughput: one large event cut into 1 KiB
//! and 64 KiB chunks, read by `templiqx_adapter_http::sse::Parser` and, for
//! comparison, by `eventsource-stream` (the parser it replaced;
//! `docs/benchmarks.md`, "Server-sent events (adapters)").
//!
//! `cargo bench -p templiqx-adapter-http --bench sse`
//!
//! `eventsource-stream` takes time quadratic in the size of one event in
//! small chunks, so it is measured by criterion only where one pass stays
//! short (below `OLD_BUDGET_BYTES` of estimated rescanning); the other
//! cases get one timed pass each, printed as `once:` lines, when
//! `SSE_BENCH_OLD_ONCE=1` is set (minutes at 16 MiB in 1 KiB chunks).

use criterion::{
    BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group, criterion_main,
};
use futures_util::{FutureExt, StreamExt};
use std::convert::Infallible;
use std::hint::black_box;
use std::time::{Duration, Instant};
use templiqx_adapter_http::sse::Parser;

const KIB: usize = 1024;
const MIB: usize = 1024 * KIB;

/// One event of about `size` bytes: a single `data:` line holding a JSON
/// string of repeated text.
fn one_line(size: usize) -> Vec<u8> {
    let text = "The quick brown fox jumps over the lazy dog. ";
    let mut s = String::with_capacity(size + 16);
    s.push_str("data: {\"text\":\"");
    while s.len() < size {
        s.push_str(text);
    }
    s.push_str("\"}\n\n");
    s.into_bytes()
}

/// One event of about `size` bytes in `data:` lines of 80 bytes.
fn many_lines(size: usize) -> Vec<u8> {
    let line = format!("data: {}\n", "x".repeat(73));
    let mut s = String::with_capacity(size + 80);
    while s.len() < size {
        s.push_str(&line);
    }
    s.push('\n');
    s.into_bytes()
}

/// The data length of the events `input` gives in `chunk`-byte chunks.
fn ours(input: &[u8], chunk: usize) -> usize {
    let mut parser = Parser::new();
    let mut out = Vec::new();
    for c in input.chunks(chunk) {
        parser.push(c, &mut out);
    }
    parser.finish();
    out.iter().map(|e| e.data.len()).sum()
}

/// The same through `eventsource-stream`, driven without an executor: the
/// chunks are always ready, so every poll completes.
fn old(input: &[u8], chunk: usize) -> usize {
    let chunks = futures_util::stream::iter(input.chunks(chunk).map(Ok::<&[u8], Infallible>));
    let mut events = eventsource_stream::Eventsource::eventsource(chunks);
    let mut total = 0;
    while let Some(item) = events
        .next()
        .now_or_never()
        .expect("the chunks are always ready")
    {
        total += item.expect("a valid stream").data.len();
    }
    total
}

/// `eventsource-stream` rescans the buffered event on every chunk: about
/// `size × (size / chunk) / 2` bytes in all. Criterion measures it up to
/// this much (about a second a pass on the project's machine).
const OLD_BUDGET_BYTES: usize = 600 * MIB;

fn old_in_criterion(size: usize, chunk: usize, long_line: bool) -> bool {
    !long_line || size / 2 * (size / chunk) <= OLD_BUDGET_BYTES
}

fn label(bytes: usize) -> String {
    if bytes >= MIB {
        format!("{}MiB", bytes / MIB)
    } else {
        format!("{}KiB", bytes / KIB)
    }
}

fn bench(c: &mut Criterion) {
    let once = std::env::var_os("SSE_BENCH_OLD_ONCE").is_some_and(|v| v == "1");
    for (shape, make, long_line) in [
        ("one_line", one_line as fn(usize) -> Vec<u8>, true),
        ("many_lines", many_lines as fn(usize) -> Vec<u8>, false),
    ] {
        let mut group = c.benchmark_group(format!("sse/{shape}"));
        group
            .sample_size(10)
            .warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_secs(2))
            .sampling_mode(SamplingMode::Flat);
        for size in [MIB, 4 * MIB, 16 * MIB] {
            let input = make(size);
            let expected = ours(&input, input.len());
            // The event's data is the input less the `data: ` prefixes, the
            // line feeds and the blank line (plus the data's inner line
            // feeds).
            let lines = input.iter().filter(|&&b| b == b'\n').count() - 1;
            assert_eq!(expected, input.len() - lines * 6 - 2, "{shape} {size}");
            group.throughput(Throughput::Bytes(input.len() as u64));
            for chunk in [KIB, 64 * KIB] {
                assert_eq!(ours(&input, chunk), expected);
                let id = format!("{}/{}", label(size), label(chunk));
                group.bench_with_input(BenchmarkId::new("templiqx", &id), &chunk, |b, &chunk| {
                    b.iter(|| ours(black_box(&input), chunk))
                });
                if old_in_criterion(size, chunk, long_line) {
                    if size == MIB {
                        assert_eq!(old(&input, chunk), expected);
                    }
                    group.bench_with_input(
                        BenchmarkId::new("eventsource-stream", &id),
                        &chunk,
                        |b, &chunk| b.iter(|| old(black_box(&input), chunk)),
                    );
                } else if once {
                    let start = Instant::now();
                    let total = old(black_box(&input), chunk);
                    let took = start.elapsed();
                    assert_eq!(total, expected);
                    println!(
                        "once: sse/{shape}/eventsource-stream/{id}: {:.2} s ({:.2} MiB/s)",
                        took.as_secs_f64(),
                        input.len() as f64 / MIB as f64 / took.as_secs_f64()
                    );
                }
            }
        }
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
