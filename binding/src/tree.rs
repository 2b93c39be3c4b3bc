//! `Playlist` and `Cue`, built straight from a playlist tree read in one pass
//! (`media::tree`): one Python object per playlist and cue, their texts made from the reply's
//! bytes, no core model and no dict on the way. The core model of a node (for `to_dict()`,
//! `==`, `find()`) is read from the node's span of the reply when first asked for.
//! Models that come from elsewhere (`from_dict`, `find`, a tree of another shape) wrap the
//! core model and convert their lists on first access.

use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyList, PyString};

use super::models::{pymodel, ModelClass};
use crate::convert::{html, Attr, Reply, Wrapped};
use showctl::media::tree::{Flat, NodeModel, PlaylistTree, Text};
use showctl::media::{Cue, Found, Playlist};

fn text_to_py(py: Python<'_>, flat: &Flat, t: &Text) -> Py<PyAny> {
    match flat.text(t) {
        Some(s) => PyString::new(py, s).into_any().unbind(),
        None => py.None(),
    }
}

fn list_copy<'py>(py: Python<'py>, list: &Py<PyList>) -> PyResult<Py<PyAny>> {
    let list = list.bind(py);
    Ok(list.get_slice(0, list.len()).into_any().unbind())
}

/// Build the Python tree of a playlist tree read in one pass.
fn flat_to_py(py: Python<'_>, flat: &Flat) -> PyResult<Py<PyAny>> {
    let mut built: Vec<Option<Py<PyAny>>> = Vec::new();
    built.resize_with(flat.playlists.len(), || None);
    // Every playlist comes before its nested ones: build from the last.
    for (i, node) in flat.playlists.iter().enumerate().rev() {
        let cues = flat.cues[node.items.start as usize..node.items.end as usize]
            .iter()
            .map(|c| {
                let cue = PyCue {
                    uuid: text_to_py(py, flat, &c.uuid),
                    name: text_to_py(py, flat, &c.name),
                    src: NodeModel::span(flat, &c.span),
                };
                Py::new(py, cue)
            })
            .collect::<PyResult<Vec<_>>>()?;
        let children = node
            .children
            .iter()
            .map(|&c| built[c as usize].take().unwrap_or_else(|| py.None()))
            .collect::<Vec<_>>();
        let playlist = PyPlaylist {
            uuid: text_to_py(py, flat, &node.uuid),
            name: text_to_py(py, flat, &node.name),
            items: PyOnceLock::new(),
            children: PyOnceLock::new(),
            src: NodeModel::span(flat, &node.span),
        };
        let _ = playlist.items.set(py, PyList::new(py, cues)?.unbind());
        let _ = playlist
            .children
            .set(py, PyList::new(py, children)?.unbind());
        built[i] = Some(Py::new(py, playlist)?.into_any());
    }
    Ok(built
        .first_mut()
        .and_then(Option::take)
        .unwrap_or_else(|| py.None()))
}

impl Reply for PlaylistTree {
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        match self {
            PlaylistTree::Flat(flat) => flat_to_py(py, &flat),
            PlaylistTree::Model(p) => Playlist::wrap(py, Arc::new(p)),
        }
    }
    fn py_type() -> String {
        "Playlist".into()
    }
}

/// A cue summary (playlist item).
#[pyclass(module = "showctl._core", name = "Cue", frozen)]
pub struct PyCue {
    /// The cue's UUID (None when absent or the text "null").
    #[pyo3(get)]
    uuid: Py<PyAny>,
    /// The cue's name (None when absent).
    #[pyo3(get)]
    name: Py<PyAny>,
    src: NodeModel<Cue>,
}

impl ModelClass for PyCue {
    type Core = Cue;
    fn model(&self) -> &Cue {
        self.src.model()
    }
    fn of_model(py: Python<'_>, inner: Arc<Cue>) -> PyResult<Self> {
        Ok(PyCue {
            uuid: inner.uuid.attr(py)?,
            name: inner.name.attr(py)?,
            src: NodeModel::Model(inner),
        })
    }
}

pymodel!(@common PyCue wraps Cue [uuid, name]
    to_dict:
    /// The JSON object as the application sent it (`mode="wire"`: wire names, unknown fields
    /// kept), or the attributes by name with their Python values (`mode="python"`).
    reduce:
);

/// A playlist: its cues (`items`) and nested playlists (`children`).
#[pyclass(module = "showctl._core", name = "Playlist", frozen)]
pub struct PyPlaylist {
    /// The playlist's UUID (None when absent or the text "null").
    #[pyo3(get)]
    uuid: Py<PyAny>,
    /// The playlist's name (None when absent).
    #[pyo3(get)]
    name: Py<PyAny>,
    items: PyOnceLock<Py<PyList>>,
    children: PyOnceLock<Py<PyList>>,
    src: NodeModel<Playlist>,
}

impl ModelClass for PyPlaylist {
    type Core = Playlist;
    fn model(&self) -> &Playlist {
        self.src.model()
    }
    fn of_model(py: Python<'_>, inner: Arc<Playlist>) -> PyResult<Self> {
        Ok(PyPlaylist {
            uuid: inner.uuid.attr(py)?,
            name: inner.name.attr(py)?,
            items: PyOnceLock::new(),
            children: PyOnceLock::new(),
            src: NodeModel::Model(inner),
        })
    }
}

pymodel!(@common PyPlaylist wraps Playlist [uuid, name, items, children]
    to_dict:
    /// The JSON object as the application sent it (`mode="wire"`: wire names, unknown fields
    /// kept), or the attributes by name with their Python values (`mode="python"`).
    reduce:
);

impl PyPlaylist {
    /// The list `items` or `children` holds, made from the core model's on first use.
    fn list<'a, T: Attr>(
        &self,
        py: Python<'_>,
        cell: &'a PyOnceLock<Py<PyList>>,
        of: impl FnOnce(&Playlist) -> &T,
    ) -> PyResult<&'a Py<PyList>> {
        cell.get_or_try_init(py, || {
            let list = of(self.src.model()).attr(py)?;
            Ok(list.bind(py).cast::<PyList>()?.clone().unbind())
        })
    }
}

#[pymethods]
impl PyPlaylist {
    /// The cues of this playlist (a new list each time).
    #[getter]
    fn items(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        list_copy(py, self.list(py, &self.items, |p| &p.items)?)
    }

    /// The playlists nested in this one (a new list each time).
    #[getter]
    fn children(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        list_copy(py, self.list(py, &self.children, |p| &p.children)?)
    }

    /// The first playlist or cue whose UUID (any case) or name is `name_or_uuid`, searched
    /// depth-first from this playlist: a playlist before its cues, its cues before its
    /// nested playlists. Returns a `Playlist`, a `Cue`, or `None`.
    fn find(&self, py: Python<'_>, name_or_uuid: String) -> PyResult<Py<PyAny>> {
        match self.src.model().find(&name_or_uuid) {
            Some(Found::Playlist(p)) => Playlist::wrap(py, p),
            Some(Found::Cue(c)) => Cue::wrap(py, c),
            None => Ok(py.None()),
        }
    }

    /// This playlist and every nested one, depth-first (each before its children): the same
    /// objects as `children` holds.
    fn walk<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        let all = PyList::empty(py);
        let mut stack = vec![slf.clone()];
        while let Some(p) = stack.pop() {
            let node = p.get();
            let children = node
                .list(py, &node.children, |m| &m.children)?
                .bind(py)
                .clone();
            for child in children.iter().rev() {
                stack.push(child.cast_into::<PyPlaylist>()?);
            }
            all.append(p)?;
        }
        all.try_iter().map(Bound::into_any)
    }

    /// An HTML tree of the playlist, its cues and nested playlists, for Jupyter.
    fn _repr_html_(slf: &Bound<'_, Self>) -> PyResult<String> {
        html(slf.as_any(), "playlist_html")
    }
}
