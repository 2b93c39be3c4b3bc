//! A venue: any number of named applications (media players and scoreboards) that one feed,
//! one probe and one status view serve together. Read from a TOML file (`venue.toml`) or from
//! the same tables given as data (the caller's mappings), checked in one place, with errors that
//! name the file, the source and the field.
//!
//! ```toml
//! [defaults]            # optional, applies to every source
//! timeout = 5.0
//! interval = 0.5
//!
//! [sources.court1]
//! kind = "scoreboard"
//! url = "http://10.0.0.21:8080"
//! api_key_env = "COURT1_KEY"   # the key is read from this environment variable
//!
//! [sources.main]
//! kind = "media"
//! url = "https://10.0.0.10:1025"
//! tls_fingerprint = "sha256:…"
//! mirrors = ["http://10.0.0.11:1025"]
//! ```

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Map, Value};

use crate::error::{Error, Result};
use crate::tls::Fingerprint;
use crate::transport::{normalize_base, Config};

pub mod probe;

/// Longest source name (it appears in URLs and file names).
pub const MAX_NAME: usize = 64;
/// Most sources one venue may name.
pub const MAX_SOURCES: usize = 256;
/// Shortest poll interval a source may ask for (seconds).
pub const MIN_INTERVAL: f64 = 0.05;
/// Default poll interval (seconds).
pub const DEFAULT_INTERVAL: f64 = 0.5;
/// Largest venue file read (bytes).
pub const MAX_FILE: u64 = 1024 * 1024;

/// What a source is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    Media,
    Scoreboard,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Media => "media",
            Kind::Scoreboard => "scoreboard",
        }
    }
}

/// A mirror of a media source: its URL, its key (`None`: the source's) and its own pin.
#[derive(Debug, Clone)]
pub struct MirrorSpec {
    pub url: String,
    pub api_key: Option<String>,
    pub tls_fingerprint: Option<Fingerprint>,
}

/// One named application of the venue.
#[derive(Debug, Clone)]
pub struct Source {
    pub name: String,
    pub kind: Kind,
    /// How to reach it (URL, key, TLS, timeout, retries).
    pub config: Config,
    /// Time between polls (feed, status view).
    pub interval: Duration,
    /// Media sources only: targets that receive every command.
    pub mirrors: Vec<MirrorSpec>,
    /// The workspace a simulator standing in for this source starts from (`showctl simulate
    /// --venue`, the `showctl_venue` fixture); clients ignore it.
    pub workspace: Option<PathBuf>,
}

/// Every source of a venue, in the order given.
#[derive(Debug, Clone)]
pub struct Venue {
    /// Where it came from (the file's path, or `sources` for data): the prefix of every error.
    pub origin: String,
    pub sources: Vec<Source>,
}

impl Venue {
    /// The sources of one kind, in order.
    pub fn of_kind(&self, kind: Kind) -> impl Iterator<Item = &Source> {
        self.sources.iter().filter(move |s| s.kind == kind)
    }

    /// The source named `name`.
    pub fn get(&self, name: &str) -> Option<&Source> {
        self.sources.iter().find(|s| s.name == name)
    }
}

/// Reads the environment (a function, so tests need not change the process's environment).
pub type Env<'a> = &'a dyn Fn(&str) -> Option<String>;

/// The process's environment.
pub fn process_env(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

/// Read a venue file. Relative `ca_cert` paths are taken from the file's folder.
pub fn load(path: &Path, env: Env<'_>) -> Result<Venue> {
    let origin = path.display().to_string();
    let meta = std::fs::metadata(path)
        .map_err(|e| Error::invalid(format!("{origin}: cannot read the venue file: {e}")))?;
    if meta.len() > MAX_FILE {
        return Err(Error::invalid(format!(
            "{origin}: the venue file has {} bytes; at most {MAX_FILE} are read",
            meta.len()
        )));
    }
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::invalid(format!("{origin}: cannot read the venue file: {e}")))?;
    parse_toml(&text, &origin, path.parent(), env)
}

/// The venue from exactly one of a file (`file`) or data (`sources`, the file's `[sources.*]`
/// tables, with `defaults`, its `[defaults]` table), the data made JSON by `json` (which names
/// the argument in a refusal) only when used. `interval`: the default time between polls of
/// every source that sets none, put in `defaults` (refused when `defaults` sets one too: one
/// of them would be ignored).
pub fn of_file_or_data<S, E: From<Error>>(
    file: Option<PathBuf>,
    sources: Option<S>,
    defaults: Option<S>,
    interval: Option<f64>,
    json: impl Fn(S, &str) -> std::result::Result<Value, E>,
) -> std::result::Result<Venue, E> {
    match (file, sources) {
        (Some(path), None) => {
            if defaults.is_some() {
                return Err(Error::invalid(
                    "defaults: given with a venue file; put them in its [defaults] table",
                )
                .into());
            }
            Ok(load(&path, &process_env)?)
        }
        (None, Some(sources)) => {
            let mut top = Map::new();
            top.insert("sources".into(), json(sources, "sources")?);
            let mut defaults = defaults.map(|d| json(d, "defaults")).transpose()?;
            if let Some(every) = interval {
                let d = defaults.get_or_insert_with(|| Value::Object(Map::new()));
                if let Value::Object(d) = d {
                    if d.contains_key("interval") {
                        return Err(Error::invalid(
                            "interval: given both as interval= and in defaults=: keep one",
                        )
                        .into());
                    }
                    d.insert("interval".into(), every.into());
                }
            }
            if let Some(d) = defaults {
                top.insert("defaults".into(), d);
            }
            Ok(from_value(
                &Value::Object(top),
                "sources",
                None,
                &process_env,
            )?)
        }
        (Some(_), Some(_)) => Err(Error::invalid(
            "venue and sources: give one of them (a venue file or its sources as dicts), not both",
        )
        .into()),
        (None, None) => Err(Error::invalid(
            "venue: give a venue file (venue=\"venue.toml\") or sources={...}",
        )
        .into()),
    }
}

/// Read a venue from TOML text.
pub fn parse_toml(text: &str, origin: &str, base: Option<&Path>, env: Env<'_>) -> Result<Venue> {
    from_value(&toml_value(text, origin)?, origin, base, env)
}

/// TOML text as JSON; a refusal says where (`origin:line:col`).
pub fn toml_value(text: &str, origin: &str) -> Result<Value> {
    toml::from_str(text).map_err(|e| {
        let msg = e.message().trim_end();
        match e.span().map(|s| line_col(text, s.start)) {
            Some((line, col)) => {
                Error::invalid(format!("{origin}:{line}:{col}: not valid TOML: {msg}"))
            }
            None => Error::invalid(format!("{origin}: not valid TOML: {msg}")),
        }
    })
}

/// Read a venue from data shaped like the file (`{"sources": {...}, "defaults": {...}}`).
pub fn from_value(value: &Value, origin: &str, base: Option<&Path>, env: Env<'_>) -> Result<Venue> {
    let at = Place {
        origin,
        path: String::new(),
    };
    let top = at.table(value)?;
    at.only(top, &["sources", "defaults"])?;
    let defaults = match top.get("defaults") {
        Some(d) => {
            let at = at.field("defaults");
            let table = at.table(d)?;
            at.only(table, DEFAULT_FIELDS)?;
            table.clone()
        }
        None => Map::new(),
    };
    let at_sources = at.field("sources");
    let sources = match top.get("sources") {
        Some(s) => at_sources.table(s)?,
        None => return Err(at.fail("no [sources] table: name at least one source")),
    };
    if sources.is_empty() {
        return Err(at_sources.fail("is empty: name at least one source"));
    }
    if sources.len() > MAX_SOURCES {
        return Err(at_sources.fail(&format!(
            "names {} sources; at most {MAX_SOURCES}",
            sources.len()
        )));
    }
    let out = sources
        .iter()
        .map(|(name, table)| source(&at_sources.field(name), name, table, &defaults, base, env))
        .collect::<Result<Vec<_>>>()?;
    Ok(Venue {
        origin: origin.to_string(),
        sources: out,
    })
}

/// Wraps a single source's table (the `media=` / `scoreboard=` form of a one-source feed):
/// `name` and `kind` are given by the caller.
pub fn one_source(
    name: &str,
    kind: Kind,
    table: &Value,
    origin: &str,
    env: Env<'_>,
) -> Result<Source> {
    let at = Place {
        origin,
        path: name.to_string(),
    };
    let mut table = at.table(table)?.clone();
    table.insert("kind".into(), Value::String(kind.as_str().into()));
    source(&at, name, &Value::Object(table), &Map::new(), None, env)
}

const DEFAULT_FIELDS: &[&str] = &[
    "timeout",
    "interval",
    "retries",
    "max_connections",
    "verify",
    "api_key_env",
];
const SOURCE_FIELDS: &[&str] = &[
    "kind",
    "url",
    "api_key",
    "api_key_env",
    "tls_fingerprint",
    "ca_cert",
    "verify",
    "timeout",
    "interval",
    "retries",
    "max_connections",
    "mirrors",
    "workspace",
];
const MIRROR_FIELDS: &[&str] = &["url", "api_key", "api_key_env", "tls_fingerprint"];

fn source(
    at: &Place<'_>,
    name: &str,
    table: &Value,
    defaults: &Map<String, Value>,
    base: Option<&Path>,
    env: Env<'_>,
) -> Result<Source> {
    name_at(at, name)?;
    let own = at.table(table)?;
    at.only(own, SOURCE_FIELDS)?;
    // A field the source sets wins over [defaults]; errors name where the value was written.
    let get = |field: &str| -> Option<(Place<'_>, &Value)> {
        match own.get(field) {
            Some(v) => Some((at.field(field), v)),
            None => defaults.get(field).map(|v| {
                (
                    Place {
                        origin: at.origin,
                        path: format!("defaults.{field}"),
                    },
                    v,
                )
            }),
        }
    };
    let kind = match own.get("kind") {
        None => return Err(at.fail("has no kind: add kind = \"media\" or kind = \"scoreboard\"")),
        Some(v) => match at.field("kind").text(v)?.as_str() {
            "media" => Kind::Media,
            "scoreboard" => Kind::Scoreboard,
            other => {
                return Err(at.field("kind").fail(&format!(
                    "expected \"media\" or \"scoreboard\", got {other:?}"
                )))
            }
        },
    };
    let url = match own.get("url") {
        None => return Err(at.fail("has no url: add url = \"http://host:port\"")),
        Some(v) => {
            let at = at.field("url");
            let url = at.text(v)?;
            normalize_base(&url).map_err(|e| at.fail(&strip_arg(&e, "url")))?;
            url
        }
    };
    let mut config = Config::new(url);
    config.api_key = key(at, own, get("api_key_env"), env)?;
    // Each range is checked by the option's setter (the constructors' check): the message
    // is the one `MediaPlayer(...)` gives, after the place in the file.
    if let Some((at, v)) = get("timeout") {
        at.setter(config.set_timeout(at.number(v)?))?;
    }
    if let Some((at, v)) = get("retries") {
        at.setter(config.set_retries(at.whole(v)?))?;
    }
    if let Some((at, v)) = get("max_connections") {
        at.setter(config.set_max_connections(at.whole(v)?))?;
    }
    if let Some((at, v)) = get("verify") {
        config.verify = v
            .as_bool()
            .ok_or_else(|| at.fail(&format!("must be true or false, got {v}")))?;
    }
    if let Some(v) = own.get("tls_fingerprint") {
        config.tls_fingerprint = Some(pin(&at.field("tls_fingerprint"), v)?);
    }
    if let Some(v) = own.get("ca_cert") {
        let at = at.field("ca_cert");
        config.ca_cert = Some(relative_to(base, at.text(v)?));
    }
    let interval = match get("interval") {
        Some((at, v)) => {
            let s = at.number(v)?;
            if !(MIN_INTERVAL..=3600.0).contains(&s) {
                return Err(at.fail(&format!(
                    "must be a number of seconds from {MIN_INTERVAL} to 3600, got {s}"
                )));
            }
            Duration::from_secs_f64(s)
        }
        None => Duration::from_secs_f64(DEFAULT_INTERVAL),
    };
    let workspace = match own.get("workspace") {
        Some(v) => Some(relative_to(base, at.field("workspace").text(v)?)),
        None => None,
    };
    let mirrors = match own.get("mirrors") {
        None => Vec::new(),
        Some(_) if kind == Kind::Scoreboard => {
            return Err(at
                .field("mirrors")
                .fail("only a media source has mirrors (commands go to media players)"))
        }
        Some(v) => {
            let at = at.field("mirrors");
            let list = v
                .as_array()
                .ok_or_else(|| at.fail(&format!("must be a list, got {}", kind_of(v))))?;
            list.iter()
                .enumerate()
                .map(|(i, m)| mirror(&at.index(i), m, env))
                .collect::<Result<Vec<_>>>()?
        }
    };
    Ok(Source {
        name: name.to_string(),
        kind,
        config,
        interval,
        mirrors,
        workspace,
    })
}

/// A path as written in the file: relative ones are taken from the file's folder.
fn relative_to(base: Option<&Path>, text: String) -> PathBuf {
    let path = PathBuf::from(text);
    match base {
        Some(dir) if path.is_relative() => dir.join(path),
        _ => path,
    }
}

fn mirror(at: &Place<'_>, value: &Value, env: Env<'_>) -> Result<MirrorSpec> {
    if let Value::String(url) = value {
        normalize_base(url).map_err(|e| at.fail(&strip_arg(&e, "url")))?;
        return Ok(MirrorSpec {
            url: url.clone(),
            api_key: None,
            tls_fingerprint: None,
        });
    }
    let table = at.table(value)?;
    at.only(table, MIRROR_FIELDS)?;
    let url = match table.get("url") {
        Some(v) => at.field("url").text(v)?,
        None => return Err(at.fail("has no url")),
    };
    normalize_base(&url).map_err(|e| at.field("url").fail(&strip_arg(&e, "url")))?;
    let env_field = table
        .get("api_key_env")
        .map(|v| (at.field("api_key_env"), v));
    Ok(MirrorSpec {
        url,
        api_key: key(at, table, env_field, env)?,
        tls_fingerprint: match table.get("tls_fingerprint") {
            Some(v) => Some(pin(&at.field("tls_fingerprint"), v)?),
            None => None,
        },
    })
}

/// The key: `api_key` as written, or read from the variable `api_key_env` names (a variable
/// that is named but not set is an error, so a committed venue file never silently runs
/// without its key).
fn key(
    at: &Place<'_>,
    own: &Map<String, Value>,
    env_field: Option<(Place<'_>, &Value)>,
    env: Env<'_>,
) -> Result<Option<String>> {
    if let Some(v) = own.get("api_key") {
        if own.contains_key("api_key_env") {
            return Err(at.fail("sets both api_key and api_key_env: keep one"));
        }
        let at = at.field("api_key");
        if v.is_null() {
            return Ok(None);
        }
        let text = at.text(v)?;
        if text.chars().any(|c| c.is_control()) {
            return Err(at.fail("contains CR, LF or another control character"));
        }
        return Ok(Some(text));
    }
    let Some((at, v)) = env_field else {
        return Ok(None);
    };
    let var = at.text(v)?;
    if var.is_empty() || var.contains('=') || var.contains('\0') {
        return Err(at.fail(&format!("{var:?} is not an environment variable name")));
    }
    match env(&var) {
        Some(k) if !k.is_empty() => {
            if k.chars().any(|c| c.is_control()) {
                return Err(at.fail(&format!(
                    "the variable {var} contains CR, LF or another control character"
                )));
            }
            Ok(Some(k))
        }
        _ => Err(at.fail(&format!("names the variable {var}, which is not set"))),
    }
}

fn pin(at: &Place<'_>, v: &Value) -> Result<Fingerprint> {
    Fingerprint::parse(&at.text(v)?).map_err(|e| at.fail(&strip_arg(&e, "tls_fingerprint")))
}

fn name_at(at: &Place<'_>, name: &str) -> Result<()> {
    check_name(name).map_err(|m| at.fail(&m))
}

/// A source's name is usable: it appears in URLs and file names. The error says what is
/// wrong with it.
pub fn check_name(name: &str) -> std::result::Result<(), String> {
    let ok = !name.is_empty()
        && name.len() <= MAX_NAME
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if ok {
        Ok(())
    } else {
        Err(format!(
            "{name:?} is not a usable source name: 1 to {MAX_NAME} letters, digits, '-' or '_' \
             (it appears in URLs and file names)"
        ))
    }
}

/// The message of a core error without its own `arg: ` prefix (the place names the field).
fn strip_arg(e: &Error, arg: &str) -> String {
    let text = match e {
        Error::InvalidInput(m) => m.clone(),
        other => other.to_string(),
    };
    text.strip_prefix(&format!("{arg}: "))
        .map(str::to_string)
        .unwrap_or(text)
}

fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "nothing",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a table",
    }
}

/// Where a value sits: the origin and its dotted path, the prefix of every error.
struct Place<'a> {
    origin: &'a str,
    path: String,
}

impl<'a> Place<'a> {
    fn field(&self, name: &str) -> Place<'a> {
        let path = if self.path.is_empty() {
            name.to_string()
        } else {
            format!("{}.{name}", self.path)
        };
        Place {
            origin: self.origin,
            path,
        }
    }

    fn index(&self, i: usize) -> Place<'a> {
        Place {
            origin: self.origin,
            path: format!("{}[{i}]", self.path),
        }
    }

    fn fail(&self, msg: &str) -> Error {
        if self.path.is_empty() {
            Error::invalid(format!("{}: {msg}", self.origin))
        } else {
            Error::invalid(format!("{}: {}: {msg}", self.origin, self.path))
        }
    }

    fn table<'v>(&self, v: &'v Value) -> Result<&'v Map<String, Value>> {
        v.as_object()
            .ok_or_else(|| self.fail(&format!("must be a table, got {}", kind_of(v))))
    }

    fn text(&self, v: &Value) -> Result<String> {
        v.as_str()
            .map(str::to_string)
            .ok_or_else(|| self.fail(&format!("must be a string, got {}", kind_of(v))))
    }

    /// An option's setter's result, a refusal put at this place (without the option's name,
    /// which the place ends with).
    fn setter(&self, set: Result<()>) -> Result<()> {
        let field = self.path.rsplit('.').next().unwrap_or_default();
        set.map_err(|e| self.fail(&strip_arg(&e, field)))
    }

    fn whole(&self, v: &Value) -> Result<i64> {
        v.as_i64()
            .ok_or_else(|| self.fail(&format!("must be a whole number, got {v}")))
    }

    fn number(&self, v: &Value) -> Result<f64> {
        v.as_f64()
            .filter(|n| n.is_finite())
            .ok_or_else(|| self.fail(&format!("must be a number, got {}", kind_of(v))))
    }

    /// Refuse a key not in `allowed`, suggesting the closest allowed one.
    fn only(&self, table: &Map<String, Value>, allowed: &[&str]) -> Result<()> {
        for key in table.keys() {
            if !allowed.contains(&key.as_str()) {
                let hint = closest(key, allowed)
                    .map(|k| format!("; did you mean {k:?}?"))
                    .unwrap_or_else(|| format!(" (expected one of: {})", allowed.join(", ")));
                return Err(self.field(key).fail(&format!("unknown field{hint}")));
            }
        }
        Ok(())
    }
}

/// The allowed name nearest to `word` (edit distance at most 2), for "did you mean".
fn closest<'a>(word: &str, allowed: &[&'a str]) -> Option<&'a str> {
    allowed
        .iter()
        .map(|a| (strsim::levenshtein(word, a), *a))
        .filter(|(d, _)| *d <= 2)
        .min_by_key(|(d, _)| *d)
        .map(|(_, a)| a)
}

#[cfg(test)]
mod tests;
