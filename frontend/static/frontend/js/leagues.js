// League pages: my leagues (and a new one), one league (today's boards, live; all-time, members,
// invite link, the owner's tools), and the page of an invite link. Everything from the
// leagues API; a league that is not yours is "not found", as the API answers.
import { api, el, errorMessage, formatSeconds, me, progressText, VARIANT_NAMES } from "./api.js";
import { connectLive, PlayingSet } from "./live.js";

const root = document.getElementById("leaguepage");
const $ = (id) => document.getElementById(id);
const mode = root.dataset.mode;

function say(text, kind = "info") {
  $("status").textContent = text;
  $("status").dataset.kind = kind;
}

async function signedIn() {
  const who = await me();
  if (who.authenticated) return who.user;
  $("status").replaceChildren(
    el("a", { href: `/login/?next=${encodeURIComponent(window.location.pathname)}`, text: "Log in" }),
    " to see your leagues and join one.");
  return null;
}

const leagueLink = (league) => el("a", { href: `/leagues/${league.id}/`, text: league.name });

// --- my leagues ---------------------------------------------------------------------------

async function loadList() {
  if (!(await signedIn())) return;
  const answer = await api("GET", "leagues/");
  if (!answer.ok) return say(errorMessage(answer), "error");
  const rows = answer.data.map((league) => el("li", {}, leagueLink(league),
    ` · ${league.member_count} ${league.member_count === 1 ? "member" : "members"}`,
    league.is_owner ? " · yours" : ` · owner ${league.owner}`));
  $("my-leagues").replaceChildren(...(rows.length ? rows : [el("li", { text: "You are in no league yet." })]));
  say(`${rows.length} ${rows.length === 1 ? "league" : "leagues"}.`);
  $("create-form").hidden = false;
}

async function createLeague(event) {
  event.preventDefault();
  const answer = await api("POST", "leagues/", { name: $("league-name").value });
  if (!answer.ok) return say(errorMessage(answer), "error");
  window.location.assign(`/leagues/${answer.data.id}/`);
}

// --- an invite link -----------------------------------------------------------------------

// Signed out, the page names the league and offers to sign up (or log in) and join in one
// go: back here with ?join=1, the new account joins at once.
async function loadJoin() {
  const code = root.dataset.code;
  const [invite, who] = await Promise.all([api("GET", `leagues/invites/${encodeURIComponent(code)}/`), me()]);
  if (!invite.ok) return say(errorMessage(invite), "error");
  const { name, owner, member_count: members, full } = invite.data;
  $("join-text").textContent = `You were invited to the league “${name}” by ${owner} ` +
    `(${members} ${members === 1 ? "member" : "members"}): its boards of every daily, filtered to its members.`;
  if (full) return say("This league is full: it cannot take another member.", "error");
  if (!who.authenticated) {
    const back = encodeURIComponent(`${window.location.pathname}?join=1`);
    $("status").replaceChildren(
      el("a", { class: "button", id: "signup-join", href: `/signup/?next=${back}`, text: `Sign up and join ${name}` }),
      " or ", el("a", { id: "login-join", href: `/login/?next=${back}`, text: "log in and join" }), ".");
    return;
  }
  say("");
  if (new URLSearchParams(window.location.search).get("join") === "1") return join();
  $("join").hidden = false;
}

async function join() {
  const answer = await api("POST", "leagues/join/", { code: root.dataset.code });
  if (!answer.ok) return say(errorMessage(answer), "error");
  window.location.assign(`/leagues/${answer.data.id}/`);
}

// --- one league ---------------------------------------------------------------------------

const leagueId = Number(root.dataset.league);
let league = null;

function boardTable(caption, rows, username, faceDown = null) {
  return el("table", { class: "leaderboard" },
    el("caption", { text: caption }),
    el("thead", {}, el("tr", {}, ...["#", "Player", "Progress", "Score", "Time", "Actions"].map((name) => el("th", { scope: "col", text: name })))),
    el("tbody", {}, ...(rows.length ? rows.map((row) => el("tr", { class: row.username === username ? "me" : null },
      el("td", { text: String(row.rank) }),
      el("td", { text: row.username }),
      el("td", { text: progressText(row, faceDown) }),
      el("td", { text: String(row.score) }),
      el("td", { text: formatSeconds(row.elapsed_seconds) }),
      el("td", { text: String(row.action_count) })))
      : [el("tr", {}, el("td", { colspan: "6", text: "No member has finished yet." }))])));
}

// Today's boards of the league, live: each follows the league's feed of its challenge
// (ws/challenges/<id>/leagues/<league>/): the board and counts on every board push, who is
// playing (runs, cards turned up, actions, deals left) on every progress push.
const liveFeeds = [];
const LIVE_STATES = { connecting: "Live: connecting…", open: "Live", retrying: "Live: reconnecting…", closed: "Live updates unavailable" };

function playingItems(playing, faceDown) {
  const rows = playing.list();
  return rows.length ? rows.map((row) => el("li", { "data-player": row.username },
    el("b", { text: row.username }),
    ` ${progressText(row, faceDown)} · ${row.action_count} actions · ${row.deals_left} ${row.deals_left === 1 ? "deal" : "deals"} left`))
    : [el("li", { text: "No member is playing right now." })];
}

function liveBoard(data, username) {
  const challenge = data.challenge;
  const name = VARIANT_NAMES[challenge.variant] || challenge.variant;
  const caption = `${name} · ${challenge.date}`;
  const faceDown = challenge.face_down_dealt;
  const table = el("div", { class: "table-scroll" }, boardTable(caption, data.top, username, faceDown));
  const counts = el("p", { class: "board-counts" });
  const state = el("p", { class: "live-state", text: LIVE_STATES.connecting });
  const list = el("ul", { class: "playing" });
  const playing = new PlayingSet();
  let finished = data.counts.finished;
  let me = data.me;
  const drawCounts = () => {
    const mine = me ? `Your rank in the league: ${me.rank} of ${finished}.` : "";
    counts.replaceChildren(`${finished} finished · ${playing.count} playing now. ${mine} `,
      el("a", { href: `/play/${challenge.id}/?league=${leagueId}`, text: `Play ${name} and watch the league live` }));
  };
  playing.apply({ type: "snapshot", playing: [], counts: data.counts });
  drawCounts();
  list.replaceChildren(...playingItems(playing, faceDown));
  liveFeeds.push(connectLive(challenge.id, {
    leagueId,
    onMessage(message) {
      if (message.type === "snapshot" || message.type === "board") {
        table.replaceChildren(boardTable(caption, message.top, username, faceDown));
        finished = message.counts.finished;
        if ("me" in message) me = message.me;
      }
      if (message.type === "snapshot" || message.type === "board" || message.type === "progress") {
        playing.apply(message);
        drawCounts();
        list.replaceChildren(...playingItems(playing, faceDown));
      }
    },
    onState(how) {
      state.dataset.state = how;
      state.textContent = LIVE_STATES[how] || "";
    },
  }));
  return el("div", { class: "league-board", "data-challenge": String(challenge.id) },
    state, table, counts, el("h3", { text: `${name}: playing now` }), list);
}

async function loadTodayBoards(username) {
  const today = await api("GET", "challenges/today/");
  if (!today.ok) return;
  const boards = await Promise.all(today.data.challenges.map((c) =>
    api("GET", `leagues/${leagueId}/challenges/${c.id}/`)));
  liveFeeds.splice(0).forEach((feed) => feed.close());
  const sections = boards.filter((answer) => answer.ok).map(({ data }) => liveBoard(data, username));
  $("today-boards").replaceChildren(...(sections.length ? sections : [el("p", { text: "No daily today." })]));
}

async function loadAllTime() {
  const answer = await api("GET", `leagues/${leagueId}/alltime/?days=30`);
  if (!answer.ok) return;
  const rows = answer.data.rows.map((row) => el("tr", {},
    el("td", { text: String(row.rank) }), el("td", { text: row.username }),
    el("td", { text: String(row.total_score) }), el("td", { text: String(row.days) })));
  $("alltime").tBodies[0].replaceChildren(...(rows.length ? rows
    : [el("tr", {}, el("td", { colspan: "4", text: "No member has won a daily in 30 days." }))]));
}

function drawLeague(data, username) {
  league = data;
  $("league-title").textContent = data.name;
  document.title = `${data.name} · Leagues · Astrocyte Daily`;
  $("league-owner").textContent = `Owner: ${data.owner} · ${data.member_count} of ${data.max_members} members`;
  $("invite").hidden = false;
  $("invite-link").value = `${window.location.origin}${data.invite_path}`;
  $("rotate-invite").hidden = !data.is_owner;
  $("members").replaceChildren(...data.members.map((member) => el("li", { "data-member": member.username },
    el("a", { href: `/players/${encodeURIComponent(member.username)}/`, text: member.username }),
    member.owner ? " (owner)" : "",
    data.is_owner && !member.owner
      ? el("button", { type: "button", class: "remove", "aria-label": `Remove ${member.username}`, text: "Remove",
        onclick: () => removeMember(member.username) })
      : null)));
  $("owner-tools").hidden = !data.is_owner;
  $("leave").hidden = data.is_owner;
  const heirs = data.members.filter((member) => member.username !== username);
  $("heir").replaceChildren(...heirs.map((member) => el("option", { value: member.username, text: member.username })));
  $("hand-over").disabled = !heirs.length;
}

async function loadLeague() {
  const user = await signedIn();
  if (!user) return;
  const answer = await api("GET", `leagues/${leagueId}/`);
  if (!answer.ok) {
    say(answer.status === 404 ? "No such league, or you are not a member of it." : errorMessage(answer), "error");
    return;
  }
  drawLeague(answer.data, user.username);
  await Promise.all([loadTodayBoards(user.username), loadAllTime()]);
  say(`${answer.data.name}: ${answer.data.member_count} ${answer.data.member_count === 1 ? "member" : "members"}.`);
}

async function act(method, path, body, done) {
  const answer = await api(method, path, body);
  if (!answer.ok) return say(errorMessage(answer), "error");
  await done(answer);
}

const removeMember = (username) => act("DELETE", `leagues/${leagueId}/members/${encodeURIComponent(username)}/`,
  undefined, async () => { await loadLeague(); say(`${username} was removed.`); });

function wireLeague() {
  $("copy-invite").addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText($("invite-link").value);
      say("Invite link copied.");
    } catch {
      $("invite-link").select();
    }
  });
  $("rotate-invite").addEventListener("click", () => act("POST", `leagues/${leagueId}/invite/`, undefined,
    async (answer) => {
      $("invite-link").value = `${window.location.origin}${answer.data.invite_path}`;
      say("A new invite link: the old one no longer works.");
    }));
  $("hand-over").addEventListener("click", () => act("POST", `leagues/${leagueId}/owner/`, { username: $("heir").value },
    async () => { await loadLeague(); say(`${league.owner} owns the league now.`); }));
  $("delete-league").addEventListener("click", () => {
    if (!window.confirm(`Delete ${league.name} for every member?`)) return;
    act("DELETE", `leagues/${leagueId}/`, undefined, async () => window.location.assign("/leagues/"));
  });
  $("leave").addEventListener("click", () => act("POST", `leagues/${leagueId}/leave/`, undefined,
    async () => window.location.assign("/leagues/")));
}

// The page is drawn (tests wait for it).
const ready = () => { root.dataset.ready = "true"; };

if (mode === "list") {
  $("create-form").addEventListener("submit", createLeague);
  loadList().finally(ready);
} else if (mode === "join") {
  $("join").addEventListener("click", join);
  loadJoin().finally(ready);
} else {
  wireLeague();
  loadLeague().finally(ready);
}
