use std::path::Path;

use super::*;

fn no_env(_: &str) -> Option<String> {
    None
}

fn parse(text: &str) -> Result<Venue> {
    parse_toml(text, "venue.toml", Some(Path::new("/show")), &no_env)
}

fn err(text: &str) -> String {
    match parse(text) {
        Ok(v) => panic!("accepted: {v:?}"),
        Err(e) => e.to_string(),
    }
}

const EIGHT_COURTS_TWO_SCREENS: &str = r#"
[defaults]
timeout = 2.5
interval = 0.25

[sources.court1]
kind = "scoreboard"
url = "http://127.0.0.1:9001"
[sources.court2]
kind = "scoreboard"
url = "127.0.0.1:9002"
interval = 1.0
[sources.court3]
kind = "scoreboard"
url = "http://127.0.0.1:9003"
[sources.court4]
kind = "scoreboard"
url = "http://127.0.0.1:9004"
[sources.court5]
kind = "scoreboard"
url = "http://127.0.0.1:9005"
[sources.court6]
kind = "scoreboard"
url = "http://127.0.0.1:9006"
[sources.court7]
kind = "scoreboard"
url = "http://127.0.0.1:9007"
[sources.court8]
kind = "scoreboard"
url = "http://127.0.0.1:9008"

[sources.main]
kind = "media"
url = "https://127.0.0.1:1025"
tls_fingerprint = "sha256:0000000000000000000000000000000000000000000000000000000000000000"
ca_cert = "certs/main.pem"
verify = false
retries = 0
max_connections = 4
mirrors = ["http://127.0.0.1:1026", { url = "http://127.0.0.1:1027", api_key = "backup" }]

[sources.lobby]
kind = "media"
url = "http://127.0.0.1:1030"
timeout = 9
workspace = "lobby"
"#;

#[test]
fn a_venue_of_eight_courts_and_two_screens_reads_in_order_with_defaults() {
    let v = parse(EIGHT_COURTS_TWO_SCREENS).unwrap();
    let names: Vec<_> = v.sources.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "court1", "court2", "court3", "court4", "court5", "court6", "court7", "court8", "main",
            "lobby"
        ]
    );
    assert_eq!(v.of_kind(Kind::Scoreboard).count(), 8);
    assert_eq!(v.of_kind(Kind::Media).count(), 2);
    let c1 = v.get("court1").unwrap();
    assert_eq!(c1.config.timeout, Duration::from_secs_f64(2.5));
    assert_eq!(c1.interval, Duration::from_secs_f64(0.25));
    assert_eq!(v.get("court2").unwrap().interval, Duration::from_secs(1));
    let main = v.get("main").unwrap();
    assert!(!main.config.verify);
    assert_eq!(main.config.retries, 0);
    assert_eq!(main.config.max_connections, 4);
    assert!(main.config.tls_fingerprint.is_some());
    assert_eq!(
        main.config.ca_cert.as_deref(),
        Some(Path::new("/show/certs/main.pem"))
    );
    assert_eq!(main.mirrors.len(), 2);
    assert_eq!(main.mirrors[0].api_key, None);
    assert_eq!(main.mirrors[1].api_key.as_deref(), Some("backup"));
    assert_eq!(
        v.get("lobby").unwrap().config.timeout,
        Duration::from_secs(9)
    );
    assert_eq!(v.get("lobby").unwrap().config.retries, 2);
    assert_eq!(v.get("lobby").unwrap().config.max_connections, 8);
    assert_eq!(
        v.get("lobby").unwrap().workspace.as_deref(),
        Some(Path::new("/show/lobby"))
    );
    assert_eq!(main.workspace, None);
}

#[test]
fn keys_come_from_the_variables_the_file_names() {
    let env = |name: &str| (name == "COURT1_KEY").then(|| "s3cret".to_string());
    let text = r#"
[sources.court1]
kind = "scoreboard"
url = "http://127.0.0.1:9001"
api_key_env = "COURT1_KEY"
"#;
    let v = parse_toml(text, "venue.toml", None, &env).unwrap();
    assert_eq!(v.sources[0].config.api_key.as_deref(), Some("s3cret"));
    // Named but not set: an error naming the source, the field and the variable.
    let e = parse_toml(text, "venue.toml", None, &no_env)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("venue.toml: sources.court1.api_key_env: names the variable COURT1_KEY, which is not set"),
        "{e}"
    );
    // [defaults] may name one variable for every source.
    let text = r#"
[defaults]
api_key_env = "COURT1_KEY"
[sources.a]
kind = "media"
url = "http://127.0.0.1:1"
"#;
    let v = parse_toml(text, "venue.toml", None, &env).unwrap();
    assert_eq!(v.sources[0].config.api_key.as_deref(), Some("s3cret"));
}

#[test]
fn the_key_never_appears_in_a_debug_form() {
    let text = r#"
[sources.a]
kind = "media"
url = "http://127.0.0.1:1"
api_key = "s3cret-key"
"#;
    let v = parse(text).unwrap();
    assert!(!format!("{v:?}").contains("s3cret-key"));
}

#[test]
fn errors_name_the_file_the_source_and_the_field() {
    let cases: &[(&str, &str)] = &[
        (
            "[sources.court1]\nkind = \"scorebaord\"\nurl = \"http://h:1\"\n",
            "venue.toml: sources.court1.kind: expected \"media\" or \"scoreboard\", got \"scorebaord\"",
        ),
        (
            "[sources.court1]\nurl = \"http://h:1\"\n",
            "venue.toml: sources.court1: has no kind",
        ),
        (
            "[sources.court1]\nkind = \"media\"\n",
            "venue.toml: sources.court1: has no url",
        ),
        (
            "[sources.court1]\nkind = \"media\"\nurl = \"ftp://h:1\"\n",
            "venue.toml: sources.court1.url: scheme must be http or https",
        ),
        (
            "[sources.court1]\nkind = \"media\"\nurl = \"http://h:1\"\ntimout = 3\n",
            "venue.toml: sources.court1.timout: unknown field; did you mean \"timeout\"?",
        ),
        (
            "[sources.court1]\nkind = \"media\"\nurl = \"http://h:1\"\ntimeout = 0\n",
            "venue.toml: sources.court1.timeout: must be a number of seconds above 0",
        ),
        (
            "[sources.court1]\nkind = \"media\"\nurl = \"http://h:1\"\ntimeout = \"5\"\n",
            "venue.toml: sources.court1.timeout: must be a number, got a string",
        ),
        (
            "[sources.court1]\nkind = \"media\"\nurl = \"http://h:1\"\ninterval = 0.001\n",
            "venue.toml: sources.court1.interval: must be a number of seconds from 0.05",
        ),
        (
            "[sources.court1]\nkind = \"media\"\nurl = \"http://h:1\"\nretries = 11\n",
            "venue.toml: sources.court1.retries: must be between 0 and 10, got 11",
        ),
        (
            "[sources.court1]\nkind = \"media\"\nurl = \"http://h:1\"\nmax_connections = 0\n",
            "venue.toml: sources.court1.max_connections: must be between 1 and 1024, got 0",
        ),
        (
            "[sources.court1]\nkind = \"media\"\nurl = \"http://h:1\"\nretries = 2.5\n",
            "venue.toml: sources.court1.retries: must be a whole number, got 2.5",
        ),
        (
            "[sources.court1]\nkind = \"media\"\nurl = \"http://h:1\"\nverify = \"no\"\n",
            "venue.toml: sources.court1.verify: must be true or false",
        ),
        (
            "[sources.court1]\nkind = \"media\"\nurl = \"http://h:1\"\ntls_fingerprint = \"sha256:12\"\n",
            "venue.toml: sources.court1.tls_fingerprint: ",
        ),
        (
            "[sources.court1]\nkind = \"scoreboard\"\nurl = \"http://h:1\"\nmirrors = [\"http://h:2\"]\n",
            "venue.toml: sources.court1.mirrors: only a media source has mirrors",
        ),
        (
            "[sources.main]\nkind = \"media\"\nurl = \"http://h:1\"\nmirrors = [{ url = \"http://h:2\", key = \"x\" }]\n",
            "venue.toml: sources.main.mirrors[0].key: unknown field",
        ),
        (
            "[sources.main]\nkind = \"media\"\nurl = \"http://h:1\"\nmirrors = [\"nope nope\"]\n",
            "venue.toml: sources.main.mirrors[0]: contains a space",
        ),
        (
            "[sources.\"court 1\"]\nkind = \"media\"\nurl = \"http://h:1\"\n",
            "venue.toml: sources.court 1: \"court 1\" is not a usable source name",
        ),
        (
            "[sources.a]\nkind = \"media\"\nurl = \"http://h:1\"\napi_key = \"k\"\napi_key_env = \"K\"\n",
            "venue.toml: sources.a: sets both api_key and api_key_env",
        ),
        (
            "[sources.a]\nkind = \"media\"\nurl = \"http://h:1\"\napi_key = \"k\\n\"\n",
            "venue.toml: sources.a.api_key: contains CR, LF",
        ),
        ("[defaults]\ntimeout = 1\n", "venue.toml: no [sources] table"),
        ("[sources]\n", "venue.toml: sources: is empty"),
        ("[source.a]\nkind = \"media\"\n", "venue.toml: source: unknown field; did you mean \"sources\"?"),
        (
            "[defaults]\nkind = \"media\"\n[sources.a]\nkind = \"media\"\nurl = \"http://h:1\"\n",
            "venue.toml: defaults.kind: unknown field",
        ),
        (
            "[defaults]\ntimeout = -1\n[sources.a]\nkind = \"media\"\nurl = \"http://h:1\"\n",
            "venue.toml: defaults.timeout: must be a number of seconds above 0",
        ),
        ("[sources.a\nkind = 1\n", "venue.toml:1:"),
    ];
    for (text, want) in cases {
        let got = err(text);
        assert!(
            got.contains(want),
            "for {text:?}\n got: {got}\nwant: {want}"
        );
    }
}

#[test]
fn a_missing_or_oversized_file_is_named() {
    let dir = std::env::temp_dir().join(format!("showctl-venue-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let missing = dir.join("missing.toml");
    let e = load(&missing, &no_env).unwrap_err().to_string();
    assert!(
        e.contains("missing.toml: cannot read the venue file"),
        "{e}"
    );
    let big = dir.join("big.toml");
    std::fs::write(&big, vec![b'#'; (MAX_FILE + 1) as usize]).unwrap();
    let e = load(&big, &no_env).unwrap_err().to_string();
    assert!(e.contains("big.toml: the venue file has"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn data_in_the_file_shape_reads_the_same() {
    let value = serde_json::json!({
        "sources": {
            "court1": {"kind": "scoreboard", "url": "http://127.0.0.1:9001"},
            "main": {"kind": "media", "url": "http://127.0.0.1:1025", "timeout": 1.5},
        }
    });
    let v = from_value(&value, "sources", None, &no_env).unwrap();
    assert_eq!(v.sources.len(), 2);
    assert_eq!(
        v.get("main").unwrap().config.timeout,
        Duration::from_secs_f64(1.5)
    );
    let bad = serde_json::json!({"sources": {"main": {"kind": "media", "url": 3}}});
    let e = from_value(&bad, "sources", None, &no_env)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("sources: sources.main.url: must be a string, got a number"),
        "{e}"
    );
}

#[test]
fn one_source_takes_the_same_table_without_a_kind() {
    let table = serde_json::json!({"url": "http://127.0.0.1:9", "api_key": "k", "verify": false});
    let s = one_source("scoreboard", Kind::Scoreboard, &table, "Feed", &no_env).unwrap();
    assert_eq!(s.kind, Kind::Scoreboard);
    assert!(!s.config.verify);
    let e = one_source(
        "media",
        Kind::Media,
        &serde_json::json!({"uri": "x"}),
        "Feed",
        &no_env,
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("Feed: media.uri: unknown field; did you mean \"url\"?"),
        "{e}"
    );
}

mod probing {
    use std::sync::OnceLock;

    use super::*;
    use crate::simulator::{Options, Simulator};
    use crate::venue::probe::probe_venue;

    fn rt() -> &'static tokio::runtime::Runtime {
        static RT: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
        RT.get_or_init(|| {
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .unwrap()
        })
    }

    fn simulators(n: usize) -> Vec<Simulator> {
        (0..n)
            .map(|_| {
                let sim = Simulator::new(Options::default()).unwrap();
                sim.start(rt().handle()).unwrap();
                sim
            })
            .collect()
    }

    #[test]
    fn every_source_is_probed_at_once_and_a_hanging_one_delays_no_other() {
        let sims = simulators(4);
        // A port that accepts and never answers, and one where nothing listens.
        let (hanging, closed) = rt().block_on(async {
            let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = l.local_addr().unwrap();
            tokio::spawn(async move {
                let mut held = Vec::new();
                while let Ok((s, _)) = l.accept().await {
                    held.push(s);
                }
            });
            let gone = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let closed = gone.local_addr().unwrap();
            drop(gone);
            (addr, closed)
        });
        // The simulators get a timeout a loaded machine cannot miss; the hanging port its own,
        // short one (the probe gives up on it, and on it alone).
        let mut text = String::from("[defaults]\ntimeout = 10\nretries = 0\n");
        for (i, sim) in sims.iter().enumerate() {
            let kind = if i % 2 == 0 { "media" } else { "scoreboard" };
            text += &format!(
                "[sources.s{i}]\nkind = \"{kind}\"\nurl = \"{}\"\n",
                sim.url().unwrap()
            );
        }
        text += &format!(
            "[sources.hanging]\nkind = \"scoreboard\"\nurl = \"http://{hanging}\"\ntimeout = 0.5\n"
        );
        text += &format!("[sources.closed]\nkind = \"scoreboard\"\nurl = \"http://{closed}\"\n");
        let venue = parse_toml(&text, "venue.toml", None, &no_env).unwrap();
        let report = rt().block_on(probe_venue(&venue, 8));
        let names: Vec<_> = report.sources.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["s0", "s1", "s2", "s3", "hanging", "closed"]);
        for s in &report.sources[..4] {
            assert!(
                s.ok(),
                "{}: {:?}",
                s.name,
                s.report.as_ref().map(|r| &r.problems)
            );
        }
        let hung = &report.sources[4];
        assert!(!hung.ok());
        assert!(hung.report.as_ref().unwrap().reachable);
        let closed = &report.sources[5];
        assert!(!closed.report.as_ref().unwrap().reachable);
        assert!(!report.ok);
        // Concurrent: the whole check took less than the sources' times added up.
        let total: f64 = report.sources.iter().map(|s| s.seconds).sum();
        assert!(report.seconds < total, "{} vs {total}", report.seconds);
        for sim in &sims {
            rt().block_on(sim.stop());
        }
    }

    #[test]
    fn one_at_a_time_takes_the_sum() {
        // The bound is honoured: with concurrency 1 the wall time is at least the sum.
        let sims = simulators(3);
        let mut text = String::new();
        for (i, sim) in sims.iter().enumerate() {
            text += &format!(
                "[sources.s{i}]\nkind = \"scoreboard\"\nurl = \"{}\"\n",
                sim.url().unwrap()
            );
        }
        let venue = parse_toml(&text, "venue.toml", None, &no_env).unwrap();
        let report = rt().block_on(probe_venue(&venue, 1));
        assert!(report.ok);
        let total: f64 = report.sources.iter().map(|s| s.seconds).sum();
        assert!(report.seconds >= total, "{} vs {total}", report.seconds);
        for sim in &sims {
            rt().block_on(sim.stop());
        }
    }
}

/// `of_file_or_data`: one of a file or data; `interval` becomes the default of the data's
/// sources, kept beside the other defaults, refused beside one in them; `json` is not called
/// for what is refused first.
#[test]
fn a_venue_from_a_file_or_data_and_the_interval_as_default() {
    let json = |v: Value, _: &str| -> Result<Value> { Ok(v) };
    let sources = serde_json::json!({"a": {"kind": "media", "url": "h:1"}});
    let defaults = serde_json::json!({"timeout": 2.0});
    let v = of_file_or_data(
        None,
        Some(sources.clone()),
        Some(defaults),
        Some(0.25),
        json,
    )
    .unwrap();
    assert_eq!(v.sources[0].interval, Duration::from_millis(250));
    assert_eq!(v.sources[0].config.timeout, Duration::from_secs(2));
    let v = of_file_or_data(None, Some(sources.clone()), None, Some(0.25), json).unwrap();
    assert_eq!(v.sources[0].interval, Duration::from_millis(250));
    let v = of_file_or_data(None, Some(sources.clone()), None, None, json).unwrap();
    assert_eq!(
        v.sources[0].interval,
        Duration::from_secs_f64(DEFAULT_INTERVAL)
    );
    let never = |_: Value, arg: &str| -> Result<Value> { panic!("{arg} converted") };
    let err = |r: Result<Venue>| r.unwrap_err().to_string();
    let both = serde_json::json!({"interval": 1.0});
    assert!(err(of_file_or_data(
        None,
        Some(sources.clone()),
        Some(both),
        Some(0.25),
        json
    ))
    .starts_with("interval: given both as interval= and in defaults="));
    let file = || Some(PathBuf::from("venue.toml"));
    assert!(err(of_file_or_data(
        file(),
        Some(sources.clone()),
        None,
        None,
        never
    ))
    .starts_with("venue and sources: give one of them"));
    assert!(
        err(of_file_or_data(file(), None, Some(sources), None, never))
            .starts_with("defaults: given with a venue file")
    );
    assert!(
        err(of_file_or_data(None, None, None, None, never)).starts_with("venue: give a venue file")
    );
}
