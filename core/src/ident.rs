//! The identifier rule of the media API: a path parameter is an index, a name or a UUID.
//! Validation happens here, before any request, and the value becomes exactly one encoded
//! path segment.

use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};

use crate::error::{Error, Result};

/// Everything but RFC 3986 unreserved characters is encoded, so `/ ? # % \r \n` and spaces
/// can never leave the segment.
const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// Longest name or UUID sent, in characters: far above any name the application shows, far
/// below what an HTTP request line carries (a longer one is refused before anything is sent).
pub const MAX_NAME: usize = 1024;

/// Longest path or query parameter accepted by `request()`, in bytes once encoded.
pub const MAX_RAW: usize = 8192;

/// An identifier as given by the caller.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Ident {
    /// A numeric index (an integer given by the caller).
    Index(i64),
    /// A name, a UUID, or a string of digits (which the application reads as an index).
    Name(String),
}

/// What the identifier addresses; decides the smallest allowed index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Layer,
    Cue,
    /// Playlists allow -1, the video input playlist.
    Playlist,
}

impl Kind {
    fn min_index(self) -> i64 {
        match self {
            Kind::Playlist => -1,
            Kind::Layer | Kind::Cue => 0,
        }
    }
    fn noun(self) -> &'static str {
        match self {
            Kind::Layer => "layer",
            Kind::Cue => "cue",
            Kind::Playlist => "playlist",
        }
    }
}

impl From<i64> for Ident {
    fn from(v: i64) -> Self {
        Ident::Index(v)
    }
}
impl From<&str> for Ident {
    fn from(v: &str) -> Self {
        Ident::Name(v.to_string())
    }
}
impl From<String> for Ident {
    fn from(v: String) -> Self {
        Ident::Name(v)
    }
}

impl std::fmt::Display for Ident {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Ident::Index(i) => write!(f, "{i}"),
            Ident::Name(n) => write!(f, "{n:?}"),
        }
    }
}

impl Ident {
    /// Validate for `kind` and return the encoded path segment. `arg` names the argument in
    /// the error message.
    pub fn segment(&self, kind: Kind, arg: &str) -> Result<String> {
        match self {
            Ident::Index(i) => {
                if *i < kind.min_index() {
                    let allowed = if kind == Kind::Playlist {
                        "-1 (the video input playlist) or above"
                    } else {
                        "0 or above"
                    };
                    return Err(Error::invalid(format!(
                        "{arg}: a {} index must be {allowed}, got {i} \
                         (negative indices crash the application, so none is sent)",
                        kind.noun()
                    )));
                }
                Ok(i.to_string())
            }
            Ident::Name(name) => {
                if name.is_empty() {
                    return Err(Error::invalid(format!(
                        "{arg}: a {} name or UUID must not be empty",
                        kind.noun()
                    )));
                }
                let chars = name.chars().count();
                if chars > MAX_NAME {
                    return Err(Error::invalid(format!(
                        "{arg}: a {} name or UUID is at most {MAX_NAME} characters, got {chars} \
                         (starting {:?})",
                        kind.noun(),
                        name.chars().take(24).collect::<String>()
                    )));
                }
                if name == "." || name == ".." {
                    return Err(Error::invalid(format!(
                        "{arg}: {name:?} cannot be sent as a {} name (a URL reads it as a \
                         relative path); address it by index or UUID",
                        kind.noun()
                    )));
                }
                if let Some(digits) = name.strip_prefix('-') {
                    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
                        // "-3" would be read as an index by the application.
                        let v: i64 = name.parse().unwrap_or(i64::MIN);
                        return Ident::Index(v).segment(kind, arg);
                    }
                }
                Ok(encode_segment(name))
            }
        }
    }
}

/// Percent-encode one path segment.
pub fn encode_segment(s: &str) -> String {
    utf8_percent_encode(s, SEGMENT).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_bounds() {
        assert_eq!(Ident::Index(0).segment(Kind::Layer, "id").unwrap(), "0");
        assert!(Ident::Index(-1).segment(Kind::Layer, "id").is_err());
        assert!(Ident::Index(-1).segment(Kind::Cue, "cue_id").is_err());
        assert_eq!(
            Ident::Index(-1).segment(Kind::Playlist, "id").unwrap(),
            "-1"
        );
        let err = Ident::Index(-2)
            .segment(Kind::Playlist, "playlist_id")
            .unwrap_err();
        assert!(err.to_string().starts_with("playlist_id:"), "{err}");
    }

    #[test]
    fn names_are_one_segment() {
        let seg = Ident::from("Lower Third/Left")
            .segment(Kind::Layer, "id")
            .unwrap();
        assert_eq!(seg, "Lower%20Third%2FLeft");
        let seg = Ident::from("a?b#c%d\r\n..")
            .segment(Kind::Layer, "id")
            .unwrap();
        assert!(!seg.contains(['/', '?', '#', '\r', '\n']));
        assert_eq!(seg, "a%3Fb%23c%25d%0D%0A..");
        assert_eq!(
            Ident::from("Écran").segment(Kind::Layer, "id").unwrap(),
            "%C3%89cran"
        );
        assert_eq!(Ident::from("12").segment(Kind::Layer, "id").unwrap(), "12");
    }

    #[test]
    fn a_huge_name_is_refused_naming_the_argument_and_the_limit() {
        let name = "N".repeat(70_000);
        let e = Ident::from(name.as_str())
            .segment(Kind::Layer, "layer_id")
            .unwrap_err();
        let msg = e.to_string();
        assert!(matches!(e, Error::InvalidInput(_)));
        assert!(
            msg.starts_with("layer_id: a layer name or UUID is at most 1024 characters, got 70000"),
            "{msg}"
        );
        assert!(msg.len() < 200, "the name is not echoed whole: {msg}");
        let ok = "é".repeat(MAX_NAME);
        assert!(Ident::from(ok.as_str()).segment(Kind::Cue, "c").is_ok());
    }

    #[test]
    fn refusals() {
        assert!(Ident::from("").segment(Kind::Layer, "id").is_err());
        assert!(Ident::from("..").segment(Kind::Layer, "id").is_err());
        assert!(Ident::from("-3").segment(Kind::Layer, "id").is_err());
        assert_eq!(
            Ident::from("-1").segment(Kind::Playlist, "id").unwrap(),
            "-1"
        );
    }
}
