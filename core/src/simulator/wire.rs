//! Numbers as the media application writes and keeps them (field facts): values set through the
//! API are stored as 32-bit floats ([`single`]), and every double is printed the way the
//! platform's JSON writer prints it, with 17 significant digits and no fraction for a whole
//! number (`1`, `0`, `0.0099999997764825821`), which is C's `%.17g` ([`FieldNumbers`]).

use std::io;

use axum::http::{header, HeaderValue};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde_json::ser::Formatter;
use serde_json::Value;

/// A value as the application keeps it: rounded to single precision.
pub fn single(x: f64) -> f64 {
    f64::from(x as f32)
}

/// The variables of an effect or a transition as the application keeps them: every
/// fractional number of a `Float` variable's base (`value`, `min_value`, `max_value`) rounded
/// to single precision, as the field's dumps show (`20.049999237060547`,
/// `0.05000000074505806`). Whole numbers, other types and numbers too large for a 32-bit float
/// are left as they are.
pub fn single_variables(variables: &mut [Value]) {
    for v in variables {
        if v.get("type").and_then(Value::as_str) != Some("Float") {
            continue;
        }
        let Some(Value::Object(base)) = v.get_mut("base") else {
            continue;
        };
        for x in base.values_mut() {
            let rounded = x.as_f64().filter(|_| x.is_f64()).map(single);
            if let Some(r) = rounded.filter(|r| r.is_finite()) {
                *x = Value::from(r);
            }
        }
    }
}

/// `x` as C's `printf("%.17g", x)` writes it: 17 significant digits, trailing zeros (and a
/// trailing point) dropped, exponent form below 1e-4 and from 1e17.
pub fn g17(x: f64) -> String {
    if !x.is_finite() {
        // Not reachable from a JSON value; written as JSON has no other way.
        return "null".into();
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0" } else { "0" }.into();
    }
    let sci = format!("{:.16e}", x.abs());
    let (mantissa, exp) = sci.split_once('e').expect("{:e} has an exponent");
    let exp: i32 = exp.parse().expect("{:e} writes an integer exponent");
    let all: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let digits = all.trim_end_matches('0');
    let digits = if digits.is_empty() { "0" } else { digits };
    let sign = if x < 0.0 { "-" } else { "" };
    if !(-4..17).contains(&exp) {
        let (first, rest) = digits.split_at(1);
        let point = if rest.is_empty() { "" } else { "." };
        let esign = if exp < 0 { '-' } else { '+' };
        return format!("{sign}{first}{point}{rest}e{esign}{:02}", exp.abs());
    }
    if exp < 0 {
        let zeros = "0".repeat((-exp - 1) as usize);
        return format!("{sign}0.{zeros}{digits}");
    }
    let whole = exp as usize + 1;
    if digits.len() <= whole {
        format!("{sign}{digits}{}", "0".repeat(whole - digits.len()))
    } else {
        let (int, frac) = digits.split_at(whole);
        format!("{sign}{int}.{frac}")
    }
}

/// A compact JSON formatter that writes doubles with [`g17`].
#[derive(Debug, Clone, Copy, Default)]
pub struct FieldNumbers;

impl Formatter for FieldNumbers {
    fn write_f64<W: ?Sized + io::Write>(&mut self, writer: &mut W, value: f64) -> io::Result<()> {
        writer.write_all(g17(value).as_bytes())
    }

    fn write_f32<W: ?Sized + io::Write>(&mut self, writer: &mut W, value: f32) -> io::Result<()> {
        self.write_f64(writer, f64::from(value))
    }
}

/// `value` as JSON text with the application's numbers.
pub fn to_vec(value: &Value) -> Vec<u8> {
    let mut out = Vec::with_capacity(128);
    let mut ser = serde_json::Serializer::with_formatter(&mut out, FieldNumbers);
    value
        .serialize(&mut ser)
        .expect("a JSON value always serializes into memory");
    out
}

/// A 200 answer carrying `value` as the application writes it, typed `content_type` (no
/// `Content-Type` at all for `None`: see `Options::read_content_type`).
pub fn answer(value: &Value, content_type: Option<&HeaderValue>) -> Response {
    let mut response = to_vec(value).into_response();
    let headers = response.headers_mut();
    match content_type {
        Some(t) => {
            headers.insert(header::CONTENT_TYPE, t.clone());
        }
        None => {
            headers.remove(header::CONTENT_TYPE);
        }
    }
    response
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn doubles_print_as_percent_17g() {
        // Expectations from C's printf("%.17g").
        let cases = [
            (single(0.01), "0.0099999997764825821"),
            (single(0.35), "0.34999999403953552"),
            (1.0, "1"),
            (0.0, "0"),
            (-0.0, "-0"),
            (0.5, "0.5"),
            (30.0, "30"),
            (0.35, "0.34999999999999998"),
            (2.345, "2.3450000000000002"),
            (1e20, "1e+20"),
            (1e-5, "1.0000000000000001e-05"),
            (1e16, "10000000000000000"),
            (1e17, "1e+17"),
            (123456.789, "123456.789"),
            (0.0001, "0.0001"),
            (1.234e-5, "1.234e-05"),
            (-2.5, "-2.5"),
            (-1e-300, "-1e-300"),
        ];
        for (x, want) in cases {
            assert_eq!(g17(x), want, "{x:e}");
            // The text reads back as the same double.
            assert_eq!(want.parse::<f64>().unwrap(), x);
        }
    }

    #[test]
    fn float_variables_are_kept_in_single_precision() {
        let mut vars = vec![
            json!({"type": "Float", "base": {"name": "Feather", "value": 0.05, "min_value": 0,
                   "max_value": std::f64::consts::PI}}),
            json!({"type": "Double", "base": {"value": 0.05}}),
            json!({"type": "Color", "base": {"name": "Edge", "color": "#FFFFFF"}}),
            json!({"type": "Float", "base": {"value": 1e300}}),
            json!({"type": "Float"}),
        ];
        single_variables(&mut vars);
        assert_eq!(
            String::from_utf8(to_vec(&Value::Array(vars))).unwrap(),
            r##"[{"type":"Float","base":{"name":"Feather","value":0.05000000074505806,"min_value":0,"max_value":3.1415927410125732}},{"type":"Double","base":{"value":0.050000000000000003}},{"type":"Color","base":{"name":"Edge","color":"#FFFFFF"}},{"type":"Float","base":{"value":1.0000000000000001e+300}},{"type":"Float"}]"##
        );
    }

    #[test]
    fn whole_numbers_have_no_fraction() {
        let v =
            json!({"opacity": 1.0, "playbackRate": 0.0, "d": [single(0.01), 3, -1], "s": "1.0"});
        assert_eq!(
            String::from_utf8(to_vec(&v)).unwrap(),
            r#"{"opacity":1,"playbackRate":0,"d":[0.0099999997764825821,3,-1],"s":"1.0"}"#
        );
    }
}
