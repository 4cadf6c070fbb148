// The page of `millzero play --web`: draws the board the server describes
// (GET /api/state) and sends the person's clicks as actions in the game's
// notation (POST /api/action). The server answers with the model's reply.
// Each tab plays its own game: the id POST /api/new answers goes with
// every request, and is kept in the storage of the tab alone, so that a reload
// finds the game again.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const CELL = 100, MARGIN = 95;
const GAME_KEY = "millzero-game";

let st = null;       // the last state from the server
let selected = -1;   // the point of the piece picked up to move, or -1
let busy = false;    // a request is under way (the model is thinking)
let showStats = false;
let gone = false;     // the server no longer holds this tab's game
let gameId = sessionStorage.getItem(GAME_KEY);

const $ = (id) => document.getElementById(id);

// api calls the server about this tab's game: its id goes in the query
// of a GET and in the body of a POST. An answer with a game id makes it
// this tab's game; one saying the game is gone marks it so.
async function api(method, path, body) {
  const init = { method, headers: {} };
  if (method === "GET") {
    path += "?game=" + encodeURIComponent(gameId || "");
  } else {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify({ game: gameId || "", ...body });
  }
  const res = await fetch(path, init);
  const data = await res.json();
  if (!res.ok) {
    if (data.gone) gone = true;
    let msg = data.error || res.statusText;
    if (data.legal) msg += ". Legal: " + data.legal.join(" ");
    const err = new Error(msg);
    err.gone = !!data.gone;
    throw err;
  }
  if (data.game) {
    gameId = data.game;
    gone = false;
    sessionStorage.setItem(GAME_KEY, gameId);
  }
  return data;
}

function el(name, attrs, parent) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

function xy(p) {
  return [MARGIN + p.x * CELL, MARGIN + (st.board.size - 1 - p.y) * CELL];
}

function myTurn() {
  return st && !st.over && !gone && st.side === st.human && !busy;
}

// The points the last action touched, by name.
function lastPoints() {
  const h = st.history;
  if (!h.length) return new Set();
  const t = h[h.length - 1].action;
  if (/^r\d/.test(t)) return new Set();
  return new Set(t.replace(/^x/, "").split("-"));
}

function drawBoard() {
  const svg = $("board");
  const b = st.board;
  const span = 2 * MARGIN + (b.size - 1) * CELL;
  svg.setAttribute("viewBox", `0 0 ${span} ${span}`);
  svg.replaceChildren();
  svg.dataset.actions = String(st.history.length);
  svg.dataset.side = String(st.side);

  for (const [i, j] of b.edges) {
    const [x1, y1] = xy(b.points[i]);
    const [x2, y2] = xy(b.points[j]);
    el("line", { x1, y1, x2, y2, class: "line" }, svg);
  }
  if (!b.rotating) {
    for (let x = 0; x < b.size; x++) {
      const t = el("text", { x: MARGIN + x * CELL, y: span - 28, class: "coord" }, svg);
      t.textContent = String.fromCharCode(97 + x);
    }
    for (let y = 0; y < b.size; y++) {
      const t = el("text", { x: 28, y: MARGIN + (b.size - 1 - y) * CELL, class: "coord" }, svg);
      t.textContent = String(y + 1);
    }
  }

  const mine = myTurn();
  const targets = new Set(), removable = new Set(), movable = new Set();
  if (mine) {
    for (const a of st.legal) {
      if (a.kind === "place") targets.add(a.to);
      if (a.kind === "remove") removable.add(a.to);
      if (a.kind === "move") {
        movable.add(a.from);
        if (a.from === selected) targets.add(a.to);
      }
    }
  }
  const last = lastPoints();
  b.points.forEach((p, i) => {
    const [cx, cy] = xy(p);
    const cls = ["pt"];
    if (targets.has(i)) cls.push("target");
    if (removable.has(i)) cls.push("removable");
    if (i === selected) cls.push("selected");
    if (last.has(p.name)) cls.push("lastmove");
    const g = el("g", { class: cls.join(" "), "data-point": p.name, "data-owner": String(st.owner[i]) }, svg);
    el("circle", { cx, cy, r: 9, class: "spot" }, g);
    if (st.owner[i] >= 0) {
      el("circle", { cx, cy, r: 30, class: "piece seat" + st.owner[i] }, g);
    }
    if (last.has(p.name)) el("circle", { cx, cy, r: 40, class: "mark" }, g);
    if (b.rotating) {
      const t = el("text", { x: cx, y: cy + 60, class: "name" }, g);
      t.textContent = p.name;
    }
    const hit = el("circle", { cx, cy, r: 42, class: "hit" }, g);
    hit.addEventListener("click", () => clickPoint(i));
    if (movable.has(i)) g.classList.add("movable");
  });
}

function clickPoint(i) {
  if (!myTurn()) return;
  const L = st.legal;
  if (st.removing) {
    const a = L.find((a) => a.kind === "remove" && a.to === i);
    if (a) send(a.text);
    else say("A mill: click an opponent piece that may be removed (ringed in red).");
    return;
  }
  if (selected >= 0) {
    const m = L.find((a) => a.kind === "move" && a.from === selected && a.to === i);
    if (m) {
      selected = -1;
      send(m.text);
      return;
    }
  }
  if (st.owner[i] === st.human && L.some((a) => a.kind === "move" && a.from === i)) {
    selected = selected === i ? -1 : i;
    say("");
    render();
    return;
  }
  const p = L.find((a) => a.kind === "place" && a.to === i);
  if (p) {
    selected = -1;
    send(p.text);
    return;
  }
  if (st.owner[i] >= 0 && L.some((a) => a.kind === "place")) say(`${st.board.points[i].name} is taken: click an empty point.`);
  else if (st.owner[i] === st.human) say("That piece cannot move.");
  else if (selected >= 0) say("The piece cannot go there.");
  else say("Click one of your pieces, then where it goes.");
}

function say(text) {
  $("message").textContent = text;
}

async function run(what, fn) {
  busy = true;
  render();
  try {
    st = await fn();
    say("");
  } catch (e) {
    say(what + ": " + e.message);
  }
  busy = false;
  render();
}

function send(text) {
  $("hint").replaceChildren();
  return run(text, () => api("POST", "/api/action", { action: text }));
}

function seatName(k) {
  return st.seats[k].name;
}

function drawPanel() {
  $("variant-name").textContent = st.variant;
  $("model-name").textContent = "model: " + st.model;
  const status = $("status");
  status.classList.toggle("thinking", busy);
  if (busy) status.textContent = "The model is thinking";
  else if (gone) status.textContent = "This game is closed: start a new game";
  else if (st.over) status.textContent = "Game over: " + st.result;
  else if (st.side === st.human) {
    const who = st.humans.length > 1 ? seatName(st.side) + ": your" : "Your";
    status.textContent = st.removing ? who + " turn: remove a piece" : who + " turn";
  }
  else status.textContent = seatName(st.side) + " to move";

  // The model's move(s) since our last action.
  const replies = [];
  for (let k = st.history.length - 1; k >= 0 && !st.humans.includes(st.history[k].seat); k--) {
    replies.unshift(`${seatName(st.history[k].seat)} ${st.history[k].action}`);
  }
  $("last-move").textContent = replies.length ? "Model played: " + replies.join(", ") : "";

  const seats = $("seats");
  seats.replaceChildren();
  st.seats.forEach((s, k) => {
    const d = document.createElement("div");
    d.className = "seat" + (k === st.side && !st.over ? " tomove" : "");
    d.innerHTML = `<span class="dot seat${k}"></span>`;
    d.append(`${s.name}${s.human ? " (you)" : " (model)"}: ${s.onBoard} on board, ${s.hand} in hand${s.out ? ", out" : ""}`);
    seats.appendChild(d);
  });

  const rot = $("rotations");
  rot.replaceChildren();
  if (st.board.rotating) {
    for (const a of st.legal) {
      if (a.kind !== "rotate") continue;
      const btn = document.createElement("button");
      btn.type = "button";
      btn.textContent = `${a.text}: turn ring ${a.ring + 1} ${a.clockwise ? "clockwise ↻" : "anticlockwise ↺"}`;
      btn.disabled = !myTurn();
      btn.addEventListener("click", () => send(a.text));
      rot.appendChild(btn);
    }
  }

  const hist = $("history");
  hist.replaceChildren();
  for (const m of st.history) {
    const li = document.createElement("li");
    li.textContent = m.action;
    li.title = seatName(m.seat);
    li.className = "by" + m.seat;
    hist.appendChild(li);
  }

  $("undo").disabled = busy || gone || !st.history.some((m) => st.humans.includes(m.seat));
  $("hint-btn").disabled = !myTurn();
  $("stats-btn").textContent = showStats ? "Hide stats" : "Show stats";
  $("stats-btn").setAttribute("aria-pressed", String(showStats));
  drawStats();

  const vs = $("new-variant");
  if (vs.options.length !== st.variants.length) {
    vs.replaceChildren(...st.variants.map((v) => new Option(v, v)));
  }
  if (document.activeElement !== vs) vs.value = st.variant;
  fillSeats(st.seats.length);
}

function fillSeats(n) {
  const ss = $("new-seat");
  if (ss.dataset.n === String(n)) return;
  ss.dataset.n = String(n);
  const names = n === 2 ? ["white", "black"] : Array.from({ length: n }, (_, k) => String(k + 1));
  const options = names.map((s) => new Option(n === 2 ? `play ${s}` : `play seat ${s}`, s));
  if (n > 2) {
    // People on two seats, or on all of them (passing one screen round).
    for (let a = 0; a < n; a++) {
      for (let b = a + 1; b < n; b++) options.push(new Option(`play seats ${a + 1} and ${b + 1}`, `${a + 1},${b + 1}`));
    }
    options.push(new Option("everyone plays (no model)", "all"));
  }
  ss.replaceChildren(...options);
  ss.selectedIndex = st.humans.length === 1 ? Math.min(st.human, n - 1) : options.findIndex((o) => o.value === st.humans.map((k) => k + 1).join(","));
  if (st.humans.length === n) ss.value = "all";
}

function searchTable(info) {
  const rows = info.top.map((c) =>
    `<tr><td>${c.action}</td><td>${c.visits}</td><td>${(100 * c.share).toFixed(1)}%</td><td>${(100 * c.prior).toFixed(1)}%</td></tr>`).join("");
  const values = info.value.map((v, k) => `${seatName(k)} ${v.toFixed(3)}`).join(", ");
  return `<p>${info.visits} visits, ${info.nodes} nodes. Expected score (1 win, 0 loss): ${values}</p>` +
    `<table><tr><th>action</th><th>visits</th><th>share</th><th>prior</th></tr>${rows}</table>`;
}

function drawStats() {
  const box = $("stats");
  box.hidden = !showStats;
  if (!showStats) return;
  if (!st.last) {
    box.innerHTML = "<p>The model has not moved yet.</p>";
    return;
  }
  box.innerHTML = `<h2>Model's last search (${seatName(st.last.seat)} played ${st.last.action})</h2>` + searchTable(st.last);
}

function render() {
  if (!st) return;
  drawBoard();
  drawPanel();
}

async function hint() {
  if (!myTurn()) return;
  busy = true;
  render();
  try {
    const h = await api("GET", "/api/hint");
    $("hint").innerHTML = `<h2>Hint: ${h.action}</h2>` + searchTable(h);
    say("");
  } catch (e) {
    say("hint: " + e.message);
  }
  busy = false;
  render();
}

$("undo").addEventListener("click", () => {
  selected = -1;
  $("hint").replaceChildren();
  run("undo", () => api("POST", "/api/undo"));
});
$("hint-btn").addEventListener("click", hint);
$("stats-btn").addEventListener("click", () => {
  showStats = !showStats;
  render();
});
$("type-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const t = $("type-action").value.trim();
  if (!t || !myTurn()) return;
  $("type-action").value = "";
  selected = -1;
  send(t);
});
$("new-variant").addEventListener("change", () => {
  const v = $("new-variant").value;
  // Seat names follow the variant's number of players; the server knows it.
  fillSeats(/^moulin-rouge-(\d)$/.test(v) ? Number(v.at(-1)) : 2);
});
$("new-form").addEventListener("submit", (e) => {
  e.preventDefault();
  selected = -1;
  $("hint").replaceChildren();
  run("new game", () => api("POST", "/api/new", { variant: $("new-variant").value, seat: $("new-seat").value }));
});

// The tab's game, found again after a reload; else (or when the server
// no longer holds it) a new game as the command line set it up.
run("loading", async () => {
  if (gameId) {
    try {
      return await api("GET", "/api/state");
    } catch (e) {
      if (!e.gone) throw e;
      gameId = null;
    }
  }
  return api("POST", "/api/new", {});
});
