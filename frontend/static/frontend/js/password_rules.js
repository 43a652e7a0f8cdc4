// The sign-up form's password rules, checked as the player types: the server's rules
// (GET auth/password-rules/, Django's validators) in its own words, each marked met or not
// where the page can tell (length, only digits, the username in it); the others (a password
// too common) the server checks when the form is sent. Pure: unit-tested.

export function checkRules(rules, minLength, password, username) {
  const name = (username || "").trim().toLowerCase();
  const typed = password || "";
  return rules.map((text) => {
    const rule = text.toLowerCase();
    let met = null; // not told here: the server says
    if (rule.includes("at least")) met = typed.length >= minLength;
    else if (rule.includes("numeric")) met = typed.length > 0 && !/^\d+$/.test(typed);
    else if (rule.includes("similar") || rule.includes("personal")) {
      met = typed.length > 0 && !(name.length >= 3 && typed.toLowerCase().includes(name));
    }
    return { text, met };
  });
}
