// The feed page: everything comes from this feed's /events stream (no polling, nothing loaded
// from elsewhere). Times are counted down locally between messages from the last answer's
// time remaining, its age when sent and the time since it arrived.
"use strict";

const docs = { transport: null, scores: null };
const received = { transport: 0, scores: 0 };
let connected = false;

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

function render() {
  $("clock").textContent = timeOfDay(new Date());
  renderLayers();
  renderScore();
  renderStale();
}

function connect() {
  const source = new EventSource("/events");
  const take = (kind) => (e) => {
    docs[kind] = JSON.parse(e.data);
    received[kind] = performance.now();
    render();
  };
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
