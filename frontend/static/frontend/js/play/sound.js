// Sound effects, off until the player turns them on (the play page's switch, kept in this
// browser): short tones made with the Web Audio API (no sound files). `soundOf` is pure
// (unit-tested): which effect an answer deserves.
export const SOUND_KEY = "astrocyte-sound";

// The effect of a batch's answer: the win, a run sent home, a deal, any other move; or the
// refusal of one.
export function soundOf(data, { dealt = false, home = 0 } = {}) {
  if (!data) return "refused";
  if (data.won) return "won";
  if (home > 0) return "home";
  if (dealt) return "deal";
  return "move";
}

// [frequency Hz, start s, length s] for each effect
const TONES = {
  move: [[660, 0, 0.045]],
  deal: [[440, 0, 0.04], [440, 0.06, 0.04], [440, 0.12, 0.04]],
  home: [[523, 0, 0.08], [659, 0.08, 0.08], [784, 0.16, 0.12]],
  won: [[523, 0, 0.1], [659, 0.1, 0.1], [784, 0.2, 0.1], [1047, 0.3, 0.3]],
  refused: [[196, 0, 0.12]],
};

export class Sounds {
  constructor(storage = window.localStorage) {
    this.storage = storage;
    this.context = null;
  }

  get on() {
    try {
      return this.storage.getItem(SOUND_KEY) === "on";
    } catch {
      return false;
    }
  }

  set on(value) {
    try {
      this.storage.setItem(SOUND_KEY, value ? "on" : "off");
    } catch {
      /* storage off: no sound */
    }
  }

  play(name) {
    if (!this.on || !TONES[name]) return;
    const Context = window.AudioContext || window.webkitAudioContext;
    if (!Context) return;
    this.context = this.context || new Context();
    const now = this.context.currentTime;
    for (const [frequency, start, length] of TONES[name]) {
      const oscillator = this.context.createOscillator();
      const gain = this.context.createGain();
      oscillator.frequency.value = frequency;
      gain.gain.setValueAtTime(0.08, now + start);
      gain.gain.exponentialRampToValueAtTime(0.0001, now + start + length);
      oscillator.connect(gain).connect(this.context.destination);
      oscillator.start(now + start);
      oscillator.stop(now + start + length);
    }
  }
}
