// Board input: click and click, double click, drag and drop (pointer events, so touch too),
// the keyboard's roving focus and the page's shortcut keys. Everything ends in the game's
// own moves (game.js): activate, place, sendToFirstLegal, deal, undo, putBack.
import { el } from "../api.js";
import { defaultFocus, nextFocusKey, parseFocusKey } from "./focus.js";
import { pick, pileCards, runLength } from "./moves.js";

const ARROWS = ["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown"];
const DRAG_THRESHOLD_PX = 6;

export function attachBoardInput(game) {
  const { S, board } = game;
  let drag = null; // {pile, index, x, y, id, ghost, dx, dy}: a card held by a pointer
  let suppressClick = false; // the click that ends a drag is not a pick

  // The pile (and card index, null for a pile itself) under a DOM node of the board.
  function hit(target) {
    const node = target && target.closest && target.closest("[data-pile]");
    if (!node || !board.contains(node)) return null;
    const index = node.dataset.index !== undefined ? Number(node.dataset.index) : null;
    return { pile: node.dataset.pile, index };
  }

  board.addEventListener("click", (event) => {
    if (suppressClick) {
      suppressClick = false;
      return;
    }
    const h = hit(event.target);
    if (!h) return;
    const focusNode = event.target.closest("[data-focus]");
    if (focusNode) S.focusKey = focusNode.dataset.focus;
    if (event.detail === 2 && h.pile !== "stock") {
      // A double click. Not the dblclick event: the first click picked the card up and
      // redrew the board, so the two clicks hit different nodes and Chromium fires none.
      const cards = pileCards(game.view(), h.pile);
      game.sendToFirstLegal(h.pile, h.pile[0] === "t" ? h.index ?? cards.length - 1 : 0);
      return;
    }
    game.activate(h.pile, h.index);
  });

  // --- drag and drop: a pointer that moves a few pixels holding a face-up card ------------

  board.addEventListener("pointerdown", (event) => {
    if (!game.playing() || event.button !== 0) return;
    const h = hit(event.target);
    if (!h || h.pile === "stock" || h.index === null) return;
    if (pick(game.view(), h.pile, h.index).refused) return;
    drag = { pile: h.pile, index: h.index, x: event.clientX, y: event.clientY, id: event.pointerId, ghost: null };
  });

  function startDrag(event) {
    const n = runLength(game.view(), drag.pile, drag.index);
    S.selection = { pile: drag.pile, n };
    game.render();
    const sources = [...board.querySelectorAll(`[data-pile="${drag.pile}"].card`)].slice(-n);
    const rect = sources[0].getBoundingClientRect();
    const ghost = el("div", { class: "ghost", "aria-hidden": "true" });
    ghost.style.width = `${rect.width}px`;
    sources.forEach((node, i) => {
      const copy = node.cloneNode(true);
      copy.removeAttribute("tabindex");
      copy.removeAttribute("data-pile");
      copy.style.top = `${i * rect.height * 0.22}px`;
      ghost.append(copy);
      node.classList.add("lifted");
    });
    drag.dx = event.clientX - rect.left;
    drag.dy = event.clientY - rect.top;
    document.body.append(ghost);
    drag.ghost = ghost;
  }

  window.addEventListener("pointermove", (event) => {
    if (!drag || event.pointerId !== drag.id) return;
    if (!drag.ghost) {
      if (Math.hypot(event.clientX - drag.x, event.clientY - drag.y) < DRAG_THRESHOLD_PX) return;
      startDrag(event);
    }
    event.preventDefault();
    drag.ghost.style.transform = `translate(${event.clientX - drag.dx}px, ${event.clientY - drag.dy}px)`;
  });

  function endDrag(event, cancelled) {
    const d = drag;
    drag = null;
    if (!d.ghost) return;
    d.ghost.remove();
    suppressClick = true;
    window.setTimeout(() => { suppressClick = false; }, 0);
    const h = cancelled ? null : hit(document.elementFromPoint(event.clientX, event.clientY));
    if (!h || h.pile === d.pile) game.putBack(h ? "Put back." : "Dropped outside the board: put back.");
    else game.place(h.pile);
  }

  window.addEventListener("pointerup", (event) => {
    if (drag && event.pointerId === drag.id) endDrag(event, false);
  });
  window.addEventListener("pointercancel", (event) => {
    if (drag && event.pointerId === drag.id) endDrag(event, true);
  });

  // --- keyboard: one tab stop, arrows move within the board, Enter/Space pick and place ---

  board.addEventListener("keydown", (event) => {
    if (ARROWS.includes(event.key)) {
      event.preventDefault();
      const v = game.view();
      game.setFocus(nextFocusKey(v, S.focusKey || defaultFocus(v), event.key));
    } else if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      const { pile, index } = parseFocusKey(S.focusKey);
      game.activate(pile, index);
    }
  });

  board.addEventListener("focusin", (event) => {
    const node = event.target.closest("[data-focus]");
    if (node) S.focusKey = node.dataset.focus;
  });
}

// U undo, D deal, ? the help, Esc closes the help and puts a picked card back; not while
// typing, nor with a modifier key.
export function attachShortcutKeys(game, toggleHelp) {
  document.addEventListener("keydown", (event) => {
    const tag = event.target.tagName;
    if (tag === "INPUT" || tag === "TEXTAREA" || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.key === "u" || event.key === "U") game.undo();
    else if (event.key === "d" || event.key === "D") game.deal();
    else if (event.key === "?") toggleHelp();
    else if (event.key === "Escape") {
      toggleHelp(false);
      if (game.S.selection) game.putBack();
    }
  });
}
