// What the play page's live region says after each accepted batch: the move in words, every
// card it turned face up, a run sent home, a win. Built only from the view before the batch
// (cards the player could see) and the server's answer (the cards it turned up for this
// player), so it never names a card the player has not turned up. Pure (unit-tested).
import { cardName, pileName } from "../board.js";
import { describeCards, parseAction } from "./moves.js";

const lower = (pile) => pileName(pile).toLowerCase();

// One action in words, read on the view before it.
export function actionText(before, action) {
  if (action === "deal") return "Dealt a card onto every column.";
  if (action === "undo") return "Undid the last action.";
  const move = parseAction(action);
  if (!move) return `Played ${action}.`;
  return `Moved ${describeCards(before, move.src, move.n)} from ${lower(move.src)} to ${lower(move.dst)}.`;
}

// The cards an answer turned face up ({pile, card} each, in the server's order), in words.
export function revealedText(revealed, dealt) {
  if (!revealed.length) return "";
  const cards = revealed.map(({ pile, card }) => `${cardName(card)} on ${lower(pile)}`);
  return `${dealt ? "Dealt" : "Turned up"} ${cards.join(", ")}.`;
}

// The whole announcement of an accepted batch: before (the view), actions (as posted),
// answer (the server's: revealed, runs_completed, won), runsBefore (runs home before it).
export function announcement(before, actions, answer, runsBefore) {
  const parts = [actions.length === 1 ? actionText(before, actions[0]) : `Played ${actions.length} actions.`];
  parts.push(revealedText(answer.revealed, actions.length === 1 && actions[0] === "deal"));
  if (answer.runs_completed > runsBefore) parts.push(`A run went home: ${answer.runs_completed} of 8.`);
  if (answer.won) parts.push("You won!");
  return parts.filter(Boolean).join(" ");
}

// A refused action in words for the status line: the server's refusal ("Action 9 ('t1-t2')
// refused: 3H cannot go on 8H in t2: a card goes only on a card one rank higher") without
// its index and code, cards and piles named ("The Three of hearts cannot go on the Eight
// of hearts in column 2: …"). The API keeps its exact text; this only rewords it.
const CARD_CODE = /\b([A2-9TJQK])([SHDC])\b/g;
const PILE_CODE = /\b(in|from|to) ([tcf]\d+)\b/g;

export function refusalText(message) {
  let text = String(message || "That move is not allowed.")
    .replace(/^Action \d+ \('[^']*'\) refused: /, "")
    .replace(PILE_CODE, (_, word, pile) => `${word} ${lower(pile)}`)
    .replace(CARD_CODE, (_, rank, suit) => `the ${cardName(rank + suit)}`);
  text = text.charAt(0).toUpperCase() + text.slice(1);
  return /[.!?]$/.test(text) ? text : `${text}.`;
}
