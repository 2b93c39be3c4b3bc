//! Building one tree from another without recursion (the caller's objects from JSON, JSON from
//! the caller's objects): the containers being read are kept on a heap stack, so a conversion takes
//! the same few hundred bytes of thread stack at any depth, and at most [`MAX_DEPTH`] of them
//! are open at once.

use super::MAX_DEPTH;

/// The two trees of a conversion, and how one node of the first becomes one of the second.
pub trait Builder {
    /// A node of the tree read.
    type Node;
    /// A container being read: the rest of its items, and what is built of it so far.
    type Open;
    /// What a node becomes.
    type Out;
    type Error;
    /// What a leaf becomes, or `None` for a container.
    fn leaf(&mut self, node: &Self::Node) -> Result<Option<Self::Out>, Self::Error>;
    /// Open a container (checked first: at most [`MAX_DEPTH`] are open).
    fn open(&mut self, node: Self::Node) -> Result<Self::Open, Self::Error>;
    /// Add what the container's last item became (`done`, if any), and take its next item.
    fn next(
        &mut self,
        open: &mut Self::Open,
        done: Option<Self::Out>,
    ) -> Result<Option<Self::Node>, Self::Error>;
    /// What a container whose items are all read becomes.
    fn close(&mut self, open: Self::Open) -> Self::Out;
    /// The error for a container nested deeper than [`MAX_DEPTH`].
    fn too_deep(&self) -> Self::Error;
}

/// `root` converted by `b`. On an error, `open` holds the containers open where it happened,
/// outermost first (for a message that says where).
pub fn build<B: Builder>(
    b: &mut B,
    root: B::Node,
    open: &mut Vec<B::Open>,
) -> Result<B::Out, B::Error> {
    let mut next = root;
    loop {
        // Convert `next`, or open it.
        let mut done = match b.leaf(&next)? {
            Some(out) => Some(out),
            None if open.len() >= MAX_DEPTH => return Err(b.too_deep()),
            None => {
                let container = b.open(next)?;
                open.push(container);
                None
            }
        };
        // Hand what is done to the container it is in, until one has more to convert.
        loop {
            let Some(top) = open.last_mut() else {
                match done {
                    Some(out) => return Ok(out),
                    None => unreachable!("the root is built before the stack is empty"),
                }
            };
            match b.next(top, done.take())? {
                Some(node) => {
                    next = node;
                    break;
                }
                None => done = open.pop().map(|container| b.close(container)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::marker::PhantomData;

    use serde_json::{json, Map, Value};

    use super::*;

    /// A copy of a JSON value, with numbers refused.
    struct Copy<'a>(PhantomData<&'a Value>);

    enum Open<'a> {
        Array(std::slice::Iter<'a, Value>, Vec<Value>),
        Object(
            serde_json::map::Iter<'a>,
            Map<String, Value>,
            Option<&'a str>,
        ),
    }

    impl<'a> Builder for Copy<'a> {
        type Node = &'a Value;
        type Open = Open<'a>;
        type Out = Value;
        type Error = String;
        fn leaf(&mut self, node: &&'a Value) -> Result<Option<Value>, String> {
            match node {
                Value::Array(_) | Value::Object(_) => Ok(None),
                Value::Number(n) => Err(format!("number {n}")),
                leaf => Ok(Some((*leaf).clone())),
            }
        }
        fn open(&mut self, node: &'a Value) -> Result<Open<'a>, String> {
            match node {
                Value::Array(a) => Ok(Open::Array(a.iter(), Vec::new())),
                Value::Object(o) => Ok(Open::Object(o.iter(), Map::new(), None)),
                _ => Err("not a container".into()),
            }
        }
        fn next(
            &mut self,
            open: &mut Open<'a>,
            done: Option<Value>,
        ) -> Result<Option<&'a Value>, String> {
            Ok(match open {
                Open::Array(items, out) => {
                    out.extend(done);
                    items.next()
                }
                Open::Object(items, out, key) => {
                    if let (Some(v), Some(k)) = (done, key.take()) {
                        out.insert(k.to_string(), v);
                    }
                    items.next().map(|(k, v)| {
                        *key = Some(k);
                        v
                    })
                }
            })
        }
        fn close(&mut self, open: Open<'a>) -> Value {
            match open {
                Open::Array(_, out) => Value::Array(out),
                Open::Object(_, out, _) => Value::Object(out),
            }
        }
        fn too_deep(&self) -> String {
            "too deep".into()
        }
    }

    fn nested(depth: usize) -> Value {
        (0..depth).fold(json!("x"), |v, _| json!([v]))
    }

    #[test]
    fn a_tree_is_rebuilt_as_it_was_and_a_leaf_alone_is_a_root() {
        let v = json!({"a": [true, null, {"b": "c"}, []], "d": {}, "e": "f"});
        assert_eq!(
            build(&mut Copy(PhantomData), &v, &mut Vec::new()),
            Ok(v.clone())
        );
        assert_eq!(
            build(&mut Copy(PhantomData), &json!("x"), &mut Vec::new()),
            Ok(json!("x"))
        );
    }

    #[test]
    fn at_most_max_depth_containers_are_open_at_once() {
        let deepest = nested(MAX_DEPTH);
        assert_eq!(
            build(&mut Copy(PhantomData), &deepest, &mut Vec::new()),
            Ok(deepest.clone())
        );
        let mut open = Vec::new();
        let deeper = nested(MAX_DEPTH + 1);
        assert_eq!(
            build(&mut Copy(PhantomData), &deeper, &mut open),
            Err("too deep".into())
        );
        assert_eq!(open.len(), MAX_DEPTH);
    }

    #[test]
    fn an_error_leaves_the_containers_open_where_it_happened() {
        let mut open = Vec::new();
        let v = json!([true, {"k": [null, 5]}]);
        assert_eq!(
            build(&mut Copy(PhantomData), &v, &mut open),
            Err("number 5".into())
        );
        assert_eq!(open.len(), 3);
        assert!(matches!(&open[1], Open::Object(_, _, Some("k"))));
        assert!(matches!(&open[2], Open::Array(_, out) if out == &[Value::Null]));
    }
}
