// The feed page: everything comes from this feed's /events stream (no polling, nothing loaded
// from elsewhere). Times are counted down locally between messages from the last answer's
// time remaining, its age when sent and the time since it arrived.
"use strict";

const docs = { transport: null, scores: null };
const received = { transport: 0, scores: 0 };
let connected = false;
// A feed of named sources (a venue): its `venue` event lists them; each source's documents
// arrive tagged with their `source`, and the page shows one card per source in a grid.
let venue = null;
const named = {};
const namedAt = {};

const $ = (id) => document.getElementById(id);

function clockText(seconds) {
  if (seconds == null || !isFinite(seconds)) return "--:--";
  const total = Math.max(0, Math.ceil(seconds - 1e-6));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const mm = String(m).padStart(2, "0");
  const ss = String(s).padStart(2, "0");
  return h > 0 ? `${h}:${mm}:${ss}` : `${mm}:${ss}`;
}

function timeOfDay(date) {
  return date.toLocaleTimeString([], { hour12: false });
}

/** Seconds since the document's data was answered, now. */
function ageNow(kind) {
  const doc = docs[kind];
  if (!doc || doc.age == null) return null;
  return doc.age + (performance.now() - received[kind]) / 1000;
}

function remainingNow(layer) {
  if (layer.remaining == null) return null;
  if (layer.state !== "playing") return layer.remaining;
  const age = ageNow("transport") || 0;
  return Math.max(0, layer.remaining - (layer.rate || 1) * age);
}

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text != null) e.textContent = text;
  return e;
}

function renderLayers() {
  const box = $("layers");
  const doc = docs.transport;
  if (!doc) {
    box.hidden = true;
    return;
  }
  box.hidden = false;
  const shown = doc.layers.filter((l) => l.state !== "empty");
  box.replaceChildren();
  if (shown.length === 0) {
    box.append(el("div", "nothing", doc.polled_at ? "Nothing plays" : "Waiting for the media application…"));
    return;
  }
  for (const layer of shown) {
    const card = el("div", "layer");
    card.dataset.layer = layer.name || `Layer ${layer.index + 1}`;
    card.dataset.state = layer.state;
    const head = el("div", "head");
    head.append(el("span", "lname", card.dataset.layer), el("span", "lstate", layer.state));
    const left = remainingNow(layer);
    let text;
    if (layer.state === "live input") text = "LIVE";
    else if (layer.state === "still") text = "STILL";
    else text = clockText(left);
    const big = el("div", "remaining", text);
    if (left != null) big.dataset.seconds = left.toFixed(2);
    if (left != null && left <= 10) big.classList.add("low");
    const what = el("div", "what", [layer.media, layer.cue && layer.cue !== layer.media ? `(${layer.cue})` : null]
      .filter(Boolean).join(" "));
    card.append(head, big, what);
    if (layer.duration > 0 && left != null) {
      const bar = el("div", "bar");
      const fill = el("div");
      fill.style.width = `${Math.min(100, 100 * (1 - left / layer.duration)).toFixed(1)}%`;
      bar.append(fill);
      card.append(bar);
    }
    box.append(card);
  }
}

const PERIOD_WORD = { AustralianFootball: "Quarter", Baseball: "Inning" };

function renderScore() {
  const box = $("score");
  const doc = docs.scores;
  const view = doc && doc.view;
  if (!view || view.teams.length === 0) {
    box.hidden = true;
    return;
  }
  box.hidden = false;
  view.teams.forEach((team, i) => {
    const card = $(`team${i + 1}`);
    const name = card.querySelector(".name");
    name.textContent = team.name || `Team ${i + 1}`;
    name.classList.toggle("has-ball", String(view.possession) === String(i + 1));
    card.querySelector(".points").textContent = team.score == null ? "–" : String(team.score);
    const series = team.sets.length ? team.sets : team.line_score;
    card.querySelector(".extra").textContent = series.map((v) => (v == null ? "·" : v)).join(" ");
  });
  const word = PERIOD_WORD[view.sport] || "Period";
  $("period").textContent = view.period == null ? "" : `${word} ${view.period}`;
  $("sport").textContent = (view.sport || "").replace(/([a-z])([A-Z])/g, "$1 $2");
}

function renderStale() {
  const lines = [];
  for (const [kind, label] of [["transport", "Media"], ["scores", "Score"]]) {
    const doc = docs[kind];
    if (!doc || !doc.stale) continue;
    const since = doc.stale_since ? timeOfDay(new Date(doc.stale_since)) : "?";
    const age = ageNow(kind);
    const old = age == null ? "no data yet" : `data ${Math.floor(age)} s old`;
    lines.push(`${label} stale since ${since} (${old})`);
  }
  if (!connected) lines.unshift("Feed connection lost: retrying");
  const banner = $("stale");
  banner.hidden = lines.length === 0;
  banner.textContent = lines.join(" · ");
  document.body.classList.toggle("is-stale", lines.length > 0);
}

function namedAge(name) {
  const doc = named[name];
  if (!doc || doc.age == null) return null;
  return doc.age + (performance.now() - namedAt[name]) / 1000;
}

function sourceCard(source) {
  const doc = named[source.name];
  const card = el("div", "source");
  card.dataset.source = source.name;
  card.dataset.kind = source.kind;
  const stale = !doc || doc.stale;
  card.classList.toggle("is-stale", stale);
  const head = el("div", "head");
  const age = namedAge(source.name);
  const mark = !doc || !doc.polled_at ? "no data yet" : doc.stale ? `STALE ${Math.floor(age || 0)} s` : "live";
  head.append(el("span", "sname", source.name), el("span", "smark", mark));
  card.append(head);
  if (!doc) return card;
  if (source.kind === "media") {
    const shown = (doc.layers || []).filter((l) => l.state !== "empty");
    if (shown.length === 0) card.append(el("div", "nothing", doc.polled_at ? "Nothing plays" : "Waiting…"));
    for (const layer of shown) {
      let left = layer.remaining;
      if (left != null && layer.state === "playing") left = Math.max(0, left - (layer.rate || 1) * (age || 0));
      const row = el("div", "srow");
      row.dataset.state = layer.state;
      row.append(
        el("span", "sl", layer.name || `Layer ${layer.index + 1}`),
        el("span", "sw", layer.media || layer.cue || ""),
        el("span", "st", layer.state === "live input" ? "LIVE" : clockText(left)),
      );
      card.append(row);
    }
  } else {
    const view = doc.view;
    if (!view || view.teams.length === 0) {
      card.append(el("div", "nothing", doc.polled_at ? "No game" : "Waiting…"));
    } else {
      for (const team of view.teams) {
        const row = el("div", "srow");
        row.append(el("span", "sl", team.name || "–"), el("span", "sp", team.score == null ? "–" : String(team.score)));
        card.append(row);
      }
      const word = PERIOD_WORD[view.sport] || "Period";
      if (view.period != null) card.append(el("div", "speriod", `${word} ${view.period}`));
    }
  }
  return card;
}

function renderGrid() {
  const grid = $("sources");
  grid.hidden = false;
  $("layers").hidden = true;
  $("score").hidden = true;
  grid.replaceChildren(...venue.map(sourceCard));
  const stale = venue.filter((s) => !named[s.name] || named[s.name].stale).map((s) => s.name);
  const lines = stale.length ? [`Stale: ${stale.join(", ")}`] : [];
  if (!connected) lines.unshift("Feed connection lost: retrying");
  const banner = $("stale");
  banner.hidden = lines.length === 0;
  banner.textContent = lines.join(" · ");
}

function render() {
  $("clock").textContent = timeOfDay(new Date());
  if (venue) {
    renderGrid();
    return;
  }
  renderLayers();
  renderScore();
  renderStale();
}

function connect() {
  const source = new EventSource("/events");
  const take = (kind) => (e) => {
    const doc = JSON.parse(e.data);
    if (venue && doc.source) {
      named[doc.source] = doc;
      namedAt[doc.source] = performance.now();
    } else {
      docs[kind] = doc;
      received[kind] = performance.now();
    }
    render();
  };
  source.addEventListener("venue", (e) => {
    venue = JSON.parse(e.data).sources;
    render();
  });
  source.addEventListener("transport", take("transport"));
  source.addEventListener("scores", take("scores"));
  source.onopen = () => {
    connected = true;
    $("connection").textContent = "live";
    $("connection").classList.remove("lost");
    render();
  };
  source.onerror = () => {
    connected = false;
    $("connection").textContent = "reconnecting…";
    $("connection").classList.add("lost");
    render();
  };
}

connect();
render();
setInterval(render, 100);
