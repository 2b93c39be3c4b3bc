//! The bridge against the simulator over loopback (UDP and TCP), and the decoding path against
//! any bytes.

use std::sync::Arc;
use std::time::Duration;

use proptest::prelude::*;
use rosc::{OscBundle, OscMessage, OscPacket, OscTime, OscType};
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpStream, UdpSocket};

use super::decode::{depth, read, tag_time};
use super::*;
use crate::simulator::{Options as SimOptions, Simulator};
use crate::transport::{Config, Transport};

fn options() -> Options {
    Options {
        host: "127.0.0.1".into(),
        port: 0,
        allow: Allow::parse(None).unwrap(),
        passcode: None,
        rate: 100_000.0,
        reply: true,
        confirm: false,
        limits: Limits::default(),
    }
}

/// A simulator and a bridge to it (both on the process runtime).
async fn bridge(o: Options) -> (Simulator, Bridge) {
    let sim = Simulator::new(SimOptions::default()).unwrap();
    sim.start(crate::runtime::get().handle()).unwrap();
    let media = crate::media::MediaClient::new(Arc::new(
        Transport::new(&Config::new(sim.url().unwrap())).unwrap(),
    ));
    let b = Bridge::new(o, media, None).unwrap();
    b.start().unwrap();
    (sim, b)
}

fn message(addr: &str, args: Vec<OscType>) -> Vec<u8> {
    rosc::encoder::encode(&OscPacket::Message(OscMessage {
        addr: addr.into(),
        args,
    }))
    .unwrap()
}

/// The JSON of a reply packet, and its address.
fn reply_of(bytes: &[u8]) -> (String, Value) {
    match rosc::decoder::decode_udp(bytes).unwrap().1 {
        OscPacket::Message(m) => match &m.args[..] {
            [OscType::String(s)] => (m.addr.clone(), serde_json::from_str(s).unwrap()),
            other => panic!("a reply of {other:?}"),
        },
        OscPacket::Bundle(_) => panic!("a bundle as reply"),
    }
}

fn posts(sim: &Simulator) -> Vec<String> {
    sim.requests()
        .into_iter()
        .filter(|r| r.method == "POST")
        .map(|r| r.path)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_udp_message_runs_its_command_and_the_reply_says_so() {
    let (sim, b) = bridge(options()).await;
    let udp = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    let to = ("127.0.0.1", b.port());
    udp.send_to(&message("/showctl/layer/0/mute", vec![]), to)
        .await
        .unwrap();
    let mut buf = vec![0; 65536];
    let n = tokio::time::timeout(Duration::from_secs(5), udp.recv(&mut buf))
        .await
        .expect("a reply within 5 s")
        .unwrap();
    let (addr, reply) = reply_of(&buf[..n]);
    assert_eq!(addr, "/reply/showctl/layer/0/mute");
    assert_eq!(reply["status"], "ok", "{reply}");
    assert_eq!(reply["delivery"], "answered");
    assert_eq!(posts(&sim), ["/api/0/mute/layer/0"]);
    let record = b.next_record(Duration::from_secs(1)).await.unwrap();
    assert_eq!(record["transport"], "udp");
    assert_eq!(record["status"], "ok");
    b.stop().await;
    sim.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tcp_frame_runs_and_is_answered_on_the_connection() {
    let (sim, b) = bridge(options()).await;
    let mut tcp = TcpStream::connect(("127.0.0.1", b.port())).await.unwrap();
    let frame = slip::encode(&message(
        "/showctl/layer/0/opacity",
        vec![OscType::Float(0.25)],
    ));
    // Split across two writes, as a stream may deliver it.
    tcp.write_all(&frame[..5]).await.unwrap();
    tcp.write_all(&frame[5..]).await.unwrap();
    let mut framer = slip::Framer::new(65536);
    let mut frames = Vec::new();
    let mut buf = [0u8; 4096];
    while frames.is_empty() {
        let n = tokio::time::timeout(Duration::from_secs(5), tcp.read(&mut buf))
            .await
            .expect("a reply within 5 s")
            .unwrap();
        assert!(n > 0, "the bridge closed the connection");
        framer.feed(&buf[..n], &mut frames);
    }
    let slip::Frame::Packet(p) = &frames[0] else {
        panic!("{frames:?}")
    };
    let (_, reply) = reply_of(p);
    assert_eq!(reply["status"], "ok", "{reply}");
    assert_eq!(posts(&sim), ["/api/0/opacity/layer/0"]);
    b.stop().await;
    sim.stop().await;
}

/// A valid packet, then that packet with bytes changed, cut or added.
fn hostile(seed: u64) -> Vec<Vec<u8>> {
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let valid = [
        message("/showctl/layer/0/opacity", vec![OscType::Float(0.5)]),
        message(
            "/showctl/trigger",
            vec![OscType::String("Main".into()), OscType::Int(1)],
        ),
        rosc::encoder::encode(&OscPacket::Bundle(OscBundle {
            timetag: OscTime::from((0, 1)),
            content: vec![OscPacket::Message(OscMessage {
                addr: "/showctl/clear".into(),
                args: vec![],
            })],
        }))
        .unwrap(),
    ];
    let mut out = Vec::new();
    for _ in 0..300 {
        let mut p = valid[rng.random_range(0..valid.len())].clone();
        match rng.random_range(0..4) {
            0 => {
                let i = rng.random_range(0..p.len());
                p[i] = rng.random();
            }
            1 => p.truncate(rng.random_range(0..p.len())),
            2 => p.extend((0..rng.random_range(1..9)).map(|_| rng.random::<u8>())),
            _ => p = (0..rng.random_range(0..64)).map(|_| rng.random()).collect(),
        }
        out.push(p);
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_packets_send_nothing_they_do_not_say_and_the_bridge_goes_on() {
    let (sim, b) = bridge(Options {
        reply: false,
        ..options()
    })
    .await;
    let udp = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    let to = ("127.0.0.1", b.port());
    let packets = hostile(7);
    let mut records = Vec::new();
    for p in &packets {
        udp.send_to(p, to).await.unwrap();
        // Each packet gives one record at least (a bundle one per message): wait for it, so
        // no datagram is lost to a full socket buffer.
        records.push(
            b.next_record(Duration::from_secs(5))
                .await
                .expect("a record"),
        );
    }
    // What ran: exactly the records that say so; every POST the simulator got is one of them.
    let ran: Vec<&Value> = records
        .iter()
        .filter(|r| r["status"] == "ok" || r["status"] == "error")
        .collect();
    let dropped = records.iter().filter(|r| r["status"] == "dropped").count();
    assert!(dropped > 100, "only {dropped} of {} dropped", packets.len());
    assert_eq!(posts(&sim).len(), ran.len(), "{ran:?}");
    // Still serving.
    udp.send_to(&message("/showctl/layer/1/mute", vec![]), to)
        .await
        .unwrap();
    let last = b.next_record(Duration::from_secs(5)).await.unwrap();
    assert_eq!(last["status"], "ok", "{last}");
    assert_eq!(posts(&sim).last().unwrap(), "/api/0/mute/layer/1");
    b.stop().await;
    sim.stop().await;
}

#[test]
fn bundles_nested_past_the_bound_are_seen_without_decoding() {
    let mut p = OscPacket::Message(OscMessage {
        addr: "/showctl/clear".into(),
        args: vec![],
    });
    for _ in 0..(MAX_DEPTH + 1) {
        p = OscPacket::Bundle(OscBundle {
            timetag: OscTime::from((0, 1)),
            content: vec![p],
        });
    }
    let bytes = rosc::encoder::encode(&p).unwrap();
    assert_eq!(depth(&bytes), MAX_DEPTH + 1);
    assert_eq!(depth(&message("/showctl/clear", vec![])), 0);
}

#[test]
fn time_tags_before_1970_are_refused_not_a_panic() {
    assert_eq!(tag_time(OscTime::from((0, 1))), Ok(None));
    assert!(tag_time(OscTime::from((5, 0)))
        .unwrap_err()
        .contains("before 1970"));
    let t = tag_time(OscTime::from((2_208_988_800 + 10, 1 << 31)))
        .unwrap()
        .unwrap();
    assert_eq!(
        t.duration_since(std::time::UNIX_EPOCH).unwrap(),
        Duration::from_millis(10_500)
    );
}

/// An OSC packet of any shape: messages of any address and arguments, bundles of any time tag
/// nested a few deep.
fn any_packet() -> impl Strategy<Value = OscPacket> {
    let arg = prop_oneof![
        any::<i32>().prop_map(OscType::Int),
        any::<f32>().prop_map(OscType::Float),
        ".{0,12}".prop_map(OscType::String),
        any::<bool>().prop_map(OscType::Bool),
        Just(OscType::Nil),
        any::<i64>().prop_map(OscType::Long),
    ];
    let addr = prop_oneof![
        "/showctl/(layer/[0-9a-z]{1,4}/)?(mute|opacity|trigger|remaining|go_to|select)",
        "/[ -~]{0,20}",
    ];
    let leaf = (addr, proptest::collection::vec(arg, 0..4))
        .prop_map(|(addr, args)| OscPacket::Message(OscMessage { addr, args }));
    leaf.prop_recursive(4, 16, 4, |inner| {
        (any::<(u32, u32)>(), proptest::collection::vec(inner, 0..4)).prop_map(|(t, content)| {
            OscPacket::Bundle(OscBundle {
                timetag: OscTime::from(t),
                content,
            })
        })
    })
}

proptest! {
    /// The decoding path (depth, rosc's decoder, time tags, the address space) on any bytes
    /// and on any well-formed packet cut or changed: never a panic.
    #[test]
    fn decoding_never_panics(
        p in any_packet(),
        cut in any::<usize>(),
        flip in any::<(usize, u8)>(),
        junk in proptest::collection::vec(any::<u8>(), 0..256),
    ) {
        let bytes = rosc::encoder::encode(&p).unwrap();
        let mut changed = bytes.clone();
        if !changed.is_empty() {
            let i = flip.0 % changed.len();
            changed[i] ^= flip.1;
        }
        let cut = bytes[..cut % (bytes.len() + 1)].to_vec();
        for b in [bytes, changed, cut, junk] {
            // The bridge's own path: whatever it reads goes to the address space.
            for (_, messages) in read(&b).unwrap_or_default() {
                for m in messages {
                    let _ = address::action(&m.addr, &m.args, false);
                }
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bridge_dropped_without_stop_stops_reading() {
    let (sim, b) = bridge(options()).await;
    let port = b.port();
    drop(b);
    // Its port is free again once its tasks have ended: binding it (TCP and UDP) succeeds.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    loop {
        let tcp = std::net::TcpListener::bind(("127.0.0.1", port));
        let udp = std::net::UdpSocket::bind(("127.0.0.1", port));
        if tcp.is_ok() && udp.is_ok() {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "port {port} still taken after 5 s"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    sim.stop().await;
}
