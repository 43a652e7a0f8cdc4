// Pure: the replay page's sentence on where a lost game was lost, from the analysis JSON
// (GET /api/v1/attempts/<id>/analysis/, docs/api.md "Game analysis") alone. "As far as the
// analysis could tell" only when a budget ran out; a proof is said plainly, and so is a proven
// bound (``lost_by``) after a losing action that is not proven.

const count = (n) => Number(n).toLocaleString("en-US");

// The positions a decided position's proof searched, as words ("" when not recorded). 0: every
// position reachable from it was among those the proofs of later positions had covered.
function searched(position) {
  if (!position || !Number.isInteger(position.nodes)) return "";
  return position.nodes > 0 ? `: ${count(position.nodes)} positions searched` : " by the proofs of the positions after it";
}

// The budget a position had, as words: "its budget of N positions" or "the analysis's budget".
function budgetWords(position) {
  return position && position.budget > 0 ? `its budget of ${count(position.budget)} positions` : "the analysis's budget";
}

// The proven bound on where the game was lost, as a sentence to add (" After action j, …"),
// from the analysis's ``lost_by`` (docs/api.md), or "" when none was proven. ``bracket``: after
// an unproven losing action, a win having been found just before it: the game was lost at that
// action or a later one, and the bound is the latest it can be.
function provenBound(lostBy, words, bracket = false) {
  if (!lostBy) return "";
  const action = `action ${lostBy.index + 1}, ${words(lostBy.action)}`;
  const proof = `(proven${searched(lostBy)})`;
  if (bracket) return ` It was lost there or later, and by ${action}, at the latest: after it no win existed ${proof}.`;
  return ` After ${action}, no win existed ${proof}.`;
}

// The sentence for a done analysis of a game that was not won (null otherwise).
// ``words(action)`` says an action in words (replay.js's moveWords).
export function lostVerdict(analysis, won, words = (action) => action) {
  if (won || !analysis || analysis.status !== "done") return null;
  const positions = analysis.positions || [];
  const at = (step) => positions.find((p) => p.step === step);
  const deal = at(0);
  if (deal && deal.status === "unsolvable") {
    return `This deal was never winnable (proven${searched(deal)}).`;
  }
  const lost = analysis.lost_at;
  if (lost) {
    const after = at(lost.index + 1);
    const proven = lost.proven === true || (after && after.status === "unsolvable");
    const action = `action ${lost.index + 1}, ${words(lost.action)}`;
    if (proven) return `The game was lost here: ${action}. After it no win exists (proven${searched(after)}).`;
    const bracket = provenBound(analysis.lost_by, words, true);
    return `The game was lost here, as far as the analysis could tell: no win was found after ${action}, within ${budgetWords(after)}.${bracket}`;
  }
  const bound = provenBound(analysis.lost_by, words);
  const winnable = positions.filter((p) => p.status === "solved").map((p) => p.step);
  const last = positions.reduce((most, p) => Math.max(most, p.step), -1);
  if (winnable.includes(last)) {
    return "No losing action: the game could still be won when it ended.";
  }
  if (winnable.length === 0) {
    return `No losing action was found: no win was found even from the deal within ${budgetWords(deal)}, so the analysis cannot tell where (or whether) the game was lost.${bound}`;
  }
  const from = Math.max(...winnable);
  const later = positions.filter((p) => p.step > from).map((p) => p.step);
  const to = later.length ? Math.min(...later) : last;
  return `No losing action was found: the analysis's budget ran out between action ${from + 1} and action ${to}, a win found before them and none after.${bound}`;
}
