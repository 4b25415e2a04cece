//! The wire encoding's figures, in the same run as figures 1-2: the list body and the
//! raw list in JSON and in protobuf, the floor in both encodings (paged HTTP + a full decode), the
//! informer's time to synced and its CPU seconds per 10k pods with each encoding.
//!
//! The protobuf floor decodes every item whole through the same table the informer uses (there
//! are no generated Rust structs for the Kubernetes messages in this project); the raw protobuf
//! list is the physical floor: the body received and dropped.
//!
//! Both encodings are paced, each at its own rate (`--server-mbps 58,70`: a real kube-apiserver
//! encoded JSON at ~58 MB/s and sent 100k pods as 724 MB of protobuf in 8.3–12.6 s, 57–87 MB/s).
//! Unpaced, time to synced is CPU-bound and every wall-clock row is a share of two busy cores; an
//! earlier unpaced comparison had protobuf slower than JSON for that reason (and because the
//! pacing then covered JSON bodies and protobuf watches but not protobuf lists).
//!
//! # Measured
//!
//! `bench --pods N --only sync --no-peer --server-mbps 58,70`, release, 2026-11-24:
//!
//! | figure | 10k, 04:06 UTC, load 3.7 | 100k, 04:20 UTC, load 1.9 | target |
//! |---|---|---|---|
//! | list body per pod, JSON / protobuf | 11,647 / 7,987 B (0.69×) | 11,658 / 7,996 B | |
//! | raw list, JSON / protobuf | 2.03 / 1.19 s | 20.2 / 11.5 s | |
//! | floor (paged + full decode), JSON / protobuf | 2.83 / 1.43 s | 25.6 / 12.4 s | |
//! | time to synced, JSON / protobuf | 2.07 / 1.23 s | 20.7 / 12.3 s | |
//! | protobuf synced / raw protobuf list | 1.04× | 1.07× | ≤ 1.1× |
//! | protobuf synced / JSON synced | 0.60× | 0.59× | ≤ 0.7× |
//! | decode CPU per 10k pods, JSON / protobuf | 0.256 / 0.082 s (0.32×) | 0.252 / 0.076 s (0.30×) | ≤ 0.5× |
//! | process CPU per 10k pods synced, JSON / protobuf | 0.68 / 0.39 s | 0.42 / 0.28 s | ≤ 0.5× (missed) |
//! | RSS steady / bytes per cached pod, protobuf | 79.8 MiB / 6,024 B | 539 MiB / 5,422 B | as JSON |
//!
//! Later the same day (05:54 UTC, load 1.8), after the transform stopped masking a pod before
//! `prune_pod` and quantities were parsed without allocating (55.7k → 36.7k instructions a pruned
//! pod): process CPU 0.44 / 0.27 s (0.61×), decode 0.286 / 0.082 s (0.29×), synced in 1.197 s.
//!
//! **Why the whole sync's CPU stays above 0.5× JSON's.** `perf record --call-graph dwarf` on ten
//! unpaced syncs of 10k realistic pods in each encoding (2026-11-24 06:01 UTC), µs of CPU a pod
//! by outermost stage:
//!
//! | stage | protobuf | JSON |
//! |---|---|---|
//! | reading the encoding and decoding into the cached tree | 11.0 | 23.5 |
//! | HTTP receive in hyper (socket reads, chunked decoding, frame hand-off) | 4.9 | 6.6 |
//! | tokio workers parking and being woken around those hand-offs | 3.9 | 4.9 |
//! | cache transform (`prune`) | 3.7 | 3.0 |
//! | FIFO `Replace`, pops, indexer and its four indexes | 5.3 | 4.8 |
//! | total | 28.8 | 42.8 |
//!
//! Everything below the first row costs the same in both encodings. With the transform, FIFO and
//! indexer at zero the ratio would still be 0.57×; with a free protobuf decode, 0.42×. Half of
//! hyper's share is waking: its connection task hands each body frame to the body reader through
//! a one-slot channel, and after three wakes in a row tokio wakes an idle worker instead of
//! running the task in place (`eventfd_write`/`futex_wake` is 53 % of hyper's samples). Getting
//! under 0.5× would take reading list bodies outside kube's client (our own HTTP/1 and TLS),
//! which the project does not do; decoding alone is at 0.28–0.30×.
//!
//! **The tail after the list's last byte.** What follows the last byte is the streaming list's
//! `Replace` into the DeltaFIFO and one pop per object into the indexer. Callgrind on the
//! criterion bench `sync_tail` (10k realistic pruned pods, from the initial-events-end bookmark to
//! `has_synced`): `Replace` 41.8M → 9.0M instructions, pops 246.3M → 128.3M (SipHash was ~123M of
//! them), 2.1× fewer in all; at 100k, 932 ms → 522 ms wall (`cargo bench --bench informer --
//! sync_tail`, 2026-11-24 04:32 UTC). What changed, client-go's semantics unchanged: foldhash
//! (seeded per process) for the indexer's maps, index sets and the FIFO's maps; the reflector keys
//! a streaming list's objects as they arrive and hands the keys to the FIFO
//! (`ReflectorStore::replace_keyed`); the indexer keeps the popped key's `Arc`
//! (`ThreadSafeStore::update_shared`) and returns the replaced object under the same lock; the
//! informer pops what is already queued in batches of up to 256 without awaiting the FIFO's
//! `Notify` per item. What remains is the indexes themselves (inserting into index sets 35 %,
//! the index functions' strings 21 %, allocation). At 100k this took the protobuf sync from 1.14×
//! to 1.07× the raw list.

use super::common::*;
use super::sync::{floor_sync, kinformer_sync, raw_list};
use crate::informer::list_body::ListBodyDecoder;
use crate::informer::pb::client::WireFormat;
use crate::informer::pb::{self, ProtoListDecoder};
use http_body_util::BodyExt as _;

fn proto_request(url: String) -> Result<http::Request<kube::client::Body>, BenchError> {
    http::Request::get(url)
        .header(http::header::ACCEPT, pb::ACCEPT_PROTOBUF_OR_JSON)
        .body(kube::client::Body::from(Vec::new()))
        .map_err(|e| BenchError::Setup(e.to_string()))
}

/// One protobuf GET: the body, and whether the server answered protobuf.
async fn get_proto(
    client: &kube::Client,
    url: String,
    mut each: impl FnMut(&[u8]) -> Result<(), BenchError>,
) -> Result<bool, BenchError> {
    let res = client
        .send(proto_request(url)?)
        .await
        .map_err(|e| BenchError::Cluster(e.to_string()))?;
    if !res.status().is_success() {
        return Err(BenchError::Cluster(format!(
            "protobuf list: HTTP {}",
            res.status()
        )));
    }
    let proto = res
        .headers()
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|ct| ct.starts_with(pb::PROTOBUF));
    let mut body = res.into_body().into_data_stream();
    while let Some(chunk) = futures::StreamExt::next(&mut body).await {
        let chunk = chunk.map_err(|e| BenchError::Cluster(format!("list body: {e}")))?;
        each(&chunk)?;
    }
    Ok(proto)
}

/// The raw protobuf list: one unpaged `GET /api/v1/pods?resourceVersion=0` asking protobuf, the
/// body read to its end and dropped. Returns the time, the body's size, and whether it was
/// protobuf.
pub(super) async fn raw_list_proto(
    client: &kube::Client,
) -> Result<(Duration, u64, bool), BenchError> {
    let url = list_url(
        "/api/v1/pods",
        &ListOptions {
            resource_version: Some("0".into()),
            ..Default::default()
        },
    );
    let start = Instant::now();
    let mut bytes = 0u64;
    let proto = get_proto(client, url, |c| {
        bytes += c.len() as u64;
        Ok(())
    })
    .await?;
    Ok((start.elapsed(), bytes, proto))
}

/// The protobuf floor: paged protobuf lists (500 per page), every item decoded whole and counted
/// (not kept: at 100k realistic pods whole objects would hold gigabytes that the allocator keeps
/// for the rest of the run, after the JSON floor's own).
pub(super) async fn floor_sync_proto(
    client: &kube::Client,
) -> Result<(Duration, usize), BenchError> {
    let start = Instant::now();
    let mut pods = 0usize;
    let mut token: Option<String> = None;
    loop {
        let url = list_url(
            "/api/v1/pods",
            &ListOptions {
                limit: Some(500),
                continue_token: token.take(),
                ..Default::default()
            },
        );
        let mut decoder = ProtoListDecoder::new(Arc::new(|raw: &[u8]| {
            pb::decode_object(
                raw,
                &pb::schema::POD,
                &crate::informer::decode::ObjectMask::ALL,
                None,
            )
        }));
        let proto = get_proto(client, url, |c| {
            decoder
                .feed(c, &mut |o: DynamicObject| {
                    pods += 1;
                    drop(o);
                })
                .map_err(|e| BenchError::Cluster(e.to_string()))
        })
        .await?;
        if !proto {
            return Err(BenchError::Cluster(
                "the server answered JSON to a protobuf list".into(),
            ));
        }
        let (meta, _) = decoder
            .finish()
            .map_err(|e| BenchError::Cluster(e.to_string()))?;
        match meta.continue_token {
            Some(c) if !c.is_empty() => token = Some(c),
            _ => break,
        }
    }
    Ok((start.elapsed(), pods))
}

/// Both list bodies (RV=0, unpaged), as received.
async fn bodies(client: &kube::Client) -> Result<(Vec<u8>, Vec<u8>), BenchError> {
    let url = list_url(
        "/api/v1/pods",
        &ListOptions {
            resource_version: Some("0".into()),
            ..Default::default()
        },
    );
    let req = http::Request::get(url.clone())
        .body(Vec::new())
        .map_err(|e| BenchError::Setup(e.to_string()))?;
    let json = client
        .request_text(req)
        .await
        .map_err(|e| BenchError::Cluster(e.to_string()))?
        .into_bytes();
    let mut proto = Vec::new();
    get_proto(client, url, |c| {
        proto.extend_from_slice(c);
        Ok(())
    })
    .await?;
    Ok((json, proto))
}

/// CPU time to decode a whole list body into cached pods (the dashboard's mask), in 64 KB chunks
/// as it arrives from the network; on this thread only, nothing else running.
fn decode_cpu(body: &[u8], proto: bool) -> Result<(Duration, usize), BenchError> {
    let mask = render::cache_mask("Pod");
    let mut decoder: Box<dyn ListBodyDecoder<DynamicObject>> = if proto {
        Box::new(ProtoListDecoder::new(Arc::new(move |raw: &[u8]| {
            pb::decode_object(raw, &pb::schema::POD, &mask, None)
        })))
    } else {
        Box::new(crate::informer::list_body::JsonListDecoder::new(Arc::new(
            move |s: &str| crate::informer::decode::decode_dynamic_masked(s, &mask),
        )))
    };
    let mut n = 0usize;
    let cpu0 = crate::process::cpu_time().unwrap_or_default();
    for chunk in body.chunks(64 * 1024) {
        decoder
            .feed(chunk, &mut |o| {
                n += 1;
                drop(o);
            })
            .map_err(|e| BenchError::Cluster(e.to_string()))?;
    }
    decoder
        .finish()
        .map_err(|e| BenchError::Cluster(e.to_string()))?;
    let cpu = crate::process::cpu_time()
        .unwrap_or_default()
        .saturating_sub(cpu0);
    Ok((cpu, n))
}

/// The informer synced with `wire`: its time and the process's CPU time spent.
async fn sync_with(
    client: &kube::Client,
    wire: WireFormat,
) -> Result<(Duration, Duration, usize), BenchError> {
    let cpu0 = crate::process::cpu_time().unwrap_or_default();
    let (t, running) = kinformer_sync(client, wire).await?;
    let cpu = crate::process::cpu_time()
        .unwrap_or_default()
        .saturating_sub(cpu0);
    let n = running.informer.indexer().len();
    running.stop().await;
    Ok((t, cpu, n))
}

fn wire_name(w: WireFormat) -> &'static str {
    match w {
        WireFormat::Json => "JSON",
        WireFormat::Protobuf => "protobuf",
    }
}

/// The wire figures for one pod count (section `sec`), `runs` times each, medians.
pub(super) async fn wire_figures(
    opts: &BenchOptions,
    client: &kube::Client,
    sec: &str,
    pods: usize,
    report: &mut Report,
) -> Result<(), BenchError> {
    let mut kin: HashMap<&'static str, Vec<Duration>> = HashMap::new();
    let mut cpu: HashMap<&'static str, Vec<Duration>> = HashMap::new();
    let (mut raw_j, mut raw_p, mut floor_j, mut floor_p) = (vec![], vec![], vec![], vec![]);
    let (mut bytes_j, mut bytes_p, mut cached) = (0, 0, 0);
    // Warm the server's protobuf encoding (kube-apiserver's watch cache keeps each object's
    // serialization too; the demo server encodes on first request).
    raw_list_proto(client).await?;
    for _ in 0..opts.runs.max(1) {
        for w in [WireFormat::Json, WireFormat::Protobuf] {
            let (t, c, n) = sync_with(client, w).await?;
            kin.entry(wire_name(w)).or_default().push(t);
            cpu.entry(wire_name(w)).or_default().push(c);
            cached = n;
        }
        let (t, b) = raw_list(client).await?;
        raw_j.push(t);
        bytes_j = b;
        let (t, b, proto) = raw_list_proto(client).await?;
        if !proto {
            return Err(BenchError::Cluster(
                "the server answered JSON to a protobuf list".into(),
            ));
        }
        raw_p.push(t);
        bytes_p = b;
        floor_j.push(floor_sync(client).await?.0);
        floor_p.push(floor_sync_proto(client).await?.0);
    }
    let per_pod = |b: u64| b / cached.max(1) as u64;
    report.fig(
        sec,
        "list body bytes per pod: JSON / protobuf",
        format!(
            "{} B / {} B ({} / {})",
            per_pod(bytes_j),
            per_pod(bytes_p),
            mib(bytes_j),
            mib(bytes_p)
        ),
        "",
        Verdict::Info,
    );
    let (rj, rp) = (median(&mut raw_j), median(&mut raw_p));
    let (fj, fp) = (median(&mut floor_j), median(&mut floor_p));
    let kj = median(kin.entry("JSON").or_default());
    let kp = median(kin.entry("protobuf").or_default());
    let cj = median(cpu.entry("JSON").or_default());
    let cp = median(cpu.entry("protobuf").or_default());
    report.fig(
        sec,
        "raw list (body read, no decode): JSON / protobuf",
        format!("{} / {}", secs(rj), secs(rp)),
        "",
        Verdict::Info,
    );
    report.fig(
        sec,
        "floor (paged HTTP + full decode): JSON / protobuf",
        format!("{} / {}", secs(fj), secs(fp)),
        "",
        Verdict::Info,
    );
    report.fig(
        sec,
        "time to synced, kinformer: JSON / protobuf",
        format!("{} / {}", secs(kj), secs(kp)),
        "",
        Verdict::Info,
    );
    let big = pods >= 10_000;
    let to_floor = kp.as_secs_f64() / rp.as_secs_f64().max(1e-9);
    report.fig(
        sec,
        "kinformer protobuf / raw protobuf list",
        format!("{to_floor:.2}×"),
        "≤ 1.1×",
        if big {
            verdict(to_floor <= 1.1)
        } else {
            Verdict::Info
        },
    );
    let to_json = kp.as_secs_f64() / kj.as_secs_f64().max(1e-9);
    report.fig(
        sec,
        "kinformer protobuf / kinformer JSON",
        format!("{to_json:.2}×"),
        "≤ 0.7×",
        if big {
            verdict(to_json <= 0.7)
        } else {
            Verdict::Info
        },
    );
    let per10k = |c: Duration| c.as_secs_f64() * 10_000.0 / cached.max(1) as f64;
    let cpu_ratio = per10k(cp) / per10k(cj).max(1e-9);
    report.fig(
        sec,
        "CPU s per 10k pods synced: JSON / protobuf",
        format!(
            "{:.2} s / {:.2} s ({cpu_ratio:.2}×)",
            per10k(cj),
            per10k(cp)
        ),
        "protobuf ≤ 0.5× JSON",
        if big {
            verdict(cpu_ratio <= 0.5)
        } else {
            Verdict::Info
        },
    );
    // Decoding alone, both bodies, a few rounds (CPU clock ticks are 10 ms).
    let (json_body, proto_body) = bodies(client).await?;
    let (mut dj, mut dp) = (Duration::ZERO, Duration::ZERO);
    let rounds = 5;
    let mut decoded = 0;
    for _ in 0..rounds {
        dj += decode_cpu(&json_body, false)?.0;
        let (c, n) = decode_cpu(&proto_body, true)?;
        dp += c;
        decoded = n;
    }
    drop((json_body, proto_body));
    let per10k_dec =
        |c: Duration| c.as_secs_f64() / rounds as f64 * 10_000.0 / decoded.max(1) as f64;
    let dec_ratio = per10k_dec(dp) / per10k_dec(dj).max(1e-9);
    report.fig(
        sec,
        "decode CPU s per 10k pods (list body → cached pods): JSON / protobuf",
        format!(
            "{:.3} s / {:.3} s ({dec_ratio:.2}×)",
            per10k_dec(dj),
            per10k_dec(dp)
        ),
        "protobuf ≤ 0.5× JSON",
        if big {
            verdict(dec_ratio <= 0.5)
        } else {
            Verdict::Info
        },
    );
    report.notes.push(format!(
        "{sec}: the dashboard's informers ask {} (--wire); the figures above measure both",
        wire_name(opts.wire)
    ));
    Ok(())
}
