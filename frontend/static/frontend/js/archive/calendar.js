// The archive's calendar month, as weeks (Monday first) of days, each with its past daily
// if there is one. Pure functions (unit-tested): the dates come from the server.

const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
  "September", "October", "November", "December"];
export const WEEKDAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];

// "2026-11" -> "November 2026".
export function monthTitle(month) {
  const [year, number] = month.split("-").map(Number);
  return `${MONTHS[number - 1]} ${year}`;
}

const pad = (n) => String(n).padStart(2, "0");

// The weeks of `month` ("YYYY-MM"): seven cells each, {date, day, daily} for a day of the
// month (daily: the server's entry for that date, or null), null before the 1st and after
// the last day.
export function monthWeeks(month, days) {
  const [year, number] = month.split("-").map(Number);
  const byDate = new Map(days.map((day) => [day.date, day]));
  const first = new Date(Date.UTC(year, number - 1, 1));
  const length = new Date(Date.UTC(year, number, 0)).getUTCDate();
  const lead = (first.getUTCDay() + 6) % 7; // Monday first
  const cells = Array.from({ length: lead }, () => null);
  for (let day = 1; day <= length; day += 1) {
    const date = `${year}-${pad(number)}-${pad(day)}`;
    cells.push({ date, day, daily: byDate.get(date) || null });
  }
  while (cells.length % 7) cells.push(null);
  const weeks = [];
  for (let i = 0; i < cells.length; i += 7) weeks.push(cells.slice(i, i + 7));
  return weeks;
}
