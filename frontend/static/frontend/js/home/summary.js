// The home page's summaries, in words (pure: unit-tested): the top three of a day's board,
// and the player's result of yesterday's daily.

// "1. ann 1150 · 2. bob 990 · 3. cy 870" from a board's top rows (won games first, as the
// board ranks them); "Nobody has finished yet." when it has none.
export function topThreeText(top) {
  const rows = (top || []).slice(0, 3);
  if (!rows.length) return "Nobody has finished yet.";
  return rows.map((row) => `${row.rank}. ${row.username} ${row.score}${row.won ? "" : " (not won)"}`).join(" · ");
}

// Yesterday's result for the signed-in player, from that day's board (GET
// leaderboards/challenges/<id>/: `me`, `counts`, `top`).
export function yesterdayText(name, board) {
  const winner = board.top && board.top[0];
  const best = winner ? ` The best: ${winner.username} with ${winner.score}.` : "";
  const me = board.me;
  if (!me) return `${name}, yesterday: you did not play.${best}`;
  const how = me.won ? "won" : "did not win";
  return `${name}, yesterday: you ${how}, score ${me.score}, rank ${me.rank} of ${board.counts.finished}.${best}`;
}

// The date before `date` (YYYY-MM-DD, UTC).
export function dayBefore(date) {
  const day = new Date(`${date}T00:00:00Z`);
  day.setUTCDate(day.getUTCDate() - 1);
  return day.toISOString().slice(0, 10);
}
