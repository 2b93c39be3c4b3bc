//! The client options as data ([`OPTIONS`]): for each option of `MediaPlayer(...)` and
//! `Scoreboard(...)`, its Python type and default, the classes that take it, its command-line
//! flag, the environment variables read without it, its range (the text of [`Config`]'s setter)
//! and its documentation. The binding gives it to Python as `_core._client_options()`, from
//! which the stubs, docs/cli.md and the command line's connection options are made.
//!
//! [`Config`]: showctl::transport::Config

use showctl::tls::ENV_TLS_FINGERPRINT;
use showctl::transport::{
    CONFIRM_TIMEOUT_RANGE, ENV_API_KEY, ENV_MEDIA_URL, ENV_SCOREBOARD_URL, MAX_BODY_RANGE,
    MAX_CONNECTIONS_RANGE, RETRIES_RANGE, TIMEOUT_RANGE,
};

/// One client option as data: its Python type and default as the stubs write them, the classes
/// that take it, its command-line flag and metavariable (empty: not on the command line), the
/// environment variables read when it is not given, what its range allows (the setter's own
/// text) and its documentation. Serialized as `_core._client_options()` gives each: the
/// Python type as `type`.
#[derive(serde::Serialize)]
pub struct ClientOption {
    pub name: &'static str,
    #[serde(rename = "type")]
    pub python_type: &'static str,
    pub default: &'static str,
    pub positional: bool,
    pub classes: &'static [&'static str],
    pub cli: &'static str,
    pub metavar: &'static str,
    pub env: &'static [&'static str],
    pub range: Option<&'static str>,
    pub doc: &'static str,
}

const BOTH: &[&str] = &["MediaPlayer", "Scoreboard"];
const MEDIA: &[&str] = &["MediaPlayer"];

/// Every client option, in signature order.
pub const OPTIONS: &[ClientOption] = &[
    ClientOption {
        name: "url",
        python_type: "str | None",
        default: "None",
        positional: true,
        classes: BOTH,
        cli: "--url",
        metavar: "URL",
        env: &[ENV_MEDIA_URL, ENV_SCOREBOARD_URL],
        range: None,
        doc: "The application's address: `http://host:port`, `https://host:port` or \
              `host:port` (`/api/0` is added). Without it, the environment variable (one per \
              application).",
    },
    ClientOption {
        name: "api_key",
        python_type: "str | None",
        default: "None",
        positional: true,
        classes: BOTH,
        cli: "--api-key",
        metavar: "KEY",
        env: &[ENV_API_KEY],
        range: None,
        doc: "The API key, sent as `Authorization: Bearer KEY`. Without it, the environment \
              variable; never printed, logged or shown in a repr.",
    },
    ClientOption {
        name: "timeout",
        python_type: "float",
        default: "5.0",
        positional: false,
        classes: BOTH,
        cli: "--timeout",
        metavar: "SECONDS",
        env: &[],
        range: Some(TIMEOUT_RANGE),
        doc: "Seconds each attempt may take (connecting, sending and reading the answer).",
    },
    ClientOption {
        name: "verify",
        python_type: "bool",
        default: "True",
        positional: false,
        classes: BOTH,
        cli: "--insecure",
        metavar: "",
        env: &[],
        range: None,
        doc: "Check the application's certificate (HTTPS); `verify=False` turns the check off \
              and accepts any certificate: a last resort; prefer `tls_fingerprint=` or \
              `ca_cert=`.",
    },
    ClientOption {
        name: "ca_cert",
        python_type: "str | os.PathLike[str] | None",
        default: "None",
        positional: false,
        classes: BOTH,
        cli: "--ca-cert",
        metavar: "PEM",
        env: &[],
        range: None,
        doc: "A PEM file with the CA (or the application's own self-signed certificate) to \
              trust, besides the system's.",
    },
    ClientOption {
        name: "tls_fingerprint",
        python_type: "str | None",
        default: "None",
        positional: false,
        classes: BOTH,
        cli: "--tls-fingerprint",
        metavar: "PIN",
        env: &[ENV_TLS_FINGERPRINT],
        range: None,
        doc: "Accept the certificate whose SHA-256 is this pin (`\"sha256:<hex>\"`, as `probe` \
              prints it), even self-signed or expired, and only it. `https://` URLs only. \
              Without it, the environment variable (ignored for `http://` URLs).",
    },
    ClientOption {
        name: "retries",
        python_type: "int",
        default: "2",
        positional: false,
        classes: BOTH,
        cli: "--retries",
        metavar: "N",
        env: &[],
        range: Some(RETRIES_RANGE),
        doc: "How many times a read is retried after a connection failure, a timeout, a 500 \
              or a 503 (with backoff); commands are sent once unless `retry_commands=True`.",
    },
    ClientOption {
        name: "retry_commands",
        python_type: "bool",
        default: "False",
        positional: false,
        classes: BOTH,
        cli: "--retry-commands",
        metavar: "",
        env: &[],
        range: None,
        doc: "Retry commands too, as reads are (`retry_commands=True`; every documented \
              command sets a state, so repeating one is safe).",
    },
    ClientOption {
        name: "max_body",
        python_type: "int | None",
        default: "None",
        positional: false,
        classes: BOTH,
        cli: "--max-body",
        metavar: "BYTES",
        env: &[],
        range: Some(MAX_BODY_RANGE),
        doc: "The largest answer accepted, in bytes (64 MiB when not given); a bigger one \
              raises `DecodeError`.",
    },
    ClientOption {
        name: "max_connections",
        python_type: "int",
        default: "8",
        positional: false,
        classes: BOTH,
        cli: "--max-connections",
        metavar: "N",
        env: &[],
        range: Some(MAX_CONNECTIONS_RANGE),
        doc: "Connections open at once to the application, in use or kept idle, across every \
              thread and the event loop; calls beyond it wait for a free one within their \
              `timeout` (one whose time runs out raises `TimeoutError` with `delivery` \
              `\"not_sent\"`). Small embedded servers have few workers: see \
              docs/reliability.md.",
    },
    ClientOption {
        name: "confirm_timeout",
        python_type: "float",
        default: "0.5",
        positional: false,
        classes: MEDIA,
        cli: "",
        metavar: "",
        env: &[],
        range: Some(CONFIRM_TIMEOUT_RANGE),
        doc: "How long `confirm=True` reads the value back after the command's 200 (five \
              reads, evenly spaced, the first at once) before raising `NotConfirmedError`: \
              half a second when not given.",
    },
    ClientOption {
        name: "cooldown",
        python_type: "float | None",
        default: "None",
        positional: false,
        classes: MEDIA,
        cli: "",
        metavar: "",
        env: &[],
        range: None,
        doc: "The double-press guard: a command identical to one answered less than this many \
              seconds ago (same method, path, query and body), or still waiting for its \
              answer, raises `DoublePressError` before anything is sent (above 0, at most \
              3600; `None`: off). `without_cooldown()` passes it on purpose.",
    },
    ClientOption {
        name: "mirrors",
        python_type: "Iterable[str | tuple[str, str | None] | tuple[str, str | None, str | \
                      None] | MirrorSpec] | None",
        default: "None",
        positional: false,
        classes: MEDIA,
        cli: "",
        metavar: "",
        env: &[],
        range: None,
        doc: "Extra targets that receive every command the primary accepted, in the \
              background: URLs, `(url, api_key[, tls_fingerprint])` tuples or dicts with those \
              keys (a URL alone takes the primary's key); `None` or `()`: none. See \
              `mirror_status()`.",
    },
];

#[cfg(test)]
mod tests {
    use super::OPTIONS;
    use showctl::error::Error;
    use showctl::transport::{ClientArgs, Config};

    /// A bool as Python writes it.
    fn python(b: bool) -> String {
        if b { "True" } else { "False" }.to_string()
    }

    /// The options are `ClientArgs`' fields (and `mirrors`, `MediaPlayer`'s own), in signature
    /// order, each with `Config::new`'s default as Python writes it.
    #[test]
    fn names_and_defaults_agree_with_config() {
        let d = ClientArgs::default();
        let none = || "None".to_string();
        let expected = [
            ("url", none()),
            ("api_key", none()),
            ("timeout", format!("{:?}", d.timeout)),
            ("verify", python(d.verify)),
            ("ca_cert", none()),
            ("tls_fingerprint", none()),
            ("retries", d.retries.to_string()),
            ("retry_commands", python(d.retry_commands)),
            ("max_body", none()),
            ("max_connections", d.max_connections.to_string()),
            ("confirm_timeout", format!("{:?}", d.confirm_timeout)),
            ("cooldown", none()),
            ("mirrors", none()),
        ];
        let declared: Vec<(&str, &str)> = OPTIONS.iter().map(|o| (o.name, o.default)).collect();
        let expected: Vec<(&str, &str)> = expected.iter().map(|(n, v)| (*n, v.as_str())).collect();
        assert_eq!(declared, expected);
        assert_eq!(format!("{:?}", d.timeout), "5.0");
    }

    /// Each option with a range states the text its setter refuses with, and only those have one.
    #[test]
    fn ranges_are_the_setters_own() {
        let mut c = Config::new("h:1");
        let refusals = [
            ("timeout", c.set_timeout(0.0)),
            ("retries", c.set_retries(-1)),
            ("max_body", c.set_max_body(Some(0))),
            ("max_connections", c.set_max_connections(0)),
            ("confirm_timeout", c.set_confirm_timeout(-1.0)),
        ];
        for (name, refused) in refusals {
            let option = OPTIONS.iter().find(|o| o.name == name).unwrap();
            let range = option.range.expect(name);
            match refused {
                Err(Error::InvalidInput(m)) => {
                    assert!(
                        m.starts_with(&format!("{name}: must be {range}, got ")),
                        "{m}"
                    )
                }
                other => panic!("{name} not refused: {other:?}"),
            }
        }
        let ranged: Vec<&str> = OPTIONS
            .iter()
            .filter(|o| o.range.is_some())
            .map(|o| o.name)
            .collect();
        assert_eq!(
            ranged,
            [
                "timeout",
                "retries",
                "max_body",
                "max_connections",
                "confirm_timeout"
            ]
        );
    }
}
