use rosc::OscType::{self, *};

use super::*;

fn command(address: &str, args: &[OscType]) -> std::string::String {
    match action(address, args, false) {
        Ok(Action::Command(c)) => c.describe(),
        Ok(Action::Read(r)) => panic!("{address}: a read {r:?}"),
        Err(e) => panic!("{address}: {e}"),
    }
}

fn refused(address: &str, args: &[OscType]) -> std::string::String {
    match action(address, args, false) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("{address} {args:?} was taken"),
    }
}

#[test]
fn each_form_makes_the_request_of_the_library() {
    let s = |t: &str| String(t.into());
    assert_eq!(
        command("/showctl/clear", &[]),
        "Command('POST /clear/workspace')"
    );
    assert_eq!(
        command("/showctl/trigger", &[s("Main Show"), Int(3)]),
        "Command('POST /trigger/playlist/Main%20Show/cue/3')"
    );
    assert_eq!(
        command("/showctl/layer/0/mute", &[]),
        "Command('POST /mute/layer/0')"
    );
    assert_eq!(
        command("/showctl/layer/Main/hide", &[]),
        "Command('POST /hide/layer/Main')"
    );
    assert_eq!(
        command("/showctl/layer/mute", &[s("Lower Third/Left")]),
        "Command('POST /mute/layer/Lower%20Third%2FLeft')"
    );
    assert_eq!(
        command("/showctl/layer/2/opacity", &[Float(0.5)]),
        "Command('POST /opacity/layer/2 {\"value\":0.5}')"
    );
    assert_eq!(
        command("/showctl/layer/opacity", &[s("Main"), Double(1.0)]),
        "Command('POST /opacity/layer/Main {\"value\":1.0}')"
    );
    assert_eq!(
        command("/showctl/layer/1/select", &[Bool(true)]),
        "Command('POST /select/layer/1?target=true')"
    );
    assert_eq!(
        command("/showctl/layer/1/target_set", &[Nil]),
        "Command('POST /targetSet/layer/1')"
    );
    assert_eq!(
        command("/showctl/layer/1/go_to", &[Float(-2.0)]),
        "Command('POST /goToEnd/layer/1?offset=2')"
    );
}

#[test]
fn reads_take_no_argument() {
    let read = |a: &str, args: &[OscType]| match action(a, args, false) {
        Ok(Action::Read(r)) => r,
        _ => panic!("{a}: not a read"),
    };
    assert_eq!(read("/showctl/scores", &[]), Read::Scores);
    assert_eq!(
        read("/showctl/layer/3/remaining", &[]),
        Read::Layer(Ident::Index(3), LayerRead::Remaining)
    );
    assert_eq!(
        read("/showctl/layer/opacity", &[String("A B".into())]),
        Read::Layer(Ident::Name("A B".into()), LayerRead::Opacity)
    );
}

#[test]
fn bad_messages_are_refused_naming_what_is_wrong() {
    assert!(refused("/showctl/nope", &[]).contains("unknown address"));
    assert!(refused("/other/thing", &[]).contains("not under /showctl/"));
    assert!(refused("/showctl/layer/*/mute", &[]).contains("patterns are not taken"));
    let e = refused("/showctl/layer/0/opacity", &[Float(1.5)]);
    assert!(e.contains("value") && e.contains("1.5"), "{e}");
    let e = refused("/showctl/layer/0/opacity", &[String("x".into())]);
    assert_eq!(
        e,
        "/showctl/layer/0/opacity: argument 1 (value: a number) cannot be a string (s)"
    );
    assert!(refused("/showctl/trigger", &[Int(1)]).contains("argument 2 (cue) is missing"));
    assert!(refused("/showctl/layer/0/mute", &[Int(1)]).contains("1 argument(s) too many"));
    assert!(refused("/showctl/layer/-1/mute", &[]).contains("0 or above"));
    assert!(refused("/showctl/trigger", &[Int(-2), Int(0)]).contains("-1 (the video input"));
    assert!(refused("/showctl/layer/0/opacity", &[Float(f32::NAN)]).contains("value"));
}

#[test]
fn every_address_is_documented_in_the_guide() {
    let page = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/osc.md"))
        .expect("docs/osc.md");
    for a in ADDRESSES {
        let row = format!("| `{}` |", a.address);
        assert!(
            page.contains(&row),
            "docs/osc.md has no row for {}",
            a.address
        );
    }
    // And every address the page lists is one of the bridge's.
    for line in page.lines().filter(|l| l.starts_with("| `/showctl")) {
        let listed = line.split('`').nth(1).unwrap_or_default();
        assert!(
            ADDRESSES.iter().any(|a| a.address == listed),
            "docs/osc.md lists {listed}, which the bridge does not take"
        );
    }
}

#[test]
fn every_documented_address_is_taken_with_its_arguments() {
    for a in ADDRESSES {
        let address = a.address.replace("<id>", "0");
        let mut args = Vec::new();
        // The required arguments only (an optional one is in brackets; "| nil" is an option).
        for token in a.args.split(' ').take_while(|t| *t != "|") {
            args.push(match token {
                "" => continue,
                t if t.starts_with('[') => continue,
                "<playlist>" | "<cue>" => Int(0),
                "<uuid>" | "<name>" => String("x".into()),
                "<seconds>" | "<value>" => Float(1.0),
                t => panic!("{}: no test value for {t}", a.address),
            });
        }
        if let Err(e) = action(&address, &args, false) {
            panic!("{address} {args:?} is documented but refused: {e}");
        }
    }
}
