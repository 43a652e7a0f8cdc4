// Draws docs/rules.md's State JSON (view form) as DOM: no rules here, only pictures and names.
import { el } from "./api.js";

const RANKS = { A: "Ace", 2: "Two", 3: "Three", 4: "Four", 5: "Five", 6: "Six", 7: "Seven",
  8: "Eight", 9: "Nine", T: "Ten", J: "Jack", Q: "Queen", K: "King" };
const SUITS = { S: ["spades", "♠"], H: ["hearts", "♥"], D: ["diamonds", "♦"], C: ["clubs", "♣"] };
const RANK_TEXT = { T: "10" };

export function cardName(card) {
  if (!card) return "Face-down card";
  return `${RANKS[card[0]]} of ${SUITS[card[1]][0]}`;
}

// What a face-up card shows ("10♥"): the start of its accessible name, so that the name
// holds the visible text (WCAG 2.5.3, "label in name": a voice user says what they see).
export function cardText(card) {
  return `${RANK_TEXT[card[0]] || card[0]}${SUITS[card[1]][1]}`;
}

// A face-up card's accessible name: what it shows, then its name ("10♥ Ten of hearts").
export function cardLabel(card) {
  return card ? `${cardText(card)} ${cardName(card)}` : cardName(card);
}

export function pileName(pile) {
  const kind = { t: "Column", c: "Cell", f: "Foundation" }[pile[0]];
  return kind ? `${kind} ${pile.slice(1)}` : "Stock";
}

export function cardFace(card, attrs) {
  if (!card) {
    return el("div", { class: "card back", role: "img", "aria-label": "Face-down card", ...attrs });
  }
  const [name, symbol] = SUITS[card[1]];
  const rank = RANK_TEXT[card[0]] || card[0];
  const red = card[1] === "H" || card[1] === "D";
  return el("div", { class: `card up ${red ? "red" : "black"} suit-${name}`, ...attrs },
    el("span", { class: "corner", "aria-hidden": "true" }, el("b", { text: rank }), el("i", { text: symbol })),
    el("span", { class: "pip", "aria-hidden": "true", text: symbol }),
    // The second corner is drawn by CSS from its data: the card's text is "A♠" once, as its
    // accessible name starts (a text shown twice would be a name the label does not match).
    el("span", { class: "corner end", "aria-hidden": "true", "data-rank": rank, "data-suit": symbol }));
}

function focusAttrs(key, ui) {
  return { "data-focus": key, tabindex: key === ui.focusKey ? "0" : "-1" };
}

// ui: {selection: {pile, n} | null, targets: Set of piles, focusKey, interactive,
//      dealsLeft, flash: {flip: Set of piles, dealt: bool, home: Set of foundations},
//      hint: {src, dst, n} | null (a server's suggested action, drawn highlighted),
//      reveal: bool (a full State JSON the server has made public: face-down cards shown),
//      revealNote: how such a card is named (default "face down at the start")}
export function renderBoard(container, view, ui) {
  ui = { targets: new Set(), focusKey: null, interactive: false, ...ui };
  const columns = view.tableau.length;
  const topPiles = topRowPiles(view);
  container.className = `board variant-${view.variant}${ui.interactive ? " live" : " study"}`;
  container.style.setProperty("--cols", columns);
  container.style.setProperty("--top", topPiles.length);
  const flash = ui.flash || {};
  const selected = (pile, index, length) =>
    ui.selection && ui.selection.pile === pile && index >= length - ui.selection.n;
  const hint = ui.hint || null;
  const pileClass = (base, pile) => `pile ${base}${ui.targets.has(pile) ? " target" : ""}` +
    `${hint && hint.dst === pile ? " hint-target" : ""}${hint && hint.src === pile ? " hint-source" : ""}`;
  const hinted = (pile, index, length) => hint && hint.src === pile && index >= length - hint.n;

  const top = el("div", { class: "toprow" });
  // A position without its game's count (a replay's, an analysis' line): the state's stock,
  // one card a column a deal.
  const dealsLeft = Number.isInteger(ui.dealsLeft) ? ui.dealsLeft : Math.floor(view.stock.length / Math.max(1, view.tableau.length));
  const stockLabel = `Stock: ${dealsLeft} ${dealsLeft === 1 ? "deal" : "deals"} left${ui.interactive && dealsLeft ? ". Deal" : ""}`;
  const stock = el("div", { class: `pile stock${hint && hint.src === "stock" ? " hint-source" : ""}`, "data-pile": "stock", role: "button",
    "aria-label": stockLabel, ...focusAttrs("stock:", ui) });
  for (let i = 0; i < Math.min(dealsLeft, 5); i += 1) {
    stock.append(el("div", { class: "card back", style: `--i:${i}`, "aria-hidden": "true" }));
  }
  stock.append(el("span", { class: "badge", "aria-hidden": "true", text: String(dealsLeft) }));
  top.append(stock);

  view.cells.forEach((card, i) => {
    const pile = `c${i + 1}`;
    const node = el("div", { class: pileClass("cell", pile), "data-pile": pile, role: "button",
      "aria-label": `${pileName(pile)}: ${card ? cardLabel(card) : "empty"}`, ...focusAttrs(`${pile}:`, ui) });
    if (card) {
      const face = cardFace(card, { "aria-hidden": "true", "data-pile": pile, "data-index": "0" });
      if (selected(pile, 0, 1)) face.classList.add("selected");
      if (hinted(pile, 0, 1)) face.classList.add("hint");
      node.append(face);
    }
    top.append(node);
  });

  view.foundations.forEach((cards, i) => {
    const pile = `f${i + 1}`;
    const topCard = cards.length ? cards[cards.length - 1] : null;
    const label = cards.length
      ? `${pileName(pile)}: ${cards.length} cards${cards.length === 13 ? ", a complete run" : ""}, top ${cardLabel(topCard)}`
      : `${pileName(pile)}: empty`;
    const node = el("div", { class: pileClass("foundation", pile), "data-pile": pile, role: "button",
      "aria-label": label, ...focusAttrs(`${pile}:`, ui) });
    if (topCard) {
      const face = cardFace(topCard, { "aria-hidden": "true", "data-pile": pile, "data-index": String(cards.length - 1) });
      if (flash.home && flash.home.has(pile)) face.classList.add("home");
      if (selected(pile, 0, 1)) face.classList.add("selected");
      node.append(face);
    }
    top.append(node);
  });

  const tableau = el("div", { class: "tableau" });
  view.tableau.forEach((cards, i) => {
    const pile = `t${i + 1}`;
    const down = view.face_down[i];
    const column = el("div", { class: pileClass("column", pile), "data-pile": pile,
      style: `--n:${cards.length};--down:${Math.min(down, cards.length)}` });
    if (!cards.length) {
      column.setAttribute("role", "button");
      column.setAttribute("aria-label", `${pileName(pile)}: empty`);
      column.setAttribute("data-focus", `${pile}:`);
      column.setAttribute("tabindex", ui.focusKey === `${pile}:` ? "0" : "-1");
    } else {
      column.setAttribute("role", "group");
      column.setAttribute("aria-label", `${pileName(pile)}: ${cards.length} cards, ${down} face down`);
    }
    cards.forEach((card, index) => {
      const faceUp = index >= down && card;
      const attrs = { "data-pile": pile, "data-index": String(index),
        style: `--i:${index};--up:${Math.max(0, index - down)};--dn:${Math.min(index, down)}` };
      let node;
      if (faceUp) {
        const extra = cards.length - index > 1 ? ` (with ${cards.length - index - 1} on it)` : "";
        node = cardFace(card, { ...attrs, role: "button",
          "aria-label": `${cardLabel(card)}, ${pileName(pile).toLowerCase()}${extra}`,
          ...focusAttrs(`${pile}:${index}`, ui) });
        if (selected(pile, index, cards.length)) node.classList.add("selected");
        if (index === cards.length - 1 && flash.flip && flash.flip.has(pile)) node.classList.add("flip");
        if (index === cards.length - 1 && flash.dealt) node.classList.add("dealt");
        if (hinted(pile, index, cards.length)) node.classList.add("hint");
      } else if (ui.reveal && card) {
        node = cardFace(card, { ...attrs, role: "img",
          "aria-label": `${cardLabel(card)}, ${pileName(pile).toLowerCase()}, ${ui.revealNote || "face down at the start"}` });
        node.classList.add("was-down");
      } else {
        node = cardFace(null, attrs);
      }
      column.append(node);
    });
    tableau.append(column);
  });
  container.replaceChildren(top, tableau);
}

export function topRowPiles(view) {
  return ["stock", ...view.cells.map((_, i) => `c${i + 1}`), ...view.foundations.map((_, i) => `f${i + 1}`)];
}

// A row of cards the server has made public (the stock of a revealed deal), in order.
export function renderCardRow(container, cards, label) {
  const row = el("ol", { class: "card-row", "aria-label": label });
  cards.forEach((card, i) => {
    row.append(el("li", { class: "pile" }, cardFace(card, { role: "img", "aria-label": `${i + 1}: ${cardLabel(card)}` })));
  });
  container.replaceChildren(row);
}
