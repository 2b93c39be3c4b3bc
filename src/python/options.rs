//! The client options of `MediaPlayer(...)` and `Scoreboard(...)`, declared once in
//! [`client_options!`]: name, Rust and Python type, default, range, environment variable, the
//! command line's spelling and the documentation. Its one consumer, [`client_items!`], makes
//! from it the converters, both `#[new]` constructors (`client_constructor!`: their signature,
//! and so `__text_signature__`), the checks and the [`Config`] they build, and
//! `_core._client_options()`, from which the stubs, docs/cli.md and the command line's
//! connection options are made.
//!
//! Adding an option: one entry below (its `set` says where the value goes, usually a field of
//! [`Config`]) and its use in the core.

use std::path::PathBuf;
use std::time::Duration;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use super::args::{self, resolve_pin};
use crate::error::{Error, Result};
use crate::tls::ENV_TLS_FINGERPRINT;
use crate::transport::{
    resolve_key, resolve_url, Config, DEFAULT_MAX_BODY, ENV_API_KEY, ENV_MEDIA_URL,
    ENV_SCOREBOARD_URL,
};

/// Every client option, declared once, handed to the macro named in brackets
/// ([`client_items!`]). An entry:
///
/// ```text
/// /// The documentation (each line a sentence or more).
/// name: RustType = default, py "Python type", cli "--flag" "METAVAR", env [VARIABLES],
///     [range "what is allowed" if |v| check,] set |building, value| { … };
/// ```
///
/// The value is converted by [`OptionValue`] (a refusal names the option).
///
/// `positional` options come before the `*` of the signature; `media_config` options exist on
/// `MediaPlayer` only and are set on the [`Config`] like `keyword` ones (a `Scoreboard` keeps
/// their defaults); `media` options exist on `MediaPlayer` only, and are handed to its
/// constructor's body rather than set on the [`Config`]. The `default` is one token, so that PyO3 writes it into `__text_signature__`.
macro_rules! client_options {
    ([$($then:tt)*] { $($args:tt)* }) => {
        $($then)*! { { $($args)* }
        positional {
            /// The application's address: `http://host:port`, `https://host:port` or
            /// `host:port` (`/api/0` is added). Without it, the environment variable (one per
            /// application).
            url: Option<String> = None, py "str | None", cli "--url" "URL",
                env [ENV_MEDIA_URL, ENV_SCOREBOARD_URL],
                set |b, v| { b.config.url = resolve_url(v, b.url_env)?; };
            /// The API key, sent as `Authorization: Bearer KEY`. Without it, the environment
            /// variable; never printed, logged or shown in a repr.
            api_key: Option<String> = None, py "str | None", cli "--api-key" "KEY",
                env [ENV_API_KEY],
                set |b, v| { b.config.api_key = resolve_key(v); };
        }
        keyword {
            /// Seconds each attempt may take (connecting, sending and reading the answer).
            timeout: f64 = 5.0, py "float", cli "--timeout" "SECONDS", env [],
                range "a number of seconds above 0 and at most 3600"
                    if |v: f64| v.is_finite() && v > 0.0 && v <= 3600.0,
                set |b, v| { b.config.timeout = Duration::from_secs_f64(v); };
            /// Check the application's certificate (HTTPS); `verify=False` turns the check off
            /// and accepts any certificate: a last resort; prefer `tls_fingerprint=` or
            /// `ca_cert=`.
            verify: bool = true, py "bool", cli "--insecure" "", env [],
                set |b, v| { b.config.verify = v; };
            /// A PEM file with the CA (or the application's own self-signed certificate) to
            /// trust, besides the system's.
            ca_cert: Option<std::path::PathBuf> = None, py "str | os.PathLike[str] | None",
                cli "--ca-cert" "PEM", env [],
                set |b, v| { b.config.ca_cert = v; };
            /// Accept the certificate whose SHA-256 is this pin (`"sha256:<hex>"`, as `probe`
            /// prints it), even self-signed or expired, and only it. `https://` URLs only.
            /// Without it, the environment variable (ignored for `http://` URLs).
            tls_fingerprint: Option<String> = None, py "str | None",
                cli "--tls-fingerprint" "PIN", env [ENV_TLS_FINGERPRINT],
                set |b, v| { b.config.tls_fingerprint = resolve_pin(v, &b.config.url)?; };
            /// How many times a read is retried after a connection failure, a timeout, a 500
            /// or a 503 (with backoff); commands are sent once unless `retry_commands=True`.
            retries: i64 = 2, py "int", cli "--retries" "N", env [],
                range "between 0 and 10" if |v: i64| (0..=10).contains(&v),
                set |b, v| { b.config.retries = v as u32; };
            /// Retry commands too, as reads are (`retry_commands=True`; every documented
            /// command sets a state, so repeating one is safe).
            retry_commands: bool = false, py "bool", cli "--retry-commands" "", env [],
                set |b, v| { b.config.retry_commands = v; };
            /// The largest answer accepted, in bytes (64 MiB when not given); a bigger one
            /// raises `DecodeError`.
            max_body: Option<i64> = None, py "int | None", cli "--max-body" "BYTES", env [],
                range "a positive number of bytes" if |v: Option<i64>| v.is_none_or(|n| n > 0),
                set |b, v| { b.config.max_body = v.map_or(DEFAULT_MAX_BODY, |n| n as usize); };
            /// Connections open at once to the application, in use or kept idle, across every
            /// thread and the event loop; calls beyond it wait for a free one within their
            /// `timeout` (one whose time runs out raises `TimeoutError` with `delivery`
            /// `"not_sent"`). Small embedded servers have few workers: see docs/reliability.md.
            max_connections: i64 = 8, py "int", cli "--max-connections" "N", env [],
                range "between 1 and 1024" if |v: i64| (1..=1024).contains(&v),
                set |b, v| { b.config.max_connections = v as usize; };
        }
        media_config {
            /// How long `confirm=True` reads the value back after the command's 200 (five
            /// reads, evenly spaced, the first at once) before raising `NotConfirmedError`:
            /// half a second when not given.
            confirm_timeout: f64 = 0.5, py "float", cli "" "", env [],
                range "a number of seconds from 0 to 60"
                    if |v: f64| v.is_finite() && (0.0..=60.0).contains(&v),
                set |b, v| { b.config.confirm_timeout = Duration::from_secs_f64(v); };
        }
        media {
            /// Extra targets that receive every command the primary accepted, in the
            /// background: URLs, `(url, api_key[, tls_fingerprint])` tuples or dicts with those
            /// keys (a URL alone takes the primary's key); `None` or `()`: none. See
            /// `mirror_status()`.
            mirrors: Option<crate::python::args::MirrorArgs> = None,
                py concat!(
                    "Iterable[str | tuple[str, str | None] | tuple[str, str | None, str | None]",
                    " | MirrorSpec] | None"
                ),
                cli "" "", env [];
        }
        }
    };
}

/// What the `set` of an option works on: the [`Config`] being built and where the URL is read
/// from when not given.
pub(crate) struct Building<'a> {
    pub config: Config,
    pub url_env: &'a str,
}

/// How a Python value becomes an option's Rust type (the argument named in a refusal): one
/// implementation per type an option can have.
pub(crate) trait OptionValue: Sized {
    fn convert(obj: &Bound<'_, PyAny>, name: &str) -> PyResult<Self>;
}

/// `OptionValue` for a type, by one of the argument conversions of [`args`].
macro_rules! option_values {
    ($($ty:ty => $convert:path),* $(,)?) => {$(
        impl OptionValue for $ty {
            fn convert(obj: &Bound<'_, PyAny>, name: &str) -> PyResult<Self> {
                $convert(obj, name)
            }
        }
    )*};
}

option_values! {
    f64 => args::number,
    i64 => args::integer,
    bool => args::flag,
    String => args::text,
    PathBuf => args::path,
}

impl<T: OptionValue> OptionValue for Option<T> {
    fn convert(obj: &Bound<'_, PyAny>, name: &str) -> PyResult<Self> {
        if obj.is_none() {
            return Ok(None);
        }
        T::convert(obj, name).map(Some)
    }
}

/// Refuse a value outside its option's range, naming the option and what is allowed.
fn in_range<T: Shown + Clone>(name: &str, range: &str, ok: fn(T) -> bool, value: &T) -> Result<()> {
    if ok(value.clone()) {
        return Ok(());
    }
    Err(Error::invalid(format!(
        "{name}: must be {range}, got {}",
        value.shown()
    )))
}

/// A value in a range message ("got 0"): `None` as Python writes it.
pub(crate) trait Shown {
    fn shown(&self) -> String;
}

impl Shown for f64 {
    fn shown(&self) -> String {
        self.to_string()
    }
}

impl Shown for i64 {
    fn shown(&self) -> String {
        self.to_string()
    }
}

impl<T: Shown> Shown for Option<T> {
    fn shown(&self) -> String {
        self.as_ref().map_or_else(|| "None".into(), Shown::shown)
    }
}

/// Everything made from the declaration: the converters, `ClientArgs` (the values as given,
/// their defaults, the checks and the [`Config`]), the options as data and the
/// `client_constructor!` macro. (`$d` is a `$`, for the metavariables of that macro.)
macro_rules! client_items {
    ({ $d:tt }
     positional { $(
        $(#[doc = $pdoc:literal])*
        $p:ident: $pty:ty = $pd:tt, py $ppy:expr, cli $pcli:literal $pmeta:literal,
            env [$($penv:expr),*], set |$psb:ident, $psv:ident| $pset:block;
     )* }
     keyword { $(
        $(#[doc = $kdoc:literal])*
        $k:ident: $kty:ty = $kd:tt, py $kpy:expr, cli $kcli:literal $kmeta:literal,
            env [$($kenv:expr),*], $(range $range:literal if $ok:expr,)?
            set |$ksb:ident, $ksv:ident| $kset:block;
     )* }
     media_config { $(
        $(#[doc = $cdoc:literal])*
        $c:ident: $cty:ty = $cd:tt, py $cpy:literal, cli $ccli:literal $cmeta:literal,
            env [$($cenv:expr),*], $(range $crange:literal if $cok:expr,)?
            set |$csb:ident, $csv:ident| $cset:block;
     )* }
     media { $(
        $(#[doc = $mdoc:literal])*
        $m:ident: $mty:ty = $md:tt, py $mpy:expr, cli $mcli:literal $mmeta:literal,
            env [$($menv:expr),*];
     )* }
    ) => {
        /// One converter per option, for `#[pyo3(from_py_with = ...)]`: a refusal names the
        /// option.
        pub(crate) mod convert {
            use super::*;
            $(
                pub(crate) fn $p(obj: &Bound<'_, PyAny>) -> PyResult<$pty> {
                    OptionValue::convert(obj, stringify!($p))
                }
            )*
            $(
                pub(crate) fn $k(obj: &Bound<'_, PyAny>) -> PyResult<$kty> {
                    OptionValue::convert(obj, stringify!($k))
                }
            )*
            $(
                pub(crate) fn $c(obj: &Bound<'_, PyAny>) -> PyResult<$cty> {
                    OptionValue::convert(obj, stringify!($c))
                }
            )*
        }

        /// The options as given to a constructor (the `media_config` ones by `MediaPlayer`
        /// only: elsewhere they keep their defaults).
        pub(crate) struct ClientArgs {
            $(pub $p: $pty,)*
            $(pub $k: $kty,)*
            $(pub $c: $cty,)*
        }

        impl Default for ClientArgs {
            /// The declared defaults (a default is also a Rust expression of the option's type).
            fn default() -> Self {
                ClientArgs {
                    $($p: $pd,)*
                    $($k: $kd,)*
                    $($c: $cd,)*
                }
            }
        }

        impl ClientArgs {
            /// Check each value against its range and build the [`Config`], in the order of
            /// the declaration (the URL first: the pin's check reads it). Also makes the next
            /// log records follow Python's current logging configuration.
            pub(crate) fn config(self, url_env: &str) -> Result<Config> {
                crate::python::rt::refresh_logging();
                let mut b = Building { config: Config::new(String::new()), url_env };
                $(
                    let set = |$psb: &mut Building, $psv: $pty| -> Result<()> {
                        $pset;
                        Ok(())
                    };
                    set(&mut b, self.$p)?;
                )*
                $(
                    $(in_range(stringify!($k), $range, $ok, &self.$k)?;)?
                    let set = |$ksb: &mut Building, $ksv: $kty| -> Result<()> {
                        $kset;
                        Ok(())
                    };
                    set(&mut b, self.$k)?;
                )*
                $(
                    $(in_range(stringify!($c), $crange, $cok, &self.$c)?;)?
                    let set = |$csb: &mut Building, $csv: $cty| -> Result<()> { $cset; Ok(()) };
                    set(&mut b, self.$c)?;
                )*
                Ok(b.config)
            }
        }

        /// The options as data, in declaration order.
        fn declared() -> Vec<Declared> {
            const BOTH: &[&str] = &["MediaPlayer", "Scoreboard"];
            vec![
                $(Declared {
                    name: stringify!($p),
                    python_type: $ppy,
                    default: python_literal(stringify!($pd)),
                    positional: true, classes: BOTH, cli: $pcli, metavar: $pmeta,
                    env: vec![$($penv),*], range: None, doc: concat!($($pdoc, "\n"),*),
                },)*
                $(Declared {
                    name: stringify!($k),
                    python_type: $kpy,
                    default: python_literal(stringify!($kd)),
                    positional: false, classes: BOTH, cli: $kcli, metavar: $kmeta,
                    env: vec![$($kenv),*], range: None $(.or(Some($range)))?,
                    doc: concat!($($kdoc, "\n"),*),
                },)*
                $(Declared {
                    name: stringify!($c),
                    python_type: $cpy,
                    default: python_literal(stringify!($cd)),
                    positional: false, classes: &["MediaPlayer"], cli: $ccli, metavar: $cmeta,
                    env: vec![$($cenv),*], range: None $(.or(Some($crange)))?,
                    doc: concat!($($cdoc, "\n"),*),
                },)*
                $(Declared {
                    name: stringify!($m),
                    python_type: $mpy,
                    default: python_literal(stringify!($md)),
                    positional: false, classes: &["MediaPlayer"], cli: $mcli, metavar: $mmeta,
                    env: vec![$($menv),*], range: None, doc: concat!($($mdoc, "\n"),*),
                },)*
            ]
        }

        /// The `#[new]` of a client class, its parameters from the declaration:
        /// `client_constructor!(Class, ENV_URL, |config| body)`, or for `MediaPlayer`
        /// `client_constructor!(Class, ENV_URL, media |config, mirrors| body)`. `body` returns
        /// the class's `PyClassInitializer`.
        macro_rules! client_constructor {
            ($d cls:ident, $d env:expr, |$d config:ident| $d body:block) => {
                #[pymethods]
                impl $d cls {
                    #[new]
                    #[pyo3(signature = ($($p = $pd,)* *, $($k = $kd),*))]
                    #[allow(clippy::too_many_arguments, clippy::needless_update)]
                    fn new(
                        $(#[pyo3(from_py_with = crate::python::options::convert::$p)] $p: $pty,)*
                        $(#[pyo3(from_py_with = crate::python::options::convert::$k)] $k: $kty,)*
                    ) -> PyResult<PyClassInitializer<Self>> {
                        let $d config = crate::python::options::ClientArgs {
                            $($p,)* $($k,)* ..Default::default()
                        }
                        .config($d env)?;
                        $d body
                    }
                }
            };
            (
                $d cls:ident, $d env:expr, media |$d config:ident, $d mirrors:ident| $d body:block
            ) => {
                #[pymethods]
                impl $d cls {
                    #[new]
                    #[pyo3(signature = ($($p = $pd,)* *, $($k = $kd,)* $($c = $cd,)* $($m = $md),*))]
                    #[allow(clippy::too_many_arguments)]
                    fn new(
                        $(#[pyo3(from_py_with = crate::python::options::convert::$p)] $p: $pty,)*
                        $(#[pyo3(from_py_with = crate::python::options::convert::$k)] $k: $kty,)*
                        $(#[pyo3(from_py_with = crate::python::options::convert::$c)] $c: $cty,)*
                        $($m: $mty,)*
                    ) -> PyResult<PyClassInitializer<Self>> {
                        let $d config = crate::python::options::ClientArgs {
                            $($p,)* $($k,)* $($c,)*
                        }
                        .config($d env)?;
                        $(let $d mirrors = $m;)*
                        $d body
                    }
                }
            };
        }
    };
}

client_options!([client_items] { $ });

/// The shared client options as given from Python (see [`super::options`], where they are
/// declared and checked), for classes that take them one by one (`Feed`).
/// Options the feed does not take keep their declared defaults (`..ClientArgs::default()`).
#[allow(clippy::too_many_arguments, clippy::needless_update)]
pub(crate) fn client_config(
    url: Option<String>,
    api_key: Option<String>,
    env_var: &str,
    timeout: f64,
    verify: bool,
    ca_cert: Option<PathBuf>,
    tls_fingerprint: Option<String>,
    retries: i64,
    retry_commands: bool,
    max_body: Option<i64>,
) -> Result<Config> {
    ClientArgs {
        url,
        api_key,
        timeout,
        verify,
        ca_cert,
        tls_fingerprint,
        retries,
        retry_commands,
        max_body,
        ..ClientArgs::default()
    }
    .config(env_var)
}

/// One option as data, for `_client_options()`.
struct Declared {
    name: &'static str,
    python_type: &'static str,
    default: &'static str,
    positional: bool,
    classes: &'static [&'static str],
    cli: &'static str,
    metavar: &'static str,
    env: Vec<&'static str>,
    range: Option<&'static str>,
    doc: &'static str,
}

/// `5.0`, `true`, `None` as Python writes them.
fn python_literal(token: &'static str) -> &'static str {
    match token {
        "true" => "True",
        "false" => "False",
        other => other,
    }
}

/// The client options as data, in signature order: one dict per option (`name`, `type`,
/// `default` as Python writes it, `positional`, `classes`, `cli`, `metavar`, `env` (a list),
/// `range` (text or None), `doc`), for the stub generator, the docs and the command line.
#[pyfunction]
pub(crate) fn _client_options(py: Python<'_>) -> PyResult<Py<PyList>> {
    let all = declared();
    let out = PyList::empty(py);
    for d in all {
        let item = PyDict::new(py);
        item.set_item("name", d.name)?;
        item.set_item("type", d.python_type)?;
        item.set_item("default", d.default)?;
        item.set_item("positional", d.positional)?;
        item.set_item("classes", d.classes.to_vec())?;
        item.set_item("cli", d.cli)?;
        item.set_item("metavar", d.metavar)?;
        item.set_item("env", d.env)?;
        item.set_item("range", d.range)?;
        let doc: Vec<&str> = d.doc.lines().map(str::trim).collect();
        item.set_item("doc", doc.join(" ").trim())?;
        out.append(item)?;
    }
    Ok(out.unbind())
}

/// The environment variable the URL is read from, by class (for the command line, which
/// resolves nothing itself).
#[pyfunction]
pub(crate) fn _url_env(app: &str) -> PyResult<&'static str> {
    match app {
        "media" => Ok(ENV_MEDIA_URL),
        "scoreboard" => Ok(ENV_SCOREBOARD_URL),
        other => Err(pyo3::exceptions::PyValueError::new_err(format!(
            "app: expected \"media\" or \"scoreboard\", got {other:?}"
        ))),
    }
}

/// `text` with the API key `key` replaced by `***` as showctl masks it everywhere it writes
/// (raw, JSON-escaped or percent-encoded; in JSON only within strings; a key shorter than 8
/// characters only where it stands alone). For the command line's output.
#[pyfunction]
pub(crate) fn _scrub(text: &str, key: &str) -> String {
    crate::scrub::scrub_str(text, key.as_bytes()).into_owned()
}
