// koshogi-zero viewer. Talks to the JSON API of `koshogi serve` (docs/viewer.md): the server
// draws boards as SVG and knows the rules; this script shows them, draws overlays (the network's
// top moves, legal destinations) and turns clicks into moves.
"use strict";

const SVG_NS = "http://www.w3.org/2000/svg";
const ARROW_COLOURS = ["#d7301f", "#ef6548", "#fc8d59", "#2b8cbe", "#74a9cf", "#41ae76",
  "#88419d", "#8c6bb1", "#807dba", "#969696"];

const state = {
  geometry: { margin: 44, cell: 40, size: 808 },
  checkpoints: [],
  games: [],
  game: null,        // {name, plies, moves, …} of /api/game
  ply: 0,
  play: null,        // state of /api/play/*
  selection: null,   // {origin, candidates, chosen}
};

// ---------------------------------------------------------------- helpers

async function api(path, body) {
  const options = body === undefined ? {} : {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  };
  const response = await fetch(path, options);
  let data = null;
  try { data = await response.json(); } catch (e) { data = null; }
  if (!response.ok) {
    throw new Error((data && data.error) || `${response.status} ${response.statusText}`);
  }
  return data;
}

function el(tag, attributes = {}, text) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attributes)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

function svgEl(tag, attributes = {}, text) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attributes)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

function percent(p) {
  return p >= 0.1 ? `${(100 * p).toFixed(0)}%` : `${(100 * p).toFixed(1)}%`;
}

/** "10m" -> {file: 10, rank: 13} (rank a = 1). */
function parseSquare(name) {
  const match = /^(\d+)([a-s])$/.exec(name);
  if (!match) return null;
  return { file: Number(match[1]), rank: match[2].charCodeAt(0) - 96 };
}

function centre(name) {
  const sq = parseSquare(name);
  const g = state.geometry;
  return [g.margin + g.cell * (19 - sq.file), g.margin + g.cell * (sq.rank - 1)];
}

function squareNames() {
  const names = [];
  for (let rank = 1; rank <= 19; rank++) {
    for (let file = 19; file >= 1; file--) names.push(`${file}${String.fromCharCode(96 + rank)}`);
  }
  return names;
}

// ---------------------------------------------------------------- board

/** A board: the server's SVG picture, an overlay for arrows and marks, a grid of click targets. */
class Board {
  constructor(container, onClick) {
    this.container = container;
    this.picture = el("div", { class: "picture" });
    const size = state.geometry.size;
    this.overlay = svgEl("svg", { class: "overlay", viewBox: `0 0 ${size} ${size}` });
    this.marks = svgEl("g", { class: "marks" });
    this.arrows = svgEl("g", { class: "arrows" });
    this.hits = svgEl("g", { class: "hits" });
    this.overlay.append(this.marks, this.arrows, this.hits);
    const defs = svgEl("defs");
    ARROW_COLOURS.forEach((colour, i) => {
      const marker = svgEl("marker", {
        id: `${container.id}-head-${i}`, viewBox: "0 0 10 10", refX: "7", refY: "5",
        markerWidth: "4", markerHeight: "4", orient: "auto-start-reverse",
      });
      marker.append(svgEl("path", { d: "M0 0 L10 5 L0 10 z", fill: colour }));
      defs.append(marker);
    });
    this.overlay.prepend(defs);
    const cell = state.geometry.cell;
    if (onClick) {
      for (const name of squareNames()) {
        const [x, y] = centre(name);
        const hit = svgEl("rect", {
          class: "hit", x: x - cell / 2, y: y - cell / 2, width: cell, height: cell,
          "data-square": name,
        });
        hit.addEventListener("click", () => onClick(name));
        this.hits.append(hit);
      }
    }
    container.replaceChildren(this.picture, this.overlay);
  }

  show(svg) {
    this.picture.innerHTML = svg;
    this.clearArrows();
    this.clearMarks();
  }

  clearArrows() { this.arrows.replaceChildren(); }
  clearMarks() { this.marks.replaceChildren(); }

  /** Top moves as arrows along their legs, widths by probability, labels at the destination. */
  drawMoves(moves) {
    this.clearArrows();
    const cell = state.geometry.cell;
    moves.forEach((mv, i) => {
      const colour = ARROW_COLOURS[i % ARROW_COLOURS.length];
      const points = [mv.origin, ...mv.legs].map(centre);
      const width = 3 + 9 * Math.sqrt(mv.probability);
      const end = points[points.length - 1];
      if (mv.legs.length > 0 && mv.legs[mv.legs.length - 1] !== mv.origin) {
        this.arrows.append(svgEl("polyline", {
          points: points.map(p => p.join(",")).join(" "),
          fill: "none", stroke: colour, "stroke-width": width, "stroke-opacity": 0.75,
          "stroke-linejoin": "round", "stroke-linecap": "round",
          "marker-end": `url(#${this.container.id}-head-${i % ARROW_COLOURS.length})`,
        }));
      } else {
        // Stays on its point (igui, pass, stationary shot): a ring.
        this.arrows.append(svgEl("circle", {
          cx: end[0], cy: end[1], r: cell * 0.45, fill: "none", stroke: colour,
          "stroke-width": 4, "stroke-opacity": 0.8,
        }));
      }
      for (const shot of mv.shots) {
        const [sx, sy] = centre(shot);
        this.arrows.append(svgEl("line", {
          x1: end[0], y1: end[1], x2: sx, y2: sy, stroke: colour, "stroke-width": 3,
          "stroke-dasharray": "6 4",
        }));
      }
      const label = svgEl("text", {
        x: end[0], y: end[1] - cell * 0.5, "text-anchor": "middle", "font-size": 15,
        "font-weight": 700, fill: colour, stroke: "#fff", "stroke-width": 3,
        "paint-order": "stroke", "data-move": mv.canonical,
      }, percent(mv.probability));
      this.arrows.append(label);
    });
  }

  /** Marks: {square, kind} with kind selected | leg | shot | stop. */
  mark(marks) {
    this.clearMarks();
    const cell = state.geometry.cell;
    for (const { square, kind } of marks) {
      const [x, y] = centre(square);
      if (kind === "selected") {
        this.marks.append(svgEl("rect", {
          x: x - cell / 2, y: y - cell / 2, width: cell, height: cell,
          fill: "#ffd700", "fill-opacity": 0.45, class: "mark-selected",
        }));
      } else if (kind === "leg") {
        this.marks.append(svgEl("circle", {
          cx: x, cy: y, r: cell * 0.22, fill: "#1a9641", "fill-opacity": 0.85,
          stroke: "#fff", "stroke-width": 2, class: "mark-leg", "data-square": square,
        }));
      } else if (kind === "shot") {
        this.marks.append(svgEl("circle", {
          cx: x, cy: y, r: cell * 0.4, fill: "none", stroke: "#d7191c", "stroke-width": 4,
          class: "mark-shot", "data-square": square,
        }));
      } else if (kind === "stop") {
        this.marks.append(svgEl("circle", {
          cx: x, cy: y, r: cell * 0.48, fill: "none", stroke: "#1a9641", "stroke-width": 4,
          "stroke-dasharray": "5 3", class: "mark-stop", "data-square": square,
        }));
      }
    }
  }
}

function showNetworkView(container, board, view) {
  const moves = view.top.slice(0, 8);
  board.drawMoves(moves);
  const side = view.side_to_move === "black" ? "Black" : "White";
  const [w, d, l] = view.wdl;
  container.replaceChildren();
  container.append(el("div", {}, `${view.checkpoint}: ${side} to move`));
  const bar = el("div", { class: "wdl-bar", title: "win / draw / loss for the side to move" });
  [[w, "wdl-win", "W"], [d, "wdl-draw", "D"], [l, "wdl-loss", "L"]].forEach(([p, cls, letter]) => {
    const part = el("div", { class: cls, style: `width:${(100 * p).toFixed(1)}%` },
      p > 0.08 ? `${letter} ${percent(p)}` : "");
    bar.append(part);
  });
  container.append(bar);
  const table = el("table");
  moves.forEach((mv, i) => {
    const row = el("tr");
    const swatch = el("span", { class: "swatch", style: `background:${ARROW_COLOURS[i % ARROW_COLOURS.length]}` });
    const name = el("td");
    name.append(swatch, document.createTextNode(mv.hodges));
    row.append(name, el("td", { class: "muted" }, mv.canonical), el("td", { class: "p" }, percent(mv.probability)));
    table.append(row);
  });
  container.append(table);
  container.append(el("div", { class: "muted" }, `${view.legal_moves} legal moves`));
}

function selectedCheckpoint() {
  return document.getElementById("network-checkpoint").value;
}

// ---------------------------------------------------------------- games page

let gamesBoard;
let analysisTicket = 0;

async function loadGames() {
  const data = await api("/api/games");
  state.games = data.games;
  renderGameList();
}

function renderGameList() {
  const filter = document.getElementById("game-filter").value;
  const list = document.getElementById("game-list");
  list.replaceChildren();
  const shown = state.games.filter(g => filter === "all" || g.source === filter);
  document.getElementById("game-count").textContent = `${shown.length} games`;
  for (const game of shown) {
    const item = el("li", { "data-name": game.name, title: game.name });
    item.append(el("span", { class: "result" }, game.result));
    const label = game.name.replace(/^games\//, "").replace(/^arena\/games\//, "")
      .replace(/\/from-\d+\//, " ").replace(/_vs_/, " vs ");
    item.append(document.createTextNode(label));
    item.append(el("br"));
    item.append(el("span", { class: "muted" },
      `${game.black || "?"} vs ${game.white || "?"}, ${game.plies ?? "?"} plies${game.termination ? ", " + game.termination : ""}`));
    if (state.game && state.game.name === game.name) item.classList.add("selected");
    item.addEventListener("click", () => openGame(game.name));
    list.append(item);
  }
  if (shown.length === 0) list.append(el("li", { class: "muted" }, "No game records in this run yet."));
}

async function openGame(name) {
  const game = await api(`/api/game?name=${encodeURIComponent(name)}`);
  state.game = game;
  for (const item of document.querySelectorAll("#game-list li")) {
    item.classList.toggle("selected", item.dataset.name === name);
  }
  const info = document.getElementById("game-info");
  info.classList.remove("muted");
  info.replaceChildren();
  const table = el("table");
  for (const [k, v] of game.tags) {
    const row = el("tr");
    row.append(el("td", { class: "muted" }, k), el("td", {}, v));
    table.append(row);
  }
  const result = el("tr");
  result.append(el("td", { class: "muted" }, "Result"),
    el("td", {}, `${game.result}${game.termination ? " (" + game.termination + ")" : ""}`));
  table.append(result);
  info.append(table);
  const moves = document.getElementById("game-moves");
  moves.replaceChildren();
  for (const mv of game.moves) {
    const item = el("li", { "data-ply": mv.ply, title: `${mv.color}: ${mv.canonical}` });
    item.append(document.createTextNode(mv.hodges));
    item.append(el("span", { class: "canonical" }, mv.canonical));
    item.addEventListener("click", () => showPly(mv.ply));
    moves.append(item);
  }
  const slider = document.getElementById("ply-slider");
  slider.max = game.plies;
  await showPly(0);
}

async function showPly(ply) {
  const game = state.game;
  if (!game) return;
  ply = Math.max(0, Math.min(game.plies, ply));
  state.ply = ply;
  const view = await api(`/api/game/position?name=${encodeURIComponent(game.name)}&ply=${ply}`);
  if (state.game !== game || state.ply !== ply) return; // a later request superseded this one
  gamesBoard.show(view.svg);
  document.getElementById("game-board").dataset.ply = ply;
  document.getElementById("ply-slider").value = ply;
  rememberPosition();
  const outcome = ply === game.plies && view.outcome ? ` — ${view.outcome}` : "";
  document.getElementById("ply-label").textContent = `ply ${ply} / ${game.plies}${outcome}`;
  for (const item of document.querySelectorAll("#game-moves li")) {
    const current = Number(item.dataset.ply) === ply;
    item.classList.toggle("current", current);
    if (current) item.scrollIntoView({ block: "nearest" });
  }
  refreshGamesNetwork();
}

async function refreshGamesNetwork() {
  const panel = document.getElementById("games-network");
  const ticket = ++analysisTicket;
  if (!document.getElementById("games-network-toggle").checked || !state.game) {
    panel.replaceChildren();
    gamesBoard.clearArrows();
    return;
  }
  const checkpoint = selectedCheckpoint();
  if (!checkpoint) {
    panel.textContent = "This run has no checkpoint yet.";
    return;
  }
  panel.textContent = "thinking…";
  try {
    const view = await api(`/api/analyze?checkpoint=${encodeURIComponent(checkpoint)}` +
      `&game=${encodeURIComponent(state.game.name)}&ply=${state.ply}&top=10`);
    if (ticket !== analysisTicket) return;
    showNetworkView(panel, gamesBoard, view);
  } catch (e) {
    if (ticket !== analysisTicket) return;
    gamesBoard.clearArrows();
    panel.textContent = e.message;
  }
}

function setUpGamesPage() {
  gamesBoard = new Board(document.getElementById("game-board"), null);
  document.getElementById("first").addEventListener("click", () => showPly(0));
  document.getElementById("prev").addEventListener("click", () => showPly(state.ply - 1));
  document.getElementById("next").addEventListener("click", () => showPly(state.ply + 1));
  document.getElementById("last").addEventListener("click", () => showPly(state.game ? state.game.plies : 0));
  document.getElementById("ply-slider").addEventListener("input", e => showPly(Number(e.target.value)));
  document.getElementById("game-filter").addEventListener("change", renderGameList);
  document.getElementById("games-network-toggle").addEventListener("change", refreshGamesNetwork);
  document.addEventListener("keydown", e => {
    if (document.getElementById("games-page").hidden || !state.game) return;
    if (e.target.tagName === "INPUT" || e.target.tagName === "SELECT") return;
    const moves = { ArrowLeft: -1, ArrowRight: 1 };
    if (e.key in moves) showPly(state.ply + moves[e.key]);
    else if (e.key === "Home") showPly(0);
    else if (e.key === "End") showPly(state.game.plies);
    else return;
    e.preventDefault();
  });
}

// ---------------------------------------------------------------- play page

let playBoard;

function setStatus(text, isError = false) {
  const status = document.getElementById("play-status");
  status.textContent = text;
  status.classList.toggle("error", isError);
}

function showPlayState(play) {
  state.play = play;
  state.selection = null;
  playBoard.show(play.board.svg);
  document.getElementById("play-board").dataset.ply = play.board.ply;
  document.getElementById("play-choices").replaceChildren();
  const list = document.getElementById("play-moves");
  list.replaceChildren();
  for (const mv of play.moves) {
    const item = el("li", { "data-ply": mv.ply, title: `${mv.color}: ${mv.canonical}` });
    item.append(document.createTextNode(mv.hodges));
    item.append(el("span", { class: "canonical" }, mv.canonical));
    list.append(item);
  }
  if (list.lastChild) list.lastChild.scrollIntoView({ block: "nearest" });
  document.getElementById("play-undo").disabled = !play.moves.some(m => m.color === play.human);
  let text;
  if (play.board.outcome) text = `Game over. ${play.board.outcome}`;
  else if (play.your_turn) text = `Your move (${play.human}).`;
  else text = "Engine to move.";
  if (play.engine && play.engine.wdl && !play.board.outcome) {
    const [w, d, l] = play.engine.wdl;
    text += ` Engine's view of its last move: win ${percent(w)}, draw ${percent(d)}, loss ${percent(l)}.`;
  }
  setStatus(text);
  refreshPlayNetwork();
}

async function refreshPlayNetwork() {
  const panel = document.getElementById("play-network");
  const ticket = ++analysisTicket;
  if (!document.getElementById("play-network-toggle").checked || !state.play) {
    panel.replaceChildren();
    playBoard.clearArrows();
    return;
  }
  const checkpoint = selectedCheckpoint();
  if (!checkpoint) {
    panel.textContent = "This run has no checkpoint yet.";
    return;
  }
  try {
    const view = await api(`/api/analyze?checkpoint=${encodeURIComponent(checkpoint)}` +
      `&session=${state.play.id}&top=10`);
    if (ticket !== analysisTicket) return;
    showNetworkView(panel, playBoard, view);
  } catch (e) {
    if (ticket !== analysisTicket) return;
    playBoard.clearArrows();
    panel.textContent = e.message;
  }
}

/** A move as the steps chosen by clicking: each leg, each shot, then the promotion choice. */
function steps(mv) {
  const out = mv.legs.map(value => ({ kind: "leg", value }));
  for (const value of mv.shots) out.push({ kind: "shot", value });
  if (mv.promotion !== "none") out.push({ kind: "promotion", value: mv.promotion });
  return out;
}

function sameStep(a, b) { return a.kind === b.kind && a.value === b.value; }

/** The candidates still matching the chosen steps, the complete one, and the possible next steps. */
function selectionOptions(selection) {
  const n = selection.chosen.length;
  const remaining = selection.candidates.filter(mv => {
    const s = steps(mv);
    return s.length >= n && selection.chosen.every((step, i) => sameStep(step, s[i]));
  });
  const complete = remaining.find(mv => steps(mv).length === n) || null;
  const next = [];
  for (const mv of remaining) {
    const s = steps(mv);
    if (s.length > n && !next.some(x => sameStep(x, s[n]))) next.push(s[n]);
  }
  return { remaining, complete, next };
}

/** Where the piece stands after the chosen legs (the origin before any). */
function currentPoint(selection) {
  const legs = selection.chosen.filter(s => s.kind === "leg");
  return legs.length ? legs[legs.length - 1].value : selection.origin;
}

function renderSelection() {
  const selection = state.selection;
  const choices = document.getElementById("play-choices");
  choices.replaceChildren();
  if (!selection) {
    playBoard.clearMarks();
    return;
  }
  const { complete, next } = selectionOptions(selection);
  const marks = [{ square: selection.origin, kind: "selected" }];
  for (const step of selection.chosen) {
    if (step.kind === "leg") marks.push({ square: step.value, kind: "selected" });
  }
  for (const step of next) {
    if (step.kind === "leg" || step.kind === "shot") marks.push({ square: step.value, kind: step.kind });
  }
  if (complete && selection.chosen.length > 0) marks.push({ square: currentPoint(selection), kind: "stop" });
  playBoard.mark(marks);
  const button = (label, action, choice) => {
    const b = el("button", { "data-choice": choice }, label);
    b.addEventListener("click", action);
    choices.append(b);
  };
  if (complete && selection.chosen.length > 0) button("Stop here", () => submitMove(complete), "stop");
  for (const step of next) {
    if (step.kind === "promotion") {
      button(step.value === "promote" ? "Promote" : "Don't promote", () => chooseStep(step), step.value);
    }
  }
  button("Cancel", () => { state.selection = null; renderSelection(); }, "cancel");
}

function chooseStep(step) {
  state.selection.chosen.push(step);
  // One move left: it is decided (any further steps are forced).
  const { remaining } = selectionOptions(state.selection);
  if (remaining.length === 1) {
    submitMove(remaining[0]);
  } else {
    renderSelection();
  }
}

async function clickPlayPoint(square) {
  const play = state.play;
  if (!play || !play.your_turn) return;
  const selection = state.selection;
  if (selection) {
    const { complete, next } = selectionOptions(selection);
    const matching = next.filter(s => (s.kind === "leg" || s.kind === "shot") && s.value === square);
    if (matching.length === 1) {
      chooseStep(matching[0]);
      return;
    }
    if (matching.length > 1) {
      // The same point as a leg and as a shot: ask which.
      const choices = document.getElementById("play-choices");
      choices.replaceChildren();
      for (const step of matching) {
        const b = el("button", { "data-choice": step.kind },
          step.kind === "leg" ? `Move to ${square}` : `Shoot ${square}`);
        b.addEventListener("click", () => chooseStep(step));
        choices.append(b);
      }
      return;
    }
    if (complete && selection.chosen.length > 0 && square === currentPoint(selection)) {
      submitMove(complete);
      return;
    }
    if (square === selection.origin && selection.chosen.length === 0) {
      state.selection = null;
      renderSelection();
      return;
    }
  }
  try {
    const data = await api(`/api/play/legal?id=${play.id}&square=${square}`);
    if (data.moves.length === 0) {
      state.selection = null;
      renderSelection();
      setStatus(`No legal move from ${square}.`);
      return;
    }
    state.selection = { origin: square, candidates: data.moves, chosen: [] };
    setStatus(`${square}: ${data.moves.length} legal move${data.moves.length > 1 ? "s" : ""}.`);
    renderSelection();
  } catch (e) {
    setStatus(e.message, true);
  }
}

async function submitMove(mv) {
  const play = state.play;
  state.selection = null;
  renderSelection();
  setStatus(`You play ${mv.hodges}; the engine is thinking…`);
  try {
    showPlayState(await api("/api/play/move", { id: play.id, move: mv.canonical }));
  } catch (e) {
    setStatus(e.message, true);
  }
}

async function newPlayGame() {
  const opponent = document.getElementById("play-opponent").value;
  const simulations = Number(document.getElementById("play-sims").value) || 0;
  const color = document.getElementById("play-color").value;
  setStatus(color === "white" ? "The engine opens…" : "Starting…");
  try {
    showPlayState(await api("/api/play/new", { opponent, simulations, color }));
  } catch (e) {
    setStatus(e.message, true);
  }
}

function setUpPlayPage() {
  playBoard = new Board(document.getElementById("play-board"), clickPlayPoint);
  document.getElementById("play-new").addEventListener("click", newPlayGame);
  document.getElementById("play-undo").addEventListener("click", async () => {
    try {
      showPlayState(await api("/api/play/undo", { id: state.play.id }));
    } catch (e) {
      setStatus(e.message, true);
    }
  });
  document.getElementById("play-network-toggle").addEventListener("change", refreshPlayNetwork);
}

// ---------------------------------------------------------------- training page

const SERIES_COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2"];

function niceTicks(lo, hi, count) {
  if (!(hi > lo)) { hi = lo + 1; lo -= 1; }
  const raw = (hi - lo) / count;
  const magnitude = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = [1, 2, 5, 10].map(m => m * magnitude).find(s => s >= raw);
  const ticks = [];
  for (let t = Math.ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) ticks.push(Number(t.toPrecision(12)));
  return ticks;
}

function formatNumber(v) {
  const a = Math.abs(v);
  if (a !== 0 && (a >= 1e5 || a < 1e-3)) return v.toExponential(1);
  return String(Number(v.toPrecision(4)));
}

/** A line chart: series [{name, points: [[x, y]…], band: [[x, lo, hi]…]?}]. */
function lineChart(title, series, yLabel) {
  const box = el("div", { class: "chart" });
  box.append(el("h3", {}, title));
  const W = 520, H = 260, left = 56, right = 12, top = 10, bottom = 34;
  const svg = svgEl("svg", { viewBox: `0 0 ${W} ${H}` });
  const all = series.flatMap(s => s.points.concat((s.band || []).flatMap(([x, lo, hi]) => [[x, lo], [x, hi]])));
  if (all.length === 0) {
    box.append(el("div", { class: "muted" }, "no data yet"));
    return box;
  }
  let [x0, x1] = [Math.min(...all.map(p => p[0])), Math.max(...all.map(p => p[0]))];
  let [y0, y1] = [Math.min(...all.map(p => p[1])), Math.max(...all.map(p => p[1]))];
  if (x1 === x0) { x0 -= 1; x1 += 1; }
  if (y1 === y0) { y0 -= 1; y1 += 1; }
  const pad = (y1 - y0) * 0.05;
  y0 -= pad; y1 += pad;
  const sx = x => left + (x - x0) / (x1 - x0) * (W - left - right);
  const sy = y => top + (1 - (y - y0) / (y1 - y0)) * (H - top - bottom);
  for (const t of niceTicks(y0, y1, 5)) {
    if (t < y0 || t > y1) continue;
    svg.append(svgEl("line", { class: "grid", x1: left, x2: W - right, y1: sy(t), y2: sy(t) }));
    svg.append(svgEl("text", { x: left - 4, y: sy(t) + 4, "text-anchor": "end" }, formatNumber(t)));
  }
  for (const t of niceTicks(x0, x1, 6)) {
    if (t < x0 || t > x1) continue;
    svg.append(svgEl("line", { class: "grid", x1: sx(t), x2: sx(t), y1: top, y2: H - bottom }));
    svg.append(svgEl("text", { x: sx(t), y: H - bottom + 14, "text-anchor": "middle" }, formatNumber(t)));
  }
  svg.append(svgEl("line", { class: "axis", x1: left, x2: left, y1: top, y2: H - bottom }));
  svg.append(svgEl("line", { class: "axis", x1: left, x2: W - right, y1: H - bottom, y2: H - bottom }));
  svg.append(svgEl("text", { x: (left + W - right) / 2, y: H - 4, "text-anchor": "middle" }, "training step"));
  if (yLabel) {
    svg.append(svgEl("text", { x: 12, y: (top + H - bottom) / 2, "text-anchor": "middle",
      transform: `rotate(-90 12 ${(top + H - bottom) / 2})` }, yLabel));
  }
  series.forEach((s, i) => {
    const colour = SERIES_COLOURS[i % SERIES_COLOURS.length];
    if (s.band && s.band.length) {
      const upper = s.band.map(([x, , hi]) => `${sx(x)},${sy(hi)}`);
      const lower = s.band.slice().reverse().map(([x, lo]) => `${sx(x)},${sy(lo)}`);
      svg.append(svgEl("polygon", { points: upper.concat(lower).join(" "), fill: colour, "fill-opacity": 0.15 }));
    }
    const points = s.points.map(([x, y]) => `${sx(x)},${sy(y)}`).join(" ");
    svg.append(svgEl("polyline", { points, fill: "none", stroke: colour, "stroke-width": 2 }));
    if (s.points.length <= 40) {
      for (const [x, y] of s.points) {
        const dot = svgEl("circle", { cx: sx(x), cy: sy(y), r: 2.5, fill: colour });
        dot.append(svgEl("title", {}, `${s.name}: step ${x}, ${formatNumber(y)}`));
        svg.append(dot);
      }
    }
  });
  box.append(svg);
  const legend = el("div");
  series.forEach((s, i) => {
    const item = el("span", { style: "margin-right:12px" });
    item.append(el("span", { class: "swatch", style: `background:${SERIES_COLOURS[i % SERIES_COLOURS.length]}` }),
      document.createTextNode(s.name));
    legend.append(item);
  });
  box.append(legend);
  return box;
}

async function loadTraining() {
  const status = document.getElementById("training-status");
  const charts = document.getElementById("charts");
  status.textContent = "loading…";
  let data;
  try {
    data = await api("/api/training");
  } catch (e) {
    status.textContent = e.message;
    return;
  }
  charts.replaceChildren();
  const tags = [];
  for (const [run, series] of Object.entries(data.runs)) {
    for (const [tag, points] of Object.entries(series)) tags.push({ run, tag, points });
  }
  const losses = tags.filter(t => t.tag.startsWith("loss/"));
  charts.append(lineChart("Training loss", losses.map(t => ({ name: t.tag, points: t.points })), "loss"));

  let elo;
  if (data.ladder && data.ladder.length) {
    // Checkpoints have a step; fixed baselines (random, greedy, ab:2…) have none and are drawn
    // as level lines across the checkpoints' steps.
    const checkpoints = data.ladder.filter(r => r.step !== null);
    const steps = checkpoints.map(r => r.step);
    const [first, last] = steps.length ? [Math.min(...steps), Math.max(...steps)] : [0, 1];
    elo = [{
      name: "Elo (ladder.csv, ± 1.96 s.e.)",
      points: checkpoints.map(r => [r.step, r.elo]),
      band: checkpoints.map(r => [r.step, r.elo - 1.96 * r.stderr, r.elo + 1.96 * r.stderr]),
    }];
    for (const r of data.ladder.filter(r => r.step === null)) {
      elo.push({ name: `${r.name} ${formatNumber(r.elo)}`, points: [[first, r.elo], [last, r.elo]] });
    }
  } else {
    elo = tags.filter(t => t.tag === "arena/elo").map(t => ({ name: t.tag, points: t.points }));
  }
  charts.append(lineChart("Elo of the checkpoints (anchor: the random network)", elo, "Elo"));
  if (data.picture) {
    // The ladder's own picture (arena/elo.svg): Elo against training hours and steps.
    const figure = el("div", { class: "chart picture" });
    figure.append(el("h3", {}, "Picture of progress (arena/elo.svg, drawn by the ladder)"));
    const link = el("a", { href: data.picture, target: "_blank", rel: "noopener" });
    link.append(el("img", { src: data.picture, alt: "Elo against training hours and steps, with the ladder's baselines" }));
    figure.append(link);
    charts.append(figure);
  }

  // Any other logged scalar, picked from a list.
  const others = tags.filter(t => !t.tag.startsWith("loss/") && t.tag !== "arena/elo");
  if (others.length) {
    const holder = el("div");
    const select = el("select", { id: "training-tag" });
    others.forEach((t, i) => select.append(el("option", { value: i }, t.run ? `${t.run}: ${t.tag}` : t.tag)));
    const preferred = others.findIndex(t => t.tag === "train/samples_per_second");
    if (preferred >= 0) select.value = preferred;
    const draw = () => {
      const t = others[Number(select.value)];
      const chart = lineChart(t.tag, [{ name: t.tag, points: t.points }]);
      chart.querySelector("h3").append(select);
      holder.replaceChildren(chart);
    };
    select.addEventListener("change", draw);
    draw();
    charts.append(holder);
  }
  const count = tags.reduce((n, t) => n + t.points.length, 0);
  status.textContent = tags.length
    ? `${tags.length} logged scalars, ${count} points (from <run>/tb and arena/ladder.csv; TensorBoard shows everything).`
    : "No TensorBoard logs in this run yet.";
}

// ---------------------------------------------------------------- start-up

function showPage(id) {
  for (const tab of document.querySelectorAll(".tab")) tab.classList.toggle("active", tab.dataset.page === id);
  for (const page of document.querySelectorAll(".page")) page.hidden = page.id !== id;
  if (id === "training-page") loadTraining();
}

async function start() {
  const run = await api("/api/run");
  state.geometry = run.geometry;
  document.getElementById("run-dir").textContent = run.run_dir;
  for (const tab of document.querySelectorAll(".tab")) {
    tab.addEventListener("click", () => showPage(tab.dataset.page));
  }
  setUpGamesPage();
  setUpPlayPage();
  const { checkpoints } = await api("/api/checkpoints");
  state.checkpoints = checkpoints;
  const network = document.getElementById("network-checkpoint");
  const opponent = document.getElementById("play-opponent");
  for (const c of checkpoints.slice().reverse()) {
    network.append(el("option", { value: c.name }, `${c.name}`));
    opponent.append(el("option", { value: c.name }, `network ${c.name}`));
  }
  if (!checkpoints.length) network.append(el("option", { value: "" }, "no checkpoint"));
  opponent.append(el("option", { value: "material" }, "material evaluator (no network)"));
  network.addEventListener("change", () => { refreshGamesNetwork(); refreshPlayNetwork(); });
  await loadGames();
  await openFromAddress();
  document.body.dataset.ready = "true";
}

/** Links into the viewer: `?game=NAME&ply=N&network=1` or `?tab=play|training`. */
async function openFromAddress() {
  const params = new URLSearchParams(location.search);
  const checkpoint = params.get("checkpoint");
  if (checkpoint) document.getElementById("network-checkpoint").value = checkpoint;
  if (params.get("network") === "1") {
    document.getElementById("games-network-toggle").checked = true;
    document.getElementById("play-network-toggle").checked = true;
  }
  const game = params.get("game");
  if (game) {
    await openGame(game);
    const ply = Number(params.get("ply"));
    if (ply > 0) await showPly(ply);
  }
  const tab = params.get("tab");
  if (tab === "play" || tab === "training") showPage(`${tab}-page`);
}

/** Keeps the address pointing at the game and ply on screen (to share or reload). */
function rememberPosition() {
  const params = new URLSearchParams(location.search);
  params.set("game", state.game.name);
  params.set("ply", state.ply);
  history.replaceState(null, "", `?${params}`);
}

start().catch(e => {
  document.body.dataset.ready = "error";
  document.querySelector("main").prepend(el("p", { class: "status error" }, `Cannot load the viewer: ${e.message}`));
});
