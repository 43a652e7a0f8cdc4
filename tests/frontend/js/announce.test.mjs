// play/announce.js: what the live region says after a batch, and that it names no card the
// player has not turned up.
import assert from "node:assert/strict";
import { test } from "node:test";

import { actionText, announcement, refusalText, revealedText } from "../../../frontend/static/frontend/js/play/announce.js";
import { smallView } from "./views.mjs";

test("a move is said with the cards it takes, from where to where", () => {
  assert.equal(actionText(smallView(), "t1-t2:2"), "Moved Eight of spades and the card on it from column 1 to column 2.");
  assert.equal(actionText(smallView(), "t3-t1"), "Moved King of clubs from column 3 to column 1.");
  assert.equal(actionText(smallView(), "c1-t2"), "Moved Queen of diamonds from cell 1 to column 2.");
  assert.equal(actionText(smallView(), "deal"), "Dealt a card onto every column.");
  assert.equal(actionText(smallView(), "undo"), "Undid the last action.");
});

test("every card the server turned up is named with its column; a deal's cards as dealt", () => {
  assert.equal(revealedText([], false), "");
  assert.equal(revealedText([{ pile: "t1", card: "TD" }], false), "Turned up Ten of diamonds on column 1.");
  assert.equal(revealedText([{ pile: "t1", card: "AS" }, { pile: "t2", card: "KH" }], true),
    "Dealt Ace of spades on column 1, King of hearts on column 2.");
});

test("the announcement adds a run sent home and a win", () => {
  const answer = { revealed: [{ pile: "t1", card: "6C" }], runs_completed: 2, won: false };
  assert.equal(announcement(smallView(), ["t1-t3:3"], answer, 1),
    "Moved Nine of hearts and the 2 cards on it from column 1 to column 3. Turned up Six of clubs on column 1. A run went home: 2 of 8.");
  assert.equal(announcement(smallView(), ["t3-t2", "t1-t3"], { revealed: [], runs_completed: 8, won: true }, 7),
    "Played 2 actions. A run went home: 8 of 8. You won!");
});

test("it names only cards of the view before and of the server's revealed list", () => {
  const view = smallView();
  const answer = { revealed: [{ pile: "t1", card: "JH" }], runs_completed: 1, won: false };
  const text = announcement(view, ["t1-t2:3"], answer, 1);
  const visible = new Set([...view.tableau.flat(), ...view.cells, ...view.foundations.flat(), "JH"].filter(Boolean));
  const names = { A: "Ace", 2: "Two", 3: "Three", 4: "Four", 5: "Five", 6: "Six", 7: "Seven", 8: "Eight", 9: "Nine", T: "Ten", J: "Jack", Q: "Queen", K: "King" };
  const suits = { S: "spades", H: "hearts", D: "diamonds", C: "clubs" };
  const allowed = new Set([...visible].map((card) => `${names[card[0]]} of ${suits[card[1]]}`));
  for (const [name] of text.matchAll(/\b(Ace|Two|Three|Four|Five|Six|Seven|Eight|Nine|Ten|Jack|Queen|King) of (spades|hearts|diamonds|clubs)\b/g)) {
    assert.ok(allowed.has(name), name);
  }
});

test("a refusal is said in words: no action index, no codes, cards and piles named", () => {
  assert.equal(
    refusalText("Action 9 ('t1-t2') refused: 3H cannot go on 8H in t2: a card goes only on a card one rank higher"),
    "The Three of hearts cannot go on the Eight of hearts in column 2: a card goes only on a card one rank higher.",
  );
  assert.equal(
    refusalText("Action 0 ('t1-f1') refused: no card is played to a foundation by hand: a complete King-to-Ace run of one suit goes there by itself"),
    "No card is played to a foundation by hand: a complete King-to-Ace run of one suit goes there by itself.",
  );
  assert.equal(refusalText("Action 3 ('t4-t5') refused: TS cannot go on TD in t5: x."), "The Ten of spades cannot go on the Ten of diamonds in column 5: x.");
  assert.equal(refusalText(""), "That move is not allowed.");
});
