// The attempt as the page keeps it, built only from what the server sent: its description
// (GET attempts/<id>/, start, resign) or an action post's answer. Pure functions
// (unit-tested): no rules, no guessing; the clock too runs from the server's seconds.

// An attempt's description, with its score's total at hand (`score` is a number in some
// answers and {total, …} in others).
export function fromDetail(detail) {
  const score = detail.score;
  return { ...detail, scoreTotal: typeof score === "object" && score ? score.total : score };
}

// What to animate after an answer: columns whose top card turned face up (the answer's
// `revealed`; none when cards were dealt, they fly in instead), whether the stock dealt,
// and foundations that just received a complete run.
export function flashOf(before, data) {
  const flash = { flip: new Set(), dealt: false, home: new Set() };
  for (const { pile } of data.revealed) flash.flip.add(pile);
  if (data.state.stock.length < before.state.stock.length) flash.dealt = true;
  data.state.foundations.forEach((cards, i) => {
    if (cards.length === 13 && before.state.foundations[i].length !== 13) flash.home.add(`f${i + 1}`);
  });
  if (flash.dealt) flash.flip.clear();
  return flash;
}

// The attempt after an action post's answer (POST attempts/<id>/actions/ 200).
export function afterAnswer(before, data) {
  return {
    ...before,
    offset: data.offset,
    action_count: data.action_count,
    state: data.state,
    legal_actions: data.legal_actions,
    won: data.won,
    over: data.over,
    deals_left: data.deals_left,
    runs_completed: data.runs_completed,
    // The deal's face-down cards no longer face down, counted on the state the server sent.
    cards_turned_up: Number.isInteger(before.face_down_dealt)
      ? before.face_down_dealt - data.state.face_down.reduce((sum, n) => sum + n, 0)
      : before.cards_turned_up,
    scoreTotal: data.score.total,
  };
}

// The clock's seconds: the server's elapsed seconds at `clockAt` (ms, performance.now())
// plus the time since; an ended attempt's own elapsed seconds; 0 before Start.
export function clockSeconds(attempt, clockBase, clockAt, now) {
  if (!attempt) return 0;
  if (attempt.over) return attempt.elapsed_seconds;
  return clockBase + (now - clockAt) / 1000;
}

// Every card face up and the stock dealt: the rest of the game is in sight (the server's
// auto-complete may play it).
export function safeToFinish(view) {
  return Boolean(view) && view.stock.length === 0 && view.face_down.every((n) => n === 0);
}
